"""A "how do I ...?" question asks for a procedure: its numbered steps, all of them, in order.

Quoted as other lists are, a procedure gives the one or two steps that share the most words with
the question ("How do I descale the machine?" finds "Press and hold the descale key"), or its
start cut short, and a step from its part after a page or column break apart from the rest. The
steps are quoted whole instead, from every part the graph ties together, after the sentence that
leads into them. A list of unnumbered items a sentence leads into ("... contact us in one of
these ways:") is the ways asked for: it is quoted whole after that sentence, when it fits a quote.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from itertools import pairwise

from docgraph.app.llm.context import Context, Passage, leads_in, regions_by_id
from docgraph.app.llm.quote_length import MAX_QUOTE_CHARS, cut, cut_start
from docgraph.app.stores import cypher
from docgraph.app.stores.base import GraphStore

_HOW_TO = re.compile(
    r"^\W*(?:how\s+(?:do|can|should|must|would|to)\b|what\s+(?:are\s+)?(?:the\s+)?steps\b"
    r"|what\s+is\s+the\s+procedure\b|(?:describe|list)\s+the\s+(?:steps|procedure)\b)",
    re.IGNORECASE,
)
_STEP = re.compile(r"^\s*\(?(\d{1,3})[.)]\s")  # "3. ", "3) ", "(3) "
MAX_PARTS = 12  # a procedure run on over this many pages or columns is read no further


def asks_how_to(question: str) -> bool:
    """``question`` asks how to do something ("How do I descale the machine?", "How to reset ...")."""
    return _HOW_TO.match(question) is not None


def steps(text: str) -> list[str]:
    """The numbered steps of a list's text, each with the lines it wraps onto; none when its items
    are not numbered one after another."""
    found: list[str] = []
    numbers: list[int] = []
    for line in text.splitlines():
        if not line.strip():
            continue
        mark = _STEP.match(line)
        if mark is not None:
            found.append(line.strip())
            numbers.append(int(mark.group(1)))
        elif found:
            found[-1] = f"{found[-1]} {line.strip()}"
        else:
            return []
    consecutive = all(b == a + 1 for a, b in pairwise(numbers))
    return found if len(found) >= 2 and consecutive else []


def _parts(passage: Passage, context: Context) -> list[Passage]:
    """``passage`` and the parts of its list before and after page or column breaks, in order."""
    parts = [passage]
    while (earlier := context.neighbour(parts[0], "continued_from")) is not None and earlier.kind == "list":
        if any(earlier.region_id == part.region_id for part in parts):
            break
        parts.insert(0, earlier)
    while (later := context.neighbour(parts[-1], "continues")) is not None and later.kind == "list":
        if any(later.region_id == part.region_id for part in parts):
            break
        parts.append(later)
    return parts


def procedure_quote(passage: Passage, context: Context) -> tuple[str, list[Passage]] | None:
    """The whole procedure ``passage`` is a part of, or leads into, and the passages quoted: its
    lead-in, then every step of every part (each step cut to a quote's length); an unnumbered list
    after its lead-in whole (:func:`_led_list_quote`); None when ``passage`` is neither a list nor
    the sentence leading into one."""
    procedure: Passage | None = passage
    lead = context.neighbour(passage, "lead_in")
    if leads_in(passage):
        procedure, lead = context.neighbour(passage, "next"), passage
    if procedure is None or procedure.kind != "list":
        return None
    if not steps(procedure.text):
        return _led_list_quote(procedure, lead)
    parts = _parts(procedure, context)
    if parts[0].region_id != procedure.region_id:  # the hit was a later part: the lead-in of the first
        lead = context.neighbour(parts[0], "lead_in") or (lead if lead is passage else None)
    quote = " ".join(cut(step) for part in parts for step in steps(part.text) or [" ".join(part.text.split())])
    if lead is None:
        return quote, parts
    return f"{cut_start(lead.text.strip())}” “{quote}", [lead, *parts]


def _led_list_quote(items: Passage, lead: Passage | None) -> tuple[str, list[Passage]] | None:
    """An unnumbered list after the sentence that leads into it, all its items in order, when the
    list fits a quote: quoted as other lists are, only the item sharing the most words with the
    question would follow "... in one of these ways:". None without a lead-in or for a long list."""
    text = " ".join(items.text.split())
    if lead is None or not leads_in(lead) or not text or len(text) > MAX_QUOTE_CHARS:
        return None
    return f"{cut_start(lead.text.strip())}” “{text}", [lead, items]


def list_parts(store: GraphStore, lists: Sequence[Passage]) -> list[Passage]:
    """The parts of the numbered ``lists`` over page and column breaks, each as the context of the
    part it continues or is continued from (``via="continues"``, ``"continued_from"``): a list
    reached as the text after its lead-in has no graph context of its own."""
    found: list[Passage] = []
    seen = {item.region_id for item in lists}
    wanted = [item.region_id for item in lists if item.kind == "list" and steps(item.text)]
    for _ in range(MAX_PARTS):
        if not wanted:
            break
        rows = store.read(cypher.load("llm_list_parts", store.dialect), {"ids": wanted})
        ids = list(dict.fromkeys(str(row["region_id"]) for row in rows))
        parts = {p.region_id: p for p in regions_by_id(store, ids) if p.kind == "list"}
        found += [
            replace(parts[str(row["region_id"])], via=str(row["via"]), of_hit=str(row["hit"]))
            for row in rows
            if str(row["region_id"]) in parts
        ]
        wanted = [region_id for region_id in parts if region_id not in seen]
        seen.update(parts)
    return found

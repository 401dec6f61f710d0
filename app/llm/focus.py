"""Each passage cut to what bears on the question, before the generator reads it.

A long region is split into units (sentences; lines of a table, code or list) and only the few
units that share the question's words best are kept, a word counting for less the more units of
the context hold it; the rest is elided with "…". What a generator must read before the evidence
is noise (LOGOS's cost of noise): a 300-word paragraph ahead of the hit that answers leaves the
answer past any small reading budget. Short passages are read whole; a
long one that shares no word with the question keeps its lead, so its place still reads, unless
the retriever ranked it itself (it matched by meaning, and the whole region is the evidence).
The region stays whole in the store, in citations and in the evidence shown; only the prompt is cut.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from docgraph.app.llm.context import Passage
from docgraph.app.llm.text_units import is_table_rule, sentences
from docgraph.app.retrieval.text import tokenize

FOCUS_MIN_WORDS = 40  # a passage of at most this many words is read whole
KEPT_UNITS = 4  # what a long passage keeps: its units that match the question best
LEAD_WORDS = 12  # what a passage without a matching unit keeps of its start
ELISION = "…"
LINE_KINDS = frozenset({"table", "code", "list", "formula"})  # read line by line, not sentence by sentence


def focus_passages(passages: Iterable[Passage], question: str, enabled: bool = True) -> list[Passage]:
    """``passages`` with each long one's ``excerpt`` set to its units that match ``question`` best
    (``enabled`` False: as they are, the ``context_focus`` setting)."""
    items = list(passages)
    terms = frozenset(tokenize(question))
    if not enabled or not terms:
        return items
    split = {p.region_id: _Units.of(p) for p in items if len(p.text.split()) > FOCUS_MIN_WORDS}
    weights = _term_weights(terms, [tokens for units in split.values() for tokens in units.tokens])
    return [_focused(p, split[p.region_id], weights) if p.region_id in split else p for p in items]


@dataclass(frozen=True, slots=True)
class _Units:
    texts: list[str]
    tokens: list[frozenset[str]]
    by_lines: bool

    @classmethod
    def of(cls, passage: Passage) -> _Units:
        by_lines = passage.kind in LINE_KINDS or passage.text.count("\n") >= 3
        texts = _lines(passage.text) if by_lines else sentences(passage.text)
        return cls(texts, [frozenset(tokenize(text)) for text in texts], by_lines)


def _term_weights(terms: frozenset[str], units: Sequence[frozenset[str]]) -> dict[str, float]:
    """Each question term's weight among the units read: a term most units share tells little."""
    return {term: math.log(1 + len(units) / (1 + sum(term in unit for unit in units))) for term in terms}


def _focused(passage: Passage, units: _Units, weights: dict[str, float]) -> Passage:
    scores = [sum(weights.get(token, 0.0) for token in tokens) for tokens in units.tokens]
    best = sorted((i for i, score in enumerate(scores) if score > 0), key=lambda i: -scores[i])[:KEPT_UNITS]
    if not best:
        if passage.via == "retrieved":
            return passage
        return replace(passage, excerpt=" ".join(passage.text.split()[:LEAD_WORDS]) + " " + ELISION)
    kept = set(best) | {i for i, text in enumerate(units.texts) if _is_header(text, i, units.by_lines)}
    if passage.via == "continues":  # its first unit ends the sentence the page before began
        kept.add(0)
    elif passage.via == "continued_from":
        kept.add(len(units.texts) - 1)
    if len(kept) == len(units.texts):
        return passage
    return replace(passage, excerpt=_joined(units.texts, sorted(kept), "\n" if units.by_lines else " "))


def _lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.strip()]


def _is_header(unit: str, index: int, by_lines: bool) -> bool:
    """A table's first line and its rule under it: kept so that the rows kept still read as columns."""
    return by_lines and ((index == 0 and unit.lstrip().startswith("|")) or is_table_rule(unit))


def _joined(units: Sequence[str], kept: Sequence[int], separator: str) -> str:
    """The kept units in order, an elision mark wherever units were left out."""
    parts: list[str] = []
    previous = -1
    for index in kept:
        if index > previous + 1:
            parts.append(ELISION)
        parts.append(units[index])
        previous = index
    if previous < len(units) - 1:
        parts.append(ELISION)
    return separator.join(parts)

"""The answer without an LLM: the best evidence passages quoted, each with its citation tag.

From each of the best-ranked retrieved regions the sentences that share the most words with the
question are quoted (a window of up to two sentences), so the reader sees the part that matters
rather than a whole page. From a table, its header row and the rows that share the most words with
the question are quoted, so the row that answers is there however far down the table it is; from a
list, its items count as sentences (an option list's items end in no full stop before the next),
and a list no item of which holds the question's words is quoted from its start. A
sentence cut by a page break is quoted whole, from both parts, and a figure found without text of
its own by its caption. A bare line (a reference manual's definition line, "int f(const char *s)")
says nothing alone: it is quoted with the start of the description after it. A code listing is
quoted line by line as it is set, from its top (or from the line that matches best, when that lies
further down than a quote holds), run on into its part on the next page.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from docgraph.app.llm.citations import Citation, cite_passages
from docgraph.app.llm.context import Context, Passage, leads_in
from docgraph.app.llm.float_quotes import captions_for_bare_hits
from docgraph.app.llm.heading_hits import bodies_for_heading_hits, has_words, says_nothing, says_something
from docgraph.app.llm.procedures import asks_how_to, procedure_quote
from docgraph.app.llm.question_terms import content_words, shared_words, terms_in
from docgraph.app.llm.quote_length import MAX_QUOTE_CHARS, cut, cut_start
from docgraph.app.llm.table_quotes import best_rows_quote, code_rows, markdown_rows, subtotal_over_break
from docgraph.app.llm.text_units import sentences
from docgraph.app.retrieval.kinds import named_label_words
from docgraph.app.retrieval.named_parts import (
    named_citations,
    named_conditions,
    named_notes,
    named_paragraphs,
    part_label_words,
)
from docgraph.app.retrieval.named_series import series_words
from docgraph.app.retrieval.table_rows import named_rows
from docgraph.ingest.pdf.text import ends_sentence, join_two

_ITEM_MARK = re.compile(r"^\s*([•◦▪▫▸►‣∙·○■□➢✓*–—-]|\d{1,2}[.)]|[a-z][.)])\s")
_ITEM_NUMBER = re.compile(r"^\s*[(\[]?(\d{1,3})[.)\]]?\s")  # "7. Ibid., 77", "(7) ...", "[7] ..."
MAX_PASSAGES = 3
WINDOW_SENTENCES = 2
# a list item that ends one part of a sentence the list enumerates: "...;", "...; and", "...; or", or
# leads into its own parts: "(a) ... an agreement which:" over its "(i)", "(ii)"
_CLAUSE_END = re.compile(r"(?:;(?:\s+(?:and|or))?|:)\s*$")
_LAST_CLAUSE_END = re.compile(r";\s+(?:and|or)\s*$")  # "...; and" before the last part
DESCRIPTION_KINDS = frozenset({"paragraph", "list"})
BARE_LINE_CHARS = 600  # a group of definitions sharing one description (@deftypefunx) runs to several
DESCRIPTION_SLACK = 2.0  # points a description may start left of its definition line
NO_EVIDENCE = "No passage of the stored documents matches this question."


@dataclass
class ExtractiveAnswer:
    text: str
    citations: list[Citation]
    passages: list[Passage]


def extractive_answer(question: str, context: Context, max_passages: int = MAX_PASSAGES) -> ExtractiveAnswer:
    """Up to ``max_passages`` quotes of the best passages; a passage already quoted as the other
    part of a sentence cut by a page break is not quoted again, nor a quote said word for word."""
    # the words naming a part ("Schedule 2", "clause 8.3") say where the answer is, not which of its
    # sentences: the "2" of "Schedule 2" would choose the schedule's item "2." for the quote
    # (and those naming a table or figure: the "2" of "Table 2" would choose its rows holding "±2")
    terms = content_words(question) - part_label_words(question) - named_label_words(question)
    terms -= series_words(question, (p.text for p in context.passages if p.kind == "section_header"))  # "Ground 1"
    # the item of a list of notes or conditions that the question names by number is its quote
    # (and a schedule's paragraph named with its schedule: "paragraph 3 of Schedule 2")
    notes = frozenset(number for number, _ in named_notes(question)) | frozenset(named_conditions(question))
    notes |= frozenset(named_paragraphs(question)) | frozenset(named_citations(question))  # "reference [2]"
    lines: list[str] = []
    quoted: list[Passage] = []
    said: set[str] = set()
    how_to = asks_how_to(question)
    for passage in best_passages(context, len(context.passages), terms):
        if len(lines) == max_passages:
            break
        if any(passage.region_id == part.region_id for part in quoted):
            continue
        procedure = procedure_quote(passage, context) if how_to else None  # every step, in order
        quote, parts = procedure or quote_across_breaks(passage, context, terms, notes)
        lead = None if procedure else context.neighbour(passage, "lead_in")
        if lead is not None and all(lead.region_id != part.region_id for part in quoted):
            quote, parts = f"{cut_start(lead.text.strip())}” “{quote}", [lead, *parts]
        if procedure is None:
            quote, parts = _with_its_float(passage, context, quote, parts, terms, quoted)
        if quote in said:  # a slide repeated (an agenda before each part, a beamer frame's overlays)
            continue
        said.add(quote)
        described = None if procedure else _description(passage, context)
        if described is not None and all(described.region_id != part.region_id for part in quoted):
            quote, parts = f"{quote}” “{_description_quote(passage, described, terms)}", [*parts, described]
        tags = " ".join(f"[{context.tag_of(part)}]" for part in parts)
        lines.append(f"{len(lines) + 1}. “{quote}” {tags}")
        quoted += parts
    if not lines:
        return ExtractiveAnswer(NO_EVIDENCE, [], [])
    evidence = list({part.region_id: part for part in quoted}.values())  # a part quoted twice is one
    return ExtractiveAnswer("\n".join(lines), cite_passages(evidence, context), evidence)


def _with_its_float(
    passage: Passage, context: Context, quote: str, parts: list[Passage], terms: set[str], quoted: list[Passage]
) -> tuple[str, list[Passage]]:
    """A figure or table and its caption are one float, quoted as one: the caption, then the
    figure's own words (a diagram's block names, a chart's axes) or the table's rows that answer,
    whichever of the two was found, both cited. Two quotes of one chart or table would leave no
    room for the passage that states the value asked about."""
    partner = None
    if passage.kind in ("figure", "table"):
        partner = context.neighbour(passage, "caption")
    elif passage.kind == "caption" and (float_ := context.neighbour(passage, "captioned")) is not None:
        partner = float_ if float_.kind == "table" or (float_.kind == "figure" and has_words(float_.text)) else None
    if partner is None or not partner.text.strip() or any(partner.region_id == part.region_id for part in quoted):
        return quote, parts
    if partner.kind == "caption":
        return f"{cut(' '.join(partner.text.split()))}” “{quote}", [partner, *parts]
    return f"{quote}” “{quote_passage(partner, terms)}", [*parts, partner]


def bare_line(passage: Passage) -> bool:
    """A line that answers nothing alone: one line of code or text that is no sentence, as a
    reference manual's definition line ("int config_read_file (config_t * config, ...)") is, or a
    group of them; not prose cut short by a page break ("... They store the value at value and").
    Also a short paragraph that leads into what follows it, ending in a colon ("Very common (may
    affect more than 1 in 10 people):" over the side effects)."""
    text = passage.text.strip()
    short = "\n" not in text and len(text) <= BARE_LINE_CHARS
    one_line = short and len(sentences(text)) == 1  # no prose cut short
    # a lead-in: "Very common (may affect 1 in 10 people):", "... In particular, tell them if you take:"
    if short and leads_in(passage):
        return True
    return passage.kind in ("code", "paragraph") and one_line and not ends_sentence(text)


def _description(passage: Passage, context: Context) -> Passage | None:
    """The paragraph or list after a bare line, its description; not another bare line (the next
    definition of a group, which shares the description after it) nor the rest of text cut by a
    page break (quoted as such)."""
    if not bare_line(passage) or context.neighbour(passage, "continues") is not None:
        return None
    described = context.neighbour(passage, "next")
    if described is None or described.kind not in DESCRIPTION_KINDS or not described.text.strip():
        return None
    return None if bare_line(described) or _left_of(described, passage) else described


def _description_quote(line: Passage, described: Passage, terms: set[str]) -> str:
    """The part of the description of ``line`` that answers: its best sentences, or the items of a
    list that name the question's words ``line`` and the other items do not ("Do not take
    Zelvarex:" asked about simvastatin, a list of weight bands asked about 20 kg), else the list
    from its start, as much as a quote holds: the list a lead-in opens is its answer ("Very common
    (may affect 1 in 10 people):" over the side effects it names; no band holds 50 kg)."""
    if described.kind != "list":
        return best_quote(described.text, terms, described.kind)
    rest = terms - terms_in(terms, line.text)
    items = [terms_in(rest, item) for item in described.text.splitlines() if item.strip()]
    rest -= items[0].intersection(*items[1:]) if items else set()  # "kg" in every band names none
    if not shared_words(rest, described.text):
        return cut(" ".join(described.text.split()))
    return best_quote(described.text, rest, described.kind)


def _left_of(described: Passage, line: Passage) -> bool:
    """``described`` starts left of ``line``: no description under it, as a definition's is (set
    at its edge or indented), but the next text of the page, as the paragraph after an invoice's
    totals set flush right ("Subtotal 2,596.00 ... Total GBP 3,115.20")."""
    return bool(described.bbox and line.bbox) and described.bbox[0] < line.bbox[0] - DESCRIPTION_SLACK


def best_passages(context: Context, limit: int, terms: set[str] | None = None) -> list[Passage]:
    """The highest-scored retrieved passages with content; headings and graph context only when
    nothing better was found (a bare heading answers nothing). A figure or table hit without text
    stands for its caption, and a heading hit for its section's text (``terms``: the question's)."""
    found = bodies_for_heading_hits(context, captions_for_bare_hits(context), terms or set())
    with_text = [p for p in found if p.text.strip() or p.description.strip()]
    ranked = sorted(with_text, key=lambda p: (not context.is_hit(p), says_nothing(p), -p.score))
    content = [p for p in ranked if says_something(context, p)]
    return (content or ranked)[:limit]


def quote_across_breaks(
    passage: Passage, context: Context, terms: set[str], notes: frozenset[int] = frozenset()
) -> tuple[str, list[Passage]]:
    """The quote of ``passage`` and the passages it is taken from: a best window that reaches the
    start (end) of a paragraph cut by a page break begins with the last sentence of the part before
    it (ends with the first sentence of the part after it). From a list of notes, the item numbered
    as one of the ``notes`` the question names is the window."""
    text = passage.text or passage.description
    if passage.kind == "table":
        return _table_across_breaks(passage, context, terms)
    if not text.strip():
        return quote_passage(passage, terms), [passage]
    if passage.kind == "code":
        return _code_across_breaks(passage, context, terms)
    units = quote_units(text, passage.kind)
    whole = unchosen_list(units, terms, passage.kind)
    start, end = (
        asked_item(text, passage.kind, notes) or whole or best_window(units, terms, item_starts(text, passage.kind))
    )
    parts, before, after = [passage], [], []
    earlier = context.neighbour(passage, "continued_from") if start == 0 else None
    if earlier is not None and (earlier_units := sentences(earlier.text)):
        before, parts = [cut_start(earlier_units[-1])], [earlier, *parts]
    fits = whole is None or len(" ".join(units)) <= MAX_QUOTE_CHARS  # a list cut short runs on into nothing
    later = context.neighbour(passage, "continues") if end == len(units) and fits else None
    if later is not None and (later_units := sentences(later.text)):
        after, parts = [cut(later_units[0])], [*parts, later]
    window = " ".join(units[start:end])
    quote = ""
    for piece in [*before, cut_start(window) if after else cut(window), *after]:
        quote = join_two(quote, piece)
    return quote, parts


def _table_across_breaks(passage: Passage, context: Context, terms: set[str]) -> tuple[str, list[Passage]]:
    """A table's quote: of a table cut by a page break, the part that holds the row of a code the
    question names ("E14"), whichever part was retrieved; a group named by its label that runs on
    over the break, with its subtotal opening the next part."""
    later = context.neighbour(passage, "continues")
    for part in (passage, later, context.neighbour(passage, "continued_from")):
        if part is not None and part.kind == "table" and code_rows(markdown_rows(part.text)[1:], terms):
            return quote_passage(part, terms), [part]
    named = named_rows(passage.text) if later is not None and later.kind == "table" else None
    if later is not None and named is not None:
        rows, following = markdown_rows(passage.text), markdown_rows(later.text)
        subtotal = subtotal_over_break(rows, terms, named.labels, following)
        if subtotal:
            return cut(f"{quote_passage(passage, terms)} {subtotal}"), [passage, later]
    return quote_passage(passage, terms), [passage]


def _code_across_breaks(passage: Passage, context: Context, terms: set[str]) -> tuple[str, list[Passage]]:
    """A listing's quote (:func:`code_window`) and the parts it is taken from: a listing cut by a
    page break runs on into its part on the next page while the quote has room."""
    later = context.neighbour(passage, "continues")
    parts = [passage] if later is None else [passage, later]
    spans = [_code_lines(part.text) for part in parts]
    lines = [line for span in spans for line in span]
    start, end = code_window(lines, terms)
    firsts = [sum(len(span) for span in spans[:i]) for i in range(len(spans))]  # each part's first line
    quoted = [first < end and start < first + len(span) for first, span in zip(firsts, spans, strict=True)]
    taken = [part for part, used in zip(parts, quoted, strict=True) if used]
    return _code_text(lines, start, end), taken


def _code_lines(text: str) -> list[str]:
    return [line.rstrip() for line in text.strip("\n").splitlines()]


def code_window(lines: list[str], terms: set[str]) -> tuple[int, int]:
    """Where a listing's quote starts and ends: its lines as set (indents and line breaks kept: code
    run into one line reads as none), from the first or, when the line sharing the most words with
    the question lies beyond what a quote holds, from that line; as many lines as fit."""
    best = max(range(len(lines)), key=lambda i: shared_words(terms, lines[i]))
    start = 0 if len("\n".join(lines[: best + 1])) <= MAX_QUOTE_CHARS else best
    end, size = start + 1, len(lines[start])
    while end < len(lines) and size + 1 + len(lines[end]) <= MAX_QUOTE_CHARS:
        size, end = size + 1 + len(lines[end]), end + 1
    return start, end


def _code_text(lines: list[str], start: int, end: int) -> str:
    """The lines quoted, "…" on a line of its own where the listing goes on."""
    return "\n".join(lines[start:end] + (["…"] if end < len(lines) else []))


def best_window(units: list[str], terms: set[str], starts: frozenset[int] = frozenset()) -> tuple[int, int]:
    """Where the window of up to ``WINDOW_SENTENCES`` sentences sharing the most words with the
    question starts and ends (the first such window); a window ends before one of ``starts`` (a
    list item's first sentence), so that an option's quote does not run into the next one's."""

    def end_of(i: int) -> int:
        return min([i + WINDOW_SENTENCES, len(units), *(s for s in starts if s > i)])

    start = max(range(len(units)), key=lambda i: shared_words(terms, " ".join(units[i : end_of(i)])))
    return start, end_of(start)


def unchosen_list(units: list[str], terms: set[str], kind: str) -> tuple[int, int] | None:
    """A list none of whose items holds a word of the question's (``terms``: "What is in Schedule
    2?" asks for the part whole, its words name it): all its items, from its start, which the quote
    cuts to what it holds; nothing chooses its first item over the others."""
    if kind != "list" or len(units) < 2 or any(shared_words(terms, unit) for unit in units):
        return None
    return 0, len(units)


def asked_item(text: str, kind: str, notes: frozenset[int]) -> tuple[int, int] | None:
    """Where the list item numbered as one of the ``notes`` a question names ("What does note 7 of
    chapter 3 say?") starts and ends among the :func:`quote_units`, counted over the same items: a
    chapter's notes gathered at its end are one list, whose other items share the question's words
    as well (note 3 holds the chapter's "3")."""
    if kind != "list" or not notes:
        return None
    start = 0
    for item in list_items(text):
        count = len(sentences(item))
        found = _ITEM_NUMBER.match(item)
        if found and count and int(found.group(1)) in notes:
            return start, start + count
        start += count
    return None


def quote_passage(passage: Passage, terms: set[str]) -> str:
    if passage.kind == "table" and len(table_rows := markdown_rows(passage.text)) > 1:
        named = named_rows(passage.text)
        return best_rows_quote(table_rows, terms, named.labels if named else ())
    return best_quote(passage.text or passage.description, terms, passage.kind)


def best_quote(text: str, terms: set[str], kind: str = "paragraph") -> str:
    """The window of sentences sharing the most words with the question, cut to a readable length."""
    units = quote_units(text, kind)
    start, end = best_window(units, terms, item_starts(text, kind))
    return cut(" ".join(units[start:end]))


def quote_units(text: str, kind: str) -> list[str]:
    """What a quote is made of: ``text``'s sentences, a list's taken item by item (its lines), so
    that "--timeout MS Connect timeout ... (default 5000)." is not run into the items around it."""
    lines = list_items(text) if kind == "list" else [text]
    if kind == "list" and enumerates_one_sentence(lines):
        return [" ".join(" ".join(lines).split())]
    return [unit for line in lines for unit in sentences(line)] or [" ".join(text.split())]


def item_starts(text: str, kind: str) -> frozenset[int]:
    """Where each item of a list starts among its :func:`quote_units` (none for other kinds)."""
    if kind != "list" or enumerates_one_sentence(list_items(text)):
        return frozenset()
    counts = [len(sentences(line)) for line in list_items(text)]
    return frozenset(sum(counts[:i]) for i in range(1, len(counts)))


def enumerates_one_sentence(items: list[str]) -> bool:
    """Whether a list's ``items`` are the parts of one sentence: each but the last ending in a
    semicolon, the one before the last in "; and" or "; or" (a contract's "(a) the Tenant has paid
    ...;" "(b) ...; and" "(c) ..."). It is quoted whole, as one unit: one condition alone says what
    the sentence does not. A command list's items ending in semicolons ("h help;") join no "and"."""
    return (
        len(items) > 1
        and all(_CLAUSE_END.search(item) for item in items[:-1])
        and _LAST_CLAUSE_END.search(items[-2]) is not None
    )


def list_items(text: str) -> list[str]:
    """A list's items, each with its sub-items: a line opening with another mark than the list's
    first line ("– Glycolysis, in the cytosol" under "• The three phases of respiration") goes on
    its item, so that the item is quoted with what it introduces."""
    lines = [line for line in text.splitlines() if line.strip()]
    first = _item_mark(lines[0]) if lines else None
    items: list[str] = []
    for line in lines:
        mark = _item_mark(line)
        if items and first is not None and mark is not None and mark != first:
            items[-1] = f"{items[-1]} {line.strip()}"
        else:
            items.append(line)
    return items


def _item_mark(line: str) -> str | None:
    """The kind of mark ``line`` opens with: its bullet glyph, "1." for a number, "a." for a letter."""
    match = _ITEM_MARK.match(line)
    if match is None:
        return None
    mark = match.group(1)
    return "1." if mark[0].isdigit() else "a." if mark[0].isalpha() else mark

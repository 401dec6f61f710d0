"""Paragraphs and tables that run on past a page break, and paragraphs that run on past a column
break (the foot of one column to the top of the next, in two-column papers) or a pull quote set inside
their column, get ``continues=True``.
A list item cut by a page break runs on in a paragraph (its tail has no bullet); a paragraph runs
on past a table set at the top of the next page; a code listing runs on into the code opening the
next page when its text says it is cut (a bracket left open, a line that goes on, an indented start)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import pairwise

from docgraph.ingest.floats.tables import to_markdown
from docgraph.ingest.labels import CONTINUED
from docgraph.ingest.page.classify import FOOTNOTE_MARK
from docgraph.ingest.pdf.text import LINE_HYPHENS, ends_sentence, join_two, starts_lowercase, unspaced_between
from docgraph.ingest.types import PageLayout, Region
from docgraph.records import FURNITURE_KINDS, RegionKind

# Regions that float or sit outside the text flow; a page break inside the flow skips them.
_OUT_OF_FLOW: frozenset[RegionKind] = FURNITURE_KINDS | {"footnote", "figure", "caption"}
_RUNS_ON = (",", "-", "\u2010", "(", "[", "/", "&", "_", "，", "、", "（")  # "_": a name cut ("CONFIG_")
_RUNNING_TEXT: frozenset[RegionKind] = frozenset({"paragraph", "list"})
COLUMN_WIDTH_TOLERANCE = 0.15  # the two parts of a paragraph split by a column break are set as wide
COLUMN_GAP_SLACK = 2.0  # points of overlap allowed between two columns' boxes
PULL_QUOTE_SCALE = 1.2  # a pull quote is set this much larger than the text it interrupts, at least
PULL_QUOTE_WORDS = 4
_SERIES_NAME = re.compile(r"(?<![\w.-])[A-Z]{2,5}$")  # "RFC", "ISO", "BCP": a number follows
_ITEM_MARK = re.compile(r"^\s*(\(?)(\d{1,3}|[a-z])([.)])\s")  # "5. ", "(5) ", "e) "


def _flow(page: PageLayout) -> list[Region]:
    return [r for r in sorted(page.regions, key=lambda r: r.order) if r.kind not in _OUT_OF_FLOW]


def paragraph_continues(last: Region, first: Region) -> bool:
    """The paragraph ending page k goes on in the paragraph starting page k+1.

    It must not end like a sentence, and the next page must start mid-sentence: with a
    lowercase word, or right after a comma, hyphen or open bracket; in Chinese or Japanese, which
    have no lowercase, with a character of theirs after one. A number has no case, but style guides
    spell out a number that opens a sentence: a paragraph cut after a lowercase word ("the server
    draws") goes on in one that starts with a numeral ("731 W at full load").
    """
    if last.kind not in _RUNNING_TEXT or first.kind != "paragraph" or not last.text or not first.text:
        return False
    if ends_sentence(last.text):
        return False
    runs_on = last.text.rstrip().endswith(_RUNS_ON) or unspaced_between(last.text, first.text)
    return starts_lowercase(first.text) or runs_on or _number_runs_on(last, first)


def list_continues(last: Region, first: Region) -> bool:
    """The numbered list ending page k (or a column) goes on in the list opening page k+1 (the next
    column): its first item carries the number after the last item's, marked alike ("5." | "6.",
    "(c)" | "(d)"). A list that starts again at 1 is another list."""
    if last.kind != "list" or first.kind != "list":
        return False
    marks = [found for line in last.text.splitlines() if (found := _ITEM_MARK.match(line))]
    opening = _ITEM_MARK.match(first.text)
    if not marks or opening is None:
        return False
    before, after = marks[-1], opening
    if (before.group(1), before.group(3)) != (after.group(1), after.group(3)):
        return False
    a, b = before.group(2), after.group(2)
    if a.isdigit() and b.isdigit():
        return int(b) == int(a) + 1
    return a.isalpha() and b.isalpha() and ord(b) == ord(a) + 1


def _next_column(last: Region, first: Region) -> bool:
    """``first`` heads the column right of the one ``last`` ends: wholly to its right, above its middle."""
    a, b = last.bbox, first.bbox
    return b.x0 >= a.x1 - COLUMN_GAP_SLACK and b.y0 < (a.y0 + a.y1) / 2


def code_continues(last: Region, first: Region) -> bool:
    """The listing ending page k goes on in the code starting page k+1: it leaves a bracket open
    (``{`` of a function body) or ends a line that goes on (``\\``, ``,``), or the next part opens
    indented or closing a bracket. A listing that ends and one that starts at its margin, as two
    definition lines of a reference manual do, may be two: they are left apart."""
    if last.kind != "code" or first.kind != "code" or not last.text.strip() or not first.text.strip():
        return False
    text = last.text.rstrip()
    open_brackets = sum(text.count(ch) for ch in "([{") - sum(text.count(ch) for ch in ")]}")
    opening = first.text.lstrip("\n")
    indented = opening[:1].isspace() or opening.lstrip().startswith((")", "]", "}"))
    return open_brackets > 0 or text.endswith(("\\", ",")) or indented


def _number_runs_on(last: Region, first: Region) -> bool:
    """A paragraph stopping on a lowercase word, set as wide as the next, which starts with a
    numeral; a short line without a full stop is more often a byline or a label than a cut
    sentence ("Prepared by the operations team" | "2023 was a difficult year"). A paragraph or an
    entry of a list may also stop on the capitals that name a series before its number, as a
    reference does ("BCP 14, RFC" | "2119, March 1997.", "ISO" | "9001")."""
    left, right = last.text.rstrip(), first.text.lstrip()
    as_wide = last.bbox.width >= (1.0 - COLUMN_WIDTH_TOLERANCE) * first.bbox.width
    if not (as_wide and right[:1].isdigit()):
        return False
    return (last.kind == "paragraph" and left[-1].islower()) or _SERIES_NAME.search(left) is not None


def table_continues(last: Region, first: Region) -> bool:
    """A table ends page k and a table with the same number of columns starts page k+1.

    A next-page table that opens with a title row (one filled cell across several columns)
    different from the previous table's first row is a new table, not a continuation.
    """
    if last.kind != "table" or first.kind != "table" or not last.cells or not first.cells:
        return False
    columns = max(len(r) for r in last.cells)
    if columns != max(len(r) for r in first.cells):
        return False
    opening = first.cells[0]
    titled = columns > 1 and sum(1 for cell in opening if cell) == 1
    return not titled or opening == last.cells[0]


def _repeat_header(last: Region, first: Region) -> None:
    """A table continued without its header row takes the header of the part it continues, so that
    its rows still read as columns: "S-221 | 45" alone names no column, in a quote or an embedding.
    A first row with a cell that holds no word ("40", a grid of numbers) is data, not a header: it is
    not repeated; nor is one the continuation repeats already, up to case and spacing. An empty
    header row (a part read as label and value rows alone) gives way to it."""
    assert last.cells and first.cells
    header = last.cells[0]
    words = [cell for cell in header if cell.strip()]
    if (
        words
        and all(any(ch.isalpha() for ch in cell) for cell in words)
        and _row_key(first.cells[0]) != _row_key(header)
    ):
        body = first.cells[1:] if not any(cell.strip() for cell in first.cells[0]) else first.cells
        first.cells = [list(header), *body]
        first.text = to_markdown(first.cells)


def _row_key(row: Sequence[str]) -> list[str]:
    return [" ".join(cell.split()).casefold() for cell in row]


def _captioned_anew(page: PageLayout, table: Region) -> bool:
    """A caption comes before ``table`` on its page: a table of its own ("Table 2: ..."), however
    like the one before it is; one that says it goes on ("Table 2 (continued)") is not."""
    return any(
        region.kind == "caption" and region.order < table.order and not CONTINUED.search(region.text)
        for region in page.regions
    )


def column_break(last: Region, first: Region) -> bool:
    """``first`` opens the next column after ``last`` closed one: it lies wholly to the right of
    ``last``, starts above its middle, and is as wide (one column's measure), or is the paragraph's
    last line alone."""
    a, b = last.bbox, first.bbox
    wide = max(a.width, b.width)
    if wide <= 0 or (abs(a.width - b.width) > COLUMN_WIDTH_TOLERANCE * wide and not _last_line_alone(last, first)):
        return False
    return b.x0 >= a.x1 - COLUMN_GAP_SLACK and b.y0 < (a.y0 + a.y1) / 2


def _last_line_alone(last: Region, first: Region) -> bool:
    """``first`` is one line narrower than ``last``: a paragraph's last line set alone at the head of
    the next column ("the end of the year."), as short as the words it holds. The columns lie a
    gutter apart, not across a box (a contents list's titles and their page numbers)."""
    a, b = last.bbox, first.bbox
    one_line = 0 < b.height < 2 * first.font_size
    return one_line and b.width < a.width and b.x0 - a.x1 < 0.5 * a.width


def _mend_split_word(last: Region, first: Region) -> None:
    """A word hyphenated over the break ("infor-" | "mation desk") is kept whole at the end of the
    part it starts in ("information" | "desk"), so that search and embeddings see the word; a real
    hyphen stays ("well-known"). A continuing part that starts with a capital (a running head
    taken for text, a name) or is one word is left as it is."""
    left, right = last.text.rstrip(), first.text.lstrip()
    word, _, rest = right.partition(" ")
    if left.endswith(LINE_HYPHENS) and len(left) >= 2 and left[-2].isalpha() and word[:1].islower() and rest.strip():
        last.text, first.text = join_two(left, word), rest.lstrip()


def _pull_quote_between(last: Region, quote: Region, first: Region) -> bool:
    """``quote`` is set large (a pull quote, a magazine's "quote set large") inside the column
    between the two parts of one paragraph: ``first`` lies under ``last`` in its column, at its
    size, and ``quote`` between them in type a fifth larger at least, a sentence across most of the
    column (not an index's group letter, "T")."""
    a, q, b = last.bbox, quote.bbox, first.bbox
    same_column = a.x_overlap(b) >= 0.5 * min(a.width, b.width) and q.x_overlap(a) >= 0.5 * a.width
    between = a.y1 - 1.0 <= q.y0 and q.y1 <= b.y0 + 1.0
    large = quote.kind == "paragraph" and quote.font_size >= PULL_QUOTE_SCALE * last.font_size
    worded = len(quote.text.split()) >= PULL_QUOTE_WORDS
    return same_column and between and large and worded and abs(last.font_size - first.font_size) < 0.5


def _read_past_pull_quotes(page: PageLayout) -> None:
    """A paragraph cut by a pull quote goes on under it: the two parts are linked, and the quote is
    read after the second part, as a float is."""
    flow = _flow(page)
    for last, quote, first in zip(flow, flow[1:], flow[2:], strict=False):
        if _pull_quote_between(last, quote, first) and paragraph_continues(last, first):
            last.continues = True
            quote.order, first.order = first.order, quote.order
            _mend_split_word(last, first)


def mark_continuations(pages: Sequence[PageLayout]) -> None:
    for page in pages:
        _read_past_pull_quotes(page)
        for last, first in pairwise(_flow(page)):
            if column_break(last, first) and paragraph_continues(last, first):
                last.continues = True
                _mend_split_word(last, first)
            elif _next_column(last, first) and list_continues(last, first):
                last.continues = True
    for page, following in pairwise(pages):
        if following.number != page.number + 1:
            continue
        _mark_run_over_note(page, following)
        flow, next_flow = _flow(page), _flow(following)
        if not flow or not next_flow:
            continue
        last, first = flow[-1], next_flow[0]
        if table_continues(last, first) and not _captioned_anew(following, first):
            last.continues = True
            _repeat_header(last, first)
        elif paragraph_continues(last, first):
            last.continues = True
            _mend_split_word(last, first)
        elif list_continues(last, first) or code_continues(last, first):
            last.continues = True
        elif first.kind == "table" and len(next_flow) > 1 and paragraph_continues(last, next_flow[1]):
            last.continues = True  # the table was set at the top of the page, the text runs on below it
            _mend_split_word(last, next_flow[1])


def _mark_run_over_note(page: PageLayout, following: PageLayout) -> None:
    """A footnote too long for its page runs over to the foot of the next, where it opens the notes
    without a mark of its own: the page's last note, cut mid-sentence, continues there."""
    notes = [r for r in sorted(page.regions, key=lambda r: r.order) if r.kind == "footnote"]
    next_notes = [r for r in sorted(following.regions, key=lambda r: r.order) if r.kind == "footnote"]
    if not notes or not next_notes:
        return
    last, first = notes[-1], next_notes[0]
    if last.text and first.text and not ends_sentence(last.text) and not FOOTNOTE_MARK.match(first.text):
        last.continues = True
        _mend_split_word(last, first)

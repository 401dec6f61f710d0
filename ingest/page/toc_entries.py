"""Entries of a printed table of contents: neither section headers nor page numbers.

A contents page lists the document's headings, chapter entries set bold like the headings
themselves ("1 Introduction ... 9"), so font statistics call them section headers. As sections they
would duplicate the real ones on the contents page and take their questions. An entry ends with a
page number at the list's right edge, after dot leaders (". . . . 9") or after a wide gap: LaTeX
and texinfo set chapter entries without leaders, and the number is then a piece of text of its own,
ems away from the title. A page with at least ``MIN_ENTRIES`` entries ending at one right edge is a
contents page: its entries that were called section headers are paragraphs, as the entries with
leaders already are, and the bare numbers of its entries in the top or bottom band of the page are
not the page's number (``ingest.page.furniture``).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence

from docgraph.ingest.page.blocks import Block
from docgraph.ingest.pdf.lines import TextLine
from docgraph.ingest.pdf.text import PAGE_NUMBER

MIN_ENTRIES = 3
ENTRY_GAP_EM = 3.0  # white between a title and its page number, at least
RIGHT_EDGE_TOLERANCE = 2.0  # points: the numbers of one list end at one right edge
_LEADER_AND_NUMBER = re.compile(r"\S\s*(?:\.\s?){2,}\s*(?:\d{1,4}|[ivxlcdm]{1,7})\s*$", re.IGNORECASE)


def demote_toc_entries(blocks: Sequence[Block]) -> None:
    """On a contents page, turn the entries called section headers into paragraphs."""
    edges = [x1 for _, _, x1 in _entry_ends([line for block in blocks for line in block.lines])]
    for block in blocks:
        if block.kind == "section_header" and _block_ends_entry(block) and _aligned(block.bbox.x1, edges):
            block.kind = "paragraph"


def entry_numbers(lines: Sequence[TextLine]) -> dict[int, int]:
    """The bare numbers in ``lines`` (one page) that end contents entries: index of the number ->
    index of the title on its left."""
    ends = _entry_ends(lines)
    edges = [x1 for _, _, x1 in ends]
    return {i: title for i, title, x1 in ends if i >= 0 and _aligned(x1, edges)}


def _entry_ends(lines: Sequence[TextLine]) -> list[tuple[int, int, float]]:
    """Lines that end like contents entries, aligned or not: (index of a bare number, index of its
    title; or -1, -1 for a line with leaders) and the right edge."""
    rows = sorted(range(len(lines)), key=lambda i: lines[i].center_y)
    centers = [lines[i].center_y for i in rows]
    ends: list[tuple[int, int, float]] = []
    for i, line in enumerate(lines):
        if not line.horizontal:
            continue
        if _LEADER_AND_NUMBER.search(line.text):
            ends.append((-1, -1, line.bbox.x1))
        elif PAGE_NUMBER.match(line.text):
            title = _title_left_of(lines, i, rows, centers)
            if title >= 0 and _number_after_gap(lines[title], line):
                ends.append((i, title, line.bbox.x1))
    return ends


def _aligned(edge: float, edges: Sequence[float]) -> bool:
    return sum(1 for other in edges if abs(other - edge) <= RIGHT_EDGE_TOLERANCE) >= MIN_ENTRIES


def _block_ends_entry(block: Block) -> bool:
    lines = block.lines
    if not lines[-1].horizontal:
        return False
    if _LEADER_AND_NUMBER.search(lines[-1].text):
        return True
    return len(lines) >= 2 and bool(PAGE_NUMBER.match(lines[-1].text)) and _number_after_gap(lines[-2], lines[-1])


def _title_left_of(lines: Sequence[TextLine], index: int, rows: list[int], centers: list[float]) -> int:
    """Index of the line nearest to the left of ``lines[index]`` on its row, or -1."""
    number = lines[index]
    reach = 0.4 * max(number.size, 1.0)
    lo = bisect.bisect_left(centers, number.center_y - reach)
    hi = bisect.bisect_right(centers, number.center_y + reach)
    left = [i for i in rows[lo:hi] if i != index and lines[i].horizontal and lines[i].bbox.x1 <= number.bbox.x0]
    return max(left, key=lambda i: lines[i].bbox.x1, default=-1)


def _number_after_gap(title: TextLine, number: TextLine) -> bool:
    """``number`` sits on ``title``'s row, ems to its right."""
    same_row = title.on_row_of(number)
    return same_row and number.bbox.x0 - title.bbox.x1 >= ENTRY_GAP_EM * max(title.size, 1.0)

"""Right-hand cells of a list's rows: an agenda's "1. Q3 Highlights ... Slide 3".

A slide's agenda, a schedule or a price list sets a short cell at the right of each numbered or
bulleted item, on the item's baseline and ems away from it, without dot leaders. The cell is a
piece of text of its own, often in another size, so it becomes a block of its own, and the blocks
of cells sit between the items' blocks: the items were read as separate lists and the cells as
detached paragraphs after them, each row losing its cell. Cells set so, at least ``MIN_ROWS`` of
them starting or ending at one edge, each on the last line of a numbered list block to its left,
are that item's: the cell is appended to the item's text, as a contents entry keeps its page number.
So is a bare page number set so at the right of a one-line title: the entries of a contents box
without leaders (a newsletter's "In this issue").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from docgraph.ingest.page.blocks import Block
from docgraph.ingest.pdf.lines import TextLine
from docgraph.ingest.pdf.text import PAGE_NUMBER

_NUMBER = re.compile(r"^\s*\(?(?:\d{1,2}|[a-z]|[ivx]{1,4})[.)]\s")
MIN_ROWS = 3
MAX_CELL_WORDS = 6  # a cell is a label, a number or a name, not a sentence
MAX_ENTRY_WORDS = 12  # a contents entry is a title, not a line of prose
EDGE_TOLERANCE = 2.0  # points: the cells of one column start (or end) at one edge
SAME_ROW_OVERLAP = 0.6  # of the lower line's height: an item and its cell share one baseline


def attach_row_cells(blocks: list[Block]) -> list[Block]:
    """``blocks`` with each row cell appended to the list item on its row (the cell's block dropped)."""
    pairs = _row_cells(blocks)
    if not pairs:
        return blocks
    cells = {id(cell) for cell, _ in pairs}
    for cell, item in sorted(pairs, key=lambda pair: pair[0].bbox.x0):  # two cells on a row: left first
        item.lines.append(cell.lines[0])
    return [block for block in blocks if id(block) not in cells]


def _row_cells(blocks: Sequence[Block]) -> list[tuple[Block, Block]]:
    """(cell, item) pairs whose cells line up in a column of at least ``MIN_ROWS``."""
    items = [b for b in blocks if b.kind == "list" and b.source == "fonts" and _numbered(b) and b.lines[-1].horizontal]
    entries = [b for b in blocks if _entry_like(b)]
    pairs: list[tuple[Block, Block]] = []
    for cell in filter(_cell_like, blocks):
        item = _item_left_of(cell, items)
        if item is None and PAGE_NUMBER.match(cell.lines[0].text):  # a contents entry's page number
            item = _item_left_of(cell, [entry for entry in entries if entry is not cell])
        if item is not None:
            pairs.append((cell, item))
    lefts = [cell.bbox.x0 for cell, _ in pairs]
    rights = [cell.bbox.x1 for cell, _ in pairs]
    return [(c, i) for c, i in pairs if _in_column(c.bbox.x0, lefts) or _in_column(c.bbox.x1, rights)]


def _numbered(item: Block) -> bool:
    """A numbered item ("1.", "(a)", "iv)"): an agenda's or a schedule's rows are numbered, and a
    bulleted list beside a second column of text ("Launch: March 2024") is no such row."""
    return bool(_NUMBER.match(item.lines[0].text))


def _entry_like(block: Block) -> bool:
    """A contents entry without leaders: a title of one line ("New library opens its doors")."""
    line = block.lines[-1]
    short = len(line.text.split()) <= MAX_ENTRY_WORDS
    return block.kind == "paragraph" and block.source == "fonts" and len(block.lines) == 1 and line.horizontal and short


def _cell_like(block: Block) -> bool:
    line = block.lines[0]
    short = len(line.text.split()) <= MAX_CELL_WORDS
    return block.kind == "paragraph" and block.source == "fonts" and len(block.lines) == 1 and line.horizontal and short


def _item_left_of(cell: Block, items: Sequence[Block]) -> Block | None:
    """The list block whose last line is on ``cell``'s row, nearest to its left."""
    line = cell.lines[0]
    left = [item for item in items if _same_row(item.lines[-1], line) and item.lines[-1].bbox.x1 < line.bbox.x0]
    return max(left, key=lambda item: item.lines[-1].bbox.x1, default=None)


def _same_row(a: TextLine, b: TextLine) -> bool:
    overlap = a.bbox.y_overlap(b.bbox)
    return overlap >= SAME_ROW_OVERLAP * min(a.bbox.height, b.bbox.height) > 0


def _in_column(edge: float, edges: Sequence[float]) -> bool:
    return sum(1 for other in edges if abs(other - edge) <= EDGE_TOLERANCE) >= MIN_ROWS

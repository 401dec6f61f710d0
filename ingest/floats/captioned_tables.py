"""Tables with no rules at all, found through their caption: the text right below a "Table 3: …"
caption (or right above it, for captions set under their table) that falls into columns of short
cells. Without a caption to anchor the search, aligned text is left as it is read: prose is too
often aligned by chance (a short list, a page of index entries) to call every such block a table.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import accumulate, pairwise

from docgraph.ingest.floats.captions import CAPTION_RE
from docgraph.ingest.floats.framed_tables import code_listing, table_from_words
from docgraph.ingest.floats.tables import FoundTable, centre_in
from docgraph.ingest.pdf.api import Word
from docgraph.ingest.pdf.lines import TextLine
from docgraph.ingest.pdf.text import ends_sentence
from docgraph.ingest.types import BBox

TABLE_CAPTION_RE = re.compile(
    r"^\s*(?:Table|TABLE|Tab\.|TAB\.)\s*(?:[A-Z]?\.?\d+(?:[.\-–]\d+)*|[IVXL]{1,6})\s*[:.\-–—]\s*\S"
)
MIN_ROWS = 3  # a header and two rows: with no rules to go by, two aligned lines are too little
MAX_FIRST_GAP = 2.5  # line heights between the caption and the table's first (or last) line
MAX_ROW_GAP = 1.5  # line heights between two blocks of one table
MAX_BLOCKS = 24  # blocks tried, nearest the caption first
MAX_CAPTION_LINES = 12  # lines a caption may run on below its first
CELL_SPACE_EM = 1.5  # white between two words of a line wider than this: cells, not a caption's words


def find_captioned_tables(
    lines: Sequence[TextLine], words: Sequence[Word], taken: Sequence[BBox] = ()
) -> list[FoundTable]:
    """Unruled tables next to table captions, outside the areas ``taken`` (tables found already)."""
    captions = [line for line in lines if TABLE_CAPTION_RE.match(line.text) and CAPTION_RE.match(line.text)]
    found: list[FoundTable] = []
    for caption in captions:
        box = _caption_box(caption, lines, words)
        # The caption's own words are left out: MuPDF often sets a caption and its table in one block.
        blocks = _blocks([w for w in words if not centre_in(w, box)])
        for below in (True, False):
            table = _largest_table(_stack(box, blocks, below), words, [*taken, *(f.bbox for f in found)])
            if table is not None and not code_listing(lines, table.bbox):
                found.append(table)
                break
    return found


def _caption_box(first: TextLine, lines: Sequence[TextLine], words: Sequence[Word]) -> BBox:
    """The caption's lines: its first, then each line right below in the same type that reads as
    prose (one line across, no cell-wide space in it), when the last of them ends a sentence. Else
    the first line alone ("Table 3: Results" right over the table's rows)."""
    box, last = first.bbox, first
    below = [ln for ln in lines if ln.bbox.y0 >= first.bbox.y1 - 1 and ln.bbox.x_overlap(first.bbox) > 0]
    for line in sorted(below, key=lambda ln: ln.bbox.y0)[:MAX_CAPTION_LINES]:
        if line.bbox.y0 - last.bbox.y1 > 0.6 * line.size or abs(line.size - first.size) > 0.5:
            break
        beside = [ln for ln in below if ln is not line and abs(ln.center_y - line.center_y) < 0.4 * line.size]
        if beside or _widest_space([w for w in words if centre_in(w, line.bbox)]) > CELL_SPACE_EM * line.size:
            break  # a table's row
        box, last = box.union(line.bbox), line
    return box if ends_sentence(last.text) else first.bbox


def _widest_space(words: Sequence[Word]) -> float:
    ordered = sorted(words, key=lambda w: w[0])
    return max((b[0] - a[2] for a, b in pairwise(ordered)), default=0.0)


def _largest_table(stack: list[BBox], words: Sequence[Word], taken: Sequence[BBox]) -> FoundTable | None:
    """The table made of the most blocks nearest the caption (a heading or paragraph just past the
    table's end is not part of it: with it the words no longer fall into columns, or its last row
    is a lone cell, as a source note's or the next heading's is)."""
    for area in reversed(list(accumulate(stack, BBox.union))):  # the areas of the first 1, 2, … blocks
        if any(area.intersection_area(t) > 0 for t in taken):
            continue
        table = table_from_words(area, [w for w in words if centre_in(w, area)], MIN_ROWS)
        if table is not None and not _ends_in_a_lone_cell(table.cells):
            return table
    return None


def _ends_in_a_lone_cell(cells: list[list[str]]) -> bool:
    """The last row has one cell of text, in a table of several columns ("Source: Labour Force
    Survey." or the heading "Earnings" under the rows): a table's last row holds values."""
    return len(cells[-1]) > 1 and sum(1 for cell in cells[-1] if cell.strip()) == 1


def _blocks(words: Sequence[Word]) -> list[BBox]:
    """The boxes of MuPDF's text blocks, from their words."""
    boxes: dict[int, list[float]] = {}
    for w in words:
        box = boxes.setdefault(int(w[5]), [w[0], w[1], w[2], w[3]])
        box[:] = [min(box[0], w[0]), min(box[1], w[1]), max(box[2], w[2]), max(box[3], w[3])]
    return [BBox(*box) for box in boxes.values()]


def _stack(caption: BBox, blocks: Sequence[BBox], below: bool) -> list[BBox]:
    """The blocks stacked against the caption on one side (below or above), nearest first, with no
    wide gap, each overlapping the caption's or an earlier block's width."""
    height = max(caption.height, 1.0)
    stack: list[BBox] = []
    band: BBox | None = None
    start = caption.y1 if below else caption.y0
    edge, gap = start, MAX_FIRST_GAP * height
    left = list(blocks)
    while True:
        reach = band or caption
        near = [b for b in left if b.x_overlap(reach) > 0 and _within(b, start, edge, gap, below)]
        if not near or len(stack) >= MAX_BLOCKS:
            return stack
        for box in sorted(near, key=lambda b: b.y0 if below else -b.y1):
            band = box if band is None else band.union(box)
            stack.append(box)
            left.remove(box)
        assert band is not None
        edge, gap = (band.y1 if below else band.y0), MAX_ROW_GAP * height


def _within(box: BBox, start: float, edge: float, gap: float, below: bool) -> bool:
    """Starts between the caption and a gap past the band's far edge, on the caption's side."""
    if below:
        return start - 1 <= box.y0 <= edge + gap
    return edge - gap <= box.y1 <= start + 1

"""Cell grids for tables a detector found without ruling lines: rows and columns from word gaps.

Rows are runs of vertically overlapping words; column gutters are x-ranges that (almost) no
row puts a word in. The grid then goes through :func:`ingest.floats.tables.grid_cells`, as the layout
model's grids do, and :func:`ingest.floats.tables.is_real_table` rejects what is not a table.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

from docgraph.ingest.floats.tables import grid_cells, is_real_table
from docgraph.ingest.pdf.api import Word, words_in_box
from docgraph.ingest.types import BBox

MIN_WORDS = 4
ROW_OVERLAP = 0.5  # share of the smaller height two words must share to sit on one row
GUTTER_EM = 0.8  # a column gutter is at least this many word heights wide
GUTTER_ROW_SHARE = 0.1  # rows allowed to cross a gutter (a spanning title row, a long cell)
# What OCR reads a ruling line as: no word of the table, and one that crossed its column gutters.
_RULE_GLYPHS = frozenset("|¦│┃")


def read_from_a_rule(text: str) -> bool:
    """Whether an OCR word is a table's vertical rule read as text ("|"), not a word of a cell."""
    return bool(text) and _RULE_GLYPHS.issuperset(text)


def table_cells(box: BBox, words: Sequence[Word]) -> list[list[str]] | None:
    """The table's cells, or None when the words inside ``box`` do not form a grid."""
    inside = words_in_box(box, words)
    if len(inside) < MIN_WORDS:
        return None
    rows = _rows(inside)
    row_cuts = [(a_bottom + b_top) / 2 - box.y0 for a_bottom, b_top in _row_gaps(rows)]
    col_cuts = [x - box.x0 for x in _column_cuts(rows, box)]
    cells = grid_cells(box, row_cuts, col_cuts, inside)
    return cells if cells and is_real_table(cells) else None


def _rows(words: list[Word]) -> list[list[Word]]:
    rows: list[list[Word]] = []
    for word in sorted(words, key=lambda w: ((w[1] + w[3]) / 2, w[0])):
        if rows and _same_row(rows[-1], word):
            rows[-1].append(word)
        else:
            rows.append([word])
    return rows


def _same_row(row: list[Word], word: Word) -> bool:
    top, bottom = min(w[1] for w in row), max(w[3] for w in row)
    overlap = min(bottom, word[3]) - max(top, word[1])
    return overlap >= ROW_OVERLAP * min(bottom - top, word[3] - word[1])


def _row_gaps(rows: list[list[Word]]) -> list[tuple[float, float]]:
    """(bottom of row k, top of row k+1) for consecutive rows."""
    return [(max(w[3] for w in a), min(w[1] for w in b)) for a, b in itertools.pairwise(rows)]


def _column_cuts(rows: list[list[Word]], box: BBox) -> list[float]:
    """Centres of the x-ranges (at least a gutter wide) that few rows cover."""
    x0, width = int(np.floor(box.x0)), int(np.ceil(box.width)) + 1
    crossing = np.zeros(width, dtype=np.int32)
    for row in rows:
        covered = np.zeros(width, dtype=bool)
        for w in row:
            covered[max(0, int(w[0]) - x0) : max(0, int(np.ceil(w[2])) - x0)] = True
        crossing += covered
    heights = sorted(w[3] - w[1] for row in rows for w in row)
    min_gutter = GUTTER_EM * heights[len(heights) // 2]
    free = crossing <= int(GUTTER_ROW_SHARE * len(rows))
    cuts = []
    for start, end in _runs(free):
        inner = start > 0 and end < width  # margins inside the box are not gutters
        if inner and end - start >= min_gutter:
            cuts.append(x0 + (start + end) / 2)
    return cuts


def _runs(mask: np.ndarray) -> list[tuple[int, int]]:
    """[start, end) of each run of True values."""
    runs, start = [], None
    for i, value in enumerate(mask.tolist()):
        if value and start is None:
            start = i
        elif not value and start is not None:
            runs.append((start, i))
            start = None
    if start is not None:
        runs.append((start, len(mask)))
    return runs

"""A table's rows running on at the top of the next page with no header and no rule over them, as a
word processor breaks a statement's table across pages without repeating its header row.

Such rows alone are no table: under no header or rule, a run of lines with figures could be anything.
The part before the break is the evidence. At scan time a page keeps the words of its leading run
of figure lines (:func:`lead_rows`); once the whole document is read, rows that open a page right
under a page ending in an unruled table are read in that table's columns (:func:`rows_in_columns`),
and are a table when no word crosses a column's parting, every row fills two columns or is a group's
label over rows, one column holds numbers and each column keeps one edge.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from docgraph.ingest.floats.framed_tables import word_lines
from docgraph.ingest.floats.tables import FoundTable, centre_in
from docgraph.ingest.floats.unruled_tables import ALIGN_SLACK, MAX_ROW_GAP, MIN_FULL_ROWS, NUMBER, Grid, mid_y
from docgraph.ingest.pdf.api import Word
from docgraph.ingest.types import BBox

LEAD_LINES = 3  # the run may open under this many lines (a running head, a page number)
MIN_LEAD_ROWS = 2


@dataclass(slots=True)
class LeadRows:
    """A page's leading run of lines, most with a figure, as (top, bottom) spans, and its words."""

    rows: list[tuple[float, float]]
    words: list[Word]


def lead_rows(words: Sequence[Word], taken: Sequence[BBox]) -> LeadRows | None:
    """The first run of lines, opening within the page's first few lines, each within a line's
    height of the one above, most of them holding a figure: a table's rows going on from the page
    before. Words in tables already found are left out."""
    free = [w for w in words if not any(centre_in(w, t) for t in taken)]
    spans = word_lines(free)
    for start in range(min(LEAD_LINES, len(spans))):
        run = [spans[start]]
        for top, bottom in spans[start + 1 :]:
            if top - run[-1][1] > MAX_ROW_GAP * (bottom - top):
                break
            run.append((top, bottom))
        inside = [w for w in free if run[0][0] <= mid_y(w) <= run[-1][1]]
        figures = sum(1 for a, b in run if any(a <= mid_y(w) <= b and NUMBER.fullmatch(w[4]) for w in inside))
        if len(run) >= MIN_LEAD_ROWS and figures >= MIN_FULL_ROWS * len(run):
            return LeadRows(run, inside)
    return None


def rows_in_columns(lead: LeadRows, table: FoundTable) -> FoundTable | None:
    """``lead``'s rows read in ``table``'s columns: the longest run of them from the top that keeps
    the columns, or None."""
    if not table.gaps:
        return None
    x0, x1 = table.bbox.x0 - ALIGN_SLACK, table.bbox.x1 + ALIGN_SLACK
    for count in range(len(lead.rows), MIN_LEAD_ROWS - 1, -1):
        rows = lead.rows[:count]
        words = [w for w in lead.words if mid_y(w) <= rows[-1][1]]
        if any(w[0] < x0 or w[2] > x1 or any(w[0] < g < w[2] for g in table.gaps) for w in words):
            continue  # a word outside the table or across a column's parting: the text goes on
        grid = Grid(rows, list(table.gaps), words)
        if _keeps_columns(grid, len(rows)):
            cells = [[grid.text(r, c) for c in range(grid.columns)] for r in range(len(rows))]
            return FoundTable(BBox(table.bbox.x0, rows[0][0], table.bbox.x1, rows[-1][1]), cells, table.gaps)
    return None


def _keeps_columns(grid: Grid, count: int) -> bool:
    """Every row fills two columns or is a group's label with rows under it, a column of numbers,
    and each column keeping one edge."""
    rows = range(count)
    if any(len(grid.row_columns(r)) < 2 and (grid.row_columns(r) != [0] or r == count - 1) for r in rows):
        return False
    return grid.short_cells() and grid.aligned(rows) and grid.number_column(rows)

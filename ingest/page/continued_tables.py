"""Rows opening a page under a page that ends in a table, with no header and no rule of their own:
read in that table's columns they are its next part, and :mod:`ingest.structure.continuity` links
the two and gives the rows the first part's header."""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

from docgraph.ingest.floats.continued_rows import rows_in_columns
from docgraph.ingest.floats.tables import FoundTable
from docgraph.ingest.page.furniture import FurnitureMarks
from docgraph.ingest.page.scan import PageScan


def continue_tables(scans: Sequence[PageScan], marks: Sequence[FurnitureMarks]) -> None:
    """Add to each page the table its leading rows make in the columns of the table that ends the
    page before it (the pages' running heads and feet aside)."""
    for (before, before_marks), (after, after_marks) in pairwise(zip(scans, marks, strict=True)):
        if after.lead is None or after.number != before.number + 1:
            continue
        last = _ending_table(before, before_marks)
        if last is None:
            continue
        top = after.lead.rows[0][0]
        if any(line.bbox.y1 <= top and i not in after_marks for i, line in enumerate(after.lines)):
            continue  # text above the rows: they do not open the page
        table = rows_in_columns(after.lead, last)
        if table is not None and not any(table.bbox.intersection_area(t.bbox) > 0 for t in after.tables):
            after.tables.append(table)


def _ending_table(scan: PageScan, marks: FurnitureMarks) -> FoundTable | None:
    """The page's lowest table, when no text or figure but its running foot lies under it."""
    if not scan.tables:
        return None
    last = max(scan.tables, key=lambda t: t.bbox.y1)
    below = [i for i, line in enumerate(scan.lines) if line.bbox.y0 >= last.bbox.y1 and i not in marks]
    if below or any(box.y0 >= last.bbox.y1 for box in scan.figures):
        return None
    return last

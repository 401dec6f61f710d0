"""A ruled two-column table of label and value rows with no header row: a lease's or a contract's
particulars ("Landlord | Riverside Estates Limited ...", "Term | Ten years ..."). Its first row is
a label's row like the others, not a header over them; read as the header, every quote of the table
opened with it. Such a table gets an empty header row, so that its first row is a body row.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pymupdf

from docgraph.ingest.labels import FIELD_LABEL
from docgraph.ingest.pdf.lines import is_bold_span
from docgraph.ingest.types import BBox

MIN_ROWS = 3
MAX_LABEL_WORDS = 4  # "Permitted Use", "Break Date": a label names, it does not run on
HEADER_WORDS = 4  # a header cell is a few words without a figure ("Value", "Description")
RULE_NEAR = 2.0  # points: a rule this close to a row's bottom edge is that row's
HEAVIER = 0.25  # points of stroke width: a rule this much heavier sets the row above apart
WHITE = 0.95  # a fill this light on every channel is the page's own colour


def without_header(
    page: pymupdf.Page, rects: Sequence[Sequence[Any]], cells: list[list[str]], drawings: Sequence[dict[str, Any]]
) -> list[list[str]]:
    """``cells`` with an empty header row over them when they are label and value rows whose first
    row is set like the rest; otherwise ``cells`` as they are."""
    if not _label_rows(rects, cells) or _set_apart(page, rects, drawings):
        return cells
    return [["", ""], *cells]


def field_rows(cells: list[list[str]]) -> bool:
    """Whether ``cells`` are a ruled box of fields, each row a label ending in its colon and a value
    (a report's cover box: "Report to: | Planning Committee", "Date: | 14 January 2026"): read field
    by field, as the same fields set without rules are, not as a table whose first field heads it."""
    rows = [row for row in cells if any(cell.strip() for cell in row)]  # not an empty header row
    if len(rows) < MIN_ROWS or any(len(row) != 2 for row in rows):
        return False
    return all(_field_label(label) and value.strip() for label, value in rows)


def _field_label(cell: str) -> bool:
    """``cell`` is a field's label and nothing more ("Report of:")."""
    match = FIELD_LABEL.match(cell.strip())
    return match is not None and match.end() == len(cell.strip())


def _label_rows(rects: Sequence[Sequence[Any]], cells: list[list[str]]) -> bool:
    """Two cells a row, each a short label and a value, the first row's value no header's words."""
    if len(cells) < MIN_ROWS or any(len(row) != 2 for row in cells) or any(len(row) != 2 for row in rects):
        return False
    if any(rect is None for row in rects for rect in row):  # a cell spanning rows or columns
        return False
    labels = [row[0] for row in cells]
    if any(not 0 < len(label.split()) <= MAX_LABEL_WORDS or any(ch.isdigit() for ch in label) for label in labels):
        return False
    if not all(row[1].strip() for row in cells):
        return False
    value = cells[0][1]
    return len(value.split()) > HEADER_WORDS or any(ch.isdigit() for ch in value)


def _set_apart(page: pymupdf.Page, rects: Sequence[Sequence[Any]], drawings: Sequence[dict[str, Any]]) -> bool:
    """Whether the first row is set apart from the second as a header is: its cells bold where the
    second row's are not (or the other way), a fill of its own, or a heavier or double rule under it."""
    first, second = (BBox(*row[0][:2], *row[-1][2:4]) for row in rects[:2])
    if [_bold(page, BBox(*rect[:4])) for rect in rects[0]] != [_bold(page, BBox(*rect[:4])) for rect in rects[1]]:
        return True
    if _filled(first, drawings) != _filled(second, drawings):
        return True
    under_first, under_second = _rules_under(first, drawings), _rules_under(second, drawings)
    if len(under_first) > 1:
        return True
    return bool(under_first and under_second) and max(under_first) > max(under_second) + HEAVIER


def _bold(page: pymupdf.Page, box: BBox) -> bool:
    """Whether most of the letters in ``box`` are bold."""
    bold = plain = 0
    handle: Any = page
    data: dict[str, Any] = handle.get_text("dict", clip=(box.x0, box.y0, box.x1, box.y1))
    for block in data.get("blocks", []):
        for line in block.get("lines", []):
            for span in line.get("spans", []):
                letters = sum(map(str.isalpha, str(span.get("text", ""))))
                if is_bold_span(span):
                    bold += letters
                else:
                    plain += letters
    return bold > plain


def _filled(row: BBox, drawings: Sequence[dict[str, Any]]) -> bool:
    """Whether a coloured fill covers the middle of ``row``."""
    x, y = (row.x0 + row.x1) / 2, (row.y0 + row.y1) / 2
    for path in drawings:
        fill = path.get("fill")
        rect = path.get("rect")
        if fill is None or rect is None or all(channel >= WHITE for channel in fill):
            continue
        if rect.x0 <= x <= rect.x1 and rect.y0 <= y <= rect.y1 and rect.height > 2 * RULE_NEAR:
            return True
    return False


def _rules_under(row: BBox, drawings: Sequence[dict[str, Any]]) -> list[float]:
    """The stroke widths of the horizontal rules along ``row``'s bottom edge, across its width."""
    widths: list[float] = []
    for path in drawings:
        for item in path.get("items", []):
            if item[0] != "l":
                continue
            p, q = item[1], item[2]
            across = min(p.x, q.x) <= row.x0 + RULE_NEAR and max(p.x, q.x) >= row.x1 - RULE_NEAR
            if abs(p.y - q.y) < 1 and abs(p.y - row.y1) <= RULE_NEAR and across:
                widths.append(float(path.get("width") or 1.0))
    return widths

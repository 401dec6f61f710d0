"""Side-by-side blocks under a row of labels: an invoice's "Bill To" and "Ship To" addresses.

A business document sets two or three short blocks side by side (the bill-to and ship-to
addresses, supplier and delivery address), each under its label, the labels on one row. MuPDF
returns the row of labels as pieces of one block, often with the first column's lines, so the
labels were read as one heading "Bill To Ship To" over both addresses, and neither address said
which it was: "What is the ship-to address?" found nothing. Here each label goes with the lines
set flush under it, inside its column: "Ship To Harbour & Pine Ltd Warehouse 2, Dock Road ...". A
row of labels each over one value ("Invoice No." over "K-2026-0311", "Due Date" over "30/04/2026")
is one paragraph of fields: "Invoice No. K-2026-0311 Invoice Date 31/03/2026 Due Date ...".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from docgraph.ingest.pdf.lines import TextLine

MAX_LABEL_WORDS = 4
MAX_COLUMN_LINES = 8  # an address or a contact block, not a column of prose
MAX_LINE_WORDS = 8
EDGE_TOLERANCE = 2.0  # points: a label and the lines under it start at one edge
LINE_GAP = 0.8  # of the font size: the white between a label and its first line, at most
APART_EM = 4.0  # labels on one row further apart than this head columns of their own


def join_labelled_columns(lines: Sequence[TextLine]) -> list[TextLine]:
    """``lines`` with each label of a row of column labels joined to the lines under it, each
    column a block of its own (MuPDF may give the row and the columns as one block, row by row)."""
    out = list(lines)
    used: set[int] = set()
    for row in _label_rows(lines):
        columns = [_column_under(label, row, lines) for label in row]
        columns = [column if len(column) == 1 or all(map(_worded, column)) else [] for column in columns]
        members = {id(line) for line in row} | {id(line) for column in columns for line in column}
        if all(columns) and not members & used:
            used |= members
            out = _regrouped(out, row, columns, members)
    return out


def _regrouped(
    lines: Sequence[TextLine], row: Sequence[TextLine], columns: Sequence[Sequence[TextLine]], members: set[int]
) -> list[TextLine]:
    """``lines`` with the row's labels and columns, label by label, where the first of them was: a
    column of lines a block of its own, a row of single values one block of fields."""
    at = next(k for k, line in enumerate(lines) if id(line) in members)
    fresh = min(0, *(line.block for line in lines)) - 1
    fields = all(len(column) == 1 for column in columns)
    grouped: list[TextLine] = []
    for n, (label, column) in enumerate(zip(row, columns, strict=True)):
        block = fresh if fields else fresh - n
        grouped.append(_joined(label, column[0], block, fields))
        grouped.extend(replace(line, block=block) for line in column[1:])
    rest = [line for line in lines if id(line) not in members]
    kept_before = sum(1 for line in lines[:at] if id(line) not in members)
    return rest[:kept_before] + grouped + rest[kept_before:]


def _label_rows(lines: Sequence[TextLine]) -> list[list[TextLine]]:
    """Runs of two or more short pieces on one row, each far right of the one before."""
    rows: list[list[TextLine]] = []
    for line in lines:
        last = rows[-1][-1] if rows else None
        if last is not None and _next_label(last, line):
            rows[-1].append(line)
        else:
            rows.append([line])
    return [row for row in rows if len(row) >= 2 and all(_label_like(piece) for piece in row)]


def _next_label(last: TextLine, line: TextLine) -> bool:
    return line.on_row_of(last) and line.bbox.x0 - last.bbox.x1 > APART_EM * max(line.size, 1.0)


def _label_like(line: TextLine) -> bool:
    words = line.text.split()
    worded = any(ch.isalpha() for ch in line.text) and "=" not in line.text
    return _prose(line) and 0 < len(words) <= MAX_LABEL_WORDS and worded


def _worded(line: TextLine) -> bool:
    """An address's or a name's line has words; a column of bare numbers under a label is a table's
    (one number under its label is a field: "Due Date" over "30/04/2026")."""
    return sum(ch.isalpha() for ch in line.text) >= 2


def _prose(line: TextLine) -> bool:
    """Not code with its comment, nor a formula with its number: both keep their own columns."""
    return line.horizontal and not line.mono and not line.math


def _column_under(label: TextLine, row: Sequence[TextLine], lines: Sequence[TextLine]) -> list[TextLine]:
    """The lines set flush under ``label``, one under the other, before the next label's edge; none
    when its column holds anything else (a line reaching into the next column, a long line)."""
    right = min((other.bbox.x0 for other in row if other.bbox.x0 > label.bbox.x0), default=float("inf"))
    column: list[TextLine] = []
    above = label
    for line in sorted((ln for ln in lines if ln.bbox.y0 > label.bbox.y0 + 1.0), key=lambda ln: ln.bbox.y0):
        if line.bbox.x1 <= label.bbox.x0 or line.bbox.x0 >= right:
            continue  # another column
        gap = line.bbox.y0 - above.bbox.y1
        if abs(line.bbox.x0 - label.bbox.x0) > EDGE_TOLERANCE or gap > LINE_GAP * max(line.size, 1.0):
            break
        long = len(line.text.split()) > MAX_LINE_WORDS or len(column) == MAX_COLUMN_LINES
        if line.bbox.x1 >= right or long or not _prose(line):
            return []
        column.append(line)
        above = line
    return column


def _joined(label: TextLine, first: TextLine, block: int, field: bool) -> TextLine:
    """The label with the first line under it, so that the column reads as one; a field (a label
    over its one value) is no heading however it is set."""
    return replace(
        first,
        block=block,
        pair=field,
        text=f"{label.text.strip()} {first.text.strip()}",
        bbox=label.bbox.union(first.bbox),
        bold=label.bold and first.bold,
        chars=label.chars + first.chars,
    )

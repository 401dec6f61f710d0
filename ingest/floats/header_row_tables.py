"""Tables set with tabs under a bold header row and no rules at all: a word processor's agenda
("Item  Time  Subject  Lead" over "1  18:00  Welcome and apologies  Chair"), a schedule, a contact
list.

Nothing is drawn, so only the words say there is a table. The header is a row of bold labels, at
least ``MIN_COLUMNS`` of them set apart by white no word space is as wide as, over body lines set
in plain type. Each label starts its column; every word of a body line lies within one column (a
line of prose runs across them: the table ends there). A line with a word in the first column
starts a row, and one without it goes on with the row above: a long subject wraps within its
column. It is a table when at least ``MIN_ROWS`` rows follow, most filling the columns, each
column's cells set flush with its label. Before, the rows were read as paragraphs, a wrapped cell's
second line after the cell to its right ("... held on 17 Chair February 2026 ...").
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

from docgraph.ingest.floats.framed_tables import code_listing, word_lines
from docgraph.ingest.floats.tables import FoundTable, grid_cells, is_real_table
from docgraph.ingest.pdf.api import Word
from docgraph.ingest.pdf.lines import TextLine
from docgraph.ingest.types import BBox

MIN_COLUMNS = 3
MIN_ROWS = 3
MAX_LABEL_WORDS = 3  # a column's label is a word or two ("Item", "Due date"), not a phrase
LABEL_GAP_EM = 1.0  # white between two labels, at least, of the header's size
ALIGN_SLACK = 2.0  # points: a cell starts where its column's label does
ROW_GAP = 1.0  # line heights of white between two lines of the table, at most
FULL_ROW_SHARE = 2 / 3  # a full row fills this share of the columns,
MIN_FULL_ROWS = 0.75  # and this share of the rows are full


def find_header_row_tables(words: Sequence[Word], lines: Sequence[TextLine], taken: Sequence[BBox]) -> list[FoundTable]:
    """Tables under a bold header row of labels, outside the areas ``taken``."""
    found: list[FoundTable] = []
    for header in _header_rows(lines):
        table = _table_under(header, words, lines, [*taken, *(t.bbox for t in found)])
        if table is not None:
            found.append(table)
    return found


def _header_rows(lines: Sequence[TextLine]) -> list[list[TextLine]]:
    """The rows of lines whose pieces are all bold, plain text, horizontal."""
    rows: list[list[TextLine]] = []
    for line in sorted(lines, key=lambda ln: ln.center_y):
        if rows and line.on_row_of(rows[-1][0]):
            rows[-1].append(line)
        else:
            rows.append([line])
    return [row for row in rows if all(ln.bold and ln.horizontal and not ln.mono and not ln.math for ln in row)]


def _labels(header: Sequence[TextLine], words: Sequence[Word]) -> list[list[Word]]:
    """The header's words grouped into labels, parted by white wider than ``LABEL_GAP_EM``."""
    top, bottom = min(ln.bbox.y0 for ln in header), max(ln.bbox.y1 for ln in header)
    left, right = min(ln.bbox.x0 for ln in header), max(ln.bbox.x1 for ln in header)
    own = sorted((w for w in words if top <= _mid_y(w) <= bottom and left <= _mid_x(w) <= right), key=lambda w: w[0])
    gap = LABEL_GAP_EM * max(ln.size for ln in header)
    labels: list[list[Word]] = []
    for word in own:
        if labels and word[0] - labels[-1][-1][2] < gap:
            labels[-1].append(word)
        else:
            labels.append([word])
    return labels


def _table_under(
    header: Sequence[TextLine], words: Sequence[Word], lines: Sequence[TextLine], taken: Sequence[BBox]
) -> FoundTable | None:
    labels = _labels(header, words)
    if len(labels) < MIN_COLUMNS or any(len(label) > MAX_LABEL_WORDS for label in labels):
        return None
    starts = [label[0][0] for label in labels]
    head_top, head_bottom = min(w[1] for w in labels[0]), max(w[3] for label in labels for w in label)
    rows = _rows_below(head_bottom, starts, words)
    if len(rows) < MIN_ROWS:
        return None
    cells = [[_column(w, starts) for w in row] for row in rows]
    full = sum(1 for row in cells if len(set(row)) >= FULL_ROW_SHARE * len(starts))
    if full < MIN_FULL_ROWS * len(rows) or not _flush(rows, starts):
        return None
    area = BBox(starts[0] - ALIGN_SLACK, head_top, max(w[2] for row in rows for w in row), max(w[3] for w in rows[-1]))
    if (
        any(area.intersection_area(t) > 0 for t in taken)
        or code_listing(lines, area)
        or _bold_body(lines, area, header)
    ):
        return None
    row_cuts = [head_bottom - area.y0 + 0.5 * (min(w[1] for w in rows[0]) - head_bottom)]
    row_cuts += [(max(w[3] for w in a) + min(w[1] for w in b)) / 2 - area.y0 for a, b in pairwise(rows)]
    column_cuts = [start - ALIGN_SLACK - area.x0 for start in starts[1:]]
    inside = [w for label in labels for w in label] + [w for row in rows for w in row]
    table = grid_cells(area, row_cuts, column_cuts, inside)
    written = "\n".join(ln.text for ln in lines if ln.bbox.centre_in(area))
    table = [[_underscored(cell, written) for cell in row] for row in table]
    return FoundTable(area, table) if is_real_table(table) else None


def _underscored(cell: str, written: str) -> str:
    """``cell`` with the underscores the lines ``written`` on the table's area hold between its words
    ("GNUTLS_A_CLOSE_NOTIFY"): a word list has no underscore a PDF draws as a rule, its lines have."""
    words = cell.split(" ")
    out = words[:1]
    for word in words[1:]:
        if out[-1] and word and f"{out[-1]}_{word}" in written:
            out[-1] = f"{out[-1]}_{word}"
        else:
            out.append(word)
    return " ".join(out)


def _rows_below(top: float, starts: Sequence[float], words: Sequence[Word]) -> list[list[Word]]:
    """The rows of words running on under the header, each word within its column: a line with a
    word in the first column opens a row, one without goes on with the row above."""
    below = [w for w in words if _mid_y(w) > top and w[2] > starts[0] - ALIGN_SLACK]
    rows: list[list[Word]] = []
    edge = top
    for line_top, line_bottom in word_lines(below):
        if line_top - edge > ROW_GAP * (line_bottom - line_top):
            break
        line = [w for w in below if line_top <= _mid_y(w) <= line_bottom]
        if not all(_within_column(w, starts) for w in line):
            break
        if any(_column(w, starts) == 0 for w in line):
            rows.append(line)
        elif rows:
            rows[-1].extend(line)
        else:
            break
        edge = line_bottom
    return rows


def _within_column(word: Word, starts: Sequence[float]) -> bool:
    """``word`` starts in a column and ends before the next one starts."""
    if word[0] < starts[0] - ALIGN_SLACK:
        return False
    column = _column(word, starts)
    return column + 1 >= len(starts) or word[2] < starts[column + 1] - ALIGN_SLACK


def _column(word: Word, starts: Sequence[float]) -> int:
    return sum(1 for start in starts[1:] if word[0] >= start - ALIGN_SLACK)


def _flush(rows: Sequence[Sequence[Word]], starts: Sequence[float]) -> bool:
    """Whether in every column most rows' cells start where the column's label starts."""
    for column, start in enumerate(starts):
        lefts = [x for row in rows if (x := _cell_left(row, starts, column)) is not None]
        if sum(1 for x in lefts if abs(x - start) <= ALIGN_SLACK) < MIN_FULL_ROWS * len(lefts):
            return False
    return True


def _cell_left(row: Sequence[Word], starts: Sequence[float], column: int) -> float | None:
    return min((w[0] for w in row if _column(w, starts) == column), default=None)


def _bold_body(lines: Sequence[TextLine], area: BBox, header: Sequence[TextLine]) -> bool:
    """Whether the lines under the header are bold too: a run of bold lines is no header over rows."""
    body = [ln for ln in lines if ln not in header and ln.bbox.centre_in(area)]
    return not body or sum(ln.bold for ln in body) > len(body) / 2


def _mid_y(word: Word) -> float:
    return (word[1] + word[3]) / 2


def _mid_x(word: Word) -> float:
    return (word[0] + word[2]) / 2

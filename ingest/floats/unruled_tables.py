"""Tables with no grid of rulings, as office suites draw them: rows set on filled bands (a
presentation's table, a filled header and banded rows), or a header row over one rule (a spreadsheet
printed without gridlines), perhaps closed by a second rule.

The fills or the rule only say where a table may be; the words decide. A band stack is a table when
each band holds a row of words and the words fall into aligned columns; a bar chart's bars hold no
rows of words. Under a lone rule, where prose, lists and contents pages are often aligned by chance,
the rows must also fill the columns the header names, one column must hold numbers, and every column
must keep one edge (left, right or centre).
"""

from __future__ import annotations

import re
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from docgraph.ingest.floats.framed_tables import code_listing, horizontal_rules, word_lines
from docgraph.ingest.floats.tables import FoundTable, drawn_as_chart, grid_cells, is_real_table
from docgraph.ingest.pdf.api import Word
from docgraph.ingest.pdf.lines import TextLine
from docgraph.ingest.pdf.strokes import HorizontalStroke as Rule
from docgraph.ingest.types import BBox

MIN_BAND_WIDTH = 60.0  # points: a filled row narrower than this is a marker, a swatch or a bar
MIN_BAND_HEIGHT = 6.0  # points: thinner fills are rules
MAX_BAND_HEIGHT = 80.0  # points: a taller fill is a box or a panel, not a row
SAME_EXTENT = 2.0  # points: bands of one table start and end together
ABUT = 1.5  # points between two bands that touch
MIN_BAND_ROWS = 3  # a header and two rows
MIN_BODY_ROWS = 3  # under a lone rule
MIN_RULED_COLUMNS = 3
MAX_CELL_WORDS = 3.0  # median words in a cell; prose runs longer
FULL_ROW_SHARE = 2 / 3  # a full row fills this share of the columns
MIN_FULL_ROWS = 0.75  # share of the rows under a lone rule that are full
MIN_ALIGNED = 0.75  # share of a column's cells sharing one edge
ALIGN_SLACK = 2.0  # points
GAP_HEIGHT_SHARE = 0.45  # of a word's height: white this wide between cells is no word space
MAX_RULE_GAP = 1.0  # line heights between the rule and the header or first row
MAX_ROW_GAP = 1.0  # line heights between two rows under a rule
ACROSS_SHARE = 0.5  # of the header's rule: a rule closing the table runs across this much of it
MAX_RULES = 200  # as ``framed_tables``: more strokes are a drawing or a form
NUMBER = re.compile(r"[(+\-−–]?[$€£¥]?\d[\d,.\u202f ]*%?\)?")


@dataclass(frozen=True, slots=True)
class Fill:
    box: BBox
    colour: tuple[float, ...]


def find_unruled_tables(
    drawings: Sequence[dict[str, Any]], words: Sequence[Word], lines: Sequence[TextLine], taken: Sequence[BBox] = ()
) -> list[FoundTable]:
    """Banded tables, then tables with a header over one rule (or over a filled header band),
    outside the areas ``taken``; code listings and charts are left alone."""
    found: list[FoundTable] = []
    fills = _row_fills(drawings)
    stacks = _band_stacks(fills)
    for stack in stacks:
        table = _banded_table(stack, words, [*taken, *(t.bbox for t in found)])
        if table is not None and _kept(table, drawings, lines):
            found.append(table)
    lone = [f.box for f in fills if not any(f in stack for stack in stacks)]
    rules = horizontal_rules(drawings)
    if len(rules) > MAX_RULES:
        return found
    for rule, fill in [*((r, None) for r in rules), *((Rule(b.x0, b.x1, b.y1), b) for b in lone)]:
        table = _header_rule_table(rule, fill, rules, words, [*taken, *(t.bbox for t in found)])
        if table is not None and _kept(table, drawings, lines):
            found.append(table)
    return found


def _kept(table: FoundTable, drawings: Sequence[dict[str, Any]], lines: Sequence[TextLine]) -> bool:
    return not code_listing(lines, table.bbox) and not drawn_as_chart(drawings, table.bbox)


def _row_fills(drawings: Sequence[dict[str, Any]]) -> list[Fill]:
    """Filled rectangles the size of a table row."""
    fills = []
    for path in drawings:
        if path.get("fill") is None or not all(item[0] == "re" for item in path.get("items", [])):
            continue
        colour = tuple(round(float(c), 2) for c in path["fill"])
        for item in path["items"]:
            box = BBox(item[1].x0, item[1].y0, item[1].x1, item[1].y1)
            if box.width >= MIN_BAND_WIDTH and MIN_BAND_HEIGHT <= box.height <= MAX_BAND_HEIGHT:
                fills.append(Fill(box, colour))
    return fills


def _band_stacks(fills: Sequence[Fill]) -> list[list[Fill]]:
    """Runs of abutting fills of one width, top down, in at least two colours (a header fill, or
    bands alternating): one colour, strip under strip, is a shaded box drawn line by line."""
    stacks: list[list[Fill]] = []
    for fill in sorted(fills, key=lambda f: (f.box.y0, f.box.x0)):
        stack = next((s for s in stacks if _continues(s[-1].box, fill.box)), None)
        if stack is None:
            stacks.append([fill])
        elif abs(fill.box.y0 - stack[-1].box.y0) > ABUT:  # the same band drawn twice is one
            stack.append(fill)
    return [s for s in stacks if len(s) >= MIN_BAND_ROWS and len({f.colour for f in s}) >= 2]


def _continues(above: BBox, below: BBox) -> bool:
    """Whether ``below`` is the next band under ``above`` (or ``above`` drawn again)."""
    same_extent = abs(above.x0 - below.x0) <= SAME_EXTENT and abs(above.x1 - below.x1) <= SAME_EXTENT
    return same_extent and (abs(below.y0 - above.y1) <= ABUT or abs(below.y0 - above.y0) <= ABUT)


def _banded_table(stack: Sequence[Fill], words: Sequence[Word], taken: Sequence[BBox]) -> FoundTable | None:
    """The stack's bands as rows, when every band holds words and they fall into aligned columns."""
    area = BBox(stack[0].box.x0, stack[0].box.y0, stack[-1].box.x1, stack[-1].box.y1)
    if any(area.intersection_area(t) > 0 for t in taken):
        return None
    inside = [w for w in words if _centre_in(w, area)]
    rows = [(f.box.y0, f.box.y1) for f in stack]
    header = [w for w in inside if mid_y(w) <= rows[0][1]]
    gaps = _gaps(header, [w for w in inside if mid_y(w) > rows[0][1]], area.x0, area.x1)
    if not gaps:
        return None
    grid = Grid(rows, gaps, inside)
    if any(not grid.row_columns(r) for r in range(len(rows))):
        return None
    multi = sum(1 for r in range(len(rows)) if len(grid.row_columns(r)) >= 2)
    if multi < FULL_ROW_SHARE * len(rows) or not grid.short_cells() or not grid.aligned(range(1, len(rows))):
        return None
    return grid.table(area)


def _header_rule_table(
    rule: Rule, fill: BBox | None, rules: Sequence[Rule], words: Sequence[Word], taken: Sequence[BBox]
) -> FoundTable | None:
    """A header row right above ``rule`` (inside ``fill``, when the rule is a filled band's foot)
    and the rows running on below it, down to the next rule across: the longest run, from all of
    them down to three, that passes :meth:`Grid.strict_table`; down to one under a header band
    when a rule closes the rows."""
    reach = [w for w in words if rule.x0 - ALIGN_SLACK <= (w[0] + w[2]) / 2 <= rule.x1 + ALIGN_SLACK]
    stop = min((r.y for r in rules if r.y > rule.y + ABUT and _across(r, rule)), default=1e9)
    above = word_lines([w for w in reach if mid_y(w) < rule.y])
    if not above:
        return None
    header = above[-1] if fill is not None else _stacked_header(above, reach)
    height = header[1] - header[0]
    if rule.y - header[1] > MAX_RULE_GAP * height:
        return None
    if fill is not None and (header[0] < fill.y0 or any(fill.y0 - height < ln[1] for ln in above[:-1])):
        return None  # a header band holds the header row alone, the first row of its table
    if any(r is not rule and header[0] - 1.5 * height <= r.y < header[0] and _overlaps(r, rule) for r in rules):
        return None  # a rule over the header too: booktabs, ``framed_tables`` reads it
    body = _run_below(word_lines([w for w in reach if rule.y < mid_y(w) < stop]), rule.y)
    least = 1 if fill is not None else MIN_BODY_ROWS
    for count in range(len(body), least - 1, -1):
        rows = [header, *body[:count]]
        closed = stop - rows[-1][1] <= MAX_ROW_GAP * height
        if count < MIN_BODY_ROWS and not closed:
            continue  # fewer rows only between a header band and a closing rule: an invoice's items
        foot = stop if closed else rows[-1][1]
        area = BBox(rule.x0, header[0], rule.x1, foot)
        if any(area.intersection_area(t) > 0 for t in taken) or _cut_across(area, words):
            continue
        inside = [w for w in reach if header[0] <= mid_y(w) <= rows[-1][1]]
        heads = [w for w in inside if mid_y(w) < rule.y]
        gaps = _gaps(heads, [w for w in inside if mid_y(w) > rule.y], rule.x0 - ALIGN_SLACK, rule.x1 + ALIGN_SLACK)
        if gaps is None:
            continue
        grid = Grid(rows, gaps, inside)
        if grid.strict_table():
            return grid.table(area)
    return None


def _gaps(header: Sequence[Word], body: Sequence[Word], x0: float, x1: float) -> list[float] | None:
    """Where columns part: the white running down the body rows, cut where the header row leaves
    it white too (a spreadsheet sets a header flush left over numbers set flush right, so the
    header's words may stand in the white between two columns of numbers; they go with the column
    they leave no white to). None when a header word spans a column's parting (a group header)."""
    if not body:
        return None
    space = GAP_HEIGHT_SHARE * statistics.median(w[3] - w[1] for w in body)
    cuts = []
    for start, end in _white(body, space):
        free = _white(header, space, start, end)
        if not free:
            return None
        left, right = max(free, key=lambda f: f[1] - f[0])
        cuts.append((left + right) / 2)
    return [c for c in cuts if x0 < c < x1]


def _white(words: Sequence[Word], least: float, start: float = -1e9, end: float = 1e9) -> list[tuple[float, float]]:
    """The stretches at least ``least`` wide that no word covers: between words, or, given
    ``start`` and ``end``, within that stretch (its ends included)."""
    covered = sorted((w[0], w[2]) for w in words if w[2] > start and w[0] < end)
    if start > -1e9:
        covered = [(start - 1, start), *covered, (end, end + 1)]
    white = []
    reach = covered[0][1] if covered else end
    for left, right in covered[1:]:
        if left - reach >= least:
            white.append((reach, left))
        reach = max(reach, right)
    return white


def _run_below(lines: Sequence[tuple[float, float]], edge: float) -> list[tuple[float, float]]:
    """The lines running on from right below ``edge``, each within a line height of the one before."""
    run: list[tuple[float, float]] = []
    for top, bottom in lines:
        gap = (MAX_RULE_GAP if not run else MAX_ROW_GAP) * (bottom - top)
        if top > (run[-1][1] if run else edge) + gap:
            break
        run.append((top, bottom))
    return run


def _cut_across(area: BBox, words: Sequence[Word]) -> bool:
    """Whether a word on the table's lines runs over its left or right edge: the text goes on."""
    return any(
        area.y0 <= mid_y(w) <= area.y1 and (w[0] < area.x0 - ALIGN_SLACK < w[2] or w[0] < area.x1 + ALIGN_SLACK < w[2])
        for w in words
    )


def _stacked_header(above: Sequence[tuple[float, float]], words: Sequence[Word]) -> tuple[float, float]:
    """The header row over a rule: its last line, with the line right above it when each word of
    the last lies under a word of that one (a unit under its column's year: "2025" over "£m")."""
    header = above[-1]
    if len(above) < 2:
        return header
    upper = above[-2]
    if header[0] - upper[1] > MAX_ROW_GAP * (header[1] - header[0]):
        return header
    top = [w for w in words if upper[0] <= mid_y(w) <= upper[1]]
    under = [w for w in words if header[0] <= mid_y(w) <= header[1]]
    stacked = all(any(t[0] - ALIGN_SLACK <= w[0] and w[2] <= t[2] + ALIGN_SLACK for t in top) for w in under)
    return (upper[0], header[1]) if stacked else header


def _across(rule: Rule, header_rule: Rule) -> bool:
    """Whether ``rule`` runs across most of the table under ``header_rule``, closing it: a rule over
    one column's figures (a subtotal's) does not."""
    overlap = min(rule.x1, header_rule.x1) - max(rule.x0, header_rule.x0)
    return overlap >= ACROSS_SHARE * (header_rule.x1 - header_rule.x0)


def _overlaps(a: Rule, b: Rule) -> bool:
    return a.x0 < b.x1 and b.x0 < a.x1


def mid_y(word: Word) -> float:
    return (word[1] + word[3]) / 2


def _centre_in(word: Word, box: BBox) -> bool:
    return box.x0 <= (word[0] + word[2]) / 2 <= box.x1 and box.y0 <= mid_y(word) <= box.y1


class Grid:
    """Words placed in rows (vertical spans) and columns (between white gaps)."""

    def __init__(self, rows: Sequence[tuple[float, float]], gaps: list[float], words: Sequence[Word]) -> None:
        self.rows, self.gaps = list(rows), gaps
        self.cells: dict[tuple[int, int], list[Word]] = {}
        for w in words:
            row = next((k for k, (a, b) in enumerate(self.rows) if a <= mid_y(w) <= b), None)
            if row is not None:
                column = sum(1 for g in gaps if g < (w[0] + w[2]) / 2)
                self.cells.setdefault((row, column), []).append(w)

    @property
    def columns(self) -> int:
        return len(self.gaps) + 1

    def row_columns(self, row: int) -> list[int]:
        return [c for (r, c) in self.cells if r == row]

    def short_cells(self) -> bool:
        return bool(self.cells) and statistics.median(len(ws) for ws in self.cells.values()) <= MAX_CELL_WORDS

    def aligned(self, rows: Sequence[int]) -> bool:
        """Whether in every column most cells of ``rows`` share a left edge, a right edge or a centre;
        in the first column a line item set in under its group's label counts from the label's edge."""
        for column in range(self.columns):
            edges = [_edges(self.cells[(r, column)]) for r in rows if (r, column) in self.cells]
            if column == 0:
                edges = self._grouped_edges(rows)
            if len(edges) >= 2 and not any(_agree([e[k] for e in edges]) for k in range(3)):
                return False
        return True

    def _grouped_edges(self, rows: Sequence[int]) -> list[tuple[float, float, float]]:
        """The first column's cells' edges, a cell set in under a group's label (a lone first cell
        over rows: "Current assets" over its items) taken at the label's left edge."""
        edges, label = [], None
        for r in rows:
            if (r, 0) not in self.cells:
                continue
            left, right, centre = _edges(self.cells[(r, 0)])
            if self.row_columns(r) == [0]:
                label = left
            elif label is not None and left > label + ALIGN_SLACK:
                left = label  # set in under the label: one of its group's items
            else:
                label = None  # back at the edge, or no group: the group has ended
            edges.append((left, right, centre))
        return edges

    def strict_table(self) -> bool:
        """A header over rows that fill the columns it names, one column of numbers, aligned columns."""
        body = range(1, len(self.rows))
        full = FULL_ROW_SHARE * self.columns
        if self.columns < MIN_RULED_COLUMNS or not self._header_names_columns(full):
            return False
        if any(len(self.row_columns(r)) < 2 and (self.row_columns(r) != [0] or r == body[-1]) for r in body):
            return False  # a lone first cell is a group's label ("Current assets") over its rows
        rows = [r for r in body if self.row_columns(r) != [0]]  # a group's label fills no columns
        if sum(1 for r in rows if len(self.row_columns(r)) >= full) < MIN_FULL_ROWS * len(rows):
            return False
        return self.short_cells() and self.aligned(body) and self.number_column(body)

    def _header_names_columns(self, full: float) -> bool:
        """Whether the header names most columns, or every column but the first (a statement's
        header names its years, not its line items)."""
        named = set(self.row_columns(0))
        return len(named) >= max(MIN_RULED_COLUMNS, full) or named == set(range(1, self.columns))

    def number_column(self, rows: Sequence[int]) -> bool:
        """Whether some column holds a number in most of ``rows``."""
        for column in range(self.columns):
            numbers = sum(1 for r in rows if NUMBER.fullmatch(self.text(r, column)))
            if numbers >= MIN_FULL_ROWS * len(rows):
                return True
        return False

    def text(self, row: int, column: int) -> str:
        return " ".join(w[4] for w in sorted(self.cells.get((row, column), []), key=lambda w: w[0]))

    def table(self, area: BBox) -> FoundTable | None:
        cuts = [(a[1] + b[0]) / 2 - area.y0 for a, b in pairwise(self.rows)]
        cells = grid_cells(area, cuts, [g - area.x0 for g in self.gaps], [w for ws in self.cells.values() for w in ws])
        return FoundTable(area, cells, tuple(self.gaps)) if is_real_table(cells) else None


def _edges(words: Sequence[Word]) -> tuple[float, float, float]:
    """A cell's left edge, right edge and centre."""
    left, right = min(w[0] for w in words), max(w[2] for w in words)
    return left, right, (left + right) / 2


def _agree(edges: Sequence[float]) -> bool:
    """Whether most of ``edges`` lie within ALIGN_SLACK of one of them."""
    best = max(sum(1 for e in edges if abs(e - pivot) <= ALIGN_SLACK) for pivot in edges)
    return best >= MIN_ALIGNED * len(edges)

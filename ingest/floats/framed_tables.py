"""Tables framed by horizontal rules only (LaTeX ``booktabs``: a top rule, a rule under the header,
a bottom rule), the usual table of papers and reports. They have no vertical rulings, so the ruled
table finder (``ingest.floats.tables``) never sees them, and their rows would be read as one paragraph.

A candidate is the band between two rules of the same width; it is a table when the words inside
fall into at least two columns (gaps of white running through every line) and most cells are short,
which two-column prose between a page's header and footer rules is not.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from itertools import pairwise
from typing import Any

from docgraph.ingest.floats.tables import FoundTable, grid_cells, is_real_table
from docgraph.ingest.pdf.api import Word
from docgraph.ingest.pdf.lines import TextLine
from docgraph.ingest.pdf.strokes import HorizontalStroke as Rule
from docgraph.ingest.pdf.strokes import horizontal_strokes
from docgraph.ingest.types import BBox

MIN_RULE_WIDTH = 60.0  # points; shorter horizontal strokes are underlines or glyph parts
MAX_RULE_THICKNESS = 2.0
SAME_EXTENT = 4.0  # rules of one table start and end within this many points of each other
SAME_RULE = 2.5  # rules closer than this are one (a double rule)
MIN_COLUMN_GAP = 7.0  # white running down every line, at least this wide, separates columns
MIN_ROWS = 2  # a header and one row
MAX_ROWS = 80
MAX_WORDS_PER_CELL = 4.0  # median words in a filled cell line; prose runs to 8 and more
MIN_MULTI_CELL_SHARE = 0.6  # share of lines with words in two columns or more
MAX_RULE_TO_TEXT = 24.0  # points between the outer rules and the first and last line of text
MAX_CODE_SHARE = 0.8  # a band set in a monospaced font beyond this share is a code listing
OPEN_ROW_GAP = 1.0  # line heights between rows of a table running on past its last rule
MAX_RULES = 200  # more horizontal strokes than this: a drawing, a form or hatching, not booktabs tables
MIN_OPEN_ROWS = 2  # rows past the last rule, for it to be a table broken by the page
HEADER_ON_RULE = 0.5  # line heights between a header row and the rule it is set on
HEADING_SCALE = 1.5  # a line set this much larger than the page's median line is a heading
UNDERLINED_HEADING_STEP = 1.0  # points over the page's median line that an underlined heading is set in


def horizontal_rules(drawings: Sequence[dict[str, Any]]) -> list[Rule]:
    """Horizontal strokes at least a short column wide: lines, and thin filled rectangles."""
    return horizontal_strokes(drawings, max_thickness=MAX_RULE_THICKNESS, max_drift=1.0, min_width=MIN_RULE_WIDTH)


def find_framed_tables(
    drawings: Sequence[dict[str, Any]],
    words: Sequence[Word],
    taken: Sequence[BBox] = (),
    lines: Sequence[TextLine] = (),
) -> list[FoundTable]:
    """Tables between horizontal rules of one width, outside the areas ``taken`` (ruled tables)
    and outside code listings framed by rules (``lines`` set mostly in a monospaced font)."""
    found: list[FoundTable] = []
    rules = horizontal_rules(drawings)
    if len(rules) > MAX_RULES:
        return []
    headings = _headings(lines) + _underlined_headings(lines, rules)
    for stack in _stacks(rules):
        opened = _with_open_foot(stack, words, rules)
        tables = _tables_in_stack(opened, words, [*taken, *headings], open_foot=len(opened) > len(stack))
        found += [t for t in tables if not code_listing(lines, t.bbox)]
    return [t for t in found if not _holds_another(t, found)]


def _holds_another(table: FoundTable, found: Sequence[FoundTable]) -> bool:
    """Whether another table framed by rules of its own lies inside ``table``'s band: then the band
    is a section between two rules (a datasheet's headings are underlined across the page), which
    holds the table with its caption and notes, not a table itself."""
    inside = [t.bbox for t in found if t is not table and t.bbox.area < table.bbox.area]
    return any(table.bbox.intersection_area(box) >= 0.9 * box.area for box in inside)


def _headings(lines: Sequence[TextLine]) -> list[BBox]:
    """Lines set far larger than the page's text: headings, which no table between rules holds. A
    page's head rule over a heading set above a table is no top rule of the table."""
    if not lines:
        return []
    body = statistics.median(line.size for line in lines)
    return [line.bbox for line in lines if line.size >= HEADING_SCALE * body]


def _underlined_headings(lines: Sequence[TextLine], rules: Sequence[Rule]) -> list[BBox]:
    """Lines set a point or more larger than the page's text with a rule right under them, wider
    than they are: headings underlined across the page, as datasheets set them. The rule ends the
    section above, no table, and the band it closes holds the heading."""
    if not lines:
        return []
    body = statistics.median(line.size for line in lines)
    return [
        line.bbox
        for line in lines
        if line.size >= body + UNDERLINED_HEADING_STEP
        and any(_underlines(rule, line.bbox, line.size) for rule in rules)
    ]


def _underlines(rule: Rule, box: BBox, size: float) -> bool:
    """``rule`` runs under the line in ``box``: below its middle (through its descenders, perhaps),
    at most half a line under it, and at least as wide."""
    under = (box.y0 + box.y1) / 2 < rule.y <= box.y1 + 0.5 * size
    return under and rule.x0 <= box.x0 + SAME_RULE and rule.x1 >= box.x1


def _with_open_foot(stack: list[Rule], words: Sequence[Word], rules: Sequence[Rule]) -> list[Rule]:
    """The stack, with an edge drawn where rows run on past its last rule to the foot of the page:
    a table broken by a page break (LaTeX longtable) has no bottom rule on its first page. Such a
    band counts only joined to the band above it (a header between two rules), see
    :func:`_tables_in_stack`."""
    x0, x1, last = stack[0].x0, stack[0].x1, stack[-1].y
    # Rows run on down to the next rule across the column at most: past it lies another table.
    stop = min((r.y for r in rules if r.y > last + SAME_RULE and r.x0 < x1 and r.x1 > x0), default=float("inf"))
    across = [w for w in words if x0 <= (w[0] + w[2]) / 2 <= x1]
    below = _run_of_lines([line for line in word_lines(across) if last < line[0] and line[1] < stop], last)
    if below is None or not _keeps_columns(across, stack[0].y, last, below):
        return stack
    return [*stack, Rule(x0, x1, below + 1.0)]


def _keeps_columns(words: Sequence[Word], top: float, last: float, below: float) -> bool:
    """Whether the lines between ``last`` and ``below`` keep the white between the columns of the
    rows above ``last``: a table's rows run on so, its notes set under it ("¹ Average current at
    one measurement per second") run across them."""
    above = [w for w in words if top < (w[1] + w[3]) / 2 < last]
    run = [w for w in words if last < (w[1] + w[3]) / 2 < below]
    if not above:
        return False
    x0, x1 = min(w[0] for w in above), max(w[2] for w in above)
    return len(column_gaps([*above, *run], x0, x1)) >= len(column_gaps(above, x0, x1))


def _run_of_lines(lines: Sequence[tuple[float, float]], edge: float) -> float | None:
    """Where the run of lines starting right below ``edge`` ends (lines as (top, bottom), top
    down, each within a line height of the one before), or None for fewer than MIN_OPEN_ROWS."""
    run: list[tuple[float, float]] = []
    for top, bottom in lines:
        if top > (run[-1][1] if run else edge) + OPEN_ROW_GAP * (bottom - top):
            break
        run.append((top, bottom))
    return run[-1][1] if len(run) >= MIN_OPEN_ROWS else None


def code_listing(lines: Sequence[TextLine], area: BBox) -> bool:
    """Whether the lines inside ``area`` are set mostly in a monospaced font (by area)."""
    code = text = 0.0
    for line in lines:
        if area.intersection_area(line.bbox) >= 0.5 * line.bbox.area:
            code += line.bbox.area if line.mono else 0.0
            text += 0.0 if line.mono else line.bbox.area
    return code > MAX_CODE_SHARE * max(code + text, 1e-6)


def _stacks(rules: list[Rule]) -> list[list[Rule]]:
    """Rules grouped by horizontal extent, each group top to bottom, double rules merged."""
    groups: list[list[Rule]] = []
    for rule in sorted(rules, key=lambda r: (r.x0, r.x1, r.y)):
        group = next(
            (g for g in groups if abs(g[0].x0 - rule.x0) <= SAME_EXTENT and abs(g[0].x1 - rule.x1) <= SAME_EXTENT),
            None,
        )
        if group is None:
            groups.append([rule])
        else:
            group.append(rule)
    stacks = []
    for group in groups:
        ordered = sorted(group, key=lambda r: r.y)
        merged = [ordered[0]]
        merged += [r for prev, r in pairwise(ordered) if r.y - prev.y > SAME_RULE]
        if len(merged) >= 2:
            stacks.append(merged)
    return stacks


def _tables_in_stack(
    stack: list[Rule], words: Sequence[Word], taken: list[BBox], open_foot: bool = False
) -> list[FoundTable]:
    """From the top rule down: the widest band between two rules that holds a table, then on below
    it. With an ``open_foot`` (the last edge is no rule), the rows past the last rule alone are no
    table: a name block or two under a title page's rule would pass for one."""
    found = []
    i = 0
    while i < len(stack) - 1:
        table = None
        for j in range(len(stack) - 1, i, -1):
            if open_foot and j == len(stack) - 1 and i == len(stack) - 2:
                continue
            if open_foot and j == len(stack) - 1 and not _inside_text(stack[-2], words):
                continue  # the rows past the last rule do not run on from the rows above it
            table = _table_between(stack[i], stack[j], words, taken)
            if table is not None:
                found.append(table)
                taken.append(table.bbox)
                i = j
                break
        if table is None:
            i += 1
    return found


def _inside_text(rule: Rule, words: Sequence[Word]) -> bool:
    """A rule inside a table has its rows close on both sides (a header rule, the last rule before a
    table runs on over the page break); one with white above it and text only below (a page's footer
    rule under an invoice's totals) ends what is above it."""
    across = [w for w in words if rule.x0 <= (w[0] + w[2]) / 2 <= rule.x1]
    above = max((w[3] for w in across if w[3] <= rule.y + SAME_RULE), default=None)
    below = min((w[1] for w in across if w[1] >= rule.y - SAME_RULE), default=None)
    near = MAX_RULE_TO_TEXT
    return above is not None and below is not None and rule.y - above <= near and below - rule.y <= near


def _table_between(top: Rule, bottom: Rule, words: Sequence[Word], taken: Sequence[BBox]) -> FoundTable | None:
    x0, x1 = min(top.x0, bottom.x0), max(top.x1, bottom.x1)
    area = BBox(x0, top.y, x1, bottom.y)
    if any(area.intersection_area(t) > 0 for t in taken):
        return None
    inside = [w for w in words if x0 <= (w[0] + w[2]) / 2 <= x1 and top.y < (w[1] + w[3]) / 2 < bottom.y]
    lines = word_lines(inside)
    if not lines or lines[0][0] - top.y > MAX_RULE_TO_TEXT or bottom.y - lines[-1][1] > MAX_RULE_TO_TEXT:
        return None
    table = table_from_words(area, inside, lines=lines)
    return None if table is None else _with_header_on_rule(table, top, words, taken, lines) or table


def _with_header_on_rule(
    table: FoundTable, top: Rule, words: Sequence[Word], taken: Sequence[BBox], lines: list[tuple[float, float]]
) -> FoundTable | None:
    """``table`` with the header row set right on its top rule, no rule over it (a word processor's
    light table style: a bold header over one rule, a rule under the last row): the line just above
    the rule, when its words fall into the table's columns, two of them at least, and the rows under
    it read as before. A heading or a caption over the rule spans the columns' white."""
    x0, x1 = table.bbox.x0, table.bbox.x1
    above = word_lines([w for w in words if x0 <= (w[0] + w[2]) / 2 <= x1 and (w[1] + w[3]) / 2 < top.y])
    if not above:
        return None
    head = above[-1]
    if top.y - head[1] > HEADER_ON_RULE * (head[1] - head[0]):
        return None
    area = BBox(x0, head[0], x1, table.bbox.y1)
    if any(area.intersection_area(t) > 0 for t in taken):
        return None
    inside = [w for w in words if x0 <= (w[0] + w[2]) / 2 <= x1 and head[0] <= (w[1] + w[3]) / 2 < table.bbox.y1]
    grown = table_from_words(area, inside, lines=[head, *lines])
    if grown is None or len(grown.cells[0]) != len(table.cells[0]) or grown.cells[1:] != table.cells:
        return None
    return grown if sum(1 for cell in grown.cells[0] if cell.strip()) >= 2 else None


def table_from_words(
    area: BBox, words: Sequence[Word], min_rows: int = MIN_ROWS, lines: list[tuple[float, float]] | None = None
) -> FoundTable | None:
    """The words of ``area`` as a table, when they fall into columns of short cells; else None.
    ``lines``: the words' :func:`word_lines`, when the caller has them already."""
    lines = word_lines(words) if lines is None else lines
    if not min_rows <= len(lines) <= MAX_ROWS:
        return None
    gaps = column_gaps(words, area.x0, area.x1)
    if not gaps or not reads_as_cells(lines, words, gaps):
        return None
    row_cuts = [(a[1] + b[0]) / 2 - area.y0 for a, b in pairwise(lines)]
    cells = headers_over_their_columns(grid_cells(area, row_cuts, [g - area.x0 for g in gaps], words))
    return FoundTable(area, cells) if is_real_table(cells) else None


def headers_over_their_columns(cells: list[list[str]]) -> list[list[str]]:
    """A header centred over a wide column of text set flush left falls in white of its own: a
    column with a header and nothing under it, beside one with rows under no header, is one column
    ("Age group" over "16 to 24")."""
    j = 0
    while len(cells) > 1 and j < len(cells[0]):
        header_only = cells[0][j].strip() and not any(row[j].strip() for row in cells[1:])
        partner = next((k for k in (j - 1, j + 1) if 0 <= k < len(cells[0]) and _headless(cells, k)), None)
        if header_only and partner is not None:
            cells = [[*row[:partner], row[partner] or row[j], *row[partner + 1 :]] for row in cells]
            cells = [row[:j] + row[j + 1 :] for row in cells]
            continue
        j += 1
    return cells


def _headless(cells: list[list[str]], k: int) -> bool:
    """Column ``k`` has no header and text under it."""
    return not cells[0][k].strip() and any(row[k].strip() for row in cells[1:])


def word_lines(words: Sequence[Word]) -> list[tuple[float, float]]:
    """Text lines as (top, bottom): words whose vertical spans overlap by half are on one line."""
    spans: list[list[float]] = []
    for w in sorted(words, key=lambda w: (w[1] + w[3]) / 2):
        top, bottom = w[1], w[3]
        overlap = min(bottom, spans[-1][1]) - max(top, spans[-1][0]) if spans else 0.0
        if spans and overlap >= 0.5 * min(bottom - top, spans[-1][1] - spans[-1][0]):
            spans[-1] = [min(top, spans[-1][0]), max(bottom, spans[-1][1])]
        else:
            spans.append([top, bottom])
    return [(a, b) for a, b in spans]


def column_gaps(words: Sequence[Word], x0: float, x1: float) -> list[float]:
    """Midpoints of the white columns at least MIN_COLUMN_GAP wide that no word crosses."""
    covered = sorted((w[0], w[2]) for w in words)
    gaps = []
    reach = covered[0][1] if covered else x1
    for start, end in covered[1:]:
        if start - reach >= MIN_COLUMN_GAP:
            gaps.append((reach + start) / 2)
        reach = max(reach, end)
    return [g for g in gaps if x0 < g < x1]


def reads_as_cells(lines: list[tuple[float, float]], words: Sequence[Word], gaps: list[float]) -> bool:
    """Most lines have words in two columns or more, and a cell's line holds few words."""
    per_cell: dict[tuple[int, int], int] = {}
    for w in words:
        cy = (w[1] + w[3]) / 2
        row = next((k for k, (a, b) in enumerate(lines) if a <= cy <= b), -1)
        column = sum(1 for g in gaps if g < (w[0] + w[2]) / 2)
        per_cell[(row, column)] = per_cell.get((row, column), 0) + 1
    columns_per_line = [sum(1 for (r, _c) in per_cell if r == k) for k in range(len(lines))]
    multi = sum(1 for n in columns_per_line if n >= 2) / len(lines)
    return multi >= MIN_MULTI_CELL_SHARE and statistics.median(per_cell.values()) <= MAX_WORDS_PER_CELL

"""Table extraction: ruled tables via ``page.find_tables``, grids from the layout model, markdown."""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pymupdf

from docgraph.ingest.floats.label_rows import without_header
from docgraph.ingest.floats.table_headers import join_group_header, split_banded_labels
from docgraph.ingest.pdf import api as pdf_api
from docgraph.ingest.pdf.api import Word
from docgraph.ingest.pdf.text import clean_inline
from docgraph.ingest.types import BBox

MIN_EDGE_LENGTH = 8.0  # points; shorter strokes are glyph decorations, not rulings
MIN_EDGES_PER_AXIS = 2
MIN_TABLE_WIDTH = 40.0  # points
MAX_CLUSTERED_PATHS = 3000
MIN_TABLE_HEIGHT = 20.0
# A chart's marks (``drawn_as_chart``): of the 116 grids the finder took for tables in the benchmark
# and test PDFs, the 97 real tables have none; 15 of the 19 framed plots (lattice panels, trees
# with a chart in each leaf) have 12 to 3,646, and the other four (generalsiminf's confidence
# intervals: 3 to 8) hold no letter or digit in their cells either (``is_real_table``).
MIN_CHART_MARKS = 8
TICK_SIZE = 6.0  # points
SLANT = 0.5  # points: a stroke moving more than this on both axes is slanted
ROUNDED_CORNERS = 4  # curve pieces of a rounded frame, which a table may have
NONE_MARKS = frozenset({"-", "\u2013", "\u2014"})  # a cell that says "none" or "not applicable"
RULE_THICKNESS = 2.0  # points: a rectangle this thin on one axis is a drawn rule
OPEN_SIDE_RULES = 3  # vertical rules that stop at one height, no rule across them: a grid cut open


@dataclass(slots=True)
class FoundTable:
    bbox: BBox
    cells: list[list[str]]
    gaps: tuple[float, ...] = ()  # where its columns part, where found from the words' white


def _edges(drawings: Sequence[dict[str, Any]]) -> tuple[int, int]:
    """Count horizontal and vertical stroke-like items (lines, thin rectangles, rectangle sides)."""
    horizontal = vertical = 0
    for path in drawings:
        for item in path.get("items", []):
            if item[0] == "l":
                p, q = item[1], item[2]
                if abs(p.y - q.y) < 1 and abs(p.x - q.x) >= MIN_EDGE_LENGTH:
                    horizontal += 1
                elif abs(p.x - q.x) < 1 and abs(p.y - q.y) >= MIN_EDGE_LENGTH:
                    vertical += 1
            elif item[0] in ("re", "qu"):
                rect = item[1].rect if item[0] == "qu" else item[1]
                horizontal += 2 if rect.width >= MIN_EDGE_LENGTH else 0
                vertical += 2 if rect.height >= MIN_EDGE_LENGTH else 0
    return horizontal, vertical


def may_have_ruled_table(drawings: Sequence[dict[str, Any]]) -> bool:
    """Cheap pre-check: rulings on both axes, more than one plain frame's worth."""
    horizontal, vertical = _edges(drawings)
    both = horizontal >= MIN_EDGES_PER_AXIS and vertical >= MIN_EDGES_PER_AXIS
    return both and horizontal + vertical > 2 * MIN_EDGES_PER_AXIS


def grid_candidates(page: pymupdf.Page, drawings: list[dict[str, Any]]) -> list[tuple[float, float, float, float]]:
    """Areas where drawings form rulings on both axes: the only places a ruled table can be."""
    ruling = [p for p in drawings if any(item[0] in ("l", "re", "qu") for item in p.get("items", []))]
    if not may_have_ruled_table(ruling):
        return []
    if len(ruling) > MAX_CLUSTERED_PATHS:  # clustering is quadratic: search the whole page instead
        rect = page.rect
        return [(rect.x0, rect.y0, rect.x1, rect.y1)]
    boxes = [(tuple(p["rect"]), p) for p in ruling]
    areas = []
    for rect in page.cluster_drawings(drawings=ruling):
        if rect.width < MIN_TABLE_WIDTH:
            continue
        x0, y0, x1, y1 = rect.x0 - 1, rect.y0 - 1, rect.x1 + 1, rect.y1 + 1
        inside = [p for (a, b, c, d), p in boxes if a >= x0 and b >= y0 and c <= x1 and d <= y1]
        # a row of cells a page break left alone, one line high, is a table's part too
        row_of_cells = len(_rules(inside)[1]) >= OPEN_SIDE_RULES
        if may_have_ruled_table(inside) and (rect.height >= MIN_TABLE_HEIGHT or row_of_cells):
            areas.append((rect.x0 - 2, rect.y0 - 2, rect.x1 + 2, rect.y1 + 2))
    return areas


def find_ruled_tables(page: pymupdf.Page, drawings: list[dict[str, Any]], words: Sequence[Word]) -> list[FoundTable]:
    """Tables drawn with ruling lines or cell borders (no layout model involved).

    ``find_tables`` runs only inside areas with rulings on both axes (it converts every
    character of its clip to Python objects, which dominates its cost). Only the cell geometry
    comes from it: its own text assembly drops the spaces of justified text, so cell text is
    rebuilt from the page's words.
    """
    found = []
    for area in grid_candidates(page, drawings):
        paths = visible_paths([p for p in drawings if _meet(_box(p["rect"]), BBox(*area))])
        closing = closing_lines(paths)
        finder = pdf_api.find_tables(page, clip=area, use_layout=False, paths=paths, add_lines=closing or None)
        for table in finder.tables if finder is not None else []:
            rects = [row.cells for row in table.rows]
            cells = [[_words_in(rect, words) if rect else "" for rect in row] for row in rects]
            cells = join_group_header(rects, fill_spanned_rows(rects, split_banded_labels(rects, cells, words)))
            cells = without_header(page, rects, cells, paths)
            box = BBox(*table.bbox)
            if is_real_table(cells) and not drawn_as_chart(drawings, box):
                found.append(FoundTable(box, cells))
    return found


def fill_spanned_rows(rects: Sequence[Sequence[Any]], cells: list[list[str]]) -> list[list[str]]:
    """``cells`` with each place that a body cell spanning rows covers (None in ``rects``, as PyMuPDF's
    table finder gives it) holding that cell's text, so that each row names its group: an SmPC's
    "Nervous system disorders" set once over "Very common | Headache" and "Rare | Convulsions"."""
    filled = [list(row) for row in cells]
    for r in range(2, len(rects)):
        tops = [rect[1] for rect in rects[r] if rect is not None]
        for c, rect in enumerate(rects[r]):
            above = next((k for k in range(r - 1, 0, -1) if c < len(rects[k]) and rects[k][c] is not None), None)
            if rect is None and tops and above is not None and rects[above][c][3] > min(tops) + 1:
                filled[r][c] = filled[above][c]
    return filled


def closing_lines(paths: Sequence[dict[str, Any]]) -> list[tuple[tuple[float, float], tuple[float, float]]]:
    """Rules that close a grid a page break cut open. A table's part that runs on over a page break
    may be drawn without a rule along its cut side (HTML renderers draw each row's border under it,
    and the rule over the part's first row closed the part on the page before), and the line finder
    sees no cell in an open grid. Where three vertical rules or more start (or end) at one height
    and no horizontal rule runs there between them, a rule across them is added."""
    horizontal, vertical = _rules(paths)
    lines = []
    for side in (0, 1):  # the tops of the vertical rules, then their bottoms
        ends: dict[int, list[float]] = {}
        for x, y0, y1 in vertical:
            ends.setdefault(round((y0, y1)[side]), []).append(x)
        for y, xs in ends.items():
            left, right = min(xs), max(xs)
            closed = any(abs(h_y - y) <= 1.5 and h_x0 < right and h_x1 > left for h_y, h_x0, h_x1 in horizontal)
            if len(xs) >= OPEN_SIDE_RULES and not closed:
                lines.append(((left, float(y)), (right, float(y))))
    return lines


Rule = tuple[float, float, float]  # a rule's position across it, then where it starts and ends along it


def _rules(paths: Sequence[dict[str, Any]]) -> tuple[list[Rule], list[Rule]]:
    """The horizontal rules (y, x0, x1) and vertical rules (x, y0, y1) among ``paths``: lines, and
    rectangles thin on one axis."""
    horizontal: list[Rule] = []
    vertical: list[Rule] = []
    for path in paths:
        for item in path.get("items", []):
            if item[0] == "l":
                p, q = item[1], item[2]
                box = BBox(min(p.x, q.x), min(p.y, q.y), max(p.x, q.x), max(p.y, q.y))
            elif item[0] == "re":
                box = _box(item[1])
            else:
                continue
            if box.height <= RULE_THICKNESS and box.width >= MIN_EDGE_LENGTH:
                horizontal.append(((box.y0 + box.y1) / 2, box.x0, box.x1))
            elif box.width <= RULE_THICKNESS and box.height >= MIN_EDGE_LENGTH:
                vertical.append(((box.x0 + box.x1) / 2, box.y0, box.y1))
    return horizontal, vertical


def visible_paths(drawings: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The drawings less the fills that cannot be seen: a fill laid on a fill of its own colour
    that wholly holds it, with nothing drawn between them where it lies. Such a fill draws no edge,
    so it must not cut a cell: HTML renderers shade a header cell and then each word in it again,
    and the word's box would part the cell into narrow columns of its own. (Too many drawings to
    compare pairwise: all are kept.)"""
    if len(drawings) > MAX_CLUSTERED_PATHS:
        return list(drawings)
    boxes = [_box(path["rect"]) for path in drawings]
    kept: list[int] = []
    for index, path in enumerate(drawings):
        box = boxes[index]
        # What shows under it: the last visible drawing there (a hidden fill is its fill's colour).
        under = next((j for j in reversed(kept) if _meet(boxes[j], box)), None)
        hidden = under is not None and _same_fill(path, drawings[under]) and boxes[under].union(box) == boxes[under]
        if not hidden:
            kept.append(index)
    return [drawings[j] for j in kept]


def _same_fill(path: dict[str, Any], below: dict[str, Any]) -> bool:
    """Both are plain fills (no stroke) of one colour and opacity."""
    plain = path.get("type") == "f" and below.get("type") == "f"
    return plain and path.get("fill") == below.get("fill") and path.get("fill_opacity") == below.get("fill_opacity")


def _box(rect: Sequence[float]) -> BBox:
    return BBox(*rect[:4])


def _meet(a: BBox, b: BBox) -> bool:
    """Whether two boxes overlap or touch (a rule drawn as a line has no height)."""
    return a.x0 <= b.x1 and b.x0 <= a.x1 and a.y0 <= b.y1 and b.y0 <= a.y1


def drawn_as_chart(drawings: Sequence[dict[str, Any]], box: BBox) -> bool:
    """Whether the drawings centred in ``box`` are a chart's rather than a table's rulings.

    A plot whose panels are framed (a lattice of panels, a tree with a chart in each leaf) has
    rulings on both axes, and its axis and panel labels fall into the cells, so the grid finder
    reads it as a table. Its marks tell it apart: tick marks and point markers (paths smaller than
    ``TICK_SIZE``), slanted strokes, and curves other than a rounded frame's corners. A table is
    ruled with long axis-parallel strokes only. Left out, the chart is found as a figure.
    """
    marks = 0
    for path in drawings:
        rect = path["rect"]
        if BBox(rect.x0, rect.y0, rect.x1, rect.y1).centre_in(box):
            marks += _chart_marks(path)
            if marks >= MIN_CHART_MARKS:
                return True
    return False


def _chart_marks(path: dict[str, Any]) -> int:
    rect, items = path["rect"], path.get("items", [])
    if rect.width < TICK_SIZE and rect.height < TICK_SIZE:
        return 1
    slanted = sum(1 for item in items if item[0] == "l" and _slanted(item[1], item[2]))
    curves = sum(1 for item in items if item[0] == "c")
    straight = any(item[0] in ("l", "re") for item in items)
    rounded_frame = straight and curves <= ROUNDED_CORNERS
    return slanted + (0 if rounded_frame else curves)


def _slanted(start: pymupdf.Point, end: pymupdf.Point) -> bool:
    return abs(end.x - start.x) > SLANT and abs(end.y - start.y) > SLANT


def _words_in(rect: Sequence[float], words: Sequence[Word]) -> str:
    box = BBox(*rect[:4])
    return _cell_text([w for w in words if centre_in(w, box)])


def centre_in(word: Word, box: BBox) -> bool:
    """Whether the word's centre lies in ``box`` (edges included)."""
    return box.x0 <= (word[0] + word[2]) / 2 <= box.x1 and box.y0 <= (word[1] + word[3]) / 2 <= box.y1


def is_real_table(cells: list[list[str]]) -> bool:
    """Reject frames and single boxes that the line finder reports as tables, and grids whose
    cells hold no words or numbers (a plot's brackets "( )", stray marks)."""
    rows = len(cells)
    cols = max((len(r) for r in cells), default=0)
    filled = sum(1 for row in cells for cell in row if any(ch.isalnum() for ch in cell))
    if cols < 2 or filled < 2:
        return False
    if rows == 1:  # one row: only a fully filled row is plausibly a table fragment (a dash: "none")
        return filled + sum(1 for cell in cells[0] if cell.strip() in NONE_MARKS) == cols
    return filled >= 3


def to_markdown(cells: Sequence[Sequence[str]]) -> str:
    """Render rows as a markdown table; the first row is the header row."""
    if not cells:
        return ""
    width = max(len(row) for row in cells)

    def fmt(row: Sequence[str]) -> str:
        padded = [_escape(c) for c in row] + [""] * (width - len(row))
        return "| " + " | ".join(padded) + " |"

    lines = [fmt(cells[0]), "| " + " | ".join(["---"] * width) + " |"]
    lines.extend(fmt(row) for row in cells[1:])
    return "\n".join(lines)


def _escape(cell: str) -> str:
    return cell.replace("|", "\\|").replace("\n", " ")


def grid_cells(
    bbox: BBox, row_lines: Sequence[float], col_lines: Sequence[float], words: Sequence[Word]
) -> list[list[str]]:
    """Fill a grid (separator offsets relative to ``bbox``) with the words whose centres fall in each cell."""
    row_cuts = sorted(bbox.y0 + y for y in row_lines if 0 < y < bbox.height)
    col_cuts = sorted(bbox.x0 + x for x in col_lines if 0 < x < bbox.width)
    grid: list[list[list[Word]]] = [[[] for _ in range(len(col_cuts) + 1)] for _ in range(len(row_cuts) + 1)]
    for word in words:
        cx, cy = (word[0] + word[2]) / 2, (word[1] + word[3]) / 2
        if not (bbox.x0 <= cx <= bbox.x1 and bbox.y0 <= cy <= bbox.y1):
            continue
        grid[bisect.bisect(row_cuts, cy)][bisect.bisect(col_cuts, cx)].append(word)
    rows = [[_cell_text(cell) for cell in row] for row in grid]
    return _drop_empty(rows)


def _cell_text(words: Sequence[Word]) -> str:
    ordered = sorted(words, key=lambda w: (w[5], w[6], w[7]))  # MuPDF's block, line, word order
    return clean_inline(" ".join(w[4] for w in ordered))


def _drop_empty(rows: list[list[str]]) -> list[list[str]]:
    rows = [row for row in rows if any(row)]
    if not rows:
        return []
    keep = [j for j in range(len(rows[0])) if any(row[j] for row in rows)]
    return [[row[j] for j in keep] for row in rows]

"""Displayed equations put back together.

A text layer sets one displayed formula as many small pieces: a fraction's numerator and
denominator, a sum's limits, a bracket, the equation number at the column's edge. The block
segmenter makes each piece a block of its own, so a physics paper's page came out as dozens of
one-symbol "paragraphs" ("∞", "i=0", "(3)"). Pieces that touch one another and carry math are
joined here into one formula region, its equation number last, where references look for it.

A formula set on one line with its number comes out as one block (or one row of blocks); it is a
formula when it is displayed: its own row, indented within its column, math before a number that
ends at the column's right edge, as a typesetter sets an equation number.

Only blocks the font rules typed (paragraph or formula) take part; prose never does: a block
with more than one word of running text is not a piece of a formula.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import reduce
from typing import Literal

from docgraph.ingest.page.blocks import Block
from docgraph.ingest.pdf.lines import TextLine, is_math_char, rows_in_order
from docgraph.ingest.types import BBox

Role = Literal["seed", "piece", "tag"]
PROSE_KINDS = frozenset({"paragraph", "list"})

MAX_SEED_CHARS = 80  # non-space characters: a longer block with math in it is prose with inline math
MAX_PIECE_CHARS = 40  # a limit, an index, a bracket, a fraction's numerator: no word of prose
MAX_LABEL_CHARS = 4  # a subscript word ("perm", "eff") is a piece too
MAX_LINES = 4
TOUCH_GAP_EM = 0.6  # vertical gap between the pieces of one formula
SIDE_GAP_EM = 1.5  # horizontal gap between pieces
ROW_GAP_EM = 3.0  # ... on one row: a fraction beside the left-hand side
SAME_EDGE = 1.5  # points: two blocks' edges this close are one column edge
TAG_REACH_EM = 12.0  # an equation number sits at the column's right edge, far from its formula
DISPLAY_INDENT_EM = 1.0  # a displayed line starts at least this far inside its column's left edge
RIGHT_EDGE_EM = 0.5  # ... and its equation number ends this close to the column's right edge
# A displayed equation with words between its sides ("f(x) = g(x) for all x ∈ A   (3.7)"): a few
# words, and centred: it starts farther in than a paragraph's first line (twice its indent).
MAX_DISPLAY_WORDS = 4
WORDED_INDENT_EM = 3.0
# Relations and arrows: what makes a line with a number at its end an equation.
RELATION_SIGNS = frozenset("=<>≤≥≠≈≡∼≃≅∝∈∉∋⊂⊆⊃⊇≺≻≪≫→←↔⇒⇐⇔↦⟶⟹")
# Words that are operators in a formula, not prose ("lim", "sin").
MATH_WORDS = frozenset(
    {"lim", "sin", "cos", "tan", "cot", "sec", "csc", "log", "exp", "max", "min", "sup", "inf", "det"}
    | {"arg", "dim", "ker", "mod", "deg", "gcd", "sinh", "cosh", "tanh", "arcsin", "arccos", "arctan"}
    | {"diag", "sgn", "erf", "var", "cov", "const"}
)
_PROSE_WORD = re.compile(r"[A-Za-z][a-z]{2,}")
_TRIM = ".,;:()[]{}"
_ASCII_OPERATORS = frozenset("=+<>^")
EQUATION_TAG = re.compile(r"\(\s*[A-Z]?\d{1,3}(?:\.\d{1,3})*[a-z]?\s*\)")
_RELATION = re.compile(f"[{re.escape(''.join(sorted(RELATION_SIGNS)))}]")
_TAG_LAST = re.compile(rf"\s{EQUATION_TAG.pattern}[\s,.]*$")  # a number after a space, last on its line


@dataclass(slots=True)
class _Member:
    index: int  # position in the page's block list
    block: Block
    role: Role
    box: BBox


def prose_words(text: str) -> int:
    """Words of running text in ``text``: three or more letters, lowercase after the first."""
    cores = (token.strip(_TRIM) for token in text.split())
    return sum(1 for core in cores if _PROSE_WORD.fullmatch(core) and core.lower() not in MATH_WORDS)


def _role(block: Block) -> Role | None:
    if block.source != "fonts" or block.kind not in ("paragraph", "formula") or len(block.lines) > MAX_LINES:
        return None
    text = block.raw_text
    chars = len(text) - sum(map(str.isspace, text))
    if chars > MAX_SEED_CHARS:  # most blocks: prose
        return None
    if EQUATION_TAG.fullmatch(text.strip()):
        return "tag"
    words = prose_words(text)
    if words <= 1 and (block.kind == "formula" or _has_operator(text)):
        return "seed"
    if (chars <= MAX_PIECE_CHARS and words == 0) or chars <= MAX_LABEL_CHARS:
        return "piece"
    return None


def _has_operator(text: str) -> bool:
    return any(ch in _ASCII_OPERATORS for ch in text) or any(map(is_math_char, text))


@dataclass(frozen=True, slots=True)
class _Geometry:
    em: float
    column_edges: tuple[float, ...]  # left and right edges of the page's prose blocks

    def touch(self, a: BBox, b: BBox) -> bool:
        vertical_gap = max(a.y0, b.y0) - min(a.y1, b.y1)
        horizontal_gap = max(a.x0, b.x0) - min(a.x1, b.x1)
        same_row = -vertical_gap >= 0.3 * min(a.height, b.height)
        reach = (ROW_GAP_EM if same_row else SIDE_GAP_EM) * self.em
        return vertical_gap <= TOUCH_GAP_EM * self.em and horizontal_gap <= reach and not self.across_columns(a, b)

    def tags_along(self, tag: BBox, formula: BBox) -> bool:
        """An equation number on the formula's row, to its right, within reach, in its column."""
        overlap = tag.y_overlap(formula)
        gap = tag.x0 - formula.x1
        in_reach = -self.em <= gap <= TAG_REACH_EM * self.em
        return overlap >= 0.5 * tag.height and in_reach and not self.across_columns(formula, tag)

    def across_columns(self, a: BBox, b: BBox) -> bool:
        """A column of prose starts or ends between the two boxes: two columns' formulas side by
        side are two formulas, however close the gutter."""
        left, right = (a, b) if a.x1 <= b.x0 else (b, a)
        if left.x1 > right.x0:
            return False
        return any(left.x1 - self.em <= edge <= right.x0 + self.em for edge in self.column_edges)


def _geometry(blocks: list[Block], members: set[int], em: float) -> _Geometry:
    """Column edges: where two or more prose blocks of two lines or more start or end (one block's
    edge may be a formula's, read as prose for its symbol names)."""
    prose = [b.bbox for i, b in enumerate(blocks) if i not in members and b.kind in PROSE_KINDS and len(b.lines) > 1]
    edges = [(i, x) for i, box in enumerate(prose) for x in (box.x0, box.x1)]
    shared = {x for i, x in edges if any(j != i and abs(x - y) <= SAME_EDGE for j, y in edges)}
    return _Geometry(em, tuple(sorted(shared)))


def _clusters(members: list[_Member], geometry: _Geometry) -> list[list[_Member]]:
    """Seeds and pieces that touch, transitively; then each tag joins the formula on its row."""
    formulas = [g for g in _touching_groups(members, geometry) if any(m.role == "seed" for m in g)]
    boxes = [_union(g) for g in formulas]  # kept up to date as tags join
    for tag in (m for m in members if m.role == "tag"):
        near = [i for i, box in enumerate(boxes) if geometry.tags_along(tag.box, box)]
        if near:
            nearest = min(near, key=lambda i: tag.box.x0 - boxes[i].x1)
            formulas[nearest].append(tag)
            boxes[nearest] = boxes[nearest].union(tag.box)
    return [g for g in formulas if len(g) > 1]


def _touching_groups(members: list[_Member], geometry: _Geometry) -> list[list[_Member]]:
    """The non-tag members in groups that touch transitively: each member, in page order, merges
    the groups it touches into a new last group, itself first. Earlier members are found through a
    grid of cells as wide as the farthest reach, so a page of thousands of tiny spans (a map, a
    scatter plot) is not every member against every group."""
    cell = max(ROW_GAP_EM, SIDE_GAP_EM, TOUCH_GAP_EM) * max(geometry.em, 1.0)
    grid: dict[tuple[int, int], list[int]] = {}  # cell -> positions of the members placed in it
    placed: list[_Member] = []
    group_of: list[int] = []  # position -> the number of its group (the position that made it)
    groups: dict[int, list[int]] = {}  # number -> positions; insertion order is the groups' order
    for member in (m for m in members if m.role != "tag"):
        position = len(placed)
        near = {i for key in _cells(member.box, cell, reach=1) for i in grid.get(key, ())}
        joined = sorted({group_of[i] for i in near if geometry.touch(member.box, placed[i].box)})
        groups[position] = [position, *(i for number in joined for i in groups.pop(number))]
        placed.append(member)
        group_of.append(position)
        for i in groups[position]:
            group_of[i] = position
        for key in _cells(member.box, cell, reach=0):
            grid.setdefault(key, []).append(position)
    return [[placed[i] for i in group] for group in groups.values()]


def _cells(box: BBox, cell: float, reach: int) -> list[tuple[int, int]]:
    """The grid cells ``box`` covers, and ``reach`` cells more on every side."""
    xs = range(int(box.x0 // cell) - reach, int(box.x1 // cell) + reach + 1)
    ys = range(int(box.y0 // cell) - reach, int(box.y1 // cell) + reach + 1)
    return [(x, y) for x in xs for y in ys]


def _split_at_tags(lines: list[TextLine], em: float) -> list[list[TextLine]]:
    """Equations stacked close together (an ``align``) are one formula each: every line goes with
    the numbered row nearest to it."""
    rows: list[float] = []
    for y in sorted(line.center_y for line in lines if _ends_in_tag(line.text)):
        if not rows or y - rows[-1] > 0.5 * em:
            rows.append(y)
    if len(rows) < 2:
        return [lines]
    parts: list[list[TextLine]] = [[] for _ in rows]
    for line in lines:
        parts[min(range(len(rows)), key=lambda i: abs(rows[i] - line.center_y))].append(line)
    return [part for part in parts if part]


def _union(group: Sequence[_Member]) -> BBox:
    return reduce(BBox.union, (member.box for member in group))


def _formula_lines(lines: list[TextLine]) -> list[TextLine]:
    """Rows top to bottom, left to right within a row; the equation number last."""
    rows = rows_in_order(lines)
    tagged = [line for line in rows if _ends_in_tag(line.text)]
    return [line for line in rows if line not in tagged] + tagged


def _ends_in_tag(text: str) -> bool:
    tags = list(EQUATION_TAG.finditer(text))
    return bool(tags) and not text[tags[-1].end() :].strip(" ,.")


def _numbered_lines(blocks: list[Block], members: list[_Member], taken: set[int], em: float) -> list[list[_Member]]:
    """Seeds on no formula yet that are displayed equations of one line, each a formula of its own."""
    indexes = {m.index for m in members}
    prose = [b.bbox for i, b in enumerate(blocks) if i not in indexes and b.kind in PROSE_KINDS and len(b.lines) > 1]
    seeds = (m for m in members if m.role == "seed" and m.index not in taken)
    return [[m] for m in seeds if _numbered_line(m.block, em) and _displayed(m.box, _column(m.box, prose, em), em)]


def _numbered_line(block: Block, em: float) -> bool:
    """One row, not code nor a list item, whose equation number comes last after a space, with a
    relation, an arrow or a math character before it."""
    rows = [line.center_y for line in block.lines]
    if block.mono or block.list_item or max(rows) - min(rows) > 0.4 * em:
        return False
    tag = _TAG_LAST.search(block.raw_text)
    if tag is None:
        return False
    body = block.raw_text[: tag.start()]
    return any(ch in RELATION_SIGNS or is_math_char(ch) for ch in body) or (block.math > 0 and bool(body.strip()))


def _worded_lines(blocks: list[Block], members: set[int], em: float) -> list[list[_Member]]:
    """Displayed equations of one line with a few words between or after their sides ("for all
    x ∈ A", "if and only if"), each a formula of its own: a relation with something on both of its
    sides before the number, set far in from the column's left edge, the number at its right."""
    prose = [b.bbox for i, b in enumerate(blocks) if i not in members and b.kind in PROSE_KINDS and len(b.lines) > 1]
    found: list[list[_Member]] = []
    for index, block in enumerate(blocks):
        if index in members or block.source != "fonts" or block.kind not in ("paragraph", "formula"):
            continue
        tag = _TAG_LAST.search(block.raw_text)
        if tag is None or not _numbered_line(block, em) or prose_words(block.raw_text) > MAX_DISPLAY_WORDS:
            continue
        sides = _RELATION.split(block.raw_text[: tag.start()])
        column = _column(block.bbox, prose, em)
        related = len(sides) > 1 and bool(sides[0].strip()) and bool(sides[-1].strip())
        far_in = column is not None and block.bbox.x0 >= column[0] + WORDED_INDENT_EM * em
        if related and far_in and _displayed(block.bbox, column, em):
            found.append([_Member(index, block, "seed", block.bbox)])
    return found


def _column(box: BBox, prose: list[BBox], em: float) -> tuple[float, float] | None:
    """Left and right edges of the column ``box`` is set in: those of the nearest paragraphs above
    and below that run past its middle (a display sits between the sentences around it)."""
    middle = (box.x0 + box.x1) / 2
    around = [p for p in prose if p.x0 <= middle <= p.x1]
    above = [p for p in around if p.y1 <= box.y0 + 0.5 * em]
    below = [p for p in around if p.y0 >= box.y1 - 0.5 * em]
    near = [max(above, key=lambda p: p.y1)] if above else []
    near += [min(below, key=lambda p: p.y0)] if below else []
    if not near:
        return None
    return min(p.x0 for p in near), max(p.x1 for p in near)


def _displayed(box: BBox, column: tuple[float, float] | None, em: float) -> bool:
    """Indented or centred in its column, its number at the column's right edge (a ragged column's
    lines end short of it)."""
    if column is None:
        return False
    left, right = column
    return box.x0 >= left + DISPLAY_INDENT_EM * em and box.x1 >= right - RIGHT_EDGE_EM * em


def join_display_math(blocks: list[Block], em: float) -> list[Block]:
    """The page's blocks with each displayed formula's pieces joined into one formula block, at
    the place of its first piece; a displayed line with its equation number is a formula too."""
    members = [_Member(i, b, role, b.bbox) for i, b in enumerate(blocks) if (role := _role(b)) is not None]
    geometry = _geometry(blocks, {m.index for m in members}, em)
    clusters = _clusters(members, geometry)
    clusters += _numbered_lines(blocks, members, {m.index for g in clusters for m in g}, em)
    clusters += _worded_lines(blocks, {m.index for m in members}, em)
    if not clusters:
        return blocks
    joined: dict[int, list[Block]] = {}
    taken: set[int] = set()
    for group in clusters:
        lines = [line for member in group for line in member.block.lines]
        formulas = [Block(_formula_lines(part), "formula", source="fonts") for part in _split_at_tags(lines, em)]
        joined[min(m.index for m in group)] = formulas
        taken.update(m.index for m in group)
    return [out for i, block in enumerate(blocks) for out in joined.get(i, [] if i in taken else [block])]

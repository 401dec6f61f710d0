"""Line numbers printed in a page's margin (review copies, preprints, pleading paper).

LaTeX's ``lineno`` package (ACM ``review``, journal ``preprint`` modes) and legal templates print a
number beside every line, in the margin left of the text or right of it. Each number comes out of
the PDF as a line of its own, so left in, a page gains fifty one-number paragraphs between its
real ones. They number the page's lines, not its content, and are dropped before any other step.

A run of number-only lines is margin numbering when the numbers share a left or a right edge, rise
down the page by one step (1, 2, 3 or 5, 10, 15), and lie wholly outside the page's text: left of
where its lines usually start, right of every other line beside them, or in the gutter between two
columns (European patents). A table's "No." column is not taken, as it starts where the text does.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from itertools import pairwise

from docgraph.ingest.floats.tables import centre_in
from docgraph.ingest.pdf.api import Word
from docgraph.ingest.pdf.lines import TextLine
from docgraph.ingest.types import BBox

MIN_RUN = 5  # fewer numbers in a column than this are not a numbering
EDGE_TOLERANCE = 2.0  # points: numbers of one column share an edge within this (right-aligned digits)
MARGIN_GAP = 1.0  # points: how far outside the text a number must end
STEP_SHARE = 0.8  # share of consecutive numbers that must differ by the column's usual step
GUTTER_LINES_PER_NUMBER = 2  # lines beside a gutter per number in it (a table has one)
EVEN_PITCH = 1.5  # the widest space between a gutter's numbers, per step, to the narrowest

_NUMBER = re.compile(r"\d{1,5}")
_LEADERS = re.compile(r"(?:\.\s?){4,}\s*$")  # a contents entry's dot leaders, ending its text


def margin_line_numbers(lines: Sequence[TextLine]) -> set[int]:
    """Indexes of ``lines`` that are margin line numbers."""
    numbers = {i for i, line in enumerate(lines) if line.horizontal and _NUMBER.fullmatch(line.text.strip())}
    if len(numbers) < MIN_RUN:
        return set()
    others = [line for i, line in enumerate(lines) if i not in numbers]
    text_edges = _usual_edges(others)
    found: set[int] = set()
    for column in _columns(lines, numbers):
        outside = _numbering(column, lines) and _outside_text(column, lines, others, text_edges)
        if outside and not _led_to(column, lines, others):
            found.update(column)
    return found


def _led_to(column: list[int], lines: Sequence[TextLine], others: Sequence[TextLine]) -> bool:
    """Most numbers of ``column`` end a row whose text ends in dot leaders ("Specifications ....."):
    a contents list's page numbers, set apart from their leaders, number its entries, not its lines."""
    led = [o.bbox for o in others if _LEADERS.search(o.text)]
    on_row = sum(1 for i in column if any(box.y_overlap(lines[i].bbox) > 0 for box in led))
    return on_row > len(column) / 2


def drop_line_numbers(
    lines: list[TextLine], words: list[Word], tables: Sequence[BBox] = ()
) -> tuple[list[TextLine], list[Word]]:
    """``lines`` and ``words`` without the page's margin line numbers; numbers inside a ruled table
    (``tables``) are its cells, though they rise by one down its last column."""
    dropped = {i for i in margin_line_numbers(lines) if not any(lines[i].bbox.centre_in(t) for t in tables)}
    if not dropped:
        return lines, words
    boxes = [lines[i].bbox for i in dropped]
    kept_words = [w for w in words if not any(centre_in(w, box) for box in boxes)]
    return [line for i, line in enumerate(lines) if i not in dropped], kept_words


def _columns(lines: Sequence[TextLine], numbers: set[int]) -> list[list[int]]:
    """Number lines grouped by a shared left edge, and by a shared right edge."""
    groups: list[list[int]] = []
    edges: tuple[Callable[[BBox], float], ...] = (lambda b: b.x0, lambda b: b.x1)
    for edge in edges:
        by_edge: defaultdict[int, list[int]] = defaultdict(list)
        for i in numbers:
            by_edge[round(edge(lines[i].bbox) / EDGE_TOLERANCE)].append(i)
        for group in by_edge.values():
            groups += [run for run in _rising_runs(group, lines) if len(run) >= MIN_RUN]
    return groups


def _rising_runs(group: list[int], lines: Sequence[TextLine]) -> list[list[int]]:
    """``group`` top to bottom, cut where its value falls: the page number under a gutter's line
    numbers ("5" ... "55", then "2") shares their left edge but numbers no line."""
    runs: list[list[int]] = []
    for i in sorted(group, key=lambda i: lines[i].bbox.y0):
        if runs and int(lines[i].text) > int(lines[runs[-1][-1]].text):
            runs[-1].append(i)
        else:
            runs.append([i])
    return runs


def _numbering(column: list[int], lines: Sequence[TextLine]) -> bool:
    """Values rise down the page, mostly by one constant step."""
    values = [int(lines[i].text.strip()) for i in column]
    steps = [b - a for a, b in pairwise(values)]
    if any(step <= 0 for step in steps):
        return False
    step, count = Counter(steps).most_common(1)[0]
    return step <= 10 and count >= STEP_SHARE * len(steps)


def _outside_text(
    column: list[int], lines: Sequence[TextLine], others: Sequence[TextLine], text_edges: tuple[float, float]
) -> bool:
    boxes = [lines[i].bbox for i in column]
    left, right = min(b.x0 for b in boxes), max(b.x1 for b in boxes)
    top, bottom = min(b.y0 for b in boxes), max(b.y1 for b in boxes)
    beside = [o.bbox for o in others if o.bbox.y1 > top and o.bbox.y0 < bottom]
    if not beside:
        return False
    start, end = text_edges
    if right <= start - MARGIN_GAP and right <= min(b.x0 for b in beside) - MARGIN_GAP:
        return True
    # A contents page's numbers end where its text block does; margin numbers start beyond it.
    if left >= end + MARGIN_GAP and left >= max(b.x1 for b in beside) + MARGIN_GAP:
        return True
    return _in_gutter(len(column), left, right, beside) and _even_pitch(column, lines)


def _in_gutter(count: int, left: float, right: float, beside: Sequence[BBox]) -> bool:
    """Numbers in the gutter between two columns, as European patents print every fifth line's: no
    line crosses them, there is text on both sides, and a column beside them (the other may end
    early) has more lines than there are numbers. A table's column of years or counts numbers its
    rows, one line beside each number."""
    before = [b for b in beside if b.x1 <= left - MARGIN_GAP]
    after = [b for b in beside if b.x0 >= right + MARGIN_GAP]
    crossed = len(before) + len(after) < len(beside)
    sides = sorted((len(before), len(after)))
    return not crossed and sides[0] > 0 and sides[1] >= GUTTER_LINES_PER_NUMBER * count


def _even_pitch(column: list[int], lines: Sequence[TextLine]) -> bool:
    """Whether the numbers stand as far apart as they differ: a gutter's numbers count the lines of
    an even grid (every fifth), while a statement's Notes column between its line items and their
    figures ("10", "11", "12" ...) skips the rows that cite no note."""
    values = [int(lines[i].text.strip()) for i in column]
    tops = [lines[i].bbox.y0 for i in column]
    pitches = [(b - a) / (vb - va) for (a, b), (va, vb) in zip(pairwise(tops), pairwise(values), strict=True)]
    return max(pitches) <= EVEN_PITCH * min(pitches)


def _usual_edges(lines: Sequence[TextLine]) -> tuple[float, float]:
    """Where the text block starts and ends: the outermost of the edges most lines share."""
    flowing = [line.bbox for line in lines if line.horizontal]
    starts = Counter(round(b.x0) for b in flowing).most_common(3)
    ends = Counter(round(b.x1) for b in flowing).most_common(3)
    if not starts:
        return 0.0, 0.0
    return float(min(x for x, _ in starts)), float(max(x for x, _ in ends))

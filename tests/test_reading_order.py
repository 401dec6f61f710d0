"""Property tests for the column-aware XY-cut over synthetic boxes."""

from __future__ import annotations

import random

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from docgraph.ingest.page.reading_order import Box, reading_order

LEFT_COLUMN = (72.0, 290.0)
RIGHT_COLUMN = (310.0, 528.0)

coord = st.floats(min_value=0, max_value=800, allow_nan=False, allow_infinity=False)


@st.composite
def any_boxes(draw: st.DrawFn) -> list[Box]:
    boxes = []
    for _ in range(draw(st.integers(min_value=0, max_value=30))):
        x0, y0 = draw(coord), draw(coord)
        w = draw(st.floats(min_value=0, max_value=300))
        h = draw(st.floats(min_value=0, max_value=300))
        boxes.append((x0, y0, x0 + w, y0 + h))
    return boxes


@st.composite
def column(draw: st.DrawFn, x_range: tuple[float, float], top: float, min_boxes: int = 1) -> list[Box]:
    """Boxes stacked top to bottom inside one column, left-aligned with varying widths."""
    x0, x1 = x_range
    y = top
    boxes = []
    for _ in range(draw(st.integers(min_value=min_boxes, max_value=8))):
        height = draw(st.floats(min_value=50, max_value=120))
        width = draw(st.floats(min_value=0.3, max_value=1.0)) * (x1 - x0)
        indent = draw(st.floats(min_value=0, max_value=15))
        boxes.append((x0 + indent, y, x0 + max(indent + 1, width), y + height))
        y += height + draw(st.floats(min_value=2, max_value=25))
    return boxes


def _shuffled(boxes: list[Box], seed: int) -> tuple[list[Box], list[int]]:
    """Boxes in a random input order and, for each input position, the box's original index."""
    index = list(range(len(boxes)))
    random.Random(seed).shuffle(index)
    return [boxes[i] for i in index], index


@settings(max_examples=200, deadline=None)
@given(any_boxes())
def test_output_is_a_permutation(boxes: list[Box]) -> None:
    order = reading_order(boxes)
    assert sorted(order) == list(range(len(boxes)))


@settings(max_examples=100, deadline=None)
@given(any_boxes())
def test_deterministic(boxes: list[Box]) -> None:
    assert reading_order(boxes) == reading_order(list(boxes))


@settings(max_examples=100, deadline=None)
@given(column((72.0, 528.0), 60.0), st.integers(min_value=0, max_value=1000))
def test_single_column_reads_top_to_bottom(boxes: list[Box], seed: int) -> None:
    shuffled, original = _shuffled(boxes, seed)
    order = reading_order(shuffled)
    assert [original[i] for i in order] == list(range(len(boxes)))


@settings(max_examples=150, deadline=None)
@given(column(LEFT_COLUMN, 100.0, 2), column(RIGHT_COLUMN, 100.0, 2), st.integers(min_value=0, max_value=1000))
def test_two_columns_read_left_column_first(left: list[Box], right: list[Box], seed: int) -> None:
    boxes = left + right
    shuffled, original = _shuffled(boxes, seed)
    order = [original[i] for i in reading_order(shuffled)]
    assert order == list(range(len(boxes)))  # left top-to-bottom, then right top-to-bottom


@settings(max_examples=150, deadline=None)
@given(
    st.floats(min_value=5, max_value=40),
    column(LEFT_COLUMN, 100.0, 2),
    column(RIGHT_COLUMN, 100.0, 2),
    st.integers(min_value=0, max_value=1000),
)
def test_full_width_title_comes_first(title_height: float, left: list[Box], right: list[Box], seed: int) -> None:
    title: Box = (72.0, 90.0 - title_height, 528.0, 90.0)
    boxes = [title, *left, *right]
    shuffled, original = _shuffled(boxes, seed)
    order = [original[i] for i in reading_order(shuffled)]
    assert order == list(range(len(boxes)))


@settings(max_examples=100, deadline=None)
@given(column(LEFT_COLUMN, 100.0, 2), column(RIGHT_COLUMN, 100.0, 2), st.floats(min_value=5, max_value=60))
def test_full_width_block_between_column_sections(left: list[Box], right: list[Box], height: float) -> None:
    """Columns above a full-width figure are read before it; columns below it after it."""
    bottom = max(b[3] for b in left + right)
    figure: Box = (72.0, bottom + 10, 528.0, bottom + 10 + height)
    below_left: Box = (72.0, figure[3] + 10, 290.0, figure[3] + 200)
    below_right: Box = (310.0, figure[3] + 10, 528.0, figure[3] + 200)
    boxes = [*left, *right, figure, below_left, below_right]
    assert reading_order(boxes) == list(range(len(boxes)))


@settings(max_examples=100, deadline=None)
@given(any_boxes(), st.integers(min_value=0, max_value=1000))
def test_input_order_does_not_matter_for_distinct_boxes(boxes: list[Box], seed: int) -> None:
    assume(len({(round(b[1], 1), round(b[0], 1)) for b in boxes}) == len(boxes))
    shuffled, original = _shuffled(boxes, seed)
    assert [original[i] for i in reading_order(shuffled)] == reading_order(boxes)


def test_three_columns() -> None:
    boxes: list[Box] = []
    for x0 in (50.0, 220.0, 390.0):
        boxes += [(x0, 100.0, x0 + 150, 300.0), (x0, 310.0, x0 + 150, 500.0)]
    assert reading_order(boxes) == list(range(6))


def test_side_label_is_read_with_its_line_not_after_the_block() -> None:
    """A short label beside the first line (like "[Function]") stays next to it."""
    signature: Box = (90.0, 126.0, 454.0, 137.0)
    label: Box = (474.0, 126.0, 522.0, 136.0)
    continuation: Box = (140.0, 139.0, 357.0, 150.0)
    description: Box = (119.0, 153.0, 394.0, 162.0)
    order = reading_order([signature, label, continuation, description])
    assert order == [0, 1, 2, 3]


def test_margin_note_does_not_jump_ahead_of_the_page() -> None:
    body = [(78.0, 80.0 + 60 * i, 517.0, 130.0 + 60 * i) for i in range(10)]
    note: Box = (36.0, 700.0, 48.0, 706.0)
    order = reading_order([*body, note])
    assert order[0] == 0 and order.index(10) > 5


def test_overlapping_boxes_fall_back_to_top_to_bottom() -> None:
    boxes: list[Box] = [(100.0, 300.0, 400.0, 500.0), (50.0, 100.0, 450.0, 450.0), (80.0, 200.0, 300.0, 600.0)]
    assert reading_order(boxes) == [1, 2, 0]


def test_empty_and_single() -> None:
    assert reading_order([]) == []
    assert reading_order([(0.0, 0.0, 1.0, 1.0)]) == [0]

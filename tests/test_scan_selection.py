"""SCAN box selection: exact areas, the score, and the greedy keep/drop decisions."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from docgraph.models.scan_selection import (
    Candidate,
    SelectionParams,
    is_inside,
    select,
    select_indices,
    selection_score,
    union_area,
)

PAGE = (100.0, 100.0)


def test_union_area_is_exact_for_overlaps_and_nesting() -> None:
    assert union_area([]) == 0.0
    assert union_area([(0, 0, 10, 10)]) == 100.0
    assert union_area([(0, 0, 10, 10), (5, 5, 15, 15)]) == 175.0  # 100 + 100 - 25
    assert union_area([(0, 0, 10, 10), (2, 2, 4, 4)]) == 100.0
    assert union_area([(0, 0, 10, 10), (20, 0, 30, 10), (0, 0, 30, 1)]) == 210.0  # a bar joining two squares
    assert union_area([(0, 0, 0, 10), (5, 5, 5, 5)]) == 0.0  # degenerate boxes add nothing


def test_score_combines_coverage_and_non_overlap() -> None:
    # One 50x50 box on a 100x100 page: coverage 0.25, no overlap.
    assert selection_score([(0, 0, 50, 50)], 10_000, 0.9, 0.1) == pytest.approx(0.9 * 0.25 + 0.1)
    # Two boxes overlapping by 25x50: union 3750, summed area 5000.
    boxes = [(0, 0, 50, 50), (25, 0, 75, 50)]
    assert selection_score(boxes, 10_000, 0.9, 0.1) == pytest.approx(0.9 * 0.375 + 0.1 * 0.75)
    assert selection_score([], 10_000, 0.9, 0.1) == 0.0


def test_disjoint_boxes_are_all_kept_most_confident_first() -> None:
    candidates = [Candidate((0, 0, 40, 10), 0.5), Candidate((0, 20, 40, 30), 0.9), Candidate((50, 0, 90, 90), 0.7)]
    assert select_indices(candidates, PAGE) == [1, 2, 0]


def test_near_duplicate_is_dropped_but_a_box_adding_ground_is_kept() -> None:
    base = Candidate((10, 10, 60, 60), 0.95)
    shifted = Candidate((12, 10, 62, 60), 0.9)  # adds a 2x50 sliver, overlaps 96%
    wider = Candidate((40, 10, 100, 60), 0.8)  # overlaps base by 20x50, adds 40x50
    # Duplicate: S goes from 0.9*0.25+0.1 = 0.325 to 0.9*0.26+0.1*(2600/5000) = 0.286 -> rejected.
    assert select_indices([base, shifted], PAGE) == [0]
    # The wider box lifts coverage from 0.25 to 0.45 (S 0.325 -> 0.405 + 0.1 * 4500/5500 = 0.487).
    assert select_indices([base, wider], PAGE) == [0, 1]
    # A box enclosing the first one is kept for its coverage, and the enclosed first one dropped.
    assert select_indices([base, Candidate((10, 10, 100, 60), 0.8)], PAGE) == [1]


def test_box_inside_a_selected_box_is_dropped_even_when_it_would_help() -> None:
    outer = Candidate((0, 0, 50, 50), 0.9)
    inner = Candidate((10, 10, 20, 20), 0.8)
    assert select_indices([outer, inner], PAGE) == [0]
    # The other way round the outer box is kept for its coverage, then the inner one is dropped.
    assert select_indices([Candidate(outer.box, 0.7), Candidate(inner.box, 0.9)], PAGE) == [0]


def test_min_confidence_and_parameters_are_honoured() -> None:
    low = Candidate((0, 0, 50, 50), 0.39)
    assert select_indices([low], PAGE) == []
    assert select_indices([low], PAGE, SelectionParams(min_confidence=0.3)) == [0]
    # With all weight on non-overlap, any overlapping second box lowers S and is rejected.
    a, b = Candidate((0, 0, 50, 50), 0.9), Candidate((40, 0, 100, 50), 0.8)
    assert select_indices([a, b], PAGE) == [0, 1]
    assert select_indices([a, b], PAGE, SelectionParams(alpha=0.0, beta=1.0)) == [0]


def test_is_inside_uses_the_containment_share() -> None:
    assert is_inside((0, 0, 10, 10), (0, 0, 10, 10))
    assert is_inside((0, 0, 10, 10), (0, 0, 10, 9.6))  # 96% inside
    assert not is_inside((0, 0, 10, 10), (0, 0, 10, 9.0))
    assert is_inside((0, 0, 10, 10), (0, 0, 10, 9.0), containment=0.9)


def test_select_returns_the_paired_items() -> None:
    items = ["text", "dup", "table"]
    boxes = [(0, 0, 50, 20), (0, 0, 50, 21), (0, 40, 50, 90)]
    assert select(items, boxes, [0.9, 0.8, 0.85], PAGE) == ["text", "table"]


coords = st.integers(min_value=0, max_value=100)


@st.composite
def candidates_strategy(draw: st.DrawFn) -> list[Candidate]:
    out = []
    for _ in range(draw(st.integers(min_value=0, max_value=12))):
        x0, x1 = sorted((draw(coords), draw(coords)))
        y0, y1 = sorted((draw(coords), draw(coords)))
        out.append(Candidate((x0, y0, x1, y1), draw(st.floats(min_value=0.0, max_value=1.0))))
    return out


@settings(max_examples=150, deadline=None)
@given(candidates_strategy())
def test_selection_invariants(candidates: list[Candidate]) -> None:
    params = SelectionParams()
    kept = select_indices(candidates, PAGE, params)
    assert len(set(kept)) == len(kept)
    scores = [candidates[i].score for i in kept]
    assert scores == sorted(scores, reverse=True)
    assert all(s >= params.min_confidence for s in scores)
    boxes = [candidates[i].box for i in kept]
    for k, box in enumerate(boxes):  # no two kept boxes nest
        assert not any(is_inside(box, other) for j, other in enumerate(boxes) if j != k)
    # Greedy only adds boxes that raise S and dropping an enclosed box raises it too, so the
    # selection scores at least as well as the most confident eligible box alone.
    eligible = [
        c for c in candidates if c.score >= params.min_confidence and c.box[2] > c.box[0] and c.box[3] > c.box[1]
    ]
    if eligible:
        first = max(eligible, key=lambda c: c.score)
        alone = selection_score([first.box], 10_000, params.alpha, params.beta)
        assert selection_score(boxes, 10_000, params.alpha, params.beta) >= alone - 1e-12
    else:
        assert kept == []

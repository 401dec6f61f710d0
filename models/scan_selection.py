"""SCAN's box selection: from overlapping detections to a clean set of page regions.

Detections are visited from the most to the least confident (those under ``min_confidence``
are dropped). A box fully inside an already selected box is skipped; any other box is kept
only if it raises the selection score

    S = alpha * coverage + beta * non_overlap

where ``coverage`` is the area of the union of the selected boxes over the page area, and
``non_overlap`` is the union area over the summed box areas (1 when no two boxes overlap,
smaller the more they pile up). With the defaults (alpha 0.9, beta 0.1) a box that covers
new ground is kept, a box that mostly repeats kept ones is not. Last, a kept box that a box
kept after it encloses (a confident text box inside a table) is dropped: no two selected
boxes nest.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

import numpy as np

Box = tuple[float, float, float, float]  # x0, y0, x1, y1

DEFAULT_ALPHA = 0.9
DEFAULT_BETA = 0.1
DEFAULT_MIN_CONFIDENCE = 0.4
DEFAULT_CONTAINMENT = 0.95  # share of a box's area inside another box that counts as "fully inside"
MIN_GAIN = 1e-9  # S must rise by more than this: float noise never keeps a duplicate


@dataclass(frozen=True, slots=True)
class SelectionParams:
    alpha: float = DEFAULT_ALPHA
    beta: float = DEFAULT_BETA
    min_confidence: float = DEFAULT_MIN_CONFIDENCE
    containment: float = DEFAULT_CONTAINMENT


@dataclass(frozen=True, slots=True)
class Candidate:
    box: Box
    score: float


T = TypeVar("T")


def box_area(box: Box) -> float:
    return max(0.0, box[2] - box[0]) * max(0.0, box[3] - box[1])


def intersection_area(a: Box, b: Box) -> float:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return w * h if w > 0 and h > 0 else 0.0


def union_area(boxes: Sequence[Box]) -> float:
    """Exact area of the union of axis-aligned boxes (coordinate compression)."""
    real = [b for b in boxes if box_area(b) > 0]
    if not real:
        return 0.0
    xs = np.unique(np.array([v for b in real for v in (b[0], b[2])], dtype=np.float64))
    ys = np.unique(np.array([v for b in real for v in (b[1], b[3])], dtype=np.float64))
    covered = np.zeros((len(ys) - 1, len(xs) - 1), dtype=bool)
    for x0, y0, x1, y1 in real:
        i0, i1 = np.searchsorted(xs, x0), np.searchsorted(xs, x1)
        j0, j1 = np.searchsorted(ys, y0), np.searchsorted(ys, y1)
        covered[j0:j1, i0:i1] = True
    cell_areas = np.outer(np.diff(ys), np.diff(xs))
    return float(cell_areas[covered].sum())


def selection_score(boxes: Sequence[Box], page_area: float, alpha: float, beta: float) -> float:
    """S = alpha * coverage + beta * non_overlap for a set of boxes (0 for the empty set)."""
    if not boxes or page_area <= 0:
        return 0.0
    union = union_area(boxes)
    total = sum(box_area(b) for b in boxes)
    coverage = union / page_area
    non_overlap = union / total if total > 0 else 0.0
    return alpha * coverage + beta * non_overlap


def is_inside(inner: Box, outer: Box, containment: float = DEFAULT_CONTAINMENT) -> bool:
    area = box_area(inner)
    return area > 0 and intersection_area(inner, outer) >= containment * area


def select_indices(
    candidates: Sequence[Candidate], page_size: tuple[float, float], params: SelectionParams | None = None
) -> list[int]:
    """Indexes of the kept candidates, most confident first."""
    p = params or SelectionParams()
    page_area = page_size[0] * page_size[1]
    order = sorted(range(len(candidates)), key=lambda i: -candidates[i].score)
    kept: list[int] = []
    chosen: list[Box] = []
    current = 0.0
    for i in order:
        cand = candidates[i]
        if cand.score < p.min_confidence or box_area(cand.box) <= 0:
            continue
        if any(is_inside(cand.box, other, p.containment) for other in chosen):
            continue
        trial = selection_score([*chosen, cand.box], page_area, p.alpha, p.beta)
        if trial > current + MIN_GAIN:
            kept.append(i)
            chosen.append(cand.box)
            current = trial
    return [i for k, i in enumerate(kept) if not _enclosed(k, kept, candidates, p.containment)]


def _enclosed(k: int, kept: list[int], candidates: Sequence[Candidate], containment: float) -> bool:
    """The k-th kept box lies inside a box kept after it."""
    box = candidates[kept[k]].box
    return any(is_inside(box, candidates[j].box, containment) for j in kept[k + 1 :])


def select(
    items: Sequence[T],
    boxes: Sequence[Box],
    scores: Sequence[float],
    page_size: tuple[float, float],
    params: SelectionParams | None = None,
) -> list[T]:
    """The kept ``items`` (any objects paired with their boxes and scores), most confident first."""
    candidates = [
        Candidate((float(b[0]), float(b[1]), float(b[2]), float(b[3])), float(s))
        for b, s in zip(boxes, scores, strict=True)
    ]
    return [items[i] for i in select_indices(candidates, page_size, params)]

"""A scanned page's text boxes widened to the ink they cut.

The layout model's box of a line or paragraph is at times narrower than its text: OCR reads only
inside the box, so the word it cuts lost its end ("towards the compress" for "compressor."), and
the rest of the page, OCR'd with the boxes painted over, read the cut-off end as a line of its own
("ur initials."). Each text box is widened along its rows, left and right, over ink that goes on
with no gap wider than a word space, up to the next box on its rows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np
import numpy.typing as npt

from docgraph.ingest.floats.layout_model import ModelBox
from docgraph.ingest.types import BBox

WORD_SPACE = 5.0  # points of white a line's ink may leave between two of its words
KEPT_KINDS = frozenset({"figure", "table", "picture"})  # their boxes are drawn, not text to widen


def widened_to_ink(ink: npt.NDArray[np.bool_], boxes: Sequence[ModelBox], points_per_pixel: float) -> list[ModelBox]:
    """``boxes`` with each text box reaching as far left and right as its rows' ink goes on
    (``ink``: the page's dark pixels, ``points_per_pixel`` its scale)."""
    widened = []
    for box in boxes:
        if box.kind in KEPT_KINDS:
            widened.append(box)
            continue
        others = [other.bbox for other in boxes if other is not box]
        widened.append(replace(box, bbox=_to_ink(ink, box.bbox, others, points_per_pixel)))
    return widened


def _to_ink(ink: npt.NDArray[np.bool_], box: BBox, others: Sequence[BBox], scale: float) -> BBox:
    height, width = ink.shape
    margin = 0.15 * box.height  # the band leaves out the lines above and below's ascenders
    top, bottom = int((box.y0 + margin) / scale), int((box.y1 - margin) / scale) + 1
    if bottom <= top or top >= height:
        return box
    columns: npt.NDArray[np.bool_] = np.asarray(ink[max(0, top) : min(height, bottom), :].any(axis=0), dtype=bool)
    on_rows = [o for o in others if o.y0 < box.y1 - margin and o.y1 > box.y0 + margin]
    right_stop = min((o.x0 for o in on_rows if o.x0 >= box.x1), default=width * scale) / scale
    left_stop = max((o.x1 for o in on_rows if o.x1 <= box.x0), default=0.0) / scale
    gap = max(1, round(WORD_SPACE / scale))
    right = _reach(columns, int(box.x1 / scale), min(width, int(right_stop)), gap, 1)
    left = _reach(columns, int(box.x0 / scale), max(0, int(left_stop)), gap, -1)
    x0 = min(box.x0, left * scale) if left is not None else box.x0
    x1 = max(box.x1, (right + 1) * scale) if right is not None else box.x1
    return BBox(x0, box.y0, x1, box.y1)


def _reach(columns: npt.NDArray[np.bool_], start: int, stop: int, gap: int, step: int) -> int | None:
    """The last inked column past ``start`` towards ``stop`` (``step`` +1 right, -1 left) before a
    run of more than ``gap`` white columns; None when there is none."""
    last: int | None = None
    white, x = 0, start + step
    while (x < stop if step > 0 else x > stop) and 0 <= x < len(columns):
        if columns[x]:
            last, white = x, 0
        else:
            white += 1
            if white > gap:
                break
        x += step
    return last

"""A scanned page's text boxes widened to the ink they cut, before OCR reads inside them: the
layout model's box of a manual's line ended inside "compressor.", which OCR read "compress"."""

from __future__ import annotations

import numpy as np

from docgraph.ingest.floats.ink_edges import widened_to_ink
from docgraph.ingest.floats.layout_model import ModelBox
from docgraph.ingest.types import BBox


def _page_ink() -> np.ndarray:
    """A 100 x 200 page at one point a pixel: a line of words on rows 20-29 from x 10 to 127 (word
    spaces of 3), a second column's line from x 140 to 190, and a figure on rows 60-90."""
    ink = np.zeros((100, 200), dtype=bool)
    for start in range(10, 120, 12):
        ink[20:30, start : start + 9] = True
    ink[20:30, 140:190] = True
    ink[60:90, 20:80] = True
    return ink


def test_a_box_that_cuts_a_line_reaches_its_last_word_and_stops_at_the_next_column() -> None:
    boxes = [ModelBox(BBox(30, 18, 95, 31), "paragraph"), ModelBox(BBox(140, 18, 190, 31), "paragraph")]
    first, second = widened_to_ink(_page_ink(), boxes, 1.0)
    assert (first.bbox.x0, first.bbox.x1) == (10, 127)  # past the gutter of 13 it does not go
    assert second.bbox == boxes[1].bbox


def test_a_box_that_holds_its_text_and_a_figure_stay_as_they_are() -> None:
    boxes = [ModelBox(BBox(8, 18, 128, 31), "paragraph"), ModelBox(BBox(30, 62, 60, 88), "figure")]
    assert widened_to_ink(_page_ink(), boxes, 1.0) == boxes

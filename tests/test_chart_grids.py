"""A chart whose panels are framed is a figure, not a ruled table.

R's plots of trees (partykit) and lattices draw a frame around each panel, so rulings run on both
axes and the grid finder took the plot for a table: its labels became cells, its tick values
one-number paragraphs. The chart's own marks (tick marks, point markers, curves, slanted strokes)
tell it apart; a grid whose cells hold no word or number (a confidence-interval plot's brackets) is
no table either.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pymupdf
import pytest

from docgraph.ingest.floats.tables import MIN_CHART_MARKS, drawn_as_chart, find_ruled_tables, is_real_table
from docgraph.ingest.readers.native import NativeReader
from docgraph.ingest.types import BBox, DocumentLayout, Region

PDFS = Path(__file__).parent / "data" / "pdfs"
GRID = BBox(100, 100, 400, 250)


def _regions(layout: DocumentLayout, kind: str) -> list[Region]:
    return [r for page in layout.pages for r in page.regions if r.kind == kind]


@pytest.fixture(scope="module")
def tree_plot() -> DocumentLayout:
    return NativeReader().read(PDFS / "ctree-p7.pdf")


@pytest.fixture(scope="module")
def interval_plot() -> DocumentLayout:
    return NativeReader().read(PDFS / "generalsiminf-p14.pdf")


def test_a_tree_with_a_chart_in_each_leaf_is_one_figure_with_its_labels(tree_plot: DocumentLayout) -> None:
    assert _regions(tree_plot, "table") == []
    figures = _regions(tree_plot, "figure")
    assert len(figures) == 1
    for label in ("x1", "p < 0.001", "Node 2 (n = 96)", "Node 3 (n = 54)", "A B C"):
        assert label in figures[0].text
    # its tick values are the figure's, not one-number paragraphs beside it
    assert not [r for r in _regions(tree_plot, "paragraph") if r.text.strip() == "0"]
    captions = _regions(tree_plot, "caption")
    assert [c.text for c in captions] == ["Figure 1: A graphical representation of a classification tree."]


def test_an_interval_plot_holds_no_tables(interval_plot: DocumentLayout) -> None:
    assert _regions(interval_plot, "table") == []
    figures = _regions(interval_plot, "figure")
    assert len(figures) == 1
    assert "Tukey (sandwich Sn)" in figures[0].text


def test_the_grid_finder_keeps_real_ruled_tables() -> None:
    with pymupdf.open(PDFS / "water-report.pdf") as doc:
        page = doc[5]
        drawings = page.get_drawings()
        tables = find_ruled_tables(page, drawings, page.get_text("words"))
    assert len(tables) == 1
    assert not drawn_as_chart(drawings, tables[0].bbox)


def _path(items: list[tuple[Any, ...]]) -> dict[str, Any]:
    points = [point for item in items for point in item[1:]]
    xs, ys = [p.x for p in points], [p.y for p in points]
    return {"items": items, "rect": pymupdf.Rect(min(xs), min(ys), max(xs), max(ys))}


def _line(x0: float, y0: float, x1: float, y1: float) -> tuple[Any, ...]:
    return ("l", pymupdf.Point(x0, y0), pymupdf.Point(x1, y1))


def _curve(x0: float, y0: float, x1: float, y1: float) -> tuple[Any, ...]:
    a, b = pymupdf.Point(x0, y0), pymupdf.Point(x1, y1)
    return ("c", a, a, b, b)


def _rulings() -> list[dict[str, Any]]:
    rows = [_path([_line(GRID.x0, y, GRID.x1, y)]) for y in (100, 150, 200, 250)]
    return rows + [_path([_line(x, GRID.y0, x, GRID.y1)]) for x in (100, 250, 400)]


def test_axis_parallel_rulings_and_a_rounded_frame_are_a_table() -> None:
    top_right = [_line(106, 100, 394, 100), _curve(394, 100, 400, 106), _line(400, 106, 400, 244)]
    bottom_left = [_curve(400, 244, 394, 250), _line(394, 250, 106, 250), _curve(106, 250, 100, 244)]
    rounded = _path([*top_right, *bottom_left, _line(100, 244, 100, 106), _curve(100, 106, 106, 100)])
    assert not drawn_as_chart([*_rulings(), rounded], GRID)


def test_tick_marks_slanted_strokes_or_curves_make_a_chart() -> None:
    few = MIN_CHART_MARKS - 1
    ticks = [_path([_line(110 + 20 * i, 245, 110 + 20 * i, 248)]) for i in range(MIN_CHART_MARKS)]
    polyline = _path([_line(100 + 30 * i, 240 - 10 * i, 130 + 30 * i, 230 - 10 * i) for i in range(MIN_CHART_MARKS)])
    curve = _path([_curve(100 + 30 * i, 200, 130 + 30 * i, 180) for i in range(MIN_CHART_MARKS)])
    assert drawn_as_chart([*_rulings(), *ticks], GRID)
    assert drawn_as_chart([*_rulings(), polyline], GRID)
    assert drawn_as_chart([*_rulings(), curve], GRID)
    assert not drawn_as_chart([*_rulings(), *ticks[:few]], GRID)
    # marks outside the grid are another drawing's
    assert not drawn_as_chart([*_rulings(), *[_path([_line(x, 400, x, 403)]) for x in range(110, 300, 20)]], GRID)


def test_a_grid_of_brackets_is_no_table() -> None:
    assert not is_real_table([["", ""], ["(", ")"], ["(", ")"], ["( )", ""]])
    assert is_real_table([["Operator", "Meaning"], ["+", "addition"], ["-", "subtraction"]])


def test_a_tree_whose_leaf_panels_stand_apart_is_still_one_figure() -> None:
    # partykit draws each leaf's second panel in a column of its own, 20 pt from the tree; the tick
    # labels between them join the two once the figure takes its labels in.
    layout = NativeReader().read(PDFS / "party-mob-p9.pdf")
    assert _regions(layout, "table") == []
    figures = _regions(layout, "figure")
    assert len(figures) == 1
    assert figures[0].bbox.x1 > 450  # the leaf panels' column
    assert "Node 9 (n = 153)" in figures[0].text
    assert [r.kind for r in layout.pages[0].regions if r.kind not in ("figure", "title", "page_header")] == ["caption"]

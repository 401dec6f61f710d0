"""A plot typeset with its document labels its axes in the body font; those labels belong to it.

Asymptote's and ReportLab's manuals draw their example charts with tick values ("0 20 40 60 80
100") and axis names ("x", "y") in the text's own font and size, so they read as one-number
paragraphs around the figure, and a tick value near the top of a page read as its page number
("Chapter 8: Base modules 111 100 100"). Here a three-page manual is drawn with PyMuPDF: a running
header with the page number, prose, and on page 2 a chart near the top of the page.
"""

from __future__ import annotations

import pymupdf
import pytest

from docgraph.ingest.readers.native import NativeReader
from docgraph.ingest.types import DocumentLayout

FONT = "tiro"  # Times: the body font, and the labels' too
SIZE = 10.0
PROSE = (
    "The routine draws a graph of the function over the interval and labels both axes with ticks. "
    "Each call adds one curve to the current picture, so several curves share the same axes. "
)
FRAME = pymupdf.Rect(150, 78, 400, 230)  # the plot's axes; the top band of an A4 page ends at 101 pt
TICKS_Y = [(230, "0"), (192, "25"), (154, "50"), (116, "75"), (78, "100")]
TICKS_X = [(150, "0"), (275, "5"), (400, "10")]


def _prose(page: pymupdf.Page, top: float) -> None:
    box = pymupdf.Rect(72, top, 523, top + 200)
    page.insert_textbox(box, PROSE * 4, fontname=FONT, fontsize=SIZE)


def _chart(page: pymupdf.Page) -> None:
    page.draw_rect(FRAME, width=0.6)
    page.draw_polyline([(150, 220), (200, 180), (260, 150), (330, 120), (400, 90)], width=1.0)
    for y, label in TICKS_Y:
        width = pymupdf.get_text_length(label, fontname=FONT, fontsize=SIZE)
        page.insert_text((144 - width, y + 3.5), label, fontname=FONT, fontsize=SIZE)
    for x, label in TICKS_X:
        width = pymupdf.get_text_length(label, fontname=FONT, fontsize=SIZE)
        page.insert_text((x - width / 2, 243), label, fontname=FONT, fontsize=SIZE)
    page.insert_text((272, 257), "x", fontname=FONT, fontsize=SIZE)
    page.insert_text((118, 157), "y", fontname=FONT, fontsize=SIZE)


@pytest.fixture(scope="module")
def manual(tmp_path_factory: pytest.TempPathFactory) -> DocumentLayout:
    path = tmp_path_factory.mktemp("plot") / "plot-manual.pdf"
    with pymupdf.open() as doc:
        for number in (1, 2, 3):
            page = doc.new_page(width=595, height=842)
            page.insert_text((72, 40), "Plot manual", fontname=FONT, fontsize=SIZE)
            page.insert_text((510, 40), str(number), fontname=FONT, fontsize=SIZE)
            if number == 2:
                _chart(page)
                _prose(page, 290)
            else:
                _prose(page, 90)
                _prose(page, 330)
        doc.save(path)
    return NativeReader().read(path)


def test_tick_values_and_axis_names_are_the_figures_text(manual: DocumentLayout) -> None:
    page = manual.pages[1]
    figures = [r for r in page.regions if r.kind == "figure"]
    assert len(figures) == 1
    assert figures[0].text == "0 25 50 75 100 0 5 10 x y"
    assert figures[0].bbox.x0 < FRAME.x0 - 10 and figures[0].bbox.y1 > FRAME.y1 + 20  # grown over its labels
    assert [r.text for r in page.regions if r.kind not in ("figure", "page_header")] == [(PROSE * 4).strip()]


def test_a_tick_value_in_the_top_band_is_no_page_number(manual: DocumentLayout) -> None:
    headers = [r.text for r in manual.pages[1].regions if r.kind == "page_header"]
    assert headers == ["Plot manual 2"]

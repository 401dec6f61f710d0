"""Pages with a /Rotate entry are read, rendered and cropped in the frame their text reads in.

The sample PDF's second page is stored two ways: as a landscape page whose content is drawn
turned and shown upright by /Rotate (how landscape pages and sideways scans usually come), and as
the plain page shown sideways. Either way the readers must find what they find on the plain page.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pymupdf
import pytest
from PIL import Image

from docgraph.app.jobs.render import render_page
from docgraph.app.llm.describe import render_region
from docgraph.app.resources import SAMPLES_DIR
from docgraph.ingest.pdf.api import load_page, turn_page
from docgraph.ingest.readers.detector import DetectorReader
from docgraph.ingest.readers.native import NativeReader
from docgraph.ingest.types import PageLayout, Reader
from scripts.make_scanned import make_scanned

SAMPLE_PDF = SAMPLES_DIR / "docgraph-sample.pdf"
TURNED_PAGE = 2


def turned_copy(out: Path, shown_upright: bool) -> Path:
    """The sample with page 2 rotated: drawn turned and shown upright, or drawn upright and shown sideways."""
    src = pymupdf.open(SAMPLE_PDF)
    doc = pymupdf.open()
    for index in range(src.page_count):
        width, height = src[index].rect.width, src[index].rect.height
        if index == TURNED_PAGE - 1 and shown_upright:
            page = doc.new_page(width=height, height=width)
            page.show_pdf_page(page.rect, src, index, rotate=90)
            page.set_rotation(90)
        else:
            page = doc.new_page(width=width, height=height)
            page.show_pdf_page(page.rect, src, index)
            if index == TURNED_PAGE - 1:
                page.set_rotation(90)
    doc.save(out)
    return out


@pytest.fixture(scope="module", params=["shown-upright", "shown-sideways"])
def turned_pdf(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("turned")
    return turned_copy(folder / f"{request.param}.pdf", shown_upright=request.param == "shown-upright")


def page_regions(page: PageLayout) -> list[tuple[str, str, tuple[int, ...]]]:
    return [
        (r.kind, r.text, tuple(round(v) for v in r.bbox.as_list())) for r in sorted(page.regions, key=lambda r: r.order)
    ]


@pytest.mark.parametrize("reader", [NativeReader, DetectorReader], ids=["native", "detector"])
def test_a_rotated_page_reads_like_the_plain_page(turned_pdf: Path, reader: Callable[[], Reader]) -> None:
    plain = reader().read(SAMPLE_PDF).pages[TURNED_PAGE - 1]
    turned = reader().read(turned_pdf).pages[TURNED_PAGE - 1]
    assert (turned.width, turned.height) == (plain.width, plain.height)
    assert page_regions(turned) == page_regions(plain)
    assert {"section_header", "table", "figure", "caption"} <= {r.kind for r in turned.regions}


def test_renders_and_crops_of_a_rotated_page_match_the_plain_page(turned_pdf: Path, tmp_path: Path) -> None:
    page = NativeReader().read(turned_pdf).pages[TURNED_PAGE - 1]
    figure = next(r for r in page.regions if r.kind == "figure")
    crops = [render_region(pdf, TURNED_PAGE, figure.bbox.as_list()) for pdf in (SAMPLE_PDF, turned_pdf)]
    assert close_images(*crops)

    regions = [
        {"region_id": str(r.order), "kind": r.kind, "bbox": r.bbox.as_list(), "order": r.order} for r in page.regions
    ]
    renders = [
        render_page(pdf, TURNED_PAGE, regions, tmp_path / f"{name}.png", highlight={str(figure.order)}).read_bytes()
        for name, pdf in (("plain", SAMPLE_PDF), ("turned", turned_pdf))
    ]
    assert close_images(*renders)


def close_images(first: bytes, second: bytes) -> bool:
    """Same size, and nearly the same pixels (the turned page is drawn through a form XObject)."""
    a, b = (pymupdf.Pixmap(png) for png in (first, second))
    if (a.width, a.height, a.n) != (b.width, b.height, b.n):
        return False
    pixels = [np.frombuffer(p.samples, dtype=np.uint8).astype(np.int16) for p in (a, b)]
    return float(np.abs(pixels[0] - pixels[1]).mean()) < 2.0


def test_a_crop_of_a_scan_read_upright_is_cut_in_the_upright_frame(tmp_path: Path) -> None:
    """docgraph describe cropped the boxes of a scan stored sideways from the page as it lay."""
    scan = make_scanned(SAMPLE_PDF, tmp_path / "sideways.pdf", dpi=200, pages=[TURNED_PAGE], turn=90)
    page = NativeReader().read(SAMPLE_PDF).pages[TURNED_PAGE - 1]
    box = next(r for r in page.regions if r.kind == "figure").bbox.as_list()
    plain = grey(render_region(SAMPLE_PDF, TURNED_PAGE, box))
    upright = grey(render_region(scan, 1, box, turn=90), plain.shape)
    as_it_lay = grey(render_region(scan, 1, box), plain.shape)
    assert np.abs(upright - plain).mean() * 2 < np.abs(as_it_lay - plain).mean()


def grey(png: bytes, shape: tuple[int, ...] | None = None) -> np.ndarray:
    image = Image.open(io.BytesIO(png)).convert("L")
    if shape is not None:
        image = image.resize((shape[1], shape[0]))
    return np.asarray(image, dtype=np.float32)


@pytest.mark.parametrize("turn", [90, 180, 270])
def test_a_page_cut_by_a_crop_box_is_turned_at_its_visible_size(turn: int) -> None:
    """Turning redrew the uncut page (900 x 700 for a 620 x 840 crop) with the content moved."""

    def cropped(rotate: int) -> pymupdf.Document:
        doc = pymupdf.open()
        page = doc.new_page(width=700, height=900)
        page.insert_text((100, 100), "Harbour Zoo", fontsize=20, rotate=rotate)
        page.draw_rect(pymupdf.Rect(40, 50, 300, 400), color=(0, 0, 0), width=3)
        page.set_cropbox(pymupdf.Rect(30, 40, 650, 880))
        return doc

    with cropped(0) as turned, cropped(0) as shown:
        shown[0].set_rotation(turn)  # how a viewer shows the page turned
        turn_page(turned[0], turn)
        assert same_pixels(turned[0], shown[0]) and turned[0].rect == shown[0].rect
    with cropped(turn) as stored:  # text drawn turned, shown upright by /Rotate: read in that frame
        stored[0].set_rotation(turn)
        expected = stored[0].get_pixmap(dpi=36)
        settled = pymupdf.open("pdf", stored.tobytes())
        page = load_page(settled, 0)
        assert page.rotation == 0 and page.get_pixmap(dpi=36).samples == expected.samples


def same_pixels(first: pymupdf.Page, second: pymupdf.Page) -> bool:
    return bool(first.get_pixmap(dpi=36).samples == second.get_pixmap(dpi=36).samples)

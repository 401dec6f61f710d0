"""Pages with a /Rotate entry are read, rendered and cropped in the frame their text reads in.

The sample PDF's second page is stored two ways: as a landscape page whose content is drawn
turned and shown upright by /Rotate (how landscape pages and sideways scans usually come), and as
the plain page shown sideways. Either way the readers must find what they find on the plain page.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pymupdf
import pytest

from docgraph.app.jobs.render import render_page
from docgraph.app.llm.describe import render_region
from docgraph.app.resources import SAMPLES_DIR
from docgraph.ingest.readers.detector import DetectorReader
from docgraph.ingest.readers.native import NativeReader
from docgraph.ingest.types import PageLayout, Reader

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

"""Listings on a background shaded strip by strip are code, not figures; their line numbers are
not page numbers.

tests/data/pdfs/dblatex-listings.pdf is pages 22 and 80 of the dblatex manual (DocBook set by
dblatex's own LaTeX style, GNU GPL 2+, as Debian's dblatex-doc ships it). Each listing's grey
background is drawn as tiles: a top band, then the left, middle and right of each line, then a
bottom band. Before, every such box was a figure whose text ran its lines together, and the
"Synopsis" heading above a parameter's listing went into the figure with it.
"""

from __future__ import annotations

import re
from pathlib import Path

import pymupdf
import pytest

from docgraph.ingest.page.scan import scan_page
from docgraph.ingest.readers.native import NativeReader
from docgraph.ingest.types import BBox, DocumentLayout, Region

LISTINGS = Path(__file__).parent / "data" / "pdfs" / "dblatex-listings.pdf"
GREY = (0.95, 0.95, 0.95)


@pytest.fixture(scope="module")
def manual() -> DocumentLayout:
    return NativeReader().read(LISTINGS)


def regions(layout: DocumentLayout, number: int) -> list[Region]:
    return sorted(layout.pages[number - 1].regions, key=lambda r: r.order)


def test_shaded_listings_are_code_with_their_lines(manual: DocumentLayout) -> None:
    page = regions(manual, 1)
    assert not any(r.kind == "figure" for r in page)
    code = [r.text for r in page if r.kind == "code"]
    assert "% tar xvfj dblatex-x.x.x.tar.bz2" in code  # a one-line listing
    assert "% cd dblatex-x.x.x\n% python ./setup.py install --prefix=/usr/local --catalogs=/path/to/mycatalog" in code


def test_the_heading_above_a_listing_stays_a_heading(manual: DocumentLayout) -> None:
    page = regions(manual, 2)
    kinds = [(r.kind, r.text) for r in page]
    synopsis = [i for i, (kind, text) in enumerate(kinds) if text == "Synopsis"]
    assert len(synopsis) == 2
    for i in synopsis:
        assert kinds[i][0] == "section_header"
        assert kinds[i + 1][0] == "code" and kinds[i + 1][1].startswith('<xsl:param name="figure.')
    assert not any(r.kind == "figure" for r in page)


def _page_with(tiles: list[tuple[float, float, float, float]], text: str = "") -> pymupdf.Page:
    doc = pymupdf.open()
    page = doc.new_page()
    for rect in tiles:
        page.draw_rect(pymupdf.Rect(*rect), color=None, fill=GREY)
    if text:
        page.insert_text((80, 122), text, fontname="cour", fontsize=9)
    return page


def _figures(page: pymupdf.Page) -> list[BBox]:
    return scan_page(page, use_model=False).figures


STRIPS = [(72, 100, 500, 110), (72, 110, 75, 126), (75, 110, 497, 126), (497, 110, 500, 126), (72, 126, 500, 136)]


def test_tiles_that_cover_a_box_around_text_are_no_figure() -> None:
    assert _figures(_page_with(STRIPS, "make install")) == []


def test_the_same_tiles_with_no_text_in_them_are_a_figure() -> None:
    assert len(_figures(_page_with(STRIPS))) == 1


def test_tiles_of_one_colour_with_gaps_between_are_a_figure() -> None:
    """A mosaic plot's tiles, 2 pt apart: one drawing, one colour, a label inside."""
    tiles = [(72 + 30 * k, 100, 100 + 30 * k, 136) for k in range(5)]
    assert len(_figures(_page_with(tiles, "sales"))) == 1


def _numbered_listing_document(path: Path) -> Path:
    """Five pages with a page number at the foot; a listing with numbered lines runs from the
    foot of page 3 to the head of page 4: too few numbers on a page to be margin numbering
    (``ingest.page.line_numbers``), so they stay lines of the page."""
    doc = pymupdf.open()
    number = 40
    for k in range(1, 6):
        page = doc.new_page(width=595, height=842)
        page.insert_text((72, 160), f"Body text of page {k}, which explains the listing below.", fontsize=10)
        rows = range(770, 800, 11) if k == 3 else range(60, 80, 11) if k == 4 else ()
        for y in rows:
            number += 1
            label = str(number)
            page.insert_text((50 - pymupdf.get_text_length(label, fontsize=7), y), label, fontsize=7)
            page.insert_text((95, y), f"call step_{number}(state)", fontname="cour", fontsize=9)
        page.insert_text((293, 815), str(k), fontsize=10)
    doc.save(path)
    return path


def test_a_listing_s_line_numbers_in_the_bands_are_not_page_numbers(tmp_path: Path) -> None:
    layout = NativeReader().read(_numbered_listing_document(tmp_path / "listing.pdf"))
    for page in layout.pages:
        furniture = [r.text for r in page.regions if r.kind in ("page_header", "page_footer")]
        assert furniture == [str(page.number)]
    text = "\n".join(r.text for p in layout.pages for r in p.regions if r.kind not in ("page_header", "page_footer"))
    assert "step_43" in text and "step_45" in text
    assert re.search(r"(?<!_)\b43\b", text) and re.search(r"(?<!_)\b44\b", text)

"""A printed table of contents: its entries are neither sections nor page numbers.

LaTeX sets a chapter's contents entry bold, without dot leaders, its page number at the right
margin, so font statistics read "1 Introduction 9" as a section header, and the number of an entry
that runs into the page's bottom band as the page's number. ``glpk-toc.pdf`` is the contents of the
GLPK reference manual; the other pages are drawn with PyMuPDF.
"""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from docgraph.ingest.graph import build_graph
from docgraph.ingest.readers.native import NativeReader
from docgraph.ingest.types import DocumentLayout, PageLayout

GLPK_TOC = Path(__file__).parent / "data" / "pdfs" / "glpk-toc.pdf"
RIGHT_EDGE = 523.0
PROSE = "The method is described in the sections below, with its data and its results. " * 40


@pytest.fixture(scope="module")
def glpk() -> DocumentLayout:
    return NativeReader().read(GLPK_TOC)


def _region(page: PageLayout, text: str) -> tuple[str, str]:
    """(kind, text) of the region that holds ``text``."""
    return next((r.kind, r.text) for r in page.regions if text in r.text)


def test_chapter_entries_without_leaders_are_not_sections(glpk: DocumentLayout) -> None:
    first = glpk.pages[0]
    assert _region(first, "Introduction") == ("paragraph", "1 Introduction 9")
    assert _region(first, "Basic API Routines") == ("paragraph", "2 Basic API Routines 14")
    headers = [r.text for page in glpk.pages for r in page.regions if r.kind == "section_header"]
    assert headers == []
    assert build_graph(glpk).stats["sections"] == 1  # "Contents"


def test_an_entry_in_the_bottom_band_keeps_its_page_number(glpk: DocumentLayout) -> None:
    last = glpk.pages[-1]
    assert _region(last, "Installing GLPK") == ("paragraph", "A Installing GLPK on Your Computer 144")
    footers = [[r.text for r in page.regions if r.kind == "page_footer"] for page in glpk.pages]
    assert footers == [["3"], ["4"], ["5"], ["6"], ["7"]]


def _right_aligned(page: pymupdf.Page, y: float, text: str, font: str, size: float) -> None:
    width = pymupdf.get_text_length(text, fontname=font, fontsize=size)
    page.insert_text((RIGHT_EDGE - width, y), text, fontname=font, fontsize=size)


def _contents_with_running_footer(path: Path) -> DocumentLayout:
    """Three pages with a running footer whose number ends where the contents' numbers end."""
    entries = [("1 Introduction", "1"), ("2 Methods", "4"), ("3 Results", "9"), ("4 Discussion", "15")]
    with pymupdf.open() as doc:
        for number in range(1, 4):
            page = doc.new_page(width=595, height=842)
            if number == 1:
                page.insert_text((72, 100), "Contents", fontname="tibo", fontsize=16)
                for k, (title, first_page) in enumerate(entries):
                    page.insert_text((72, 140 + 22 * k), title, fontname="tibo", fontsize=10)
                    _right_aligned(page, 140 + 22 * k, first_page, "tibo", 10)
            else:
                page.insert_textbox(pymupdf.Rect(72, 72, RIGHT_EDGE, 700), PROSE, fontname="tiro", fontsize=10)
            page.insert_text((250, 800), "Gazette of the Society", fontname="tiro", fontsize=8)
            _right_aligned(page, 800, str(number), "tiro", 8)
        doc.save(path)
    return NativeReader().read(path)


def test_a_running_footer_beside_the_entries_keeps_its_page_number(tmp_path: Path) -> None:
    first = _contents_with_running_footer(tmp_path / "contents.pdf").pages[0]
    assert _region(first, "Methods") == ("paragraph", "2 Methods 4")
    assert _region(first, "Discussion") == ("paragraph", "4 Discussion 15")
    assert [r.text for r in first.regions if r.kind == "page_footer"] == ["Gazette of the Society 1"]


def test_a_running_header_above_an_index_keeps_its_page_number(tmp_path: Path) -> None:
    """The first row is the page's header (its title beside the number, as texinfo sets a running
    head); an entry in the band under it is not."""
    path = tmp_path / "index.pdf"
    with pymupdf.open() as doc:
        page = doc.new_page(width=595, height=842)
        page.insert_text((72, 50), "Appendix D: Function index", fontname="tiro", fontsize=10)
        _right_aligned(page, 50, "103", "tiro", 10)
        for k, name in enumerate(["read.csv", "read.table", "scan", "write.csv", "write.table"]):
            _right_aligned(page, 80 + 14 * k, f"{name} . . . . . . . . . . . . . . . . . . . . {20 + k}", "tiro", 10)
        page.insert_textbox(pymupdf.Rect(72, 200, RIGHT_EDGE, 700), PROSE, fontname="tiro", fontsize=10)
        doc.save(path)
    page_layout = NativeReader().read(path).pages[0]
    assert [r.text for r in page_layout.regions if r.kind == "page_header"] == ["Appendix D: Function index 103"]
    assert "read.csv" in _region(page_layout, "read.csv")[1]
    assert _region(page_layout, "read.csv")[0] == "paragraph"


def test_front_matter_entries_numbered_in_capital_roman_are_not_sections(tmp_path: Path) -> None:
    """A thesis numbers its front matter I, III, VII; its contents list them bold, with leaders."""
    path = tmp_path / "thesis.pdf"
    with pymupdf.open() as doc:
        page = doc.new_page(width=595, height=842)
        page.insert_text((72, 100), "Contents", fontname="tibo", fontsize=16)
        for k, (title, number) in enumerate(
            [("Abstract", "III"), ("List of Figures", "VII"), ("List of Tables", "IX")]
        ):
            _right_aligned(
                page, 140 + 22 * k, f"{title} . . . . . . . . . . . . . . . . . . . . . . {number}", "tibo", 10
            )
        page.insert_textbox(pymupdf.Rect(72, 240, RIGHT_EDGE, 700), PROSE, fontname="tiro", fontsize=10)
        doc.save(path)
    page_layout = NativeReader().read(path).pages[0]
    assert _region(page_layout, "Abstract")[0] == "paragraph"
    assert _region(page_layout, "List of Tables")[0] == "paragraph"

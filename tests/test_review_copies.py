"""Review copies: line numbers in the margins and a slanted watermark are not content.

tests/data/pdfs/acm-draft-p2.pdf is page 2 of acmart's ``authordraft`` sample (TeX Live, LPPL, as
Debian's texlive-publishers-doc ships it). Read by hand: two columns, every line numbered in the
margin (117-174 left of the left column, 175-232 right of the right one), and "Unpublished working
draft. Not for distribution." set at 45 degrees across the page in 36 pt light grey. Before margin
numbers were dropped, the page read as 116 one-number paragraphs around its 40 real regions.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from docgraph.ingest.page.line_numbers import margin_line_numbers
from docgraph.ingest.pdf.lines import TextLine
from docgraph.ingest.readers.native import NativeReader
from docgraph.ingest.types import BBox, Region

DRAFT = Path(__file__).parent / "data" / "pdfs" / "acm-draft-p2.pdf"


@pytest.fixture(scope="module")
def draft_regions() -> list[Region]:
    layout = NativeReader().read(DRAFT)
    return sorted(layout.pages[0].regions, key=lambda r: r.order)


def test_margin_line_numbers_are_not_regions(draft_regions: list[Region]) -> None:
    numbers_only = [r.text for r in draft_regions if r.text.strip().isdigit()]
    assert numbers_only == []
    assert not any(r.text.startswith(("117", "175")) for r in draft_regions)


def test_the_text_between_the_numbers_reads_in_order(draft_regions: list[Region]) -> None:
    headers = [r.text for r in draft_regions if r.kind == "section_header"]
    assert headers[:4] == ["2 TEMPLATE OVERVIEW", "2.1 Template Styles", "2.2 Template Parameters", "3 MODIFICATIONS"]
    assert "4 TYPEFACES" in headers
    paragraph = next(r for r in draft_regions if r.text.startswith("As noted in the introduction"))
    assert paragraph.text.endswith("and template parameters.")  # one region over five numbered lines


def test_a_slanted_watermark_is_not_text(draft_regions: list[Region]) -> None:
    text = " ".join(r.text for r in draft_regions)
    assert "Unpublished" not in text
    assert "distribution" not in text
    assert not any(r.kind == "figure" for r in draft_regions)


def _line(text: str, x0: float, y0: float, width: float) -> TextLine:
    return TextLine(text, BBox(x0, y0, x0 + width, y0 + 8), 9.0, "Times", False, False, 0.0, 0)


def _page(numbers_x: float, first: int = 1, step: int = 1) -> list[TextLine]:
    """Ten prose lines starting at x = 72, each with a number at ``numbers_x`` beside it."""
    lines = [_line(f"line {k} of the body text, long enough to be prose", 72, 100 + 12 * k, 400) for k in range(10)]
    lines += [_line(str(first + step * k), numbers_x, 100 + 12 * k, 8) for k in range(10)]
    return lines


def test_numbers_left_or_right_of_the_text_are_margin_numbers() -> None:
    assert margin_line_numbers(_page(40)) == set(range(10, 20))
    assert margin_line_numbers(_page(500, first=5, step=5)) == set(range(10, 20))


def test_a_column_of_numbers_inside_the_text_is_kept() -> None:
    # A table's "No." column starts where the text does; row numbers of a listing indented in it.
    table = [_line(f"item {k}   {k * 3} kg", 100, 100 + 12 * k, 200) for k in range(10)]
    table += [_line(str(k + 1), 72, 100 + 12 * k, 8) for k in range(10)]
    table += [_line("A paragraph above the table, where the text block starts.", 72, 60, 400)] * 3
    assert margin_line_numbers(table) == set()
    contents = [_line(f"{k}. Chapter title {k}", 72, 100 + 12 * k, 200 + 10 * k) for k in range(10)]
    contents += [_line(str(p), 464, 100 + 12 * k, 8) for k, p in enumerate([1, 3, 4, 8, 9, 11, 12, 17, 18, 25])]
    assert margin_line_numbers(contents) == set()  # page numbers rise by varying steps


def test_numbers_that_do_not_count_up_are_kept() -> None:
    shuffled = _page(40)
    for line, value in zip(shuffled[10:], ["3", "1", "4", "1", "5", "9", "2", "6", "5", "3"], strict=True):
        line.text = value
    assert margin_line_numbers(shuffled) == set()
    assert margin_line_numbers(_page(40)[:14]) == set()  # four numbers are not a numbering

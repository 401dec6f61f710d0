"""A title page's byline (authors, affiliations, a date, a subtitle) is not a section.

Vignettes, papers and manuals set their authors and date larger or bolder than the text, so font
statistics read them as section headers, and "February 6, 2023" headed the abstract. The pages
here are drawn with PyMuPDF as a vignette's and a report's first page are set.
"""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from docgraph.ingest.readers.native import NativeReader
from docgraph.ingest.types import PageLayout

PROSE = (
    "This vignette describes how the package represents irregular time series and which methods it "
    "offers for merging, aggregating and plotting them, with examples drawn from finance and ecology. "
)


def _first_page(tmp_path: Path, draw: list[tuple[float, float, str, str, float]]) -> PageLayout:
    """A two-page document: page 1 drawn from (x, y, text, font, size), page 2 plain prose."""
    path = tmp_path / "title.pdf"
    with pymupdf.open() as doc:
        page = doc.new_page(width=595, height=842)
        for x, y, text, font, size in draw:
            if text == "PROSE":
                page.insert_textbox(pymupdf.Rect(72, y, 523, y + 120), PROSE * 3, fontname="tiro", fontsize=10)
            else:
                page.insert_text((x, y), text, fontname=font, fontsize=size)
        second = doc.new_page(width=595, height=842)
        second.insert_textbox(pymupdf.Rect(72, 72, 523, 770), PROSE * 30, fontname="tiro", fontsize=10)
        doc.save(path)
    return NativeReader().read(path).pages[0]


def _kind(page: PageLayout, text: str) -> str:
    """The kind of the region that holds ``text`` (two authors on one row may be one region)."""
    return next(r.kind for r in page.regions if text in r.text)


def test_authors_affiliations_and_date_under_the_title_are_paragraphs(tmp_path: Path) -> None:
    page = _first_page(
        tmp_path,
        [
            (150, 110, "Irregular Time Series in R", "tibo", 18),
            (130, 160, "Achim Zeileis", "tibo", 12),
            (330, 160, "Gabor Grothendieck", "tibo", 12),
            (130, 174, "Universität Innsbruck", "tiro", 10),
            (330, 174, "GKX Associates Inc.", "tiro", 10),
            (250, 200, "February 6, 2023", "tibo", 12),
            (280, 240, "Abstract", "tibo", 10),
            (0, 250, "PROSE", "", 0),
            (72, 420, "1 Introduction", "tibo", 12),
            (0, 432, "PROSE", "", 0),
        ],
    )
    assert _kind(page, "Irregular Time Series in R") == "title"
    for byline in ("Achim Zeileis", "Gabor Grothendieck", "February 6, 2023"):
        assert _kind(page, byline) == "paragraph", byline
    assert _kind(page, "Abstract") == _kind(page, "1 Introduction") == "section_header"


@pytest.mark.parametrize(
    "lines, kinds",
    [
        (  # a subtitle, then the heading of the first prose
            [(220, 150, "Reference Manual"), (72, 200, "Getting Started")],
            {"Reference Manual": "paragraph", "Getting Started": "section_header"},
        ),
        (  # a date right above the first prose is still no heading
            [(250, 150, "Terry M Therneau"), (250, 170, "Dec 2022 (updated)")],
            {"Terry M Therneau": "paragraph", "Dec 2022 (updated)": "paragraph"},
        ),
    ],
)
def test_the_first_prose_ends_the_byline(
    tmp_path: Path, lines: list[tuple[float, float, str]], kinds: dict[str, str]
) -> None:
    prose_y = max(y for _, y, _ in lines) + 12
    draw = [(150.0, 110.0, "Software Manual", "tibo", 18.0), *((x, y, t, "tibo", 12.0) for x, y, t in lines)]
    page = _first_page(tmp_path, [*draw, (0, prose_y, "PROSE", "", 0)])
    assert {text: _kind(page, text) for text in kinds} == kinds


@pytest.mark.parametrize(("x", "kind"), [(None, "title"), (72.0, "section_header")])
def test_a_centred_heading_a_little_larger_than_anything_else_opens_a_paper_as_its_title(
    tmp_path: Path, x: float | None, kind: str
) -> None:
    """groff's -ms sets a paper's title 2 points above the text and its headings in bold at the
    text's size: 1.4 times the body was asked of a title, so the title was a section and the
    document was named after its file. A heading set flush left stays a section."""
    title = "Measuring the Energy Cost of Dense Retrieval"
    left = x if x is not None else (72 + 523 - pymupdf.get_text_length(title, "tibo", 12)) / 2
    page = _first_page(
        tmp_path,
        [
            (left, 100, title, "tibo", 12),
            (250, 120, "Hannah Voss", "tiit", 10),
            (0, 140, "PROSE", "", 0),
            (72, 300, "1. Introduction", "tibo", 10),
            (0, 312, "PROSE", "", 0),
        ],
    )
    assert _kind(page, title) == kind
    assert _kind(page, "1. Introduction") == "section_header"


def test_a_centred_front_matter_heading_opening_the_first_page_is_no_title(tmp_path: Path) -> None:
    """A report whose cover has no text opens with "Contents", centred a point or two above the
    text: it was taken for the document's title."""
    left = (72 + 523 - pymupdf.get_text_length("Contents", "tibo", 12)) / 2
    page = _first_page(tmp_path, [(left, 100, "Contents", "tibo", 12), (0, 140, "PROSE", "", 0)])
    assert _kind(page, "Contents") == "section_header"


@pytest.mark.parametrize("rise", [3.0, -3.0])
def test_the_headings_opening_two_columns_under_a_title_are_sections(tmp_path: Path, rise: float) -> None:
    """A newsletter's two columns open under its title with a heading each, one set a little higher
    than the other: the higher one was taken for the byline (only the header right above the first
    prose headed it), so its article was read under the other column's last heading."""
    path = tmp_path / "newsletter.pdf"
    with pymupdf.open() as doc:
        page = doc.new_page(width=595, height=842)
        page.insert_text((56, 70), "THE HARBOUR BULLETIN", fontname="hebo", fontsize=26)
        page.insert_text((56, 90), "Staff newsletter - Issue 42 - Summer 2024", fontname="helv", fontsize=10)
        for x, y, heading in ((56, 124, "New canteen opens in June"), (310, 124 - rise, "Long service awards")):
            page.insert_text((x, y), heading, fontname="tibo", fontsize=13)
            page.insert_textbox(pymupdf.Rect(x, y + 8, x + 229, y + 300), PROSE * 2, fontname="tiro", fontsize=10)
        doc.save(path)
    [first] = NativeReader().read(path).pages
    assert _kind(first, "THE HARBOUR BULLETIN") == "title"
    assert _kind(first, "New canteen opens in June") == _kind(first, "Long service awards") == "section_header"
    assert _kind(first, "Staff newsletter") == "paragraph"

"""Underscores that the PDF draws as short rules come back as ``_``.

tests/data/pdfs/libidn2-p6.pdf is page 6 of the libidn2 manual (Texinfo, pdfTeX): its headings and
the slanted argument lists of its definition lines draw every ``_`` as a rule, so the function
``idn2_lookup_u8`` was headed "idn2 lookup u8". elstest-5p.pdf sets ``Y\\_1`` in Times, with TeX's
rule for the underscore. The other cases are drawn here with PyMuPDF: a rule in a gap between two
words is an underscore; one under a word, at mid-height, or a piece of a longer underline is not.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pymupdf
import pytest

from docgraph.ingest.pdf.lines import TEXT_FLAGS, extract_lines
from docgraph.ingest.readers.native import NativeReader

PDFS = Path(__file__).parent / "data" / "pdfs"
BASELINE = 100.0
SIZE = 12.0


def _texts(path: Path, page_no: int = 0) -> list[str]:
    with pymupdf.open(path) as doc:
        page = doc[page_no]
        return [line.text for line in extract_lines(page, page.get_textpage(flags=TEXT_FLAGS), page.get_drawings())]


def test_texinfo_headings_and_argument_lists_keep_their_underscores() -> None:
    regions = NativeReader().read(PDFS / "libidn2-p6.pdf").pages[0].regions
    headers = [r.text for r in regions if r.kind == "section_header"]
    assert headers == ["idn2_lookup_u8", "idn2_register_u8"]
    signature = next(r.text for r in regions if r.text.startswith("int idn2_lookup_u8"))
    assert "(const uint8_t * src, uint8_t ** lookupname, int flags)" in signature


def test_a_name_broken_after_its_underscore_is_joined_whole() -> None:
    text = " ".join(r.text for r in NativeReader().read(PDFS / "libidn2-p6.pdf").pages[0].regions)
    assert "do already imply IDN2_NFC_INPUT ." in text


def test_tex_underscore_in_a_times_paper() -> None:
    assert any("the formation Y_1 of a new type" in text for text in _texts(PDFS / "elstest-5p.pdf"))


def _draw(tmp_path: Path, draw: Callable[[pymupdf.Page, float], None]) -> list[str]:
    """ "asn1" and "tree" on one baseline, 0.5 em apart, and whatever ``draw`` adds; the lines read."""
    path = tmp_path / "rule.pdf"
    with pymupdf.open() as doc:
        page = doc.new_page()
        end = 72 + pymupdf.get_text_length("asn1", fontname="helv", fontsize=SIZE)
        page.insert_text((72, BASELINE), "asn1", fontname="helv", fontsize=SIZE)
        page.insert_text((end + 0.5 * SIZE, BASELINE), "tree", fontname="helv", fontsize=SIZE)
        draw(page, end)
        doc.save(path)
    return _texts(path)


def test_a_short_rule_on_the_baseline_between_two_words_is_an_underscore(tmp_path: Path) -> None:
    def underscore(page: pymupdf.Page, end: float) -> None:
        page.draw_line((end + 1, BASELINE - 0.3), (end + 5, BASELINE - 0.3), width=0.5)

    assert _draw(tmp_path, underscore) == ["asn1_tree"]


def test_a_thin_filled_bar_is_one_too(tmp_path: Path) -> None:
    def bar(page: pymupdf.Page, end: float) -> None:
        page.draw_rect(pymupdf.Rect(end + 1, BASELINE - 0.5, end + 5, BASELINE), color=None, fill=(0, 0, 0))

    assert _draw(tmp_path, bar) == ["asn1_tree"]


@pytest.mark.parametrize(
    "name, segments",
    [
        ("under a word", [(-20.0, -2.0, 1.5)]),
        ("at mid-height, like a minus", [(1.0, 5.0, -4.0)]),
        ("a piece of an underline", [(-22.0, 0.5, 1.5), (1.0, 5.0, 1.5), (5.5, 30.0, 1.5)]),
        ("too long for an underscore", [(-8.0, 14.0, 0.0)]),
    ],
)
def test_other_rules_are_left_alone(tmp_path: Path, name: str, segments: list[tuple[float, float, float]]) -> None:
    def rules(page: pymupdf.Page, end: float) -> None:
        for x0, x1, dy in segments:
            page.draw_line((end + x0, BASELINE + dy), (end + x1, BASELINE + dy), width=0.5)

    assert _draw(tmp_path, rules) == ["asn1 tree"], name

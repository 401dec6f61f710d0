"""Captions told from sentences about a figure or table: "Table 3.2 lists every key ..." set right
above the table is prose, "Table 3.2: All keys" its caption. PDFs made here, the native reader."""

from __future__ import annotations

from pathlib import Path

import pymupdf

from docgraph.ingest.floats.captions import CAPTION_DELIMITER_RE
from docgraph.ingest.page.classify import is_caption_text
from docgraph.ingest.readers.native import NativeReader


def test_a_sentence_that_opens_with_a_label_is_no_caption(tmp_path: Path) -> None:
    """A paragraph starting "Table 3.2 lists ..." next to the table was a caption ("Table 3." and
    "2 lists" read as label and text), and a REF to Table 3.2 could land on it; so was "Figure 2.1
    shows ..." above a figure."""
    pdf = tmp_path / "guide.pdf"
    with pymupdf.open() as doc:
        page = doc.new_page()
        page.insert_text(
            (72, 80), "Table 3.2 lists every key that the file accepts, in alphabetical order.", fontsize=10
        )
        page.insert_text((72, 100), "Table 3.2: All keys with their defaults", fontsize=9)
        for row, cells in enumerate([("Key", "Default"), ("port", "8080"), ("workers", "4")]):
            y = 110 + 16 * row
            page.draw_rect(pymupdf.Rect(72, y, 372, y + 16), color=(0, 0, 0), width=0.5)
            page.draw_line((222, y), (222, y + 16), color=(0, 0, 0), width=0.5)
            for x, cell in zip((75, 225), cells, strict=True):
                page.insert_text((x, y + 12), cell, fontsize=9)
        page.insert_text((72, 250), "Figure 2.1 shows the order in which the names are tried.", fontsize=10)
        picture = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 120, 60), 0)
        picture.set_rect(picture.irect, (90, 120, 200))
        page.insert_image(pymupdf.Rect(100, 260, 460, 420), pixmap=picture)
        page.insert_text((72, 440), "Fig. 2.1 Template lookup order", fontsize=9)
        doc.save(pdf)
    (page,) = NativeReader().read(pdf).pages
    assert [(region.kind, region.text[:16]) for region in page.regions] == [
        ("paragraph", "Table 3.2 lists "),
        ("caption", "Table 3.2: All k"),
        ("table", "| Key | Default "),
        ("paragraph", "Figure 2.1 shows"),
        ("figure", ""),
        ("caption", "Fig. 2.1 Templat"),
    ]


def test_a_caption_that_goes_on_in_lowercase_is_still_a_caption() -> None:
    for caption in ("Figure 3 a) intake screen", "Fig. 2 pH dependence of the dose", "Table 1 mRNA primers"):
        assert is_caption_text(caption, near_float=True), caption
    assert is_caption_text("Table 2 continued", near_float=True)
    assert not is_caption_text("Figure 3 is a plot of the dose.", near_float=True)


def test_a_point_or_dash_before_a_digit_is_part_of_the_number() -> None:
    for prose in ("Table 3.2 lists every key", "Figure 2-1 shows the tree", "Table 4.10 gives the rates"):
        assert not CAPTION_DELIMITER_RE.match(prose), prose
    for caption in ("Table 3.2: All keys", "Table 3. Results", "Figure 2-1 - Shapes", "Figure 3.1. The pump"):
        assert CAPTION_DELIMITER_RE.match(caption), caption


def test_a_caption_over_two_lines_is_one_caption_above_or_below_its_figure(tmp_path: Path) -> None:
    """A centred caption's shorter second line, which MuPDF puts in a block of its own, was a
    paragraph of its own; the second line of a caption set above a figure became the figure's text."""
    pdf = tmp_path / "manual.pdf"
    below = ["Figure 1: The process tree after start-up: the supervisor (PID 1 of the service)", "and its workers."]
    above = ["Figure 2: The machine axes X, Y and Z with their positive directions as seen from the", "operator."]
    with pymupdf.open() as doc:
        for lines, caption_top, picture_top in ((below, 300, 100), (above, 80, 130)):
            page = doc.new_page()
            page.insert_text((72, 60), "The manual shows the parts of the machine in pictures.", fontsize=10)
            picture = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 120, 60), 0)
            picture.set_rect(picture.irect, (90, 120, 200))
            page.insert_image(pymupdf.Rect(150, picture_top, 450, picture_top + 180), pixmap=picture)
            for row, line in enumerate(lines):
                width = pymupdf.get_text_length(line, "tiro", 9)
                page.insert_text((306 - width / 2, caption_top + 12 * row), line, fontname="tiro", fontsize=9)
        doc.save(pdf)
    pages = NativeReader().read(pdf).pages
    captions = [region.text for page in pages for region in page.regions if region.kind == "caption"]
    assert captions == [" ".join(below), " ".join(above)]
    assert all(not region.text for page in pages for region in page.regions if region.kind == "figure")

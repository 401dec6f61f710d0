"""A datasheet's contents: each entry's dot leaders stop short of its page number, set flush at the
right. The numbers rise one page at a time down the list (a short section a page), beyond where
every other line ends: they were taken for margin line numbers and dropped before the page was
read, leaving the entries without their pages.
"""

from __future__ import annotations

from pathlib import Path

import pymupdf

from docgraph.ingest.readers.native import NativeReader

ENTRIES = [
    ("Features", 1),
    ("General Description", 1),
    ("Revision History", 2),
    ("Specifications", 3),
    ("Absolute Maximum Ratings", 4),
    ("Pin Configuration and Function Descriptions", 5),
    ("Typical Performance Characteristics", 6),
    ("Theory of Operation", 7),
    ("Ordering Guide", 8),
]


def contents_page(out: Path) -> Path:
    with pymupdf.open() as doc:
        page = doc.new_page(width=612, height=792)
        page.insert_text((50, 80), "TABLE OF CONTENTS", fontsize=11, fontname="hebo")
        for k, (title, number) in enumerate(ENTRIES):
            y = 100 + 12 * k
            page.insert_text((50, y), title, fontsize=9, fontname="helv")
            page.insert_text((300, y), "." * 40, fontsize=9, fontname="helv")
            page.insert_text((470, y), str(number), fontsize=9, fontname="helv")
        prose = "The XYZ123 is a low quiescent current, low dropout linear regulator. " * 4
        page.insert_textbox(pymupdf.Rect(50, 240, 420, 320), prose, fontsize=9, fontname="helv")
        doc.save(out)
    return out


def test_the_page_numbers_of_a_contents_list_are_kept(tmp_path: Path) -> None:
    page = NativeReader().read(contents_page(tmp_path / "contents.pdf")).pages[0]
    text = " ".join(region.text for region in page.regions)
    for number in range(2, 9):
        assert f" {number} " in f" {text} ".replace("|", " ")


def _underlined(page: pymupdf.Page, y: float, text: str) -> None:
    page.insert_text((50, y), text, fontsize=11, fontname="hebo")
    page.draw_line((50, y + 3), (562, y + 3), width=0.5)


def contents_and_history(out: Path) -> Path:
    """Headings underlined across the page: the contents, then the revision history."""
    with pymupdf.open() as doc:
        page = doc.new_page(width=612, height=792)
        _underlined(page, 80, "TABLE OF CONTENTS")
        for k, (title, number) in enumerate(ENTRIES):
            y = 100 + 12 * k
            entry = title + " " + "." * (70 - len(title))
            page.insert_text((50, y), entry, fontsize=9, fontname="helv")
            page.insert_text((470, y), str(number), fontsize=9, fontname="helv")
        _underlined(page, 230, "REVISION HISTORY")
        page.insert_text((50, 250), "4/2024, Rev. B to Rev. C", fontsize=9, fontname="hebo")
        page.insert_text((50, 262), "Changes to the Features section and to Table 1", fontsize=9, fontname="helv")
        page.insert_text((50, 280), "11/2022, Rev. A to Rev. B", fontsize=9, fontname="hebo")
        page.insert_text(
            (50, 292), "Changed the quiescent current maximum from 65 uA to 60 uA", fontsize=9, fontname="helv"
        )
        doc.save(out)
    return out


def test_a_heading_underlined_under_the_contents_stays_a_heading(tmp_path: Path) -> None:
    """The contents between two headings' rules read as a table of entries and page numbers, which
    took the next heading in as its last row: the revision history had no heading."""
    page = NativeReader().read(contents_and_history(tmp_path / "history.pdf")).pages[0]
    headers = [r.text for r in page.regions if r.kind in ("section_header", "title")]
    assert "REVISION HISTORY" in headers
    assert not any("REVISION HISTORY" in r.text for r in page.regions if r.kind == "table")

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

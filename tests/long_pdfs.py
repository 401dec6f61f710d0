"""A long PDF of distinct pages, for tests that need an ingest to stay under way for seconds on
any machine (a signal sent mid-ingest, a progress bar redrawn each second): copies of one page
would not do, their repeated lines are read as furniture and their texts embedded once."""

from __future__ import annotations

from pathlib import Path

import pymupdf


def long_report(path: Path, pages: int, title: str = "") -> Path:
    """``pages`` pages of six distinct paragraphs each, with ``title`` in the metadata."""
    doc = pymupdf.open()
    for number in range(1, pages + 1):
        page = doc.new_page(width=595, height=842)
        for paragraph in range(6):  # six regions a page to read and embed
            text = " ".join(
                f"Reading {number}.{paragraph}.{line}: site {number * 7 + line} lists its pumps, valves and meters."
                for line in range(4)
            )
            rect = pymupdf.Rect(72, 72 + 110 * paragraph, 523, 170 + 110 * paragraph)
            assert page.insert_textbox(rect, text, fontsize=10) >= 0
    if title:
        doc.set_metadata({"title": title})
    doc.save(path)
    return path

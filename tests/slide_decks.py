"""Lecture decks made for tests: landscape slides, each a bold title over one line of text."""

from __future__ import annotations

from pathlib import Path

import pymupdf


def write_deck(pdf: Path, slides: list[tuple[str, str]]) -> Path:
    """A 16:9 deck of ``slides`` (title, text), one slide a page, as a presentation program sets it."""
    with pymupdf.open() as doc:
        for title, text in slides:
            page = doc.new_page(width=720, height=405)
            page.insert_text((30, 45), title, fontname="hebo", fontsize=26)
            page.insert_text((50, 100), text, fontname="helv", fontsize=18)
        doc.save(pdf)
    return pdf

"""A bibliography set with hanging indents, as the Chicago Manual sets it: each entry's first line at
the margin, its other lines 18 points in, titles in italics, ragged right. A PDF made here, read by
the native reader.

Before, an entry was cut after its first line wherever MuPDF ended a block there (the next line
starts further in, and in another font when the title runs on): "Dickens, A. G. The German Nation
and Martin Luther. London: Edward" | "Arnold, 1974.", so that the second part read as an entry by
an author Arnold of 1974 and a citation "(London: Edward Arnold, 1974)" in a note linked to it."""

from __future__ import annotations

from pathlib import Path

import pymupdf

from docgraph.ingest.readers.native import NativeReader

LEFT, MEASURE, HANG, SIZE, LEAD = 72.0, 300.0, 18.0, 10.0, 12.5
# (author part in roman, title in italics, the rest in roman)
ENTRIES = [
    (
        "Blackbourn, David, and Geoff Eley.",
        "The Peculiarities of German History: Bourgeois Society and Politics in Nineteenth-Century Germany.",
        "Oxford: Oxford University Press, 1984.",
    ),
    ("Dickens, A. G.", "The German Nation and Martin Luther.", "London: Edward Arnold, 1974."),
    ("Lehmann, Hartmut.", "Luthergedaechtnis 1817 bis 2017.", "Goettingen: Vandenhoeck & Ruprecht, 2012."),
    (
        "Scribner, Robert W.",
        "For the Sake of Simple Folk: Popular Propaganda for the German Reformation.",
        "Cambridge: Cambridge University Press, 1981.",
    ),
]


def _entry(page: pymupdf.Page, y: float, parts: tuple[str, str, str]) -> float:
    """Sets one entry word by word, wrapping at the measure; returns the next entry's baseline."""
    words = [(w, font) for text, font in zip(parts, ("tiro", "tiit", "tiro"), strict=True) for w in text.split()]
    x, line = LEFT, 0
    for word, font in words:
        width = pymupdf.get_text_length(word, font, SIZE)
        if x + width > LEFT + MEASURE:
            line, y = line + 1, y + LEAD
            x = LEFT + HANG
        page.insert_text((x, y), word, fontname=font, fontsize=SIZE)
        x += width + pymupdf.get_text_length(" ", "tiro", SIZE)
    return y + LEAD + 3


def _bibliography(pdf: Path) -> None:
    with pymupdf.open() as doc:
        page = doc.new_page(width=432, height=648)
        page.insert_text((LEFT, 90), "Bibliography", fontname="tibo", fontsize=14)
        y = 120.0
        for entry in ENTRIES:
            y = _entry(page, y, entry)
        # a one-line paragraph, then the next paragraph's first line set in: two paragraphs
        page.insert_text((LEFT, y + 20), "All translations are my own.", fontname="tiro", fontsize=SIZE)
        page.insert_text((LEFT + HANG, y + 20 + LEAD), "Archives are cited", fontname="tiro", fontsize=SIZE)
        doc.save(pdf)


def test_each_entry_of_a_hanging_bibliography_is_one_region(tmp_path: Path) -> None:
    _bibliography(tmp_path / "bib.pdf")
    texts = [r.text for r in NativeReader().read(tmp_path / "bib.pdf").pages[0].regions]
    assert texts[1:5] == [" ".join(entry) for entry in ENTRIES]
    assert texts[5:] == ["All translations are my own.", "Archives are cited"]

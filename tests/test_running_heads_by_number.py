"""A book's running heads in a short chapter: the book's title on left-hand pages, the chapter's
title on right-hand ones, each on the row of the page number. A PDF made here, read by the native
reader and built into a graph.

Before, a chapter's title heading only one right-hand page (a chapter of three pages) repeated on
no other page, so it was read as a paragraph at the top of its page: between the two parts of the
paragraph cut by the page break, which were then not linked."""

from __future__ import annotations

from pathlib import Path

import pymupdf

from docgraph.ingest.graph import build_graph
from docgraph.ingest.readers.native import NativeReader

LEFT, RIGHT = 60.0, 372.0
TEXT = (
    "The printers of Wittenberg worked for a market that stretched from Basel to Danzig, and they chose"
    " what to print by what would sell in the fairs of Leipzig and Frankfurt rather than by what the"
    " theologians of the university thought most needful"
)
NEXT = "for the salvation of souls, a choice that their successors in the nineteenth century forgot."


def _lines(page: pymupdf.Page, y: float, text: str) -> None:
    line = ""
    for word in text.split():
        if pymupdf.get_text_length(f"{line} {word}", "tiro", 10.5) > RIGHT - LEFT:
            page.insert_text((LEFT, y), line.strip(), fontname="tiro", fontsize=10.5)
            line, y = "", y + 13
        line += " " + word
    page.insert_text((LEFT, y), line.strip(), fontname="tiro", fontsize=10.5)


def _book(pdf: Path) -> None:
    with pymupdf.open() as doc:
        page = doc.new_page(width=432, height=648)  # the chapter opens, its number at the foot
        page.insert_text((LEFT + 60, 150), "The Printer's Reformation", fontname="tibo", fontsize=17)
        _lines(page, 200, TEXT + ". " + TEXT + ".")
        page.insert_text((210, 615), "1", fontname="tiro", fontsize=9)
        page = doc.new_page(width=432, height=648)  # left: number, then the book's title
        page.insert_text((LEFT, 42), "2", fontname="tiro", fontsize=9)
        page.insert_text((170, 42), "PRINT AND REVOLT", fontname="tiro", fontsize=8)
        _lines(page, 80, TEXT + ". " + TEXT)
        page = doc.new_page(width=432, height=648)  # right: the chapter's title, then the number
        page.insert_text((160, 42), "The Printer's Reformation", fontname="tiit", fontsize=9)
        page.insert_text((RIGHT - 5, 42), "3", fontname="tiro", fontsize=9)
        _lines(page, 80, NEXT + " " + TEXT + ".")
        page = doc.new_page(width=432, height=648)
        page.insert_text((LEFT, 42), "4", fontname="tiro", fontsize=9)
        page.insert_text((170, 42), "PRINT AND REVOLT", fontname="tiro", fontsize=8)
        _lines(page, 80, TEXT + ".")
        doc.save(pdf)


def test_a_chapter_title_beside_the_page_number_is_a_running_head(tmp_path: Path) -> None:
    _book(tmp_path / "book.pdf")
    layout = NativeReader().read(tmp_path / "book.pdf")
    heads = [(r.kind, r.text) for r in layout.pages[2].regions if "Reformation" in r.text]
    assert heads == [("page_header", "The Printer's Reformation 3")]
    batch = build_graph(layout, ingested_at="x", ingest_id="y")
    text = {n.key: str(n.props["text"]) for n in batch.nodes if n.label == "Region"}
    runs = [text[e.dst_key] for e in batch.edges if e.type == "HAS_NEXT" and e.props.get("continuation")]
    assert [run[:24] for run in runs] == ["for the salvation of sou"]

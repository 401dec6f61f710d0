"""A newsletter article's head: the headline is its section, the deck under it and the byline are
paragraphs of that section, not sections of their own ("By Priya Shah" heading the article)."""

from __future__ import annotations

from pathlib import Path

import pymupdf

from docgraph.ingest.graph import build_graph
from docgraph.ingest.readers.native import NativeReader

BODY = (
    "After three years of fundraising, planning appeals and one memorable flood, the new library opened "
    "its doors on Saturday 22 February, on the site of the old fire station in Mill Road. "
)


HEADS = [
    (
        "A new chapter: Riverside Library opens",
        "Three years of fundraising end with a building the whole village can be proud of",
        "By Priya Shah, Library Friends",
    ),
    (
        "Treasurer's report: a year in the black",
        "Record fete takings and busy hall bookings leave a surplus for the year",
        "By Anne Whitfield, Treasurer",
    ),
]


def newsletter(path: Path, masthead: bool) -> Path:
    """Two pages of a newsletter, each an article under its headline, deck and byline; page 1 under
    a masthead or not."""
    doc = pymupdf.open()
    for number, (headline, deck, byline) in enumerate(HEADS, start=1):
        page = doc.new_page(width=595, height=842)
        page.insert_text((40, 815), f"Spring 2025 | {number}", fontname="helv", fontsize=8)
        top = 70
        if masthead and number == 1:
            page.insert_text((120, 75), "The Riverside Review", fontname="tibo", fontsize=38)
            top = 140
        page.insert_text((40, top), headline, fontname="tibo", fontsize=20)
        page.insert_text((40, top + 18), deck, fontname="tiit", fontsize=12)
        page.insert_text((40, top + 34), byline, fontname="hebo", fontsize=8.5)
        box = pymupdf.Rect(40, top + 44, 200, top + 400)
        page.insert_textbox(box, BODY * 6, fontname="tiro", fontsize=9.5)
    doc.save(path)
    return path


def sections_of(path: Path, page: int) -> dict[str, str]:
    """First words of each paragraph on ``page`` -> the title of the section it is under."""
    batch = build_graph(NativeReader().read(path))
    titles = {n.key: str(n.props["title"]) for n in batch.nodes if n.label == "Section"}
    texts = {
        n.key: str(n.props["text"])
        for n in batch.nodes
        if n.label == "Region" and n.props["page"] == page and n.props["kind"] == "paragraph"
    }
    return {
        " ".join(texts[e.src_key].split()[:3]): titles[e.dst_key]
        for e in batch.edges
        if e.type == "IS_UNDER" and e.src_key in texts and e.dst_key in titles
    }


def test_deck_and_byline_are_paragraphs_of_the_headlines_section(tmp_path: Path) -> None:
    under = sections_of(newsletter(tmp_path / "inside.pdf", masthead=False), page=2)
    headline = "Treasurer's report: a year in the black"
    assert under["Record fete takings"] == under["By Anne Whitfield,"] == under["After three years"] == headline


def test_the_lead_articles_headline_under_the_masthead_is_a_section(tmp_path: Path) -> None:
    """On the front page, the masthead is the title; the lead article's head under it is no
    title page's byline: its headline still heads the article."""
    under = sections_of(newsletter(tmp_path / "front.pdf", masthead=True), page=1)
    headline = "A new chapter: Riverside Library opens"
    assert under["Three years of"] == under["By Priya Shah,"] == under["After three years"] == headline

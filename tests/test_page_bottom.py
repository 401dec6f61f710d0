"""The foot of a page: page numbers set higher than the header/footer band, and footnotes.

tests/data/pdfs/ieeeconf-p2-5.pdf is pages 2-5 of the IEEEconf class documentation (TeX Live,
LPPL, as Debian's texlive-publishers-doc ships it), cut with PyMuPDF. Read by hand: US letter,
LaTeX's default page style, so each page number sits 87 pt above the bottom edge, beyond the 12 %
band that holds running footers; page 4 (the third here) ends with a paragraph that goes on atop
the next page, then footnote 1 ("latex8.bst is in fact identical to abbrv.bst ...").
Before the page numbers were found there, each was a one-digit paragraph, the last region of
its page, so the paragraph cut by the page break was linked to the page number instead.

The bibliography of tests/data/pdfs/apssamp.pdf is set small at the foot of its pages: its entries
are not footnotes, which start with a mark.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from docgraph.ingest.graph import build_graph
from docgraph.ingest.readers.native import NativeReader
from docgraph.ingest.types import DocumentLayout, Region

PDFS = Path(__file__).parent / "data" / "pdfs"


@pytest.fixture(scope="module")
def manual() -> DocumentLayout:
    return NativeReader().read(PDFS / "ieeeconf-p2-5.pdf")


def ordered(layout: DocumentLayout, number: int) -> list[Region]:
    return sorted(layout.pages[number - 1].regions, key=lambda r: r.order)


def test_page_numbers_above_the_footer_band_are_page_footers(manual: DocumentLayout) -> None:
    for page in manual.pages:
        footers = [r for r in page.regions if r.kind == "page_footer"]
        assert [r.text for r in footers] == [str(page.number + 1)]
        assert footers[0].bbox.y0 < 0.88 * 792  # outside the band furniture is otherwise looked for in
        assert not any(r.text.strip().isdigit() for r in page.regions if r.kind != "page_footer")


def test_a_paragraph_cut_by_the_page_break_continues_past_the_page_number(manual: DocumentLayout) -> None:
    batch = build_graph(manual)
    texts = {n.key: n.props["text"] for n in batch.nodes if n.label == "Region"}
    kinds = {n.key: n.props["kind"] for n in batch.nodes if n.label == "Region"}
    cross = [e for e in batch.edges if e.type == "HAS_NEXT" and e.props.get("continuation") and e.props["cross_page"]]
    cross = [e for e in cross if kinds[e.src_key] != "code"]  # a LaTeX listing cut by a break goes on too
    assert len(cross) == 1
    assert texts[cross[0].src_key].startswith("\\extrareflistcode Previous versions of the IEEE")
    assert texts[cross[0].dst_key].startswith("bibliographic references must be single-spaced")


def test_a_marked_note_below_the_text_is_a_footnote(manual: DocumentLayout) -> None:
    notes = [r.text for r in ordered(manual, 3) if r.kind == "footnote"]
    assert len(notes) == 1
    assert notes[0].startswith("¹latex8.bst is in fact identical to abbrv.bst")  # its mark a superscript


def test_a_bibliography_set_small_is_not_footnotes() -> None:
    paper = NativeReader().read(PDFS / "apssamp.pdf")
    entries = [r for p in paper.pages for r in p.regions if r.text.startswith(("[1] E. Witten", "[2] See the"))]
    assert len(entries) == 2
    assert {r.kind for r in entries} == {"paragraph"}
    assert not any(r.kind == "footnote" for p in paper.pages[5:] for r in p.regions)

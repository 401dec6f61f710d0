"""Footnotes in two-column papers: a note at the foot of one column, under a short rule and set
smaller than the text, while the other column's text runs further down the page. PDFs made here,
read by the native reader.

Before, the note was a paragraph (body text lower on the page, in the other column, put it above
"the foot of the text") and was read between the two halves of the paragraph it interrupts, so
that paragraph was not linked to its other half; a note marked with a Unicode superscript ("¹")
was a paragraph wherever it stood."""

from __future__ import annotations

from pathlib import Path

import pymupdf

from docgraph.ingest.graph import build_graph
from docgraph.ingest.readers.native import NativeReader
from docgraph.ingest.types import DocumentLayout
from docgraph.records import GraphBatch

LEFT, RIGHT, MEASURE = 54.0, 322.0, 236.0  # an A4 page's two columns
LEAD = 12.0
FILLER = (
    "Retrieval runs for every question that reaches the system, so the energy it draws grows with the "
    "traffic. We measure that energy on the same machines for every index we compare, and we report "
    "the power above idle rather than the total."
)
CUT_LEFT = (
    "Software power meters read the running average power limit counters of the processor and the "
    "management interface of the accelerator, and both of them are known to underestimate the draw of"
)
CUT_RIGHT = "the whole server by up to a quarter on the machines that we used for these measurements."
NOTE = "1 The counters cover the package and the memory only; we measured the rest with a meter."


def wrapped(text: str, width: float, size: float) -> list[str]:
    """``text`` broken into lines of Times at ``size`` points, at most ``width`` points wide."""
    lines, current = [], ""
    for word in text.split():
        longer = f"{current} {word}".strip()
        if pymupdf.get_text_length(longer, "tiro", size) <= width:
            current = longer
        else:
            lines, current = [*lines, current], word
    return [*lines, current]


def _column(page: pymupdf.Page, x: float, y: float, paragraphs: list[str], size: float = 10.0) -> float:
    """Sets ``paragraphs`` in one column from baseline ``y``; returns the baseline after the last."""
    for text in paragraphs:
        for line in wrapped(text, MEASURE, size):
            page.insert_text((x, y), line, fontname="tiro", fontsize=size)
            y += LEAD * size / 10
        y += 6
    return y


def _footnote(page: pymupdf.Page, x: float, y: float, text: str) -> None:
    """A footnote as groff -ms and LaTeX set it: a short rule, then the note in 8 points."""
    page.draw_line((x, y), (x + 72, y), color=(0, 0, 0), width=0.4)
    _column(page, x, y + 12, [text], 8.0)


def _two_column_page(doc: pymupdf.Document, left: list[str], right: list[str], note_x: float) -> None:
    page = doc.new_page(width=595, height=842)
    _column(page, LEFT, 72, left)
    _column(page, RIGHT, 72, right)
    _footnote(page, note_x, 716, NOTE)
    page.insert_text((295, 815), str(doc.page_count), fontname="tiro", fontsize=10)


def _read(pdf: Path, doc: pymupdf.Document) -> tuple[DocumentLayout, GraphBatch]:
    doc.save(pdf)
    layout = NativeReader().read(pdf)
    return layout, build_graph(layout, ingested_at="x", ingest_id="y")


def _next_of(batch: GraphBatch, ending: str) -> tuple[str, dict[str, object]]:
    """The text the region ending with ``ending`` leads to in the reading chain, and the link."""
    text = {n.key: str(n.props["text"]) for n in batch.nodes if n.label == "Region"}
    ((dst, props),) = [
        (e.dst_key, e.props)
        for e in batch.edges
        if e.type == "HAS_NEXT" and e.src_label == "Region" and text[e.src_key].endswith(ending)
    ]
    return text[dst], props


def _kinds(layout: DocumentLayout, start: str) -> list[str]:
    return [r.kind for p in layout.pages for r in p.regions if r.text.startswith(start)]


def test_a_footnote_ending_the_left_column_is_read_past(tmp_path: Path) -> None:
    """The note closes the left column; the right column runs on below it to the page's foot."""
    doc = pymupdf.open()
    _two_column_page(doc, [FILLER] * 9 + [CUT_LEFT], [CUT_RIGHT] + [FILLER] * 10, LEFT)
    layout, batch = _read(tmp_path / "left.pdf", doc)
    assert _kinds(layout, "1 The counters") == ["footnote"]
    following, link = _next_of(batch, "underestimate the draw of")
    assert following == CUT_RIGHT
    assert link == {"cross_page": False, "continuation": True}
    page_text = next(n.props["text"] for n in batch.nodes if n.label == "Page")
    assert str(page_text).rstrip().endswith(NOTE)  # read after the page's text, not inside a sentence


def test_a_unicode_superscript_marks_a_footnote(tmp_path: Path) -> None:
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    _column(page, LEFT, 72, [FILLER] * 8)
    _footnote(page, LEFT, 716, "\u00b9 Code and checkpoints are in the archive that goes with the paper.")
    layout, _ = _read(tmp_path / "superscript.pdf", doc)
    assert _kinds(layout, "\u00b9 Code") == ["footnote"]


def test_a_footnote_ending_the_right_column_is_read_past_the_page_break(tmp_path: Path) -> None:
    """The paragraph closing the right column goes on atop the next page with a number ("731 W"),
    the left column reaching lower than the note."""
    doc = pymupdf.open()
    cut = "Combining both equations predicts the energy per query from throughput alone. The server draws"
    _two_column_page(doc, [FILLER] * 11, [FILLER] * 9 + [cut], RIGHT)
    next_page = doc.new_page(width=595, height=842)
    _column(next_page, LEFT, 72, ["731 W at full load, and the model predicts the measured energy well.", FILLER])
    layout, batch = _read(tmp_path / "right.pdf", doc)
    assert _kinds(layout, "1 The counters") == ["footnote"]
    following, link = _next_of(batch, "The server draws")
    assert following.startswith("731 W at full load")
    assert link == {"cross_page": True, "continuation": True}


def test_index_entries_set_small_at_the_foot_are_not_footnotes(tmp_path: Path) -> None:
    """An index set smaller than the text, its entries opening with a digit ("2D graphs"): the dot
    leaders make them entries, not notes, and they stay in their place in the reading order."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    y = _column(page, LEFT, 72, [FILLER] * 8)
    for entry in ("2D graphs . . . . . . . . . . . . . . 98", "3D graphs . . . . . . . . . . . . . . 147"):
        y += 14
        page.insert_text((LEFT, y), entry, fontname="tiro", fontsize=8)
    layout, _ = _read(tmp_path / "index.pdf", doc)
    entries = [r.kind for r in layout.pages[0].regions if "graphs . ." in r.text]
    assert entries and all(kind == "paragraph" for kind in entries)


def test_small_numbered_notes_beside_text_running_on_below_are_no_footnotes(tmp_path: Path) -> None:
    """A sidebar of small numbered steps right of a one-column page's text, which runs on at the
    left below the full-width text above it, was read as three footnotes: only body text overlapping
    the notes across was looked at, as if they ended a column of their own."""
    text = "The pump draws water from the tank and feeds it to the filter. The operator checks the gauge. "
    pdf = tmp_path / "sidebar.pdf"
    with pymupdf.open() as doc:
        page = doc.new_page()
        page.insert_textbox(pymupdf.Rect(72, 72, 523, 480), text * 6, fontsize=11)
        page.insert_textbox(pymupdf.Rect(72, 500, 290, 780), text * 3, fontsize=11)
        for y, step in ((560, "1 Close the inlet valve first."), (590, "2 Drain the outlet pipe.")):
            page.insert_text((330, y), step, fontsize=8)
        page.insert_text((330, 620), "3 Open the filter housing.", fontsize=8)
        doc.save(pdf)
    kinds = [region.kind for page in NativeReader().read(pdf).pages for region in page.regions]
    assert "footnote" not in kinds

"""A two-column paper, typeset on the fly with PyMuPDF's Story: columns are read in order, and a
paragraph cut by a column break is one paragraph in the graph (HAS_NEXT {continuation}), as one
cut by a page break is."""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path

import pymupdf
import pytest

from docgraph.ingest.graph import build_graph
from docgraph.ingest.readers.auto import AutoReader
from docgraph.ingest.readers.native import NativeReader
from docgraph.ingest.structure.continuity import column_break, mark_continuations
from docgraph.ingest.types import BBox, DocumentLayout, PageLayout, Region

PAGE = pymupdf.Rect(0, 0, 612, 792)
COLUMNS = (pymupdf.Rect(54, 72, 294, 720), pymupdf.Rect(318, 72, 558, 720))
CSS = "p {font-size: 10pt; text-align: justify} h2 {font-size: 13pt}"
SENTENCE = (
    "The keepers weigh every animal on the first day of the month and note the weight in the log, "
    "so that a change in appetite shows up before the animal falls ill. "
)


def paragraph(marker: str, sentences: int) -> str:
    return f"<p>{marker} {SENTENCE * sentences}</p>"


PAPER = (
    "<h2>1 Introduction</h2>"
    + paragraph("Opening", 6)
    + paragraph("Seals", 14)
    + "<h2>2 Method</h2>"
    + paragraph("Weighing", 9)
    + paragraph("Diet", 30)
)


def typeset(html: str, out: Path) -> Path:
    """Flow ``html`` through two columns per page until it is all placed."""
    story = pymupdf.Story(html, user_css=CSS)
    writer = pymupdf.DocumentWriter(str(out))
    more = True
    while more:
        device = writer.begin_page(PAGE)
        for column in COLUMNS:
            if more:
                more, _ = story.place(column)
                story.draw(device)
        writer.end_page()
    writer.close()
    return out


@pytest.fixture(scope="module")
def paper(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return typeset(PAPER, tmp_path_factory.mktemp("two-column") / "paper.pdf")


@pytest.fixture(scope="module")
def layout(paper: Path) -> DocumentLayout:
    return NativeReader().read(paper)


def body(page: PageLayout) -> list[Region]:
    return [r for r in sorted(page.regions, key=lambda r: r.order) if r.kind in ("paragraph", "section_header")]


def continuations(layout: DocumentLayout) -> list[tuple[str, str, bool]]:
    """(cut part's last words, continuing part's first words, across a page break) per HAS_NEXT continuation."""
    batch = build_graph(layout)
    text = {node.key: str(node.props.get("text", "")) for node in batch.nodes if node.label == "Region"}
    return [
        (" ".join(text[e.src_key].split()[-3:]), " ".join(text[e.dst_key].split()[:3]), bool(e.props["cross_page"]))
        for e in batch.edges
        if e.type == "HAS_NEXT" and e.props.get("continuation")
    ]


def test_the_left_column_is_read_before_the_right(layout: DocumentLayout) -> None:
    first_page = body(layout.pages[0])
    assert [r.text for r in first_page][:2] == ["1 Introduction", first_page[1].text]
    assert first_page[1].text.startswith("Opening")
    lefts = [r.bbox.x0 < 300 for r in first_page]
    assert lefts == sorted(lefts, reverse=True)  # every left-column region, then every right-column one
    assert lefts[0] and not lefts[-1]


def test_a_paragraph_cut_by_a_column_break_continues_in_the_next_column(layout: DocumentLayout) -> None:
    found = continuations(layout)
    in_page = [c for c in found if not c[2]]
    across_pages = [c for c in found if c[2]]
    assert in_page and across_pages
    for cut, continued, _ in found:
        assert not cut.endswith(".")  # the cut falls mid-sentence
        assert continued[0].islower()
    # Every column foot that ends mid-sentence is joined to the next column's head, and only those.
    feet = [
        (a, b)
        for page in layout.pages
        for a, b in pairwise(body(page))
        if column_break(a, b) and not a.text.rstrip().endswith(".")
    ]
    assert len(in_page) == len(feet) >= 1


def test_the_auto_reader_joins_the_columns_the_same_way(paper: Path, layout: DocumentLayout) -> None:
    assert continuations(AutoReader().read(paper)) == continuations(layout)


def region(text: str, box: tuple[float, float, float, float]) -> Region:
    return Region("paragraph", BBox(*box), text)


def test_side_by_side_blocks_of_one_column_are_not_a_column_break() -> None:
    # A term beside its description (a definition list) is not a column break: not as wide.
    term = region("weight", (72, 100, 140, 112))
    description = region("of the animal on the first day of the month", (150, 100, 540, 140))
    # Two columns whose next block starts below the middle of the first are not one read on.
    low = region("the foot of a column that goes on", (54, 400, 294, 700))
    lower = region("and this starts lower down", (318, 600, 558, 700))
    page = PageLayout(1, 612, 792, [term, description, low, lower])
    mark_continuations([page])
    assert not term.continues and not low.continues
    assert not column_break(term, description) and not column_break(low, lower)
    assert column_break(low, region("goes on here", (318, 72, 558, 300)))


def test_an_appendix_heading_and_its_first_subsection_in_one_text_block_are_two_sections(tmp_path: Path) -> None:
    """Seen in ACM's sample paper: MuPDF puts "A RESEARCH METHODS" and "A.1 Part One" (no gap
    between them) in one block, which was read as one heading."""
    doc = pymupdf.open()
    page = doc.new_page(width=PAGE.width, height=PAGE.height)
    lines = [("1 Introduction", "tibo", 100), (SENTENCE, "tiro", 120), ("A Research Methods", "tibo", 160)]
    lines += [("A.1 Part One", "tibo", 174), (SENTENCE, "tiro", 194)]
    for text, font, y in lines:
        page.insert_text((54, y), text[:90], fontname=font, fontsize=10 if font == "tiro" else 11)
    doc.save(tmp_path / "appendix.pdf")
    batch = build_graph(NativeReader().read(tmp_path / "appendix.pdf"))
    titles = {node.key: node.props["title"] for node in batch.nodes if node.label == "Section"}
    under = {
        titles[e.src_key]: titles.get(e.dst_key) for e in batch.edges if e.type == "IS_UNDER" and e.src_key in titles
    }
    assert under["A.1 Part One"] == "A Research Methods"


def test_a_paragraphs_last_line_alone_atop_the_next_column_continues_it(tmp_path: Path) -> None:
    """A newsletter's column ends one line before its paragraph does: "the end of the year." stands
    alone at the head of the next column, far narrower than the column, and is still its tail."""
    words = [*(SENTENCE * 3).split(), "charged", "the", "old", "rate", "until"]
    lines = [" ".join(words[i : i + 9]) for i in range(0, len(words), 9)]
    doc = pymupdf.open()
    page = doc.new_page(width=PAGE.width, height=PAGE.height)
    for k, line in enumerate(lines):
        page.insert_text((54, 100 + 12 * k), line, fontname="tiro", fontsize=9.5)
    page.insert_text((318, 100), "the end of the year.", fontname="tiro", fontsize=9.5)
    for k, line in enumerate(lines):
        page.insert_text((328 if k == 0 else 318, 112 + 12 * k), line, fontname="tiro", fontsize=9.5)
    doc.save(tmp_path / "newsletter.pdf")
    found = continuations(NativeReader().read(tmp_path / "newsletter.pdf"))
    assert found == [("old rate until", "the end of", False)]

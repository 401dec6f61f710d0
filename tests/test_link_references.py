"""The PDF's own links become REF edges: "See Configure options" -> the Configure options section.

tests/data/pdfs/nut-links.pdf is pages 29, 93 and 94 of the Network UPS Tools user manual (GPL-2+,
as Debian's nut-doc ships it). Page 1 says "See Configure options from the User Manual" and
"Reference: Configure options": no number, so no text mention resolves, but both words are links
(named destinations) to the appendix "H Configure options" on page 2, just above its "Note".
"""

from __future__ import annotations

from pathlib import Path

import pytest

from docgraph.ingest.graph import build_graph
from docgraph.ingest.links.link_references import link_reference_edges
from docgraph.ingest.readers.native import NativeReader
from docgraph.ingest.structure.ids import IdScheme, place_regions
from docgraph.ingest.structure.sections import build_sections
from docgraph.ingest.types import BBox, DocumentLayout, InternalLink, PageLayout, Region
from docgraph.records import GraphBatch

LINKED = Path(__file__).parent / "data" / "pdfs" / "nut-links.pdf"


@pytest.fixture(scope="module")
def layout() -> DocumentLayout:
    return NativeReader().read(LINKED)


@pytest.fixture(scope="module")
def batch(layout: DocumentLayout) -> GraphBatch:
    return build_graph(layout)


def _text(batch: GraphBatch, key: str) -> str:
    node = next(n for n in batch.nodes if n.key == key)
    return str(node.props.get("text") or node.props.get("title"))


def test_the_reader_keeps_where_each_link_lands(layout: DocumentLayout) -> None:
    heading = next(r for r in layout.pages[1].regions if r.text.endswith("Configure options"))
    to_appendix = [link for link in layout.links if link.target_page == 2]
    assert [link.text for link in to_appendix] == ["Configure options", "Configure options"]
    # A named destination is stored bottom-up; the landing point is in the page's top-down frame.
    assert all(link.target_y is not None and abs(link.target_y - heading.bbox.y0) < 30 for link in to_appendix)
    assert [(link.page, link.target_page, link.text) for link in layout.links if link.target_page == 1] == [
        (1, 1, "configuration")
    ]


def test_a_link_by_title_refers_to_the_section_it_lands_on(batch: GraphBatch) -> None:
    linked = [e for e in batch.edges if e.type == "REF" and e.props.get("via") == "link"]
    assert {_text(batch, e.src_key)[:25] for e in linked} == {"See Configure options fro", "Reference: Configure opti"}
    assert {(e.dst_label, _text(batch, e.dst_key)) for e in linked} == {("Section", "Configure options")}
    assert {(e.props["label"], e.props["kind"]) for e in linked} == {("Configure options", "section")}


def test_a_link_to_its_own_page_is_no_reference(batch: GraphBatch) -> None:
    regions = [n for n in batch.nodes if n.label == "Region"]
    [linking] = [n.key for n in regions if "configuration step above" in str(n.props.get("text"))]
    sources = {e.src_key for e in batch.edges if e.type == "REF"}
    assert linking not in sources
    assert not any("configuration step above" in _text(batch, key) for key in sources)
    assert batch.stats["link_refs"] == 2


def _one_page(texts: list[str], kinds: list[str]) -> DocumentLayout:
    regions = [
        Region(kind, BBox(50, 100 + 40 * i, 500, 120 + 40 * i), text, i)  # type: ignore[arg-type]
        for i, (text, kind) in enumerate(zip(texts, kinds, strict=True))
    ]
    pages = [
        PageLayout(1, 600, 800, regions),
        PageLayout(2, 600, 800, [Region("paragraph", BBox(50, 100, 500, 120), "x")]),
    ]
    return DocumentLayout(LINKED, "toc.pdf", "0" * 64, "toc", 2, pages)


def test_contents_entries_and_footnote_marks_are_not_references() -> None:
    layout = _one_page(
        ["2.1 Syntax . . . . . . . . . 2", "Syntax 2", "See the syntax rules for details.", "Intro"],
        ["paragraph", "paragraph", "paragraph", "section_header"],
    )
    links = [
        InternalLink(1, BBox(480, 100, 500, 120), 2, None, None, "2"),  # dot leaders: a contents entry
        InternalLink(1, BBox(50, 140, 500, 160), 2, None, None, "Syntax 2"),  # the whole entry is the link
        InternalLink(1, BBox(80, 180, 200, 200), 2, None, None, "syntax rules"),  # a reference
        InternalLink(1, BBox(50, 220, 100, 240), 2, None, None, "Intro"),  # headings make no references
    ]
    ids = IdScheme.for_layout(layout, "")
    placed = place_regions(layout, ids)
    result = link_reference_edges(placed, links, build_sections(layout, placed), {}, ids, [])
    assert [(e.src_key, e.dst_label, e.dst_key) for e in result.edges] == [(placed[2].key, "Page", ids.page(2))]


def test_a_page_s_links_read_as_pymupdf_reads_them_however_many(tmp_path: Path) -> None:
    """PyMuPDF's get_links looked up every link annotation again at each link (a page of 10,000
    links took 81 s to read); docgraph walks the links itself and must find the same ones."""
    import pymupdf

    from docgraph.ingest.pdf import api as pdf_api

    made = tmp_path / "links.pdf"
    with pymupdf.open() as doc:
        for _ in range(3):
            doc.new_page()
        page = doc[0]
        for i in range(600):
            box = pymupdf.Rect(10 + (i % 20) * 25, 10 + (i // 20) * 20, 30 + (i % 20) * 25, 25 + (i // 20) * 20)
            if i % 3 == 0:
                page.insert_link({"kind": pymupdf.LINK_URI, "from": box, "uri": f"https://example.org/{i}"})
            else:
                page.insert_link({"kind": pymupdf.LINK_GOTO, "from": box, "page": 1 + i % 2, "to": pymupdf.Point(0, i)})
        doc.save(made)

    def plain(links: list[dict[str, object]]) -> list[dict[str, object]]:
        return [{key: value for key, value in link.items() if key not in ("xref", "id")} for link in links]

    for pdf in (made, LINKED):
        with pymupdf.open(pdf) as doc:
            for page in doc:
                assert plain(pdf_api.links(page)) == plain(page.get_links())
    with pymupdf.open(made) as doc:
        assert len(pdf_api.links(doc[0])) == 600

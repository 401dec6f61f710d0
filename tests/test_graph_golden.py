"""Graph construction on the real dev PDFs, read by the native reader.

Facts checked here were found by reading the PDFs (pymupdf text search, rendered pages):
- reportlab-userguide: 104 outline entries; "Figure 2-2: The Coordinate System" captions the
  drawing on page 18; page 47 says "covered in Chapter 11 of this document"; the paragraph ending
  page 84 ("... split itself by column when") continues on page 85 ("too little space ...").
- libtasn1: page numbers are printed in the running head, 3 less than the physical page; the
  index line "[asn1_decode_simple_der], page 22" on page 7 points at physical page 25.
- zoo: no outline; numbered headers ("2.1. The class zoo"); page 9 says "depicted in Figure 2
  and the single panel plot in Figure 1"; the paragraph cut at the end of page 17 ("na.contiguous
  extracts the longest") is followed by a footnote on page 17 and goes on atop page 18.
"""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from docgraph.ingest.graph import build_graph
from docgraph.ingest.readers.native import NativeReader
from docgraph.records import GraphBatch, NodeRecord

DEV = Path("/work/shared/bench/dev")
WHEN = "2024-01-01T00:00:00+00:00"

pytestmark = pytest.mark.slow


def _build(name: str) -> GraphBatch:
    return build_graph(NativeReader().read(DEV / name), WHEN)


@pytest.fixture(scope="module")
def reportlab() -> GraphBatch:
    return _build("reportlab-userguide.pdf")


@pytest.fixture(scope="module")
def libtasn1() -> GraphBatch:
    return _build("libtasn1.pdf")


@pytest.fixture(scope="module")
def zoo() -> GraphBatch:
    return _build("zoo.pdf")


def regions_containing(batch: GraphBatch, text: str, page: int | None = None) -> list[NodeRecord]:
    squashed = " ".join(text.split())
    return [
        n
        for n in batch.nodes
        if n.label == "Region"
        and squashed in " ".join(n.props["text"].split())
        and (page is None or n.props["page"] == page)
    ]


def region_containing(batch: GraphBatch, text: str, page: int | None = None) -> NodeRecord:
    found = regions_containing(batch, text, page)
    assert len(found) == 1, f"{text!r} on page {page}: {[(n.key, n.props['kind']) for n in found]}"
    return found[0]


def node(batch: GraphBatch, label: str, key: str) -> NodeRecord:
    return next(n for n in batch.nodes if n.label == label and n.key == key)


def out_edges(batch: GraphBatch, type_: str, src_key: str) -> list[tuple[str, str, dict[str, object]]]:
    return [(e.dst_label, e.dst_key, e.props) for e in batch.edges if e.type == type_ and e.src_key == src_key]


@pytest.mark.parametrize("name", ["reportlab-userguide.pdf", "libtasn1.pdf", "zoo.pdf"])
def test_every_node_has_doc_id_and_every_edge_endpoint_exists(name: str) -> None:
    batch = _build(name)
    id_prop = {"Document": "doc_id", "Page": "page_id", "Section": "section_id", "Region": "region_id"}
    keys = [(n.label, n.key) for n in batch.nodes]
    assert len(keys) == len(set(keys))
    for n in batch.nodes:
        assert n.props["doc_id"] == batch.doc_id and n.props[id_prop[n.label]] == n.key
    present = set(keys)
    dangling = [
        e for e in batch.edges if (e.src_label, e.src_key) not in present or (e.dst_label, e.dst_key) not in present
    ]
    assert dangling == []
    assert batch.node_counts()["Page"] == pymupdf.open(DEV / name).page_count


def test_reportlab_sections_are_the_outline_with_unlisted_headers_below_it(reportlab: GraphBatch) -> None:
    toc = pymupdf.open(DEV / "reportlab-userguide.pdf").get_toc()
    assert len(toc) == 104
    sections = sorted((n for n in reportlab.nodes if n.label == "Section"), key=lambda n: n.props["order"])
    entries = iter((level, title, page) for level, title, page in toc)
    expected = next(entries, None)
    for n in sections:  # the outline's entries, in order, with headers it does not list between them
        if expected and (n.props["level"], n.props["title"], n.props["page_start"]) == expected:
            expected = next(entries, None)
    assert expected is None
    assert len(sections) > len(toc)
    mirror = next(n for n in sections if n.props["title"] == "Mirror image")
    assert (mirror.props["level"], mirror.props["page_start"]) == (3, 21)
    remark = region_containing(reportlab, "Notice that the text strings are painted backwards", page=22)
    assert out_edges(reportlab, "IS_UNDER", remark.key) == [("Section", mirror.key, {})]
    coordinates = next(n for n in sections if n.props["title"] == "2.7 Coordinates (default user space)")
    assert coordinates.props["number"] == "2.7"
    chapter = next(n for n in sections if n.props["title"] == "Chapter 2 Graphics and Text with pdfgen")
    assert out_edges(reportlab, "IS_UNDER", coordinates.key) == [("Section", chapter.key, {})]


def test_reportlab_regions_hang_under_their_heading_inside_the_outline_section(reportlab: GraphBatch) -> None:
    para = region_containing(reportlab, "Read the CMYK section if this", page=23)
    ((label, key, _),) = out_edges(reportlab, "IS_UNDER", para.key)
    assert (label, node(reportlab, label, key).props["title"]) == ("Section", "RGB Color Transparency")
    ((label, parent, _),) = out_edges(reportlab, "IS_UNDER", key)
    assert (label, node(reportlab, label, parent).props["title"]) == ("Section", "2.8 Colors")


def test_reportlab_figure_caption_is_linked(reportlab: GraphBatch) -> None:
    caption = region_containing(reportlab, "Figure 2-2: The Coordinate System", page=18)
    assert caption.props["kind"] == "caption"
    ((label, key, _),) = out_edges(reportlab, "CAPTION_OF", caption.key)
    figure = node(reportlab, label, key)
    assert (figure.props["kind"], figure.props["page"]) == ("figure", 18)


def test_reportlab_chapter_reference_resolves_to_its_section(reportlab: GraphBatch) -> None:
    para = region_containing(reportlab, "now covered in Chapter 11 of this document", page=47)
    sections = [
        node(reportlab, label, key).props["title"]
        for label, key, props in out_edges(reportlab, "REF", para.key)
        if props["label"] == "Chapter 11"
    ]
    assert sections == ["Chapter 11 Graphics"]
    assert reportlab.stats["resolved_refs"] > 0


def continuation_of(batch: GraphBatch, ending_text: str, page: int) -> NodeRecord:
    """The region the paragraph ending ``page`` with ``ending_text`` links to, checking the link."""
    ending = region_containing(batch, ending_text, page=page)
    assert ending.props["continues"] is True
    ((label, key, props),) = out_edges(batch, "HAS_NEXT", ending.key)
    assert props == {"cross_page": True, "continuation": True}
    return node(batch, label, key)


def test_reportlab_cross_page_paragraph_is_a_continuation(reportlab: GraphBatch) -> None:
    following = continuation_of(reportlab, "split itself by row before attempting to split itself by column when", 84)
    assert following.props["page"] == 85
    assert following.props["text"].startswith("too little space is available in the current drawing area")


def test_zoo_continuation_runs_past_a_footnote(zoo: GraphBatch) -> None:
    # Page 17 ends with the cut paragraph, then a footnote; the paragraph goes on atop page 18.
    footnote = region_containing(zoo, 'Coercion from "zoo" to "irts" is contained in the tseries', page=17)
    assert footnote.props["kind"] == "footnote"
    following = continuation_of(zoo, "na.contiguous extracts the longest", 17)
    assert following.props["page"] == 18
    assert following.props["text"].startswith("consecutive stretch of non-missing values")
    assert [key for _, key, _ in out_edges(zoo, "HAS_NEXT", following.key)] == [footnote.key]


def test_libtasn1_page_reference_uses_printed_page_numbers(libtasn1: GraphBatch) -> None:
    index_entry = region_containing(libtasn1, "[asn1_decode_simple_der], page 22", page=7)
    pages = [key for label, key, props in out_edges(libtasn1, "REF", index_entry.key) if props["label"] == "page 22"]
    assert pages == [f"{libtasn1.doc_id}@{libtasn1.sha256[:8]}:p25"]


def test_zoo_sections_come_from_numbered_headers(zoo: GraphBatch) -> None:
    assert zoo.stats["section_source"] == "headers"
    sections = {n.props["number"]: n for n in zoo.nodes if n.label == "Section" and n.props["number"]}
    assert sections["2.1"].props["level"] == 2
    assert out_edges(zoo, "IS_UNDER", sections["2.1"].key) == [("Section", sections["2"].key, {})]


def captioned_by(batch: GraphBatch, caption_text: str, page: int) -> str:
    caption = region_containing(batch, caption_text, page=page)
    ((_, key, _),) = out_edges(batch, "CAPTION_OF", caption.key)
    assert node(batch, "Region", key).props["kind"] == "figure"
    return key


def test_zoo_figure_references_resolve_to_the_captioned_figures(zoo: GraphBatch) -> None:
    figure_1 = captioned_by(zoo, "Figure 1: Example of a single panel plot", 9)
    figure_2 = captioned_by(zoo, "Figure 2: Examples of multiple panel plots", 10)
    refs_on_page_9 = {
        (props["label"], key)
        for n in zoo.nodes
        if n.label == "Region" and n.props["page"] == 9
        for _, key, props in out_edges(zoo, "REF", n.key)
    }
    # "... depicted in Figure 2 and the single panel plot in Figure 1." on page 9.
    assert {("Figure 1", figure_1), ("Figure 2", figure_2)} <= refs_on_page_9


def test_zoo_section_references_resolve_by_number(zoo: GraphBatch) -> None:
    intro = region_containing(zoo, "In Section 2.1, the general class", page=2)
    numbers = {node(zoo, label, key).props["number"] for label, key, _ in out_edges(zoo, "REF", intro.key)}
    # The page names Sections 2.1, 2.2 and 2.4; each that the reader found a header for resolves.
    found = {n.props["number"] for n in zoo.nodes if n.label == "Section"}
    assert {"2.1", "2.4"} <= found
    assert {"2.1", "2.2", "2.4"} & found == numbers

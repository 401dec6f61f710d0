"""A report as a word processor writes it (tests/data/pdfs/water-report.pdf, made by
scripts/make_word_report.py with python-docx and LibreOffice): headings, gridded tables with
captions, a bulleted list in the Symbol font, a running header and footer."""

from __future__ import annotations

from pathlib import Path

import pytest

from docgraph.ingest.graph import build_graph
from docgraph.ingest.readers.native import NativeReader
from docgraph.ingest.types import DocumentLayout, Region
from docgraph.records import GraphBatch

REPORT = Path(__file__).parent / "data" / "pdfs" / "water-report.pdf"


@pytest.fixture(scope="module")
def report() -> DocumentLayout:
    return NativeReader().read(REPORT)


@pytest.fixture(scope="module")
def graph(report: DocumentLayout) -> GraphBatch:
    return build_graph(report)


def regions(layout: DocumentLayout, kind: str) -> list[Region]:
    return [r for page in layout.pages for r in sorted(page.regions, key=lambda r: r.order) if r.kind == kind]


def test_symbol_font_bullets_make_a_list(report: DocumentLayout) -> None:
    """Word's bullet is the Symbol font's U+F0B7, which MuPDF passes on as a private-use character."""
    (bullets,) = regions(report, "list")
    assert bullets.text.split("\n") == [
        "• Wells where the level fell by more than one metre:",
        "• Well 17 at Harrow Farm",
        "• Well 23 near Eastfield",
        "• Well 31 on the Cedar floodplain",
    ]
    assert not any("\uf0b7" in r.text for page in report.pages for r in page.regions)


def test_gridded_tables_have_their_cells_and_captions(report: DocumentLayout, graph: GraphBatch) -> None:
    first, budget = regions(report, "table")
    assert first.cells[:2] == [["Catchment", "2023", "2024", "2025"], ["Alder", "812", "790", "701"]]
    assert budget.cells[2] == ["Metering rollout", "210", "1800"]
    texts = {n.key: str(n.props["text"]) for n in graph.nodes if n.label == "Region"}
    captions = sorted(texts[e.src_key] for e in graph.edges if e.type == "CAPTION_OF")
    assert captions == [
        "Table 1: Annual rainfall by catchment (mm)",
        "Table 2: Budget for 2026 by programme (thousands)",
    ]


def test_the_summary_refers_to_a_table_and_a_section_pages_away(graph: GraphBatch) -> None:
    nodes = {n.key: n for n in graph.nodes}
    refs = {
        e.props["label"]: nodes[e.dst_key]
        for e in graph.edges
        if e.type == "REF" and str(nodes[e.src_key].props.get("text", "")).startswith("Rainfall in 2025")
    }
    assert refs["Table 2"].props["page"] == 9
    assert refs["Section 4.2"].props["title"] == "4.2 Metering"


def test_headings_are_the_section_tree(graph: GraphBatch) -> None:
    sections = {n.key: n.props for n in graph.nodes if n.label == "Section"}
    titles = [p["title"] for p in sorted(sections.values(), key=lambda p: p["order"])]
    # LibreOffice exports the Heading styles as the outline, not the Title style
    assert titles[:3] == ["Executive summary", "1 Introduction", "1.1 Purpose of the survey"]
    parents = {
        sections[e.src_key]["title"]: sections.get(e.dst_key, {}).get("title")
        for e in graph.edges
        if e.type == "IS_UNDER" and e.src_key in sections
    }
    assert parents["3.2 Reservoir storage"] == "3 Results"


def test_running_header_and_footer_are_furniture(report: DocumentLayout) -> None:
    headers = {r.text for r in regions(report, "page_header")}
    footers = {r.text for r in regions(report, "page_footer")}
    assert headers == {"Regional Water Survey 2025 — Annual Report"}
    assert footers == {"Northern Basin Authority"}
    assert len(regions(report, "page_header")) == len(report.pages) == 9

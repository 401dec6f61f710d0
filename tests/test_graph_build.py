"""Graph construction on hand-built layouts: ids, nodes, page/reading-order edges, captions.

The layout builders here are shared with tests/test_sections.py and tests/test_references.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from docgraph.errors import IngestError
from docgraph.ingest.graph import build_graph
from docgraph.ingest.structure.ids import doc_id_for, slugify
from docgraph.ingest.types import BBox, DocumentLayout, OutlineEntry, PageLayout, Region
from docgraph.records import ID_PROPERTY, EdgeRecord, GraphBatch

SHA_A = "a1b2c3d4" + "0" * 56
SHA_B = "ffee0011" + "0" * 56
WHEN = "2024-01-01T00:00:00+00:00"


# ---- builders ------------------------------------------------------------------------------


def batch_problems(batch: GraphBatch) -> list[str]:
    """Broken invariants of a batch: nodes without ``doc_id``/their id property, duplicate keys,
    edges whose endpoints are not among the nodes. Empty when the batch is sound.
    """
    problems: list[str] = []
    keys: set[tuple[str, str]] = set()
    for node in batch.nodes:
        id_prop = ID_PROPERTY.get(node.label)
        if id_prop is None or node.props.get(id_prop) != node.key:
            problems.append(f"{node.label} {node.key}: id property missing or different")
        if node.props.get("doc_id") != batch.doc_id:
            problems.append(f"{node.label} {node.key}: doc_id missing or different")
        if (node.label, node.key) in keys:
            problems.append(f"{node.label} {node.key}: duplicate")
        keys.add((node.label, node.key))
    for edge in batch.edges:
        for label, key in ((edge.src_label, edge.src_key), (edge.dst_label, edge.dst_key)):
            if (label, key) not in keys:
                problems.append(f"{edge.type} edge endpoint {label} {key} is not a node")
    return problems


def region(
    kind: Any,
    text: str,
    y0: float,
    y1: float | None = None,
    x0: float = 72.0,
    x1: float = 540.0,
    font_size: float = 10.0,
    continues: bool = False,
    cells: list[list[str]] | None = None,
) -> Region:
    return Region(
        kind, BBox(x0, y0, x1, y1 if y1 is not None else y0 + 12), text, 0, font_size, False, cells, continues
    )


def page(number: int, *regions: Region, header: str = "", footer: str = "", has_text: bool = True) -> PageLayout:
    for order, r in enumerate(regions):
        r.order = order
    return PageLayout(number, 612.0, 792.0, list(regions), header, footer, has_text)


def layout(
    *pages: PageLayout,
    outline: list[OutlineEntry] | None = None,
    name: str = "Sample Doc.pdf",
    sha: str = SHA_A,
    title: str = "Sample",
) -> DocumentLayout:
    return DocumentLayout(
        Path(f"/tmp/{name}"),
        name,
        sha,
        title,
        len(pages),
        list(pages),
        outline or [],
        [p.number for p in pages if not p.has_text_layer],
    )


def build(doc: DocumentLayout) -> GraphBatch:
    batch = build_graph(doc, WHEN)
    assert batch_problems(batch) == []
    return batch


def key_of(batch: GraphBatch, text: str) -> str:
    """region_id of the region whose text is ``text`` (texts are unique in these layouts)."""
    keys = [n.key for n in batch.nodes if n.label == "Region" and n.props["text"] == text]
    assert len(keys) == 1, f"{text!r}: {keys}"
    return keys[0]


def edges(batch: GraphBatch, type_: str, src_label: str | None = None) -> list[EdgeRecord]:
    return [e for e in batch.edges if e.type == type_ and (src_label is None or e.src_label == src_label)]


def targets(batch: GraphBatch, type_: str, src_key: str) -> list[tuple[str, str]]:
    return [(e.dst_label, e.dst_key) for e in batch.edges if e.type == type_ and e.src_key == src_key]


def two_pages() -> DocumentLayout:
    return layout(
        page(
            1,
            region("title", "A Sample Document", 60, font_size=20),
            region("paragraph", "First paragraph.", 100),
            region("paragraph", "Runs over the page break", 700, continues=True),
            region("page_footer", "Page 1", 760),
        ),
        page(
            2,
            region("page_header", "Sample running head", 30),
            region("paragraph", "and ends here.", 60),
            region("table", "a b c", 100, 200, cells=[["a", "b"], ["c", ""]]),
            region("page_footer", "Page 2", 760),
        ),
    )


# ---- ids -----------------------------------------------------------------------------------


def test_doc_id_is_slug_of_file_stem() -> None:
    assert doc_id_for("ReportLab UserGuide.pdf") == "reportlab-userguide"
    assert doc_id_for("/x/y/Über_Bericht (2).PDF") == "uber-bericht-2"
    assert slugify("--A  b__C--") == "a-b-c"
    assert len(doc_id_for("___.pdf")) == 6 and doc_id_for("___.pdf") != doc_id_for("---.pdf")  # the stem's hash
    # a name of spaces gets its stem's hash too (it was refused, where "___.pdf" was not)
    assert len(doc_id_for("   .pdf")) == 6 and doc_id_for("   .pdf") != doc_id_for(" .pdf")
    with pytest.raises(IngestError):
        doc_id_for("")


def test_same_layout_gives_same_ids() -> None:
    first, second = build(two_pages()), build(two_pages())
    assert [n.key for n in first.nodes] == [n.key for n in second.nodes]
    assert [(e.type, e.src_key, e.dst_key) for e in first.edges] == [
        (e.type, e.src_key, e.dst_key) for e in second.edges
    ]


def test_changed_file_keeps_doc_id_but_gets_new_node_ids() -> None:
    old = build(two_pages())
    changed = two_pages()
    changed.sha256 = SHA_B
    new = build(changed)
    assert old.doc_id == new.doc_id == "sample-doc"
    old_keys = {n.key for n in old.nodes if n.label != "Document"}
    new_keys = {n.key for n in new.nodes if n.label != "Document"}
    assert old_keys.isdisjoint(new_keys)
    assert "sample-doc@a1b2c3d4:p2" in old_keys and "sample-doc@ffee0011:p2" in new_keys
    assert "sample-doc@a1b2c3d4:p2:r1" in old_keys


def test_bad_sha_is_an_ingest_error() -> None:
    doc = two_pages()
    doc.sha256 = "not-a-digest"
    with pytest.raises(IngestError):
        build_graph(doc)


# ---- nodes ---------------------------------------------------------------------------------


def test_every_node_has_doc_id_and_key_and_every_edge_endpoint_exists() -> None:
    batch = build_graph(two_pages(), WHEN)
    keys = {(n.label, n.key) for n in batch.nodes}
    id_prop = {"Document": "doc_id", "Page": "page_id", "Section": "section_id", "Region": "region_id"}
    for node in batch.nodes:
        assert node.props["doc_id"] == "sample-doc"
        assert node.props[id_prop[node.label]] == node.key
    for edge in batch.edges:
        assert (edge.src_label, edge.src_key) in keys and (edge.dst_label, edge.dst_key) in keys


def test_batch_problems_reports_dangling_edges_and_missing_doc_id() -> None:
    batch = build_graph(two_pages(), WHEN)
    batch.edges.append(EdgeRecord("REF", "Region", batch.nodes[-1].key, "Page", "nowhere"))
    del batch.nodes[1].props["doc_id"]
    problems = batch_problems(batch)
    assert len(problems) == 2
    assert any("nowhere" in p for p in problems) and any("doc_id" in p for p in problems)


def test_document_page_and_region_props() -> None:
    doc = two_pages()
    doc.pages[1].has_text_layer = False
    doc.pages_without_text = [2]
    batch = build(doc)
    document = next(n for n in batch.nodes if n.label == "Document")
    assert len(document.props.pop("ingest_id")) == 32  # a fresh uuid4, see below
    assert document.props == {
        "doc_id": "sample-doc",
        "title": "Sample",
        "file_name": "Sample Doc.pdf",
        "sha256": SHA_A,
        "page_count": 2,
        "ingested_at": WHEN,
        "pages_without_text": 1,
    }
    page2 = next(n for n in batch.nodes if n.label == "Page" and n.props["number"] == 2)
    assert page2.props["text"] == "and ends here.\na b c"  # body only: no running head or footer
    assert (page2.props["width"], page2.props["height"]) == (612.0, 792.0)
    table = next(n for n in batch.nodes if n.label == "Region" and n.props["kind"] == "table")
    assert table.extra_labels == ("Table",)
    assert table.props["cells"] == [["a", "b"], ["c", ""]]
    assert table.props["bbox"] == [72.0, 100.0, 540.0, 200.0]
    assert (table.props["page"], table.props["order"]) == (2, 2)
    header = next(n for n in batch.nodes if n.label == "Region" and n.props["kind"] == "page_header")
    assert header.extra_labels == ("PageHeader",)
    assert batch.stats["pages"] == 2 and batch.stats["regions"] == 8 and batch.stats["pages_without_text"] == 1


def test_ingested_at_defaults_to_utc_now() -> None:
    stamp = build_graph(two_pages()).nodes[0].props["ingested_at"]
    assert stamp.endswith("+00:00") and stamp[:2] == "20"


def test_each_build_has_its_own_ingest_id() -> None:
    # Two ingests of one file in the same second differ only here: relink relies on it.
    first, second = (build_graph(two_pages(), ingested_at=WHEN).nodes[0].props for _ in range(2))
    assert first["ingested_at"] == second["ingested_at"] and first["ingest_id"] != second["ingest_id"]
    assert build_graph(two_pages(), ingest_id="given").nodes[0].props["ingest_id"] == "given"


# ---- page and reading-order edges ----------------------------------------------------------


def test_pages_hang_off_document_and_chain() -> None:
    batch = build(two_pages())
    assert targets(batch, "HAS_PAGE", "sample-doc") == [
        ("Page", "sample-doc@a1b2c3d4:p1"),
        ("Page", "sample-doc@a1b2c3d4:p2"),
    ]
    assert targets(batch, "HAS_NEXT", "sample-doc@a1b2c3d4:p1") == [("Page", "sample-doc@a1b2c3d4:p2")]
    assert len(edges(batch, "ON_PAGE")) == 8
    assert targets(batch, "ON_PAGE", key_of(batch, "Page 2")) == [("Page", "sample-doc@a1b2c3d4:p2")]


def test_reading_order_skips_furniture_and_marks_page_breaks_and_continuations() -> None:
    batch = build(two_pages())
    chain = [(e.src_key, e.dst_key, e.props) for e in edges(batch, "HAS_NEXT", "Region")]
    title, first, runs, ends, table = (
        key_of(batch, t)
        for t in ("A Sample Document", "First paragraph.", "Runs over the page break", "and ends here.", "a b c")
    )
    assert chain == [
        (title, first, {"cross_page": False}),
        (first, runs, {"cross_page": False}),
        (runs, ends, {"cross_page": True, "continuation": True}),
        (ends, table, {"cross_page": False}),
    ]


def test_continuation_stays_adjacent_across_floats() -> None:
    # The reader judges continuations on the text flow; a footnote ending page 1 and a figure atop
    # page 2 sit between the two parts in page order and are read after the continuing part.
    doc = layout(
        page(
            1,
            region("paragraph", "cut by the", 600, continues=True),
            region("footnote", "1 a footnote", 740),
            region("page_footer", "1", 760),
        ),
        page(2, region("figure", "a figure", 40, 200), region("paragraph", "page break.", 220)),
    )
    batch = build(doc)
    chain = [(e.src_key, e.dst_key, e.props) for e in edges(batch, "HAS_NEXT", "Region")]
    cut, rest, note, figure = (key_of(batch, t) for t in ("cut by the", "page break.", "1 a footnote", "a figure"))
    assert chain == [
        (cut, rest, {"cross_page": True, "continuation": True}),
        (rest, note, {"cross_page": True}),
        (note, figure, {"cross_page": True}),
    ]


def test_continuation_stays_adjacent_across_floats_atop_the_next_column() -> None:
    # A paragraph closing the left column goes on under a figure and its caption atop the right one
    # (or under a footnote ending the left column, as a reader that keeps page order may place it).
    doc = layout(
        page(
            1,
            region("paragraph", "cut by the", 600, 700, x0=54, x1=290, continues=True),
            region("footnote", "1 a footnote", 720, 740, x0=54, x1=290),
            region("figure", "a figure", 72, 200, x0=322, x1=558),
            region("caption", "Figure 1: A figure.", 210, 220, x0=322, x1=558),
            region("paragraph", "column break.", 230, 300, x0=322, x1=558),
        ),
    )
    batch = build(doc)
    chain = [(e.src_key, e.dst_key, e.props) for e in edges(batch, "HAS_NEXT", "Region")]
    cut, rest = key_of(batch, "cut by the"), key_of(batch, "column break.")
    assert chain[0] == (cut, rest, {"cross_page": False, "continuation": True})


def test_continues_without_a_following_text_region_gets_no_continuation() -> None:
    doc = layout(page(1, region("paragraph", "last words", 600, continues=True)), page(2, region("figure", "fig", 40)))
    batch = build(doc)
    assert [e.props for e in edges(batch, "HAS_NEXT", "Region")] == [{"cross_page": True}]


def test_cross_page_link_skips_a_page_with_no_body_regions() -> None:
    doc = layout(
        page(1, region("paragraph", "one", 100)),
        page(2, region("page_footer", "2", 760)),
        page(3, region("paragraph", "three", 100)),
    )
    batch = build(doc)
    assert [(e.src_key, e.dst_key, e.props) for e in edges(batch, "HAS_NEXT", "Region")] == [
        (key_of(batch, "one"), key_of(batch, "three"), {"cross_page": True})
    ]


def test_region_ids_follow_reading_order_not_list_order() -> None:
    late, early = region("paragraph", "late", 300), region("paragraph", "early", 100)
    late.order, early.order = 1, 0
    doc = layout(PageLayout(1, 612, 792, [late, early]))
    batch = build(doc)
    assert key_of(batch, "early").endswith(":p1:r0") and key_of(batch, "late").endswith(":p1:r1")
    assert [(e.src_key, e.dst_key) for e in edges(batch, "HAS_NEXT", "Region")] == [
        (key_of(batch, "early"), key_of(batch, "late"))
    ]


# ---- captions ------------------------------------------------------------------------------


def test_caption_links_to_nearest_figure_above_or_below() -> None:
    doc = layout(
        page(
            1,
            region("figure", "fig one", 50, 200),
            region("caption", "Figure 1: below its figure", 205),
            region("paragraph", "text between", 300),
            region("caption", "Figure 2: above its figure", 400),
            region("figure", "fig two", 415, 600),
        )
    )
    batch = build(doc)
    links = {(e.src_key, e.dst_key) for e in edges(batch, "CAPTION_OF")}
    assert links == {
        (key_of(batch, "Figure 1: below its figure"), key_of(batch, "fig one")),
        (key_of(batch, "Figure 2: above its figure"), key_of(batch, "fig two")),
    }
    assert batch.stats["captions_linked"] == 2


def test_table_caption_prefers_a_table_over_a_nearer_figure() -> None:
    doc = layout(
        page(
            1,
            region("table", "the table", 50, 150),
            region("figure", "the figure", 200, 300),
            region("caption", "Table 3: numbers", 305),
        )
    )
    batch = build(doc)
    assert targets(batch, "CAPTION_OF", key_of(batch, "Table 3: numbers")) == [("Region", key_of(batch, "the table"))]


def test_caption_requires_horizontal_overlap_when_there_is_a_choice() -> None:
    doc = layout(
        page(
            1,
            region("figure", "left figure", 100, 300, x0=50, x1=290),
            region("figure", "right figure", 100, 290, x0=320, x1=560),
            region("caption", "Figure 1: right", 295, x0=330, x1=550),
        )
    )
    batch = build(doc)
    assert targets(batch, "CAPTION_OF", key_of(batch, "Figure 1: right")) == [("Region", key_of(batch, "right figure"))]


def test_caption_falls_back_to_adjacent_page() -> None:
    doc = layout(
        page(1, region("paragraph", "intro", 100), region("figure", "big figure", 300, 780)),
        page(2, region("caption", "Figure 4: on the next page", 40), region("paragraph", "more", 100)),
    )
    batch = build(doc)
    assert targets(batch, "CAPTION_OF", key_of(batch, "Figure 4: on the next page")) == [
        ("Region", key_of(batch, "big figure"))
    ]


def test_caption_does_not_reach_a_figure_on_the_next_page_across_text() -> None:
    doc = layout(
        page(1, region("paragraph", "text above", 100), region("caption", "Figure 5: its drawing went missing", 300)),
        page(2, region("paragraph", "unrelated text", 40), region("figure", "another figure", 100, 300)),
    )
    assert edges(build(doc), "CAPTION_OF") == []


def test_each_figure_gets_one_caption() -> None:
    doc = layout(
        page(
            1,
            region("figure", "only figure", 100, 300),
            region("caption", "Figure 1: close", 305),
            region("caption", "Figure 2: far, no figure of its own", 500),
        )
    )
    batch = build(doc)
    assert [(e.src_key, e.dst_key) for e in edges(batch, "CAPTION_OF")] == [
        (key_of(batch, "Figure 1: close"), key_of(batch, "only figure"))
    ]

"""DocumentLayout -> GraphBatch: the nodes and edges one document contributes to the graph.

Pure code, no database: a store in ``app`` writes the batch. Every node carries ``doc_id`` (so a
store can delete a document by it) and its own id property.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from pathlib import PurePath

from docgraph.ingest.links.citations import citation_edges
from docgraph.ingest.links.edges import (
    caption_edges,
    link_captions,
    on_page_edges,
    page_edges,
    reading_order_edges,
    run_over_note_edges,
    section_edges,
)
from docgraph.ingest.links.jumps import jump_edges
from docgraph.ingest.links.link_references import link_reference_edges
from docgraph.ingest.links.notes import note_edges
from docgraph.ingest.links.numbered_items import condition_edges
from docgraph.ingest.links.references import build_target_index, reference_edges
from docgraph.ingest.structure.ids import IdScheme, PlacedRegion, camel_case, place_regions
from docgraph.ingest.structure.sections import SectionTree, build_sections
from docgraph.ingest.types import DocumentLayout, PageLayout
from docgraph.records import GraphBatch, NodeRecord


def build_graph(
    layout: DocumentLayout, ingested_at: str | None = None, build: str = "", ingest_id: str | None = None
) -> GraphBatch:
    """All nodes and edges of one document; ``ingested_at`` (ISO-8601 UTC) defaults to now; ``build``
    says how the graph is made (see ``GraphBatch.version``); ``ingest_id`` defaults to a fresh random
    id, so that two ingests of the same file can be told apart even within one second."""
    ids = IdScheme.for_layout(layout, build)
    doc_id = ids.doc_id
    placed = place_regions(layout, ids)
    tree = build_sections(layout, placed)
    captions = link_captions(placed, {page.number: page.height for page in layout.pages})
    targets = build_target_index(placed, tree, captions, layout.pages, ids)
    own_names = " ".join([document_title(layout), *(pr.region.text for pr in placed if pr.region.kind == "title")])
    references = reference_edges(placed, targets, ids, captions, own_names)
    references.edges += condition_edges(placed, tree, targets.items, ids.section)  # "subject to condition 9"
    citations = citation_edges(placed, tree)
    linked = link_reference_edges(placed, layout.links, tree, captions, ids, references.edges + citations.edges)
    untexted = _pages_without_text(layout)

    batch = GraphBatch(doc_id=doc_id, sha256=layout.sha256.lower(), build=build)
    made_at, made_by = ingested_at or utc_now(), ingest_id or uuid.uuid4().hex
    batch.nodes.append(_document_node(layout, doc_id, made_at, made_by, len(untexted), build))
    batch.nodes += [_page_node(page, doc_id, ids) for page in sorted(layout.pages, key=lambda p: p.number)]
    batch.nodes += _section_nodes(tree, doc_id, ids)
    batch.nodes += [_region_node(pr, doc_id) for pr in placed]

    batch.edges += page_edges(doc_id, ids, layout.pages)
    batch.edges += on_page_edges(ids, placed)
    batch.edges += reading_order_edges(placed)
    batch.edges += jump_edges(placed, references.edges, ids)
    batch.edges += run_over_note_edges(placed)
    batch.edges += section_edges(doc_id, ids, tree, placed)
    batch.edges += caption_edges(captions)
    batch.edges += references.edges
    batch.edges += citations.edges
    batch.edges += linked.edges
    batch.edges += note_edges(placed, tree)

    batch.stats = {
        "pages": len(layout.pages),
        "regions": len(placed),
        "sections": len(tree.sections),
        "section_source": tree.source,
        "pages_without_text": len(untexted),
        "pages_with_unreadable_text": len(layout.pages_with_unreadable_text),
        "captions_linked": len(captions),
        "resolved_refs": references.resolved,
        "unresolved_refs": references.unresolved,
        "external_refs": references.external,
        "resolved_citations": citations.resolved,
        "unresolved_citations": citations.unresolved,
        "link_refs": linked.resolved,
        "ocr_regions": sum(1 for pr in placed if pr.region.ocr),
        "ocr_pages": len({pr.page for pr in placed if pr.region.ocr}),
    }
    return batch


def utc_now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def document_title(layout: DocumentLayout) -> str:
    """The title the PDF gives itself or the reader found, else its file's name."""
    return layout.title.strip() or PurePath(layout.file_name).stem


def _pages_without_text(layout: DocumentLayout) -> set[int]:
    return set(layout.pages_without_text) | {page.number for page in layout.pages if not page.has_text_layer}


def _document_node(
    layout: DocumentLayout, doc_id: str, ingested_at: str, ingest_id: str, untexted: int, build: str
) -> NodeRecord:
    props = {
        "doc_id": doc_id,
        "title": document_title(layout),
        "file_name": layout.file_name,
        "sha256": layout.sha256.lower(),
        "page_count": layout.page_count,
        "ingested_at": ingested_at,
        "ingest_id": ingest_id,
        "pages_without_text": untexted,
    }
    if build:
        props["build"] = build
    return NodeRecord("Document", doc_id, props)


def _page_node(page: PageLayout, doc_id: str, ids: IdScheme) -> NodeRecord:
    key = ids.page(page.number)
    ordered = sorted(page.regions, key=lambda r: r.order)
    body_text = "\n".join(r.text for r in ordered if r.text and r.kind not in ("page_header", "page_footer"))
    props = {
        "page_id": key,
        "doc_id": doc_id,
        "number": page.number,
        "width": round(page.width, 2),
        "height": round(page.height, 2),
        "text": body_text,
    }
    if page.turn:
        props["turn"] = page.turn
    return NodeRecord("Page", key, props)


def _section_nodes(tree: SectionTree, doc_id: str, ids: IdScheme) -> list[NodeRecord]:
    nodes: list[NodeRecord] = []
    for section in tree.sections:
        key = ids.section(section.index)
        props = {
            "section_id": key,
            "doc_id": doc_id,
            "title": section.title,
            "level": section.level,
            "number": section.number,
            "page_start": section.page_start,
            "order": section.index,
        }
        nodes.append(NodeRecord("Section", key, props))
    return nodes


def _region_node(pr: PlacedRegion, doc_id: str) -> NodeRecord:
    region = pr.region
    props = {
        "region_id": pr.key,
        "doc_id": doc_id,
        "page": pr.page,
        "kind": region.kind,
        "text": region.text,
        "bbox": region.bbox.as_list(),
        "order": pr.position,
        "font_size": round(region.font_size, 2),
        "continues": region.continues,
        "ocr": region.ocr,
        "cells": region.cells,
    }
    return NodeRecord("Region", pr.key, props, (camel_case(region.kind),))

"""GNN vectors of stored documents: recompute them (``docgraph reembed``, ablation variants).

Documents are independent graphs, so each is read back (embeddings, typed edges), run through the
model and written back on its own.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

from docgraph.app.config import Settings
from docgraph.app.pipeline.build import with_gnn_build
from docgraph.app.pipeline.gnn import (
    GNN_VARIANTS,
    READ_EDGE_TYPES,
    checkpoint_tag,
    configured_checkpoint,
    configured_spill_dir,
    gnn_for,
    working_files,
)
from docgraph.app.pipeline.gnn_store import GNN_LABELS, WRITE_CHUNK, write_vectors
from docgraph.app.pipeline.stages import ProgressFn
from docgraph.app.stores.base import GraphStore
from docgraph.app.stores.cypher import load, render
from docgraph.app.stores.schema import GNN_PROPERTY
from docgraph.app.stores.stamps import MAX_PASSES, document_stamps, set_build_if_unchanged
from docgraph.errors import CorpusChangedError, DocgraphError, ModelError, ReembedError
from docgraph.ingest.links.similarity import similarity_edges
from docgraph.models.gnn import RelationalGNN
from docgraph.models.graph_tensors import gnn_node_count, records_to_tensors
from docgraph.records import ID_PROPERTY, EdgeRecord, GraphBatch, NodeRecord


def reembed(
    store: GraphStore,
    settings: Settings,
    checkpoint: Path | None = None,
    doc_id: str | None = None,
    prop: str = GNN_PROPERTY,
    progress: ProgressFn | None = None,
) -> int:
    """Recompute the GNN vectors (``prop``) of stored documents (all, or ``doc_id``); returns nodes updated.

    A document stored without IS_SIMILAR edges gets them (computed from the stored embeddings).
    ``progress`` hears ``("reembed", done, total)`` per document. A document that fails (stored
    again all the while, a store error) does not stop the others: they are re-embedded, the index
    rebuilt, and then a ``ReembedError`` names each failed one.
    """
    model = gnn_for(settings, checkpoint)
    doc_ids = [doc_id] if doc_id else [str(row["doc_id"]) for row in store.read(load("gnn_documents", store.dialect))]
    # Hashed once: the checkpoint file is the same for every document.
    tag = checkpoint_tag(checkpoint or configured_checkpoint(settings)) if prop == GNN_PROPERTY else None
    updated, failed = 0, {}
    started = False
    try:
        for done, document in enumerate(doc_ids):
            if progress:
                progress("reembed", done, len(doc_ids))
            started = True
            try:
                updated += _reembed_document(store, settings, model, document, prop, tag)
            except DocgraphError as error:  # it may have written some vectors: the index is rebuilt below
                failed[document] = str(error)
    except BaseException:  # Ctrl-C: the vectors written so far left the full-text scores stale
        if started:
            with contextlib.suppress(DocgraphError):  # the interrupt is what to report, not this
                _rebuild_fulltext(store, None)  # quietly: the progress callback may be what raised
        raise
    if progress:
        progress("reembed", len(doc_ids), len(doc_ids))
    if updated or failed:  # the vectors were written in place: the full-text scores need a rebuilt index
        _rebuild_fulltext(store, progress)
    if failed:
        listed = "; ".join(f"{name}: {why}" for name, why in failed.items())
        raise ReembedError(f"re-embedded {updated} nodes, but {len(failed)} document(s) failed: {listed}")
    return updated


def _rebuild_fulltext(store: GraphStore, progress: ProgressFn | None) -> None:
    if progress:
        progress("full-text index", 0, 1)
    store.refresh_fulltext(GNN_LABELS)
    if progress:
        progress("full-text index", 1, 1)


def _reembed_document(
    store: GraphStore, settings: Settings, model: RelationalGNN, doc_id: str, prop: str, tag: str | None
) -> int:
    """One document's GNN vectors; nodes updated. Another process may store the document again
    meanwhile (the vectors written would then be the old graph's): it is read and embedded again
    until its stamp held still, checked in the same query that names the checkpoint in its build."""
    for _ in range(MAX_PASSES):
        stamp = document_stamps(store, doc_id).get(doc_id)
        if stamp is None:
            return 0  # deleted meanwhile (or never stored): nothing to embed
        nodes = _stored_nodes(store, doc_id)
        edges = _stored_edges(store, doc_id)
        if not any(edge.type == "IS_SIMILAR" for edge in edges):
            batch = GraphBatch(doc_id=doc_id, sha256="", nodes=nodes)
            fresh = similarity_edges(batch, settings.similarity_k)
            _write_similarity(store, fresh)
            edges += fresh
        spill = working_files(configured_spill_dir(settings), gnn_node_count(nodes))
        graph = records_to_tensors(nodes, edges, model.config.groups, spill=spill)
        written = write_vectors(store, graph.nodes, model.embed(graph, spill).numpy(), prop)
        # The build names the checkpoint that made the GNN vectors, so that a later ingest with
        # another checkpoint sees the difference (``refresh_stale_gnn``); ablations only check, and
        # a document without embeddings got no GNN vectors to name.
        build = with_gnn_build(stamp.build, tag) if tag is not None and written else stamp.build
        if set_build_if_unchanged(store, doc_id, stamp, build):
            return written
    raise CorpusChangedError(
        f"{doc_id} was stored again during each of {MAX_PASSES} re-embeddings: "
        f"run docgraph reembed --doc {doc_id} again"
    )


def ensure_variant(
    store: GraphStore, settings: Settings, name: str, doc_id: str | None = None, progress: ProgressFn | None = None
) -> str:
    """Compute a GNN variant's vectors for stored documents; returns the Region property they are in.

    The main ``gnn`` variant is also written at ingest; ablation variants (``no-cross-page``,
    ``no-sim``) live in properties of their own, which only exact in-document vector search reads.
    Vectors are recomputed every time: inference takes seconds per document.
    """
    variant = GNN_VARIANTS.get(name)
    if variant is None:
        raise ModelError(f"unknown GNN variant {name!r}; choose one of: {', '.join(GNN_VARIANTS)}")
    model = gnn_for(settings, variant.checkpoint)
    if set(model.config.groups) != set(variant.groups):
        raise ModelError(f"{variant.checkpoint} was trained with relation groups {list(model.config.groups)}")
    reembed(store, settings, variant.checkpoint, doc_id, variant.prop, progress)
    return variant.prop


def _stored_nodes(store: GraphStore, doc_id: str) -> list[NodeRecord]:
    nodes: list[NodeRecord] = []
    for label in GNN_LABELS:
        query = render("gnn_read_nodes", store.dialect, label=label, id=ID_PROPERTY[label])
        for row in store.read(query, {"doc_id": doc_id}):
            embedding = row.get("embedding")
            props = {"kind": row.get("kind"), "page": row.get("page"), "embedding": _floats(embedding)}
            nodes.append(NodeRecord(label, str(row["key"]), props))
    return nodes


def _stored_edges(store: GraphStore, doc_id: str) -> list[EdgeRecord]:
    edges: list[EdgeRecord] = []
    for label in GNN_LABELS:
        query = render("gnn_read_edges", store.dialect, label=label, id=ID_PROPERTY[label])
        for row in store.read(query, {"doc_id": doc_id, "types": list(READ_EDGE_TYPES)}):
            props = {"cross_page": bool(row.get("cross_page")), "continuation": bool(row.get("continuation"))}
            edges.append(
                EdgeRecord(str(row["type"]), label, str(row["src"]), str(row["dst_label"]), str(row["dst"]), props)
            )
    return edges


def _floats(value: Any) -> list[float] | None:
    if value is None:
        return None
    return [float(v) for v in value]


def _write_similarity(store: GraphStore, edges: list[EdgeRecord]) -> None:
    rows = [{"src": e.src_key, "dst": e.dst_key, "score": e.props["score"]} for e in edges]
    query = load("gnn_write_similar", store.dialect)
    for start in range(0, len(rows), WRITE_CHUNK):
        store.write(query, {"rows": rows[start : start + WRITE_CHUNK]})

"""GNN vectors in the store: writing them by node id, and a document's recorded build.

Kept apart from :mod:`app.pipeline.gnn` and :mod:`app.jobs.reembed` (which load torch) because ingest needs it
for every unchanged re-ingest: :func:`refresh_stale_gnn`.
"""

from __future__ import annotations

import numpy as np

from docgraph.app.stores.base import GraphStore
from docgraph.app.stores.cypher import load, render
from docgraph.app.stores.schema import GNN_PROPERTY
from docgraph.records import ID_PROPERTY, GraphBatch

GNN_LABELS: tuple[str, ...] = ("Region", "Section")
WRITE_CHUNK = 500


def refresh_stale_gnn(store: GraphStore, batch: GraphBatch) -> bool:
    """After a no-op write of ``batch`` (its version is stored): when the stored build differs, it
    differs in the GNN checkpoint alone (the version leaves the checkpoint out): the stored GNN vectors
    came from another checkpoint, by ``docgraph reembed`` or an ingest configured with it. Write the
    batch's own GNN vectors and build instead; returns whether it did."""
    if stored_build(store, batch.doc_id) == batch.build:
        return False
    nodes = [node for node in batch.nodes if node.label in GNN_LABELS and node.props.get(GNN_PROPERTY) is not None]
    if nodes:
        vectors = np.asarray([node.props[GNN_PROPERTY] for node in nodes], dtype=np.float32)
        write_vectors(store, [(node.label, node.key) for node in nodes], vectors, GNN_PROPERTY)
        store.refresh_fulltext(GNN_LABELS)
    record_build(store, batch.doc_id, batch.build)
    return True


def stored_build(store: GraphStore, doc_id: str) -> str:
    rows = store.read(load("document_versions", store.dialect), {"doc_id": doc_id})
    return str(rows[0]["build"]) if rows else ""


def record_build(store: GraphStore, doc_id: str, build: str) -> None:
    store.write(load("set_document_build", store.dialect), {"doc_id": doc_id, "build": build})


def write_vectors(store: GraphStore, refs: list[tuple[str, str]], vectors: np.ndarray, prop: str) -> int:
    """Write ``vectors[i]`` into ``prop`` of node ``refs[i]`` = (label, id); returns how many landed.
    The nodes are updated in place: call ``store.refresh_fulltext(GNN_LABELS)`` after the last write."""
    written = 0
    for label in GNN_LABELS:
        positions = [i for i, (lab, _) in enumerate(refs) if lab == label]
        query = render("gnn_write_embeddings", store.dialect, label=label, id=ID_PROPERTY[label], property=prop)
        for start in range(0, len(positions), WRITE_CHUNK):  # a chunk's vectors as lists at a time, not all
            chunk = positions[start : start + WRITE_CHUNK]
            result = store.write(query, {"rows": [{"key": refs[i][1], "vector": vectors[i].tolist()} for i in chunk]})
            written += int(result[0]["written"]) if result else 0
    return written

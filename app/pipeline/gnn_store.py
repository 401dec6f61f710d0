"""GNN vectors in the store: writing them by node id, and a document's recorded build.

Kept apart from :mod:`app.pipeline.gnn` and :mod:`app.jobs.reembed` (which load torch) because ingest needs it
for every unchanged re-ingest: :func:`refresh_stale_gnn`.
"""

from __future__ import annotations

import numpy as np

from docgraph.app.stores.base import GraphStore
from docgraph.app.stores.cypher import render
from docgraph.app.stores.schema import GNN_PROPERTY
from docgraph.app.stores.stamps import MAX_PASSES, document_stamps, set_build_if_unchanged
from docgraph.errors import CorpusChangedError
from docgraph.records import ID_PROPERTY, GraphBatch

GNN_LABELS: tuple[str, ...] = ("Region", "Section")
WRITE_CHUNK = 500


def refresh_stale_gnn(store: GraphStore, batch: GraphBatch) -> bool:
    """After a no-op write of ``batch`` (its version is stored): when the stored build differs, it
    differs in the GNN checkpoint alone (the version leaves the checkpoint out): the stored GNN vectors
    came from another checkpoint, by ``docgraph reembed`` or an ingest configured with it. Write the
    batch's own GNN vectors and build instead; returns whether it did.

    The build is set only if the document's stamp is what was read before the vectors were written
    (a ``reembed`` that wrote meanwhile would otherwise leave our vectors under its build); then the
    vectors are written again."""
    for _ in range(MAX_PASSES):
        stamp = document_stamps(store, batch.doc_id).get(batch.doc_id)
        if stamp is None or stamp.version != batch.version or stamp.build == batch.build:
            return False  # deleted or replaced meanwhile, or already this build
        _write_gnn_vectors(store, batch)
        if set_build_if_unchanged(store, batch.doc_id, stamp, batch.build):
            return True
    raise CorpusChangedError(
        f"{batch.doc_id}: its GNN vectors were rewritten by another process during each of {MAX_PASSES} "
        "refreshes; ingest it again"
    )


def _write_gnn_vectors(store: GraphStore, batch: GraphBatch) -> None:
    nodes = [node for node in batch.nodes if node.label in GNN_LABELS and node.props.get(GNN_PROPERTY) is not None]
    if nodes:
        vectors = np.asarray([node.props[GNN_PROPERTY] for node in nodes], dtype=np.float32)
        write_vectors(store, [(node.label, node.key) for node in nodes], vectors, GNN_PROPERTY)
        store.refresh_fulltext(GNN_LABELS)


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

"""Links to other documents whose target went while a document was ingested.

A document's links to other documents are chosen, then written with it. In this process one lock
keeps another write from coming between (``store_locks``); another process may still replace or
delete a linked document meanwhile, and the write then names regions that are gone.
"""

from __future__ import annotations

from collections.abc import Callable

from docgraph.app.stores.base import GraphStore, WriteResult
from docgraph.app.stores.cypher import load
from docgraph.errors import MissingEndpointError
from docgraph.records import EdgeRecord, GraphBatch

# Chooses a batch's links to other documents again, from what is stored now.
Relink = Callable[[GraphBatch], list[EdgeRecord]]
WRITE_TRIES = 3  # other processes replacing linked documents again and again: then it fails


def write_with_current_links(store: GraphStore, batch: GraphBatch, force: bool, relink: Relink | None) -> WriteResult:
    """Write ``batch``; when the write names regions of other documents that are gone, its links to
    other documents are chosen again (``relink``) and it is written again, up to ``WRITE_TRIES``
    times."""
    for tries in range(1, WRITE_TRIES + 1):
        try:
            return store.write_document(batch, force=force)
        except MissingEndpointError:
            if tries == WRITE_TRIES or not _links_again(batch, relink):
                raise
    raise AssertionError("unreachable")  # the last try returned or raised


def _links_again(batch: GraphBatch, relink: Relink | None) -> bool:
    """Whether the batch's links to other documents were chosen again (so that writing again may
    succeed); a pipeline without a link stage (no ``relink``) has none to choose."""
    if relink is None:
        return False
    kept = [edge for edge in batch.edges if not (edge.type == "IS_SIMILAR" and edge.props.get("cross_document"))]
    if len(kept) == len(batch.edges):
        return False
    fresh = relink(batch)
    batch.edges = kept + fresh
    batch.stats["corpus_similarity_edges"] = len(fresh)
    batch.stats["corpus_similarity_relinks"] = int(batch.stats.get("corpus_similarity_relinks", 0)) + 1
    return True


def links_with_other_documents(store: GraphStore, doc_id: str) -> int:
    """How many IS_SIMILAR links join ``doc_id``'s regions to other documents' (both directions)."""
    rows = store.read(load("count_document_cross_links", store.dialect), {"doc_id": doc_id})
    return int(rows[0]["links"] or 0) if rows else 0

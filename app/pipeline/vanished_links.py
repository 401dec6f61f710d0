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
    other documents are chosen again (``relink``; without one, those to gone regions are dropped)
    and it is written again, up to ``WRITE_TRIES`` times."""
    for tries in range(1, WRITE_TRIES + 1):
        try:
            return store.write_document(batch, force=force)
        except MissingEndpointError:
            if tries == WRITE_TRIES or not _links_again(store, batch, relink):
                raise
    raise AssertionError("unreachable")  # the last try returned or raised


def _links_again(store: GraphStore, batch: GraphBatch, relink: Relink | None) -> bool:
    """Whether the batch's links to other documents changed (so that writing again may succeed)."""
    if relink is None:
        return drop_vanished_links(store, batch) > 0
    kept = [edge for edge in batch.edges if not (edge.type == "IS_SIMILAR" and edge.props.get("cross_document"))]
    if len(kept) == len(batch.edges):
        return False
    fresh = relink(batch)
    batch.edges = kept + fresh
    batch.stats["corpus_similarity_edges"] = len(fresh)
    batch.stats["corpus_similarity_relinks"] = int(batch.stats.get("corpus_similarity_relinks", 0)) + 1
    return True


def drop_vanished_links(store: GraphStore, batch: GraphBatch) -> int:
    """Remove the batch's links to regions of other documents that are no longer stored (another
    process replaced or deleted their document after the links were chosen); how many went.
    ``docgraph relink`` makes the document's links to the new version."""
    own = {node.key for node in batch.nodes}
    linked = [edge for edge in batch.edges if edge.type == "IS_SIMILAR" and edge.props.get("cross_document")]
    foreign = sorted({key for edge in linked for key in (edge.src_key, edge.dst_key) if key not in own})
    if not foreign:
        return 0
    rows = store.read(load("stored_region_ids", store.dialect), {"ids": foreign})
    gone = set(foreign) - {str(row["id"]) for row in rows}
    vanished = {id(edge) for edge in linked if edge.src_key in gone or edge.dst_key in gone}
    kept = [edge for edge in batch.edges if id(edge) not in vanished]
    dropped = len(batch.edges) - len(kept)
    batch.edges = kept
    if dropped:
        batch.stats["corpus_similarity_edges"] = int(batch.stats.get("corpus_similarity_edges", 0)) - dropped
        batch.stats["corpus_similarity_edges_dropped"] = dropped
    return dropped

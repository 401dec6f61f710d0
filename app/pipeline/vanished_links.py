"""Links to other documents whose target went while a document was ingested.

A document's links to other documents are chosen, then written with it. In this process one lock
keeps another write from coming between (``store_locks``); another process may still replace or
delete a linked document meanwhile, and the write then names regions that are gone.
"""

from __future__ import annotations

from docgraph.app.stores.base import GraphStore
from docgraph.app.stores.cypher import load
from docgraph.records import GraphBatch


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

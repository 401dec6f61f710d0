"""A batch embedded by another encoder than the store's vector indexes were made for is refused
before anything is written, on every store the contract runs against: written, its vectors failed
every vector search on FalkorDB ("Vector dimension mismatch") and fell out of Neo4j's index."""

from __future__ import annotations

import pytest

from docgraph.app.stores.base import GraphStore
from docgraph.errors import StoreError
from tests.test_store_contract import doc, make_batch, snapshot, unit


def test_vectors_of_another_size_are_refused_and_nothing_is_written(store: GraphStore) -> None:
    store.write_document(make_batch(doc("sizes"), "a"))
    before = snapshot(store, doc("sizes"))
    wider = make_batch(doc("sizes"), "b")
    for node in wider.nodes:
        if node.label == "Region":
            node.props["embedding"] = [*node.props["embedding"], *([0.0] * 384)]
    with pytest.raises(StoreError, match=r"768 numbers, this store.s vector indexes 384 .* encoder of 384-number"):
        store.write_document(wider)
    assert snapshot(store, doc("sizes")) == before
    hits = store.vector_top_k("Region", "embedding", unit(2, 3), k=1, doc_id=doc("sizes"))
    assert [hit.key for hit in hits] == [f"{doc('sizes')}@a:p1:r2"]

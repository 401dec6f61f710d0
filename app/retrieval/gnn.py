"""GNN retrieval: regions ranked by cosine with ``Region.gnn_embedding``.

``gnn_embedding`` is the region's text embedding enriched by the relational GNN (``app.pipeline.gnn``) with
its logical neighbourhood: section titles, the text before it, its continuation across a page break,
its caption, what refers to it. The query is embedded by the same text encoder, unchanged. It is a
:class:`app.retrieval.vector.DenseRetriever` over another property: only the queries differ, so a
hybrid can take the GNN cosine as one more signal.

An ablation's vectors (``app.pipeline.gnn.GNN_VARIANTS``) live in a property of their own, which has no vector
index: such a retriever works inside one document (an exact scan), as evaluation asks.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from docgraph.app.retrieval.corpus import Corpus
from docgraph.app.retrieval.hits import QueryVectors
from docgraph.app.retrieval.vector import DenseRetriever, as_list, scores_by_region
from docgraph.app.stores import cypher
from docgraph.app.stores.base import GraphStore, Row
from docgraph.app.stores.schema import GNN_PROPERTY
from docgraph.errors import ConfigError

NEO4J_INDEX = "region_gnn_embedding"  # schema/neo4j/02_indexes.cypher


class GnnRetriever(DenseRetriever):
    signal = "gnn"

    def __init__(
        self, store: GraphStore, corpus: Corpus, vectors: QueryVectors, prop: str = GNN_PROPERTY, name: str = "gnn"
    ) -> None:
        super().__init__(store, corpus, vectors)
        self.prop = cypher.identifier(prop)
        self.name = name

    def searchable(self, doc_id: str | None) -> bool:
        """Whether top-k search works here: the main property has a vector index; an ablation's
        property is only scanned inside one document."""
        return doc_id is not None or self.prop == GNN_PROPERTY

    def index_rows(self, query_vector: NDArray[np.float32], k: int, doc_id: str | None) -> list[Row]:
        params: dict[str, object] = {"k": k, "vector": as_list(query_vector)}
        if doc_id is None:
            if not self.searchable(doc_id):
                raise ConfigError(f"{self.prop} has no vector index: search it inside one document")
            params.update({"property": self.prop, "index": NEO4J_INDEX})
            return self.store.read(cypher.load("gnn_top_k", self.store.dialect), params)
        params["doc_id"] = doc_id
        return self.store.read(cypher.render("gnn_top_k_in_document", self.store.dialect, property=self.prop), params)

    def with_best_passages(self, query_vector: NDArray[np.float32], scores: dict[str, float]) -> dict[str, float]:
        """Unchanged: a GNN embedding is one vector per region, passages have none of their own."""
        return scores

    def exact_cosines(self, query_vector: NDArray[np.float32], ids: list[str]) -> dict[str, float]:
        """Cosine of the query with each region's GNN embedding (regions without one are left out)."""
        if not ids:
            return {}
        query = cypher.render("gnn_region_cosines", self.store.dialect, property=self.prop)
        return scores_by_region(self.store.read(query, {"ids": ids, "vector": as_list(query_vector)}))

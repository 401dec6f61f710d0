"""GNN retrieval: regions ranked by cosine with ``Region.gnn_embedding``.

``gnn_embedding`` is the region's text embedding enriched by the relational GNN (``app.gnn``) with
its logical neighbourhood: section titles, the text before it, its continuation across a page break,
its caption, what refers to it. The query is embedded by the same text encoder, unchanged. The
interface mirrors :class:`app.retrieval.vector.DenseRetriever` (``ranked_by_vector``,
``exact_cosines``), so a hybrid can take the GNN cosine as one more signal.

An ablation's vectors (``app.gnn.GNN_VARIANTS``) live in a property of their own, which has no vector
index: such a retriever works inside one document (an exact scan), as evaluation asks.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from app import cypher
from app.exceptions import ConfigError
from app.retrieval.base import ScoredRegion
from app.retrieval.corpus import FURNITURE, Corpus, RegionInfo
from app.retrieval.hits import QueryVectors, RegionPageRanking, hit_from
from app.stores.base import GraphStore

GNN_PROPERTY = "gnn_embedding"
NEO4J_INDEX = "region_gnn_embedding"  # schema/neo4j/02_indexes.cypher
OVERFETCH = 1.25  # page headers and footers among the index hits are dropped
MIN_CANDIDATES = 20

Ranked = list[tuple[RegionInfo, float]]


class GnnRetriever(RegionPageRanking):
    def __init__(
        self, store: GraphStore, corpus: Corpus, vectors: QueryVectors, prop: str = GNN_PROPERTY, name: str = "gnn"
    ) -> None:
        self.store = store
        self.corpus = corpus
        self.vectors = vectors
        self.prop = cypher.identifier(prop)
        self.name = name

    def searchable(self, doc_id: str | None) -> bool:
        """Whether top-k search works here: the main property has a vector index; an ablation's
        property is only scanned inside one document."""
        return doc_id is not None or self.prop == GNN_PROPERTY

    def ranked(self, query: str, n: int, doc_id: str | None = None) -> Ranked:
        """The ``n`` best body regions by exact cosine with their GNN embedding, best first."""
        return self.ranked_by_vector(self.vectors(query), n, doc_id)

    def ranked_by_vector(
        self, query_vector: NDArray[np.float32], n: int, doc_id: str | None = None, rescore: bool = True
    ) -> Ranked:
        """``rescore=False`` keeps the index's scores (for a caller that re-scores candidates itself)."""
        self.corpus.documents(doc_id)  # make sure hits resolve to pages and sections
        wanted = max(MIN_CANDIDATES, round(n * OVERFETCH))
        params: dict[str, object] = {"k": wanted, "vector": _as_list(query_vector)}
        if doc_id is None:
            if not self.searchable(doc_id):
                raise ConfigError(f"{self.prop} has no vector index: search it inside one document")
            params.update({"property": self.prop, "index": NEO4J_INDEX})
            rows = self.store.read(cypher.load("gnn_top_k", self.store.dialect), params)
        else:
            params["doc_id"] = doc_id
            query = cypher.render("gnn_top_k_in_document", self.store.dialect, property=self.prop)
            rows = self.store.read(query, params)
        candidates = [self.corpus.region(str(row["region_id"])) for row in rows]
        ids = [c.region_id for c in candidates if c is not None and c.kind not in FURNITURE]
        scores = self.exact_cosines(query_vector, ids) if doc_id is None and rescore else _scores(rows)
        ranked = [(info, scores[info.region_id]) for info in candidates if info and info.region_id in scores]
        ranked = [(info, score) for info, score in ranked if info.kind not in FURNITURE]
        ranked.sort(key=lambda pair: -pair[1])
        return ranked[:n]

    def exact_cosines(self, query_vector: NDArray[np.float32], ids: list[str]) -> dict[str, float]:
        """Cosine of the query with each region's GNN embedding (regions without one are left out)."""
        if not ids:
            return {}
        query = cypher.render("gnn_region_cosines", self.store.dialect, property=self.prop)
        rows = self.store.read(query, {"ids": ids, "vector": _as_list(query_vector)})
        return _scores(rows)

    def retrieve(self, query: str, k: int = 10, doc_id: str | None = None) -> list[ScoredRegion]:
        return [hit_from(info, score, {"gnn": score}) for info, score in self.ranked(query, k, doc_id)]


def _as_list(vector: NDArray[np.float32]) -> list[float]:
    return [float(x) for x in vector]


def _scores(rows: list[dict[str, object]]) -> dict[str, float]:
    return {str(row["region_id"]): float(row["score"]) for row in rows if row["score"] is not None}  # type: ignore[arg-type]

"""Dense retrieval: the store's vector index over ``Region.embedding``, re-scored exactly.

The index is approximate (HNSW) and, restricted to one document, filters after the search, so it is
asked for several times more candidates than wanted; the candidates' stored vectors are then
scored by exact cosine against the query.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from app import cypher
from app.retrieval.base import ScoredRegion
from app.retrieval.corpus import FURNITURE, Corpus, RegionInfo
from app.retrieval.hits import QueryVectors, RegionPageRanking, hit_from
from app.stores.base import GraphStore

OVERFETCH = 3
MIN_CANDIDATES = 30

Ranked = list[tuple[RegionInfo, float]]


class DenseRetriever(RegionPageRanking):
    name = "dense-region"

    def __init__(self, store: GraphStore, corpus: Corpus, vectors: QueryVectors) -> None:
        self.store = store
        self.corpus = corpus
        self.vectors = vectors

    def ranked(self, query: str, n: int, doc_id: str | None = None) -> Ranked:
        """The ``n`` best body regions by exact cosine, best first."""
        query_vector = self.vectors(query)
        return self.ranked_by_vector(query_vector, n, doc_id)

    def ranked_by_vector(self, query_vector: NDArray[np.float32], n: int, doc_id: str | None = None) -> Ranked:
        self.corpus.documents(doc_id)  # make sure hits can be resolved to pages and sections
        wanted = max(MIN_CANDIDATES, n * OVERFETCH)
        nodes = self.store.vector_top_k("Region", "embedding", query_vector.tolist(), wanted, doc_id)
        candidates: list[RegionInfo] = []
        for node in nodes:
            info = self.corpus.region(node.key)
            if info is not None and info.kind not in FURNITURE and (doc_id is None or info.doc_id == doc_id):
                candidates.append(info)
        scores = self._exact_cosine(query_vector, [c.region_id for c in candidates])
        ranked = [(info, scores[info.region_id]) for info in candidates if info.region_id in scores]
        ranked.sort(key=lambda pair: -pair[1])
        return ranked[:n]

    def _exact_cosine(self, query_vector: NDArray[np.float32], ids: list[str]) -> dict[str, float]:
        if not ids:
            return {}
        rows = self.store.read(cypher.load("retrieval_region_vectors", self.store.dialect), {"ids": ids})
        keys = [str(row["region_id"]) for row in rows if row["embedding"] is not None]
        if not keys:
            return {}
        matrix = np.asarray([list(row["embedding"]) for row in rows if row["embedding"] is not None], np.float32)
        norms = np.linalg.norm(matrix, axis=1)
        norms[norms == 0] = 1.0
        query = query_vector / (float(np.linalg.norm(query_vector)) or 1.0)
        cosines = (matrix @ query) / norms
        return {key: float(score) for key, score in zip(keys, cosines, strict=True)}

    def retrieve(self, query: str, k: int = 10, doc_id: str | None = None) -> list[ScoredRegion]:
        return [hit_from(info, score, {"dense": score}) for info, score in self.ranked(query, k, doc_id)]

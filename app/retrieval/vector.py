"""Dense retrieval over ``Region.embedding``: the database's vector search, re-scored exactly.

Unrestricted, the vector index (HNSW, approximate) is asked for a quarter more candidates than
wanted (page furniture among them is dropped); inside one document an exact scan is cheap and
exact. Candidates from any source (the hybrid adds lexical ones) are then scored by exact cosine
against their stored embeddings, in the database. Only ids and scores travel: the queries are this
module's own (``cypher/<dialect>/retrieval_dense_*.cypher``) rather than
``GraphStore.vector_top_k``, whose hits carry every node property, the 384-float embedding
included, which costs ~3 ms a hit to decode on FalkorDB.

A long region's ``embedding`` is the mean of its passages' vectors (``app.pipeline.embedding``), which
dilutes a passage that alone answers; such regions also store their passage vectors, and a
candidate scores the better of its mean cosine and its best passage's cosine.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from docgraph.app.retrieval.base import ScoredRegion, check_query
from docgraph.app.retrieval.corpus import Corpus
from docgraph.app.retrieval.document_index import FURNITURE, RegionInfo
from docgraph.app.retrieval.hits import QueryVectors, RegionPageRanking, hit_from
from docgraph.app.stores import cypher
from docgraph.app.stores.base import GraphStore, Row

# Asked of the index beyond ``n``: page headers and footers found among the hits are dropped.
OVERFETCH = 1.25
MIN_CANDIDATES = 20

Ranked = list[tuple[RegionInfo, float]]


class DenseRetriever(RegionPageRanking):
    name = "dense-region"
    signal = "dense"  # the name of this retriever's score among a hit's signals

    def __init__(self, store: GraphStore, corpus: Corpus, vectors: QueryVectors) -> None:
        self.store = store
        self.corpus = corpus
        self.vectors = vectors

    def ranked(self, query: str, n: int, doc_id: str | None = None) -> Ranked:
        """The ``n`` best body regions by exact cosine, best first."""
        return self.ranked_by_vector(self.vectors(query), n, doc_id)

    def ranked_by_vector(
        self, query_vector: NDArray[np.float32], n: int, doc_id: str | None = None, rescore: bool = True
    ) -> Ranked:
        """``rescore=False`` keeps the index's scores (for a caller that re-scores candidates itself)."""
        if not self.corpus.documents(doc_id):  # loads what hits resolve to; a never-written graph
            return []  # may have no vector index yet, and nothing to find anyway
        wanted = max(MIN_CANDIDATES, round(n * OVERFETCH))
        rows = self.index_rows(query_vector, wanted, doc_id)
        candidates = [self.corpus.region(str(row["region_id"])) for row in rows]
        ids = [c.region_id for c in candidates if c is not None and c.kind not in FURNITURE]
        if not rescore:
            scores = scores_by_region(rows)
        elif doc_id is None:
            scores = self.exact_cosines(query_vector, ids)
        else:  # the document scan's cosines are exact already
            scores = self.with_best_passages(query_vector, scores_by_region(rows))
        ranked = [(info, scores[info.region_id]) for info in candidates if info and info.region_id in scores]
        ranked = [(info, score) for info, score in ranked if info.kind not in FURNITURE]
        ranked.sort(key=lambda pair: -pair[1])
        return ranked[:n]

    def index_rows(self, query_vector: NDArray[np.float32], k: int, doc_id: str | None) -> list[Row]:
        """``region_id``/``score`` rows of the nearest regions: the vector index, or a scan of one document."""
        params: dict[str, object] = {"k": k, "vector": as_list(query_vector)}
        if doc_id is None:
            return self.store.read(cypher.load("retrieval_dense_top_k", self.store.dialect), params)
        params["doc_id"] = doc_id
        return self.store.read(cypher.load("retrieval_dense_top_k_in_document", self.store.dialect), params)

    def exact_cosines(self, query_vector: NDArray[np.float32], ids: list[str]) -> dict[str, float]:
        """Cosine of the query with each region's stored embedding (regions without one are left out)."""
        if not ids:
            return {}
        params = {"ids": ids, "vector": as_list(query_vector)}
        rows = self.store.read(cypher.load("retrieval_region_cosines", self.store.dialect), params)
        return self.with_best_passages(query_vector, scores_by_region(rows))

    def candidates(
        self,
        query_vector: NDArray[np.float32],
        k: int,
        extra_ids: list[str],
        doc_id: str | None = None,
        passages: bool = True,
    ) -> dict[str, float]:
        """Region id -> exact cosine for the ``k`` nearest regions and ``extra_ids``, in one query;
        ``passages=False`` keeps a long region's mean cosine (see :meth:`passage_lifts`)."""
        params: dict[str, object] = {"k": k, "ids": extra_ids, "vector": as_list(query_vector)}
        name = "retrieval_dense_candidates"
        if doc_id is not None:
            params["doc_id"] = doc_id
            name = "retrieval_dense_candidates_in_document"
        scores = scores_by_region(self.store.read(cypher.load(name, self.store.dialect), params))
        return self.with_best_passages(query_vector, scores) if passages else scores

    def passage_lifts(self, query_vector: NDArray[np.float32], scores: dict[str, float]) -> dict[str, float]:
        """Region id -> how much better than its score in ``scores`` (its mean cosine) the region's
        best passage matches; only long regions whose best passage does better are listed. The
        passage vectors come from the corpus (regions of documents it has loaded)."""
        lifts: dict[str, float] = {}
        for region_id, score in scores.items():
            passages = self.corpus.passages(region_id, len(query_vector))
            if passages is None:
                continue
            best = float((passages @ query_vector).max())
            if best > score:
                lifts[region_id] = best - score
        return lifts

    def with_best_passages(self, query_vector: NDArray[np.float32], scores: dict[str, float]) -> dict[str, float]:
        """``scores`` raised to the best passage's cosine for regions embedded passage by passage."""
        lifts = self.passage_lifts(query_vector, scores)
        return {region_id: score + lifts.get(region_id, 0.0) for region_id, score in scores.items()}

    def retrieve(self, query: str, k: int = 10, doc_id: str | None = None) -> list[ScoredRegion]:
        check_query(query, k)
        return [hit_from(info, score, {self.signal: score}) for info, score in self.ranked(query, k, doc_id)]


def as_list(vector: NDArray[np.float32]) -> list[float]:
    return [float(x) for x in vector]


def scores_by_region(rows: list[dict[str, object]]) -> dict[str, float]:
    return {str(row["region_id"]): float(row["score"]) for row in rows if row["score"] is not None}  # type: ignore[arg-type]

"""The default retriever: reciprocal-rank fusion of four signals, at region level.

- ``dense``: the region's rank by exact cosine (contextual region embedding),
- ``bm25``: the region's rank by BM25 over region text,
- ``page``: the rank of the region's page by BM25 over whole-page text (a region on a page that is
  lexically about the query as a whole is more likely the answer than an isolated match),
- ``section``: the rank of the best-matching section title among the region's enclosing sections.

A region's score is the sum of its signals' RRF terms; hits carry their graph context.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.retrieval.base import PageHit, ScoredRegion
from app.retrieval.bm25_page import BM25PageRetriever, _best_region_on_page
from app.retrieval.corpus import Corpus, RegionInfo
from app.retrieval.expansion import expand
from app.retrieval.fulltext import BM25RegionRetriever
from app.retrieval.fusion import rrf_term
from app.retrieval.hits import REGIONS_FOR_PAGES, QueryVectors, hit_from
from app.retrieval.pages import rank_pages
from app.retrieval.sections import TOP_SECTIONS, ranked_sections
from app.retrieval.vector import DenseRetriever
from app.stores.base import GraphStore


@dataclass(frozen=True, slots=True)
class HybridWeights:
    dense: float = 1.0
    bm25: float = 1.0
    page: float = 1.0
    section: float = 0.5
    depth: int = 100  # candidates taken from each region-level signal
    pages: int = 20  # pages taken from the page-level signal


class HybridRetriever:
    name = "hybrid"

    def __init__(
        self,
        store: GraphStore,
        corpus: Corpus,
        vectors: QueryVectors,
        weights: HybridWeights | None = None,
        with_context: bool = True,
    ) -> None:
        self.store = store
        self.corpus = corpus
        self.vectors = vectors
        self.weights = weights or HybridWeights()
        self.with_context = with_context
        self.dense = DenseRetriever(store, corpus, vectors)
        self.bm25 = BM25RegionRetriever(corpus)
        self.pages = BM25PageRetriever(corpus)

    def scored(self, query: str, n: int, doc_id: str | None = None) -> list[ScoredRegion]:
        """The ``n`` best regions by fused score, without graph context."""
        w = self.weights
        query_vector = self.vectors(query)
        candidates: dict[str, RegionInfo] = {}
        signals: dict[str, dict[str, float]] = {}

        def add(info: RegionInfo, name: str, term: float) -> None:
            candidates.setdefault(info.region_id, info)
            entry = signals.setdefault(info.region_id, {})
            entry[name] = entry.get(name, 0.0) + term

        for rank, (info, _) in enumerate(self.dense.ranked_by_vector(query_vector, w.depth, doc_id), 1):
            add(info, "dense", rrf_term(rank, w.dense))
        for rank, (info, _) in enumerate(self.bm25.ranked(query, w.depth, doc_id), 1):
            add(info, "bm25", rrf_term(rank, w.bm25))

        page_rank: dict[tuple[str, int], int] = {}
        for rank, (document, page, _) in enumerate(self.pages.ranked_pages(query, w.pages, doc_id), 1):
            page_rank[(document.doc_id, page)] = rank
            best = _best_region_on_page(document, page, query)
            if best is not None:
                candidates.setdefault(best.region_id, best)
                signals.setdefault(best.region_id, {})

        section_rank: dict[str, int] = {}
        if w.section:
            for document in self.corpus.documents(doc_id):
                ranked = ranked_sections(document, query_vector, TOP_SECTIONS)
                section_rank.update({sid: rank for rank, (sid, _) in enumerate(ranked, 1)})

        hits: list[ScoredRegion] = []
        for region_id, info in candidates.items():
            entry = signals[region_id]
            on_page = page_rank.get((info.doc_id, info.page))
            if on_page is not None and w.page:
                entry["page"] = rrf_term(on_page, w.page)
            in_section = section_rank.get(info.section_id or "")
            if in_section is not None:
                entry["section"] = rrf_term(in_section, w.section)
            hits.append(hit_from(info, sum(entry.values()), entry))
        hits.sort(key=lambda h: -h.score)
        return hits[:n]

    def retrieve(self, query: str, k: int = 10, doc_id: str | None = None) -> list[ScoredRegion]:
        hits = self.scored(query, k, doc_id)
        if self.with_context:
            expand(self.store, hits)
        return hits

    def rank_pages(self, query: str, k: int = 5, doc_id: str | None = None) -> list[PageHit]:
        return rank_pages(self.scored(query, REGIONS_FOR_PAGES, doc_id), k)

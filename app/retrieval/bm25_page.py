"""``bm25-page``: Okapi BM25 over whole-page text, the baseline the region-level retrievers must beat.

Pages are ranked directly; as region hits it returns, for each of the best pages, that page's
region that best matches the query (or its first body region when none matches).
"""

from __future__ import annotations

from docgraph.app.retrieval.base import PageHit, ScoredRegion, check_query
from docgraph.app.retrieval.bm25 import scores_across, top_k_of
from docgraph.app.retrieval.corpus import Corpus
from docgraph.app.retrieval.document_index import DocumentIndex, RegionInfo
from docgraph.app.retrieval.hits import hit_from


class BM25PageRetriever:
    name = "bm25-page"

    def __init__(self, corpus: Corpus) -> None:
        self.corpus = corpus

    def ranked_pages(self, query: str, n: int, doc_id: str | None = None) -> list[tuple[DocumentIndex, int, float]]:
        """(document, page number, score) of the ``n`` best pages, best first."""
        return best_pages(self.corpus.documents(doc_id), query, n)

    def rank_pages(self, query: str, k: int = 5, doc_id: str | None = None) -> list[PageHit]:
        check_query(query, k)
        return [PageHit(doc.doc_id, page, score) for doc, page, score in self.ranked_pages(query, k, doc_id)]

    def retrieve(self, query: str, k: int = 10, doc_id: str | None = None) -> list[ScoredRegion]:
        check_query(query, k)
        hits: list[ScoredRegion] = []
        for document, page, score in self.ranked_pages(query, k, doc_id):
            region = _best_region_on_page(document, page, query)
            if region is not None:
                hits.append(hit_from(region, score, {"bm25_page": score}))
        return hits


def best_pages(
    documents: list[DocumentIndex], query: str, n: int, lead_in: bool = False, one_scale: bool = True
) -> list[tuple[DocumentIndex, int, float]]:
    """(document, page number, BM25 score) of the ``n`` best pages of ``documents``, best first, on
    one scale across them unless not ``one_scale`` (``bm25.scores_across``); with ``lead_in``, each
    page is scored with its lead-in (``corpus.page_lead_in``)."""
    ranked: list[tuple[DocumentIndex, int, float]] = []
    indexes = {d.doc_id: d.lead_in_page_bm25 if lead_in else d.page_bm25 for d in documents}
    scores = scores_across(indexes, query, one_scale)
    for document in documents:
        for row, score in top_k_of(scores[document.doc_id], n):
            ranked.append((document, document.page_numbers[row], score))
    ranked.sort(key=lambda item: -item[2])
    return ranked[:n]


def _best_region_on_page(document: DocumentIndex, page: int, query: str) -> RegionInfo | None:
    rows = document.page_rows.get(page, [])
    if not rows:
        return None
    scores = document.region_bm25.scores(query)
    best = max(rows, key=lambda i: (scores[i], -i))
    return document.regions[best]

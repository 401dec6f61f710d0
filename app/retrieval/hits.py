"""Helpers every retriever shares: turning region rows into hits, query vectors, page ranking."""

from __future__ import annotations

import threading
from collections import OrderedDict

import numpy as np
from numpy.typing import NDArray

from docgraph.app.retrieval.base import PageHit, Retriever, ScoredRegion, check_query
from docgraph.app.retrieval.document_index import RegionInfo
from docgraph.app.retrieval.pages import rank_pages
from docgraph.models.encoders import TextEncoder

# How many region hits a region-level retriever ranks to find the best pages.
REGIONS_FOR_PAGES = 100


def hit_from(info: RegionInfo, score: float, signals: dict[str, float]) -> ScoredRegion:
    return ScoredRegion(
        region_id=info.region_id,
        doc_id=info.doc_id,
        page=info.page,
        bbox=info.bbox,
        kind=info.kind,
        text=info.text,
        score=score,
        signals=signals,
    )


def in_reading_order(hits: list[ScoredRegion], order: dict[str, tuple[int, int]]) -> list[ScoredRegion]:
    """``hits`` with those ``order`` places (a section asked for whole: its regions' pages and
    positions) given their scores in reading order: what the section says is said from its heading
    on, not by the line that names it ("18. Ground 1 therefore fails.")."""
    ranked = [hit for hit in hits if hit.region_id in order]
    scores = sorted((hit.score for hit in ranked), reverse=True)
    for hit, score in zip(sorted(ranked, key=lambda hit: order[hit.region_id]), scores, strict=True):
        hit.score = score
    return sorted(hits, key=lambda hit: -hit.score)


def copy_key(hit: ScoredRegion) -> tuple[str, str]:
    """What a region shares with the same region of another document of the same content (a file
    stored again under a new name): its id without the document's (``<doc_id>@<version>:p3:r2``
    names the version and the place) and its text (a figure may be described in one copy only)."""
    return hit.region_id.split("@", 1)[-1], hit.text


def without_copies(hits: list[ScoredRegion]) -> list[ScoredRegion]:
    """``hits`` less each hit whose region an earlier (better) hit has in another document."""
    seen: set[tuple[str, str]] = set()
    kept: list[ScoredRegion] = []
    for hit in hits:
        key = copy_key(hit)
        if key not in seen:
            seen.add(key)
            kept.append(hit)
    return kept


def retrieve_distinct(retriever: Retriever, query: str, k: int, doc_id: str | None = None) -> list[ScoredRegion]:
    """The ``k`` best hits, one per region of documents stored twice: a renamed file ingested again
    is a second document until the first is deleted, and citing both copies of a passage would
    spend half the answer's reading on nothing new. Asks for twice as many hits once when copies
    were dropped from a full ranking."""
    hits = retriever.retrieve(query, k=k, doc_id=doc_id)
    distinct = without_copies(hits)
    if len(distinct) < len(hits) and len(hits) >= k:
        distinct = without_copies(retriever.retrieve(query, k=2 * k, doc_id=doc_id))[:k]
    return distinct


class QueryVectors:
    """Query embeddings, remembered for the last few hundred queries (a hybrid asks twice)."""

    def __init__(self, encoder: TextEncoder, capacity: int = 256) -> None:
        self.encoder = encoder
        self.capacity = capacity
        self._cache: OrderedDict[str, NDArray[np.float32]] = OrderedDict()
        self._lock = threading.Lock()

    def __call__(self, query: str) -> NDArray[np.float32]:
        with self._lock:
            cached = self._cache.get(query)
            if cached is not None:
                self._cache.move_to_end(query)
                return cached
        vector: NDArray[np.float32] = self.encoder.encode([query])[0]
        with self._lock:
            self._cache[query] = vector
            while len(self._cache) > self.capacity:
                self._cache.popitem(last=False)
        return vector


class RegionPageRanking:
    """``rank_pages`` for retrievers that rank regions: aggregate the top region hits per page."""

    def retrieve(self, query: str, k: int = 10, doc_id: str | None = None) -> list[ScoredRegion]:
        raise NotImplementedError

    def rank_pages(self, query: str, k: int = 5, doc_id: str | None = None) -> list[PageHit]:
        check_query(query, k)
        return rank_pages(self.retrieve(query, REGIONS_FOR_PAGES, doc_id), k)

"""Table-of-contents retrieval (after SuperRAG): find the sections whose titles match the query, then
favour the regions under them.

Section titles are short and written to say what a section is about, so a query is compared with
each section's title-path embedding (``Section.embedding``, see :mod:`app.embedding`). A region
takes the score of the best-matching section among its own section and the sections enclosing it,
the enclosing ones discounted a little because they are less specific.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from app.retrieval.base import ScoredRegion
from app.retrieval.corpus import FURNITURE, Corpus, DocumentIndex, RegionInfo
from app.retrieval.hits import QueryVectors, RegionPageRanking, hit_from

ANCESTOR_DISCOUNT = 0.9  # per level up the section tree
TOP_SECTIONS = 8

Ranked = list[tuple[RegionInfo, float]]


def section_scores(document: DocumentIndex, query_vector: NDArray[np.float32]) -> dict[str, float]:
    """Section id -> cosine of its title embedding with the query."""
    if document.section_vectors.size == 0:
        return {}
    cosines = document.section_vectors @ query_vector
    return {sid: float(score) for sid, score in zip(document.section_ids, cosines, strict=True)}


def region_section_scores(document: DocumentIndex, scores: dict[str, float]) -> dict[str, float]:
    """Section id -> best score over the section and its ancestors (discounted per level)."""
    inherited: dict[str, float] = {}
    for section_id in document.sections:
        best = 0.0
        for depth, ancestor in enumerate(document.ancestors(section_id)):
            best = max(best, scores.get(ancestor, 0.0) * ANCESTOR_DISCOUNT**depth)
        inherited[section_id] = best
    return inherited


def ranked_sections(document: DocumentIndex, query_vector: NDArray[np.float32], n: int) -> list[tuple[str, float]]:
    """The ``n`` best sections for a region to be under, by inherited score, best first."""
    inherited = region_section_scores(document, section_scores(document, query_vector))
    ordered = sorted(inherited.items(), key=lambda item: -item[1])
    return ordered[:n]


class SectionRetriever(RegionPageRanking):
    name = "section"

    def __init__(self, corpus: Corpus, vectors: QueryVectors) -> None:
        self.corpus = corpus
        self.vectors = vectors

    def ranked(self, query: str, n: int, doc_id: str | None = None) -> Ranked:
        """Regions of the best sections: section order, then reading order within a section."""
        query_vector = self.vectors(query)
        ranked: Ranked = []
        for document in self.corpus.documents(doc_id):
            for section_id, score in ranked_sections(document, query_vector, TOP_SECTIONS):
                for row in document.section_members.get(section_id, []):
                    region = document.regions[row]
                    if region.kind not in FURNITURE:
                        ranked.append((region, score))
        ranked.sort(key=lambda pair: -pair[1])  # stable: reading order kept within a section
        return ranked[:n]

    def retrieve(self, query: str, k: int = 10, doc_id: str | None = None) -> list[ScoredRegion]:
        return [hit_from(info, score, {"section": score}) for info, score in self.ranked(query, k, doc_id)]

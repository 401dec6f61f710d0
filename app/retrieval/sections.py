"""Table-of-contents retrieval (after SuperRAG): find the sections whose titles match the query, then
favour the regions under them.

Section titles are short and written to say what a section is about, so the query is compared with
each section's title embedding (``Section.embedding``, see :mod:`app.pipeline.embedding`), in the
database. A region takes the score of the best-matching section among its own section and the
sections enclosing it, the enclosing ones discounted a little because they are less specific.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from docgraph.app.retrieval.base import ScoredRegion, check_query
from docgraph.app.retrieval.corpus import Corpus
from docgraph.app.retrieval.document_index import FURNITURE, DocumentIndex, RegionInfo
from docgraph.app.retrieval.hits import QueryVectors, RegionPageRanking, hit_from
from docgraph.app.stores import cypher
from docgraph.app.stores.base import GraphStore

ANCESTOR_DISCOUNT = 0.9  # per level up the section tree
TOP_SECTIONS = 8
CORPUS_SECTIONS = 50  # sections asked of the vector index when searching every document

Ranked = list[tuple[RegionInfo, float]]


def section_scores(
    store: GraphStore, query_vector: NDArray[np.float32], doc_id: str | None
) -> dict[str, dict[str, float]]:
    """doc_id -> section id -> cosine of its title embedding with the query.

    Inside one document every section is scored; over the corpus, the index's best sections.
    """
    vector = [float(x) for x in query_vector]
    if doc_id is None:
        query = cypher.load("retrieval_section_top_k", store.dialect)
        rows = store.read(query, {"k": CORPUS_SECTIONS, "vector": vector})
    else:
        query = cypher.load("retrieval_section_scores_in_document", store.dialect)
        rows = store.read(query, {"doc_id": doc_id, "vector": vector})
    scores: dict[str, dict[str, float]] = {}
    for row in rows:
        scores.setdefault(str(row["doc_id"]), {})[str(row["section_id"])] = float(row["score"])
    return scores


def region_section_scores(document: DocumentIndex, scores: dict[str, float]) -> dict[str, float]:
    """Section id -> best score over the section and its ancestors (discounted per level)."""
    inherited: dict[str, float] = {}
    for section_id in document.sections:
        best = 0.0
        for depth, ancestor in enumerate(document.ancestors(section_id)):
            best = max(best, scores.get(ancestor, 0.0) * ANCESTOR_DISCOUNT**depth)
        inherited[section_id] = best
    return inherited


class SectionRetriever(RegionPageRanking):
    name = "section"

    def __init__(self, store: GraphStore, corpus: Corpus, vectors: QueryVectors) -> None:
        self.store = store
        self.corpus = corpus
        self.vectors = vectors

    def ranked(self, query: str, n: int, doc_id: str | None = None) -> Ranked:
        """Regions of the best sections: section order, then reading order within a section."""
        documents = self.corpus.documents(doc_id)
        if not documents:  # nothing stored (a never-written graph may have no vector index yet)
            return []
        scores = section_scores(self.store, self.vectors(query), doc_id)
        ranked: Ranked = []
        for document in documents:
            inherited = region_section_scores(document, scores.get(document.doc_id, {}))
            matched = [(section_id, score) for section_id, score in inherited.items() if score > 0]
            best = sorted(matched, key=lambda item: -item[1])[:TOP_SECTIONS]  # no title like it: none
            for section_id, score in best:
                for row in document.section_members.get(section_id, []):
                    region = document.regions[row]
                    if region.kind not in FURNITURE:
                        ranked.append((region, score))
        ranked.sort(key=lambda pair: -pair[1])  # stable: reading order kept within a section
        return ranked[:n]

    def retrieve(self, query: str, k: int = 10, doc_id: str | None = None) -> list[ScoredRegion]:
        check_query(query, k)
        return [hit_from(info, score, {"section": score}) for info, score in self.ranked(query, k, doc_id)]

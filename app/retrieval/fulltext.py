"""Lexical region retrieval, two ways.

``bm25-region``: Okapi BM25 over region text in memory (per document statistics, one scale across
documents: ``bm25.scores_across``; technical-name aware tokens, see :mod:`app.retrieval.text`).
``fulltext-region``: the store's own full-text index
(RediSearch in FalkorDB, Lucene in Neo4j); its scoring and tokenising differ per database, which is
why the in-memory index is the one the hybrid uses.
"""

from __future__ import annotations

import re

from docgraph.app.retrieval.base import ScoredRegion, check_query
from docgraph.app.retrieval.bm25 import scores_across, top_k_of
from docgraph.app.retrieval.corpus import Corpus
from docgraph.app.retrieval.document_index import FURNITURE, RegionInfo
from docgraph.app.retrieval.hits import RegionPageRanking, hit_from
from docgraph.app.retrieval.text import tokenize
from docgraph.app.stores.base import GraphStore

Ranked = list[tuple[RegionInfo, float]]
_WORD = re.compile(r"\w+")


class BM25RegionRetriever(RegionPageRanking):
    name = "bm25-region"

    def __init__(self, corpus: Corpus) -> None:
        self.corpus = corpus

    def ranked(self, query: str, n: int, doc_id: str | None = None) -> Ranked:
        ranked: Ranked = []
        documents = self.corpus.documents(doc_id)
        scores = scores_across({document.doc_id: document.region_bm25 for document in documents}, query)
        for document in documents:
            for row, score in top_k_of(scores[document.doc_id], n):
                ranked.append((document.regions[row], score))
        ranked.sort(key=lambda pair: -pair[1])
        return ranked[:n]

    def retrieve(self, query: str, k: int = 10, doc_id: str | None = None) -> list[ScoredRegion]:
        check_query(query, k)
        return [hit_from(info, score, {"bm25": score}) for info, score in self.ranked(query, k, doc_id)]


def fulltext_query(query: str) -> str:
    """Plain words only: full-text query syntax (RediSearch, Lucene) must not see user punctuation.
    Words of other scripts go as written, lower-cased: the indexes keep their accents ("Größe"),
    which the in-memory tokens fold away and the index then never matched."""
    words: list[str] = []
    for chunk in query.split():
        words += [t for t in tokenize(chunk) if t.isalnum()] if chunk.isascii() else _WORD.findall(chunk.lower())
    return " ".join(dict.fromkeys(words))


class FulltextRetriever(RegionPageRanking):
    name = "fulltext-region"

    def __init__(self, store: GraphStore, corpus: Corpus) -> None:
        self.store = store
        self.corpus = corpus

    def ranked(self, query: str, n: int, doc_id: str | None = None) -> Ranked:
        text = fulltext_query(query)
        if not text:
            return []
        self.corpus.documents(doc_id)
        ranked: Ranked = []
        for node in self.store.fulltext_top_k("Region", text, n * 2, doc_id):
            info = self.corpus.region(node.key)
            if info is not None and info.kind not in FURNITURE:
                ranked.append((info, node.score))
        return ranked[:n]

    def retrieve(self, query: str, k: int = 10, doc_id: str | None = None) -> list[ScoredRegion]:
        check_query(query, k)
        return [hit_from(info, score, {"fulltext": score}) for info, score in self.ranked(query, k, doc_id)]

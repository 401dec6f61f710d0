"""Retriever variants by name: what ``docgraph ask --retriever``, ``eval`` and ``bench`` accept."""

from __future__ import annotations

from collections.abc import Callable

from app.exceptions import ConfigError
from app.retrieval.base import Retriever
from app.retrieval.bm25_page import BM25PageRetriever
from app.retrieval.corpus import Corpus
from app.retrieval.fulltext import BM25RegionRetriever, FulltextRetriever
from app.retrieval.hits import QueryVectors
from app.retrieval.hybrid import HybridRetriever
from app.retrieval.sections import SectionRetriever
from app.retrieval.vector import DenseRetriever
from app.stores.base import GraphStore
from models.encoders import TextEncoder

DEFAULT_RETRIEVER = "hybrid"

Factory = Callable[[GraphStore, Corpus, QueryVectors], Retriever]

_FACTORIES: dict[str, Factory] = {
    "hybrid": lambda store, corpus, vectors: HybridRetriever(store, corpus, vectors),
    "dense-region": lambda store, corpus, vectors: DenseRetriever(store, corpus, vectors),
    "bm25-region": lambda store, corpus, vectors: BM25RegionRetriever(corpus),
    "fulltext-region": lambda store, corpus, vectors: FulltextRetriever(store, corpus),
    "bm25-page": lambda store, corpus, vectors: BM25PageRetriever(corpus),
    "section": lambda store, corpus, vectors: SectionRetriever(store, corpus, vectors),
}

RETRIEVER_NAMES: tuple[str, ...] = tuple(_FACTORIES)
# What ``docgraph eval`` compares when no variants are named.
EVAL_VARIANTS: tuple[str, ...] = ("bm25-page", "dense-region", "bm25-region", "hybrid")


def make_retriever(name: str, store: GraphStore, encoder: TextEncoder, corpus: Corpus | None = None) -> Retriever:
    """A retriever by variant name. Pass one ``corpus`` to several retrievers to share its indexes."""
    factory = _FACTORIES.get(name)
    if factory is None:
        raise ConfigError(f"unknown retriever {name!r}; choose one of: {', '.join(RETRIEVER_NAMES)}")
    return factory(store, corpus or Corpus(store), QueryVectors(encoder))


def make_retrievers(names: list[str], store: GraphStore, encoder: TextEncoder) -> dict[str, Retriever]:
    """Several retrievers sharing one corpus view and one query-vector cache."""
    corpus, vectors = Corpus(store), QueryVectors(encoder)
    retrievers: dict[str, Retriever] = {}
    for name in names:
        factory = _FACTORIES.get(name)
        if factory is None:
            raise ConfigError(f"unknown retriever {name!r}; choose one of: {', '.join(RETRIEVER_NAMES)}")
        retrievers[name] = factory(store, corpus, vectors)
    return retrievers

"""Retriever variants by name: what ``docgraph ask --retriever``, ``eval`` and ``bench`` accept."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from typing import TYPE_CHECKING

from docgraph.app.retrieval.base import Retriever
from docgraph.app.retrieval.bm25_page import BM25PageRetriever
from docgraph.app.retrieval.corpus import Corpus
from docgraph.app.retrieval.fulltext import BM25RegionRetriever, FulltextRetriever
from docgraph.app.retrieval.gnn import GnnRetriever
from docgraph.app.retrieval.hits import QueryVectors
from docgraph.app.retrieval.hybrid import HybridRetriever, HybridWeights
from docgraph.app.retrieval.rerank import RerankingRetriever, configured_reranker
from docgraph.app.retrieval.sections import SectionRetriever
from docgraph.app.retrieval.vector import DenseRetriever
from docgraph.app.stores.base import GraphStore
from docgraph.app.stores.schema import GNN_ABLATION_PROPERTIES, GNN_PROPERTY
from docgraph.errors import ConfigError
from docgraph.models.encoders import TextEncoder

if TYPE_CHECKING:
    from docgraph.app.config import Settings

DEFAULT_RETRIEVER = "hybrid"
NO_LEAD_IN = HybridWeights(page_lead_in=False)

Factory = Callable[[GraphStore, Corpus, QueryVectors], Retriever]


def _hybrid(prop: str | None, weights: HybridWeights | None = None) -> Factory:
    """A hybrid with the GNN signal read from ``prop`` (none without)."""

    def make(store: GraphStore, corpus: Corpus, vectors: QueryVectors) -> Retriever:
        gnn = GnnRetriever(store, corpus, vectors, prop=prop) if prop else None
        return HybridRetriever(store, corpus, vectors, weights=weights, gnn=gnn)

    return make


def _reranked(store: GraphStore, corpus: Corpus, vectors: QueryVectors, settings: Settings | None = None) -> Retriever:
    """The hybrid with its best hits reranked by the cross-encoder (``app.retrieval.rerank``) that
    ``settings`` name (None: the environment's)."""
    gnn = GnnRetriever(store, corpus, vectors, prop=GNN_PROPERTY)
    return RerankingRetriever(HybridRetriever(store, corpus, vectors, gnn=gnn), partial(configured_reranker, settings))


_FACTORIES: dict[str, Factory] = {
    "hybrid": _hybrid(GNN_PROPERTY),
    "no-gnn": _hybrid(None),
    "gnn": lambda store, corpus, vectors: GnnRetriever(store, corpus, vectors),
    # Hybrids whose GNN signal comes from an ablation's property (app.pipeline.gnn.GNN_VARIANTS; run
    # ``app.jobs.reembed.ensure_variant`` first, or the signal is absent).
    **{name: _hybrid(prop) for name, prop in GNN_ABLATION_PROPERTIES.items()},
    # The hybrid without the page lead-in, which carries the same cross-page context as the GNN
    # (docs/experiments/gnn-what-the-gnn-adds-without-the-page-lead-in.md).
    "no-lead-in": _hybrid(GNN_PROPERTY, NO_LEAD_IN),
    "no-gnn-no-lead-in": _hybrid(None, NO_LEAD_IN),
    # The hybrid without the bonus for regions of the kind a question names (app.retrieval.kinds).
    "no-kind": _hybrid(GNN_PROPERTY, HybridWeights(kind=0.0)),
    # The hybrid without the signal of the parts a question names by number (app.retrieval.named_parts).
    "no-part": _hybrid(GNN_PROPERTY, HybridWeights(part=0.0)),
    # The hybrid scoring each document's lexical signals with that document's own statistics.
    "per-document-bm25": _hybrid(GNN_PROPERTY, HybridWeights(one_scale=False)),
    "hybrid-rerank": _reranked,
    "dense-region": lambda store, corpus, vectors: DenseRetriever(store, corpus, vectors),
    "bm25-region": lambda store, corpus, vectors: BM25RegionRetriever(corpus),
    "fulltext-region": lambda store, corpus, vectors: FulltextRetriever(store, corpus),
    "bm25-page": lambda store, corpus, vectors: BM25PageRetriever(corpus),
    "section": lambda store, corpus, vectors: SectionRetriever(store, corpus, vectors),
}

RETRIEVER_NAMES: tuple[str, ...] = tuple(_FACTORIES)
# The variants that read no GNN vectors: the others measure something else without them.
WITHOUT_GNN: frozenset[str] = frozenset(
    {"no-gnn", "no-gnn-no-lead-in", "dense-region", "bm25-region", "fulltext-region", "bm25-page", "section"}
)


def _factories(settings: Settings | None) -> dict[str, Factory]:
    """The variants, the reranked one with the checkpoint ``settings`` name."""
    return _FACTORIES if settings is None else {**_FACTORIES, "hybrid-rerank": partial(_reranked, settings=settings)}


# What ``docgraph eval`` compares when no variants are named.
EVAL_VARIANTS: tuple[str, ...] = ("bm25-page", "dense-region", "bm25-region", "hybrid", "no-gnn", "gnn")


def check_names(names: list[str]) -> None:
    """Raise :class:`ConfigError` for a name that is no retriever variant (before any slow work)."""
    for name in names:
        if name not in _FACTORIES:
            raise ConfigError(f"unknown retriever {name!r}; choose one of: {', '.join(RETRIEVER_NAMES)}")


def make_retriever(
    name: str, store: GraphStore, encoder: TextEncoder, corpus: Corpus | None = None, settings: Settings | None = None
) -> Retriever:
    """A retriever by variant name. Pass one ``corpus`` to several retrievers to share its indexes;
    ``settings`` name the reranker's checkpoint (default: the environment's settings)."""
    check_names([name])
    return _factories(settings)[name](store, corpus or Corpus(store), QueryVectors(encoder))


def make_retrievers(
    names: list[str],
    store: GraphStore,
    encoder: TextEncoder,
    gnn_props: Mapping[str, str] | None = None,
    settings: Settings | None = None,
) -> dict[str, Retriever]:
    """Several retrievers sharing one corpus view and one query-vector cache. ``gnn_props`` maps an
    ablation variant to the property ``app.jobs.reembed.ensure_variant`` wrote its vectors to."""
    check_names(names)
    corpus, vectors = Corpus(store), QueryVectors(encoder)
    factories = _factories(settings)
    retrievers: dict[str, Retriever] = {}
    for name in names:
        factory = factories[name]
        if gnn_props and name in gnn_props:
            factory = _hybrid(gnn_props[name])
        retrievers[name] = factory(store, corpus, vectors)
    return retrievers

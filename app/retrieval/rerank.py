"""The hybrid's best regions reranked by a cross-encoder that reads the question and each passage
together (``models.cross_encoder``).

A region is read with its graph context, as an answerer would see it: the titles of its enclosing
sections, its caption or the figure it captions, and its continuation across a page break. The
cross-encoder's scores over the ``depth`` best hits are min-max scaled and added with ``weight``
to the hybrid's fused score, so the hybrid's evidence is refined, not replaced. The model is loaded
(with torch) on the first question, not before: the other retrievers never import it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from docgraph.app.file_states import FileState, file_state
from docgraph.app.resources import ROOT
from docgraph.app.retrieval.base import ContextRegion, PageHit, ScoredRegion, check_query
from docgraph.app.retrieval.corpus import Corpus
from docgraph.app.retrieval.expansion import expand
from docgraph.app.retrieval.hits import REGIONS_FOR_PAGES
from docgraph.app.retrieval.hybrid import HybridRetriever
from docgraph.app.retrieval.pages import rank_pages
from docgraph.app.retrieval.vector import DenseRetriever

if TYPE_CHECKING:
    from docgraph.app.config import Settings
    from docgraph.models.cross_encoder import CrossEncoder

DEFAULT_RERANKER = ROOT / "models" / "checkpoints" / "rerank-minilm.pt"
CONTEXT_WORDS = 40  # words of each neighbour read with a region
# Neighbours read with a region, in this order; what it refers to is left out (often a whole page).
CONTEXT_RELATIONS = ("caption", "captioned", "continued_from", "previous_page", "continues", "next_page")


@dataclass(frozen=True, slots=True)
class RerankWeights:
    """How much the cross-encoder moves the hybrid's order (docs/experiments/reranker.md)."""

    weight: float = 0.25  # added to the best reranked hit, scaled down to 0 for the worst
    depth: int = 20  # how many of the hybrid's best hits are reranked


def load_reranker(path: Path = DEFAULT_RERANKER) -> CrossEncoder:
    """The cross-encoder checkpoint at ``path``, loaded once per process, and again once its file
    changed (a server kept scoring with a checkpoint `train-reranker --out` had since replaced)."""
    return _load_reranker(path, file_state(path))


@lru_cache(maxsize=4)
def _load_reranker(path: Path, state: FileState | None) -> CrossEncoder:
    from docgraph.models.cross_encoder import load_cross_encoder

    return load_cross_encoder(path)


def configured_reranker(settings: Settings | None = None) -> CrossEncoder:
    """The reranker ``settings`` name (default: the environment's, ``DOCGRAPH_RERANKER_CHECKPOINT``),
    else the shipped one."""
    from docgraph.app.config import load_settings

    return load_reranker((settings or load_settings()).reranker_checkpoint or DEFAULT_RERANKER)


def passage_text(corpus: Corpus, hit: ScoredRegion) -> str:
    """What the cross-encoder reads of a hit: section path, then the region, then its neighbours."""
    titles = corpus.section_titles(hit.region_id)
    lines = [" > ".join(titles)] if titles else []
    lines.append(hit.text)
    by_relation = {c.relation: c for c in hit.context}
    lines += [_neighbour(by_relation[name]) for name in CONTEXT_RELATIONS if name in by_relation]
    return "\n".join(line for line in lines if line)


def _neighbour(context: ContextRegion) -> str:
    words = context.text.split()
    return " ".join(words[:CONTEXT_WORDS])


class RerankingRetriever:
    name = "hybrid-rerank"

    def __init__(
        self,
        hybrid: HybridRetriever,
        reranker: Callable[[], CrossEncoder] = configured_reranker,
        weights: RerankWeights | None = None,
    ) -> None:
        self.hybrid = hybrid
        self.reranker = reranker
        self.weights = weights or RerankWeights()

    @property
    def dense(self) -> DenseRetriever:
        """The hybrid's dense retriever (``app.retrieval.relevance`` measures hits with it)."""
        return self.hybrid.dense

    def scored(self, query: str, n: int, doc_id: str | None = None) -> list[ScoredRegion]:
        """The hybrid's best ``max(n, depth)`` hits, the first ``depth`` reranked, then the ``n`` best."""
        hits = self.hybrid.scored(query, max(n, self.weights.depth), doc_id)
        head = hits[: self.weights.depth]
        if head and self.weights.weight:
            expand(self.hybrid.store, head)
            logits = self.reranker().score(query, [passage_text(self.hybrid.corpus, hit) for hit in head])
            for hit, term in zip(head, rerank_terms(logits, self.weights.weight), strict=True):
                hit.signals["rerank"] = term
                hit.score += term
        hits.sort(key=lambda h: -h.score)
        return hits[:n]

    def retrieve(self, query: str, k: int = 10, doc_id: str | None = None) -> list[ScoredRegion]:
        check_query(query, k)
        hits = self.scored(query, k, doc_id)
        if self.hybrid.with_context:
            expand(self.hybrid.store, hits)
        return hits

    def rank_pages(self, query: str, k: int = 5, doc_id: str | None = None) -> list[PageHit]:
        check_query(query, k)
        return rank_pages(self.scored(query, REGIONS_FOR_PAGES, doc_id), k, self.hybrid.weights.page_bonus)


def rerank_terms(logits: np.ndarray, weight: float) -> list[float]:
    """The cross-encoder's scores scaled to [0, ``weight``] among the reranked hits (all 0 when they
    are equal: the model then tells them apart no better than the hybrid)."""
    if logits.size == 0:
        return []
    low, high = float(logits.min()), float(logits.max())
    if high - low <= 1e-9:
        return [0.0] * int(logits.size)
    return [weight * (float(x) - low) / (high - low) for x in logits]

"""``docgraph train-reranker``: ingest a folder of PDFs into a throw-away store, ask the hybrid each
document's pseudo-queries across all of them, and train the cross-encoder to put the answer above
the hard negatives the hybrid ranked near it (regions on other pages, of any document).

No question is hand-written: the queries are ``models.pseudo_queries``', their answers the regions
they were made from. Queries held out by target region score each epoch; the best is saved.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from docgraph.app.config import Settings
from docgraph.app.pipeline.build import build_ingest_pipeline, gnn_unavailable
from docgraph.app.pipeline.embedding import configured_encoder
from docgraph.app.pipeline.source_files import expand_paths
from docgraph.app.pipeline.stages import IngestContext
from docgraph.app.resources import docgraph_release, source_commit
from docgraph.app.retrieval.base import ScoredRegion
from docgraph.app.retrieval.expansion import expand
from docgraph.app.retrieval.hits import hit_from
from docgraph.app.retrieval.hybrid import HybridRetriever
from docgraph.app.retrieval.registry import make_retriever
from docgraph.app.retrieval.rerank import DEFAULT_RERANKER, passage_text
from docgraph.app.stores.temporary import temporary_local_store
from docgraph.errors import IngestError, ModelError
from docgraph.models.cross_encoder import save_cross_encoder
from docgraph.models.pseudo_queries import PseudoQuery, make_queries, split_held_out
from docgraph.models.reranker_training import (
    RankedGroup,
    RerankTrainConfig,
    RerankTrainResult,
    cache_states,
    new_cross_encoder,
    train_cross_encoder,
)
from docgraph.records import GraphBatch

ProgressFn = Callable[[str, int, int], None]


@dataclass(frozen=True, slots=True)
class MiningConfig:
    """How many pseudo-queries per document, and how their candidate groups are made."""

    train_queries: int = 250  # per document, drawn from its training split
    held_queries: int = 40  # per document, drawn from its held-out split
    negatives: int = 7  # hard negatives per query: the hybrid's best regions off the answer's pages
    depth: int = 20  # how deep in the hybrid's ranking negatives are taken


@dataclass
class RerankReport:
    checkpoint: Path
    documents: list[str]
    groups: dict[str, int]
    training: RerankTrainResult
    seconds: float
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "checkpoint": str(self.checkpoint),
            "documents": self.documents,
            "groups": self.groups,
            **self.training.to_json(),
            "seconds": round(self.seconds, 1),
        }


def train_reranker(
    settings: Settings,
    docs_dir: Path,
    out: Path = DEFAULT_RERANKER,
    train_config: RerankTrainConfig | None = None,
    mining: MiningConfig | None = None,
    progress: ProgressFn | None = None,
) -> RerankReport:
    """Train the cross-encoder on the PDFs under ``docs_dir`` and save it to ``out``."""
    started = time.perf_counter()
    config, mining = train_config or RerankTrainConfig(), mining or MiningConfig()
    pdfs = expand_paths([docs_dir])
    if not pdfs:
        raise IngestError(f"no PDF files under {docs_dir}")
    reason = gnn_unavailable(settings)
    if reason is not None:  # the hard negatives would come from a hybrid without its GNN term
        raise ModelError(
            f"the hybrid whose hits the reranker learns to reorder reads GNN vectors, which the configured "
            f"checkpoint cannot give ({reason}): fix DOCGRAPH_GNN_CHECKPOINT"
        )
    with temporary_local_store(settings) as store:
        batches = ingested_batches(store, settings, pdfs)
        hybrid = make_retriever("hybrid", store, configured_encoder(settings))
        assert isinstance(hybrid, HybridRetriever)
        train_queries, held_queries = sample_queries(batches, mining, config.seed)
        train = mine_groups(hybrid, train_queries, mining, _labelled(progress, "mine training queries"))
        held = mine_groups(hybrid, held_queries, mining, _labelled(progress, "mine held-out queries"))
    model = new_cross_encoder(config.seed)
    train_states = cache_states(model, train, _labelled(progress, "read training pairs"))
    held_states = cache_states(model, held, _labelled(progress, "read held-out pairs"))
    result = train_cross_encoder(model, train_states, held_states, held, config, progress)
    meta = {
        "documents": [
            {"file": pdf.name, "doc_id": b.doc_id, "sha256": b.sha256} for pdf, b in zip(pdfs, batches, strict=True)
        ],
        "groups": {"train": len(train), "held_out": len(held)},
        "mining": asdict(mining),
        "train_config": asdict(config),
        "source": {"docgraph": docgraph_release(), "commit": source_commit()},
        **result.to_json(),
    }
    save_cross_encoder(model, out, meta)
    return RerankReport(out, [pdf.name for pdf in pdfs], meta["groups"], result, time.perf_counter() - started)


def _labelled(progress: ProgressFn | None, label: str) -> ProgressFn | None:
    if progress is None:
        return None
    return lambda _stage, done, total: progress(label, done, total)


@dataclass
class _KeepBatch:
    """A last ingest stage that keeps each document's batch (its region ids are the stored ones)."""

    batches: list[GraphBatch]
    name: str = "keep_batch"

    def run(self, ctx: IngestContext) -> None:
        if ctx.batch is not None:
            self.batches.append(ctx.batch)


def ingested_batches(store: Any, settings: Settings, pdfs: Sequence[Path]) -> list[GraphBatch]:
    """Ingest ``pdfs`` into ``store`` as ``docgraph ingest`` does; their graph batches, in order."""
    batches: list[GraphBatch] = []
    pipeline = build_ingest_pipeline(store, settings)
    pipeline.stages.append(_KeepBatch(batches))
    for pdf in pdfs:
        report = pipeline.ingest(pdf)
        if report.status == "failed":
            raise IngestError(report.error)
    return batches


def sample_queries(
    batches: Sequence[GraphBatch], mining: MiningConfig, seed: int
) -> tuple[list[PseudoQuery], list[PseudoQuery]]:
    """Per document, a seeded sample of its training and of its held-out pseudo-queries."""
    rng = np.random.default_rng(seed)
    train: list[PseudoQuery] = []
    held: list[PseudoQuery] = []
    for batch in batches:
        own_train, own_held = split_held_out(make_queries(batch, seed), seed=seed)
        train += _sample(rng, own_train, mining.train_queries)
        held += _sample(rng, own_held, mining.held_queries)
    return train, held


def _sample(rng: np.random.Generator, queries: list[PseudoQuery], count: int) -> list[PseudoQuery]:
    if len(queries) <= count:
        return list(queries)
    return [queries[i] for i in sorted(rng.choice(len(queries), size=count, replace=False))]


def mine_groups(
    hybrid: HybridRetriever, queries: Sequence[PseudoQuery], mining: MiningConfig, progress: ProgressFn | None = None
) -> list[RankedGroup]:
    """Each query asked of the whole store; its answer and hard negatives, read as the reranker reads them."""
    groups = []
    for done, query in enumerate(queries, 1):
        group = _mine_group(hybrid, query, mining)
        if group is not None:
            groups.append(group)
        if progress:
            progress("mine", done, len(queries))
    return groups


def _mine_group(hybrid: HybridRetriever, query: PseudoQuery, mining: MiningConfig) -> RankedGroup | None:
    hits = hybrid.scored(query.text, mining.depth)
    corpus = hybrid.corpus
    infos = [info for key in query.positives if (info := corpus.region(key)) is not None]
    if not infos:
        return None
    pages = {(info.doc_id, info.page) for info in infos}
    found = [i for i, hit in enumerate(hits) if hit.region_id in query.positives]
    answer = hits[found[0]] if found else hit_from(infos[0], 0.0, {})
    negatives = [(i, hit) for i, hit in enumerate(hits) if (hit.doc_id, hit.page) not in pages][: mining.negatives]
    if not negatives:
        return None
    above = sum(1 for i, _ in negatives if not found or i < found[0])
    chosen: list[ScoredRegion] = [answer, *(hit for _, hit in negatives)]
    expand(hybrid.store, chosen)
    return RankedGroup(query.text, tuple(passage_text(corpus, hit) for hit in chosen), query.kind, above)

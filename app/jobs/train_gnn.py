"""``docgraph train-gnn``: read and embed the PDFs of a folder, make pseudo-queries, train the GNN,
save a checkpoint (config, weights, training log)."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from docgraph.app.config import Settings
from docgraph.app.pipeline.embedding import DiskCache, configured_encoder, embed_batch, encode_cached
from docgraph.app.pipeline.gnn import DEFAULT_CHECKPOINT
from docgraph.app.pipeline.readers import make_reader
from docgraph.app.pipeline.similarity import add_similarity_edges
from docgraph.app.pipeline.source_files import expand_paths, read_pdf
from docgraph.app.resources import docgraph_release, source_commit
from docgraph.errors import ConfigError, IngestError
from docgraph.ingest.graph import build_graph
from docgraph.ingest.links.similarity import DEFAULT_K
from docgraph.ingest.structure.ids import file_sha256
from docgraph.models.encoders import TextEncoder
from docgraph.models.gnn import RelationalGNN, save_checkpoint
from docgraph.models.graph_tensors import GROUPS
from docgraph.models.pseudo_queries import make_queries, split_held_out
from docgraph.models.training import (
    DocumentData,
    EpochLog,
    TrainConfig,
    compare_by_kind,
    prepare_document,
    train_model,
    training_summary,
    unseen_document,
)
from docgraph.records import GraphBatch

ProgressFn = Callable[[str, int, int, dict[str, float]], None]


@dataclass
class TrainReport:
    checkpoint: Path
    documents: list[str]
    queries: dict[str, int]
    history: list[EpochLog]
    best_epoch: int
    baseline: dict[str, float]
    by_kind: dict[str, dict[str, float]]
    seconds: float
    extra: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "checkpoint": str(self.checkpoint),
            "documents": self.documents,
            "queries": self.queries,
            "best_epoch": self.best_epoch,
            "history": [log.to_json() for log in self.history],
            "baseline": self.baseline,
            "by_kind": self.by_kind,
            "seconds": round(self.seconds, 1),
            **self.extra,
        }


def training_batches(
    settings: Settings,
    pdfs: Sequence[Path],
    encoder: TextEncoder,
    similarity_k: int = DEFAULT_K,
    shown: bool = False,
) -> list[GraphBatch]:
    """Each PDF read, built into a graph, embedded (disk-cached) and given its IS_SIMILAR edges;
    ``shown``: with a bar over the PDFs on stderr (most of a short training's time)."""
    reader = make_reader(settings.reader, settings)
    batches: list[GraphBatch] = []
    for pdf in _bar_over(pdfs, "read and embed", shown):
        batch = build_graph(read_pdf(reader, pdf), ingested_at="1970-01-01T00:00:00+00:00")
        embed_batch(batch, encoder, cache_dir=settings.home / "cache")
        add_similarity_edges(batch, similarity_k)
        batches.append(batch)
    return batches


def _bar_over(pdfs: Sequence[Path], what: str, shown: bool) -> Iterable[Path]:
    if not shown:
        return pdfs
    from tqdm import tqdm

    return tqdm(pdfs, desc=what, unit="pdf", leave=False, file=sys.stderr)


def train_gnn(
    settings: Settings,
    docs_dir: Path,
    epochs: int = TrainConfig.epochs,
    out: Path = DEFAULT_CHECKPOINT,
    seed: int = 0,
    progress: bool | ProgressFn = False,
    groups: Sequence[str] = GROUPS,
    config: TrainConfig | None = None,
    unseen_dir: Path | None = None,
) -> TrainReport:
    """Train the GNN on the PDFs under ``docs_dir`` and save it to ``out``. With ``unseen_dir``, the
    trained model is also scored on pseudo-queries of those PDFs, which neither training nor early
    stopping sees: how much of what it learned carries over to new documents. ``config.gnn`` gives the
    architecture (layers, bases, dropout); its dimensions are the encoder's, its relations ``groups``."""
    started = time.perf_counter()
    pdfs = _pdfs_under(docs_dir)
    unseen_pdfs = _unseen_pdfs(unseen_dir, pdfs) if unseen_dir else []  # refused before any reading
    encoder = configured_encoder(settings)
    cache = DiskCache(settings.home / "cache")  # queries are deterministic: a rerun encodes nothing
    batches = training_batches(settings, pdfs, encoder, settings.similarity_k, shown=progress is True)
    unseen = _unseen_documents(settings, unseen_pdfs, encoder, cache, seed, groups) if unseen_pdfs else None
    config = config or TrainConfig()
    gnn = replace(config.gnn, dim=encoder.dim, hidden=encoder.dim, groups=tuple(groups), encoder=settings.encoder_model)
    config = replace(config, epochs=epochs, seed=seed, gnn=gnn)
    docs, counts = [], {"train": 0, "held_out": 0}
    for batch in batches:
        docs.append(_training_document(batch, encoder, cache, seed, groups))
        counts["train"] += docs[-1].train.size
        counts["held_out"] += docs[-1].held_out.size
    with _ProgressBar(progress) as report_progress:
        result = train_model(docs, config, report_progress)
    extra = {"unseen": _unseen_report(result.model, *unseen)} if unseen else {}
    meta = {
        "documents": [
            {"file": pdf.name, "doc_id": b.doc_id, "sha256": b.sha256} for pdf, b in zip(pdfs, batches, strict=True)
        ],
        "queries": counts,
        "seed": seed,
        "source": {"docgraph": docgraph_release(), "commit": source_commit()},
        "train_config": {k: v for k, v in config.__dict__.items() if k != "gnn"},
        **training_summary(result),
        **extra,
    }
    save_checkpoint(result.model, out, meta)  # load_gnn and checkpoint_tag see it is new (file_state)
    return TrainReport(
        checkpoint=out,
        documents=[pdf.name for pdf in pdfs],
        queries=counts,
        history=result.history,
        best_epoch=result.best_epoch,
        baseline=result.baseline,
        by_kind=result.by_kind,
        seconds=time.perf_counter() - started,
        extra=extra,
    )


def _pdfs_under(folder: Path) -> list[Path]:
    pdfs = expand_paths([folder])
    if not pdfs:
        raise IngestError(f"no PDF files under {folder}")
    return pdfs


def _training_document(
    batch: GraphBatch, encoder: TextEncoder, cache: DiskCache, seed: int, groups: Sequence[str]
) -> DocumentData:
    train, held = split_held_out(make_queries(batch, seed), seed=seed)
    train_vectors = encode_cached([q.text for q in train], encoder, cache)
    held_vectors = encode_cached([q.text for q in held], encoder, cache)
    return prepare_document(batch, train, train_vectors, held, held_vectors, groups)


def _unseen_pdfs(folder: Path, training: Sequence[Path]) -> list[Path]:
    """The PDFs under ``folder``; refuses one with the content of a training PDF, whose score would
    not be of an unseen document."""
    trained = {file_sha256(pdf): pdf for pdf in training}
    pdfs = _pdfs_under(folder)
    for pdf in pdfs:
        twin = trained.get(file_sha256(pdf))
        if twin is not None:
            raise ConfigError(f"{pdf} is also a training document ({twin.name}): it is not unseen")
    return pdfs


def _unseen_documents(
    settings: Settings,
    pdfs: Sequence[Path],
    encoder: TextEncoder,
    cache: DiskCache,
    seed: int,
    groups: Sequence[str],
) -> tuple[list[str], list[DocumentData]]:
    """The PDFs as scored-only documents: all their pseudo-queries held out."""
    docs = []
    for batch in training_batches(settings, pdfs, encoder, settings.similarity_k):
        queries = make_queries(batch, seed)
        docs.append(unseen_document(batch, queries, encode_cached([q.text for q in queries], encoder, cache), groups))
    return [pdf.name for pdf in pdfs], docs


def _unseen_report(model: RelationalGNN, names: list[str], docs: list[DocumentData]) -> dict[str, Any]:
    return {"documents": names, "by_kind": compare_by_kind(model, docs)}


class _ProgressBar:
    """A tqdm bar over training steps when ``progress`` is True; a given callable is passed through."""

    def __init__(self, progress: bool | ProgressFn) -> None:
        self.progress = progress
        self.bar: Any = None

    def __enter__(self) -> ProgressFn | None:
        if callable(self.progress):
            return self.progress
        if not self.progress:
            return None
        from tqdm import tqdm

        def update(phase: str, done: int, total: int, numbers: dict[str, float]) -> None:
            if phase == "step":
                if self.bar is None or done == 1:
                    if self.bar is not None:
                        self.bar.close()
                    self.bar = tqdm(
                        total=total, desc=f"epoch {int(numbers['epoch'])}", unit="step", leave=False, file=sys.stderr
                    )
                self.bar.set_postfix(loss=f"{numbers['loss']:.4f}")
                self.bar.update(1)
            else:
                tqdm.write(  # stderr: stdout holds the report (JSON with --json)
                    f"epoch {done}/{total}: train {numbers['train_loss']:.4f}  held-out {numbers['held_out_loss']:.4f}"
                    f"  page R@1 {numbers['held_out_page_r1']:.3f}",
                    file=sys.stderr,
                )

        return update

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.close()

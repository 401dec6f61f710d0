"""GNN orchestration: the ingest stage and training from PDFs (stored documents: ``app.reembed``).

- :class:`GnnStage` (after ``embed``, before ``graph_write``): adds IS_SIMILAR edges to the batch and
  sets ``props["gnn_embedding"]`` on every embedded Region and Section node.
- :func:`train_gnn`: reads and embeds the PDFs of a folder, makes pseudo-queries, trains, saves a
  checkpoint (config, weights, training log).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from app.config import Settings
from app.exceptions import ConfigError, IngestError, ModelError
from app.resources import ROOT
from app.schema import GNN_ABLATION_PROPERTIES, GNN_PROPERTY
from ingest.similarity import DEFAULT_K, similarity_edges
from ingest.types import GraphBatch
from models.gnn import Checkpoint, RelationalGNN, load_checkpoint, save_checkpoint
from models.graph_tensors import GROUPS, records_to_tensors
from models.pseudo_queries import make_queries, split_held_out
from models.training import (
    DocumentData,
    EpochLog,
    TrainConfig,
    compare_by_kind,
    prepare_document,
    train_model,
    training_summary,
    unseen_document,
)

if TYPE_CHECKING:
    from app.embedding import DiskCache
    from app.pipeline import IngestContext
    from models.encoders import TextEncoder

CHECKPOINT_DIR = ROOT / "models" / "checkpoints"
DEFAULT_CHECKPOINT = CHECKPOINT_DIR / "rgcn-minilm.pt"
READ_EDGE_TYPES: tuple[str, ...] = ("HAS_NEXT", "IS_UNDER", "REF", "CAPTION_OF", "IS_SIMILAR")

ProgressFn = Callable[[str, int, int, dict[str, float]], None]


@dataclass(frozen=True, slots=True)
class GnnVariant:
    """A GNN for retrieval and ablations: its checkpoint and the Region property its vectors go in."""

    name: str
    checkpoint: Path
    prop: str
    dropped: tuple[str, ...] = ()  # relation groups it is trained and run without

    @property
    def groups(self) -> tuple[str, ...]:
        return tuple(group for group in GROUPS if group not in self.dropped)


GNN_VARIANTS: dict[str, GnnVariant] = {
    "gnn": GnnVariant("gnn", DEFAULT_CHECKPOINT, GNN_PROPERTY),
    "no-cross-page": GnnVariant(
        "no-cross-page",
        CHECKPOINT_DIR / "rgcn-minilm-no-cross-page.pt",
        GNN_ABLATION_PROPERTIES["no-cross-page"],
        ("cross_page",),
    ),
    "no-sim": GnnVariant(
        "no-sim", CHECKPOINT_DIR / "rgcn-minilm-no-sim.pt", GNN_ABLATION_PROPERTIES["no-sim"], ("similarity",)
    ),
}


# ---- inference ------------------------------------------------------------------------------


@lru_cache(maxsize=4)
def load_gnn(path: str = str(DEFAULT_CHECKPOINT)) -> Checkpoint:
    """A checkpoint, loaded once per process."""
    return load_checkpoint(Path(path))


@lru_cache(maxsize=8)
def checkpoint_tag(path: Path) -> str:
    """``<file name> <first 8 hex digits of its sha256>``: names a checkpoint and its exact weights."""
    from ingest.pdf_checks import file_sha256  # not at import: it loads PyMuPDF, which retrieval never needs

    return f"{path.name} {file_sha256(path)[:8]}"


def configured_checkpoint(settings: Settings) -> Path:
    """The checkpoint ingest and reembed use: ``gnn_checkpoint`` when set, else the shipped one."""
    return settings.gnn_checkpoint or DEFAULT_CHECKPOINT


def gnn_for(settings: Settings, checkpoint: Path | None = None) -> RelationalGNN:
    """The GNN for ``settings``' encoder; refuses a checkpoint trained on another encoder's vectors."""
    model = load_gnn(str(checkpoint or configured_checkpoint(settings))).model
    trained_on = model.config.encoder.strip().lower()
    if trained_on != settings.encoder_model.strip().lower():
        raise ModelError(
            f"the GNN checkpoint was trained on {model.config.encoder!r} embeddings but the encoder is "
            f"{settings.encoder_model!r}; train one with `docgraph train-gnn`"
        )
    return model


def apply_gnn(batch: GraphBatch, model: RelationalGNN, similarity_k: int = DEFAULT_K) -> int:
    """Add IS_SIMILAR edges (replacing any) and set ``gnn_embedding`` on the batch's embedded
    Region and Section nodes; returns how many nodes got one."""
    batch.edges = [edge for edge in batch.edges if edge.type != "IS_SIMILAR"]
    batch.edges += similarity_edges(batch, similarity_k)
    graph = records_to_tensors(batch.nodes, batch.edges, model.config.groups)
    vectors = model.embed(graph).numpy()
    nodes = {(node.label, node.key): node for node in batch.nodes}
    for row, ref in enumerate(graph.nodes):
        nodes[ref].props[GNN_PROPERTY] = vectors[row].tolist()
    batch.stats["similarity_edges"] = sum(1 for edge in batch.edges if edge.type == "IS_SIMILAR")
    return len(graph.nodes)


@dataclass
class GnnStage:
    """Pipeline stage: read -> graph -> embed -> **gnn** -> write."""

    model: RelationalGNN
    similarity_k: int = DEFAULT_K
    checkpoint: str = ""  # which checkpoint the model came from (checkpoint_tag), for the document's build
    name: str = "gnn"

    def run(self, ctx: IngestContext) -> None:
        if ctx.batch is None:
            raise IngestError(f"{ctx.path.name}: the GNN stage needs a built graph")
        if not any(node.props.get("embedding") for node in ctx.batch.nodes if node.label == "Region"):
            return  # nothing embedded (an empty document): nothing to enrich
        apply_gnn(ctx.batch, self.model, self.similarity_k)


# ---- training -------------------------------------------------------------------------------


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
    settings: Settings, pdfs: Sequence[Path], encoder: TextEncoder, similarity_k: int = DEFAULT_K
) -> list[GraphBatch]:
    """Each PDF read, built into a graph, embedded (disk-cached) and given its IS_SIMILAR edges."""
    from app.embedding import embed_batch
    from app.pipeline import read_pdf
    from app.readers import make_reader
    from ingest.graph import build_graph

    reader = make_reader(settings.reader, settings)
    batches: list[GraphBatch] = []
    for pdf in pdfs:
        batch = build_graph(read_pdf(reader, pdf), ingested_at="1970-01-01T00:00:00+00:00")
        embed_batch(batch, encoder, cache_dir=settings.home / "cache")
        batch.edges += similarity_edges(batch, similarity_k)
        batches.append(batch)
    return batches


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
    from app.embedding import DiskCache, configured_encoder
    from app.pipeline import docgraph_release
    from app.resources import source_commit

    started = time.perf_counter()
    pdfs = _pdfs_under(docs_dir)
    unseen_pdfs = _unseen_pdfs(unseen_dir, pdfs) if unseen_dir else []  # refused before any reading
    encoder = configured_encoder(settings)
    cache = DiskCache(settings.home / "cache")  # queries are deterministic: a rerun encodes nothing
    batches = training_batches(settings, pdfs, encoder, settings.similarity_k)
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
    save_checkpoint(result.model, out, meta)
    load_gnn.cache_clear()
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
    from app.pipeline import expand_paths

    pdfs = expand_paths([folder])
    if not pdfs:
        raise IngestError(f"no PDF files under {folder}")
    return pdfs


def _training_document(
    batch: GraphBatch, encoder: TextEncoder, cache: DiskCache, seed: int, groups: Sequence[str]
) -> DocumentData:
    from app.embedding import encode_cached

    train, held = split_held_out(make_queries(batch, seed), seed=seed)
    train_vectors = encode_cached([q.text for q in train], encoder, cache)
    held_vectors = encode_cached([q.text for q in held], encoder, cache)
    return prepare_document(batch, train, train_vectors, held, held_vectors, groups)


def _unseen_pdfs(folder: Path, training: Sequence[Path]) -> list[Path]:
    """The PDFs under ``folder``; refuses one with the content of a training PDF, whose score would
    not be of an unseen document."""
    from ingest.pdf_checks import file_sha256

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
    from app.embedding import encode_cached

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
                    self.bar = tqdm(total=total, desc=f"epoch {int(numbers['epoch'])}", unit="step", leave=False)
                self.bar.set_postfix(loss=f"{numbers['loss']:.4f}")
                self.bar.update(1)
            else:
                tqdm.write(
                    f"epoch {done}/{total}: train {numbers['train_loss']:.4f}  held-out {numbers['held_out_loss']:.4f}"
                    f"  page R@1 {numbers['held_out_page_r1']:.3f}"
                )

        return update

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.close()

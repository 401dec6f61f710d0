"""GNN orchestration: the ingest stage, training from PDFs, and re-embedding stored documents.

- :class:`GnnStage` (after ``embed``, before ``graph_write``): adds IS_SIMILAR edges to the batch and
  sets ``props["gnn_embedding"]`` on every embedded Region and Section node.
- :func:`train_gnn`: reads and embeds the PDFs of a folder, makes pseudo-queries, trains, saves a
  checkpoint (config, weights, training log).
- :func:`reembed`: recomputes ``gnn_embedding`` of documents already in a store, e.g. after training.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from app.config import Settings
from app.cypher import load, render
from app.exceptions import IngestError, ModelError
from app.resources import ROOT
from app.schema import GNN_ABLATION_PROPERTIES, GNN_PROPERTY
from app.stores.base import ID_PROPERTY, GraphStore
from ingest.similarity import DEFAULT_K, similarity_edges
from ingest.types import EdgeRecord, GraphBatch, NodeRecord
from models.gnn import Checkpoint, GnnConfig, RelationalGNN, load_checkpoint, save_checkpoint
from models.graph_tensors import GROUPS, records_to_tensors
from models.pseudo_queries import make_queries, split_held_out
from models.training import EpochLog, TrainConfig, prepare_document, train_model, training_summary

if TYPE_CHECKING:
    from app.pipeline import IngestContext
    from models.encoders import TextEncoder

CHECKPOINT_DIR = ROOT / "models" / "checkpoints"
DEFAULT_CHECKPOINT = CHECKPOINT_DIR / "rgcn-minilm.pt"
GNN_LABELS: tuple[str, ...] = ("Region", "Section")
READ_EDGE_TYPES: tuple[str, ...] = ("HAS_NEXT", "IS_UNDER", "REF", "CAPTION_OF", "IS_SIMILAR")
WRITE_CHUNK = 500

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
    from app.readers import make_reader
    from ingest.graph import build_graph

    reader = make_reader(settings.reader, settings)
    batches: list[GraphBatch] = []
    for pdf in pdfs:
        batch = build_graph(reader.read(pdf), ingested_at="1970-01-01T00:00:00+00:00")
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
) -> TrainReport:
    """Train the GNN on the PDFs under ``docs_dir`` and save it to ``out``."""
    from app.embedding import DiskCache, configured_encoder, encode_cached
    from app.pipeline import expand_paths

    started = time.perf_counter()
    pdfs = expand_paths([docs_dir])
    if not pdfs:
        raise IngestError(f"no PDF files under {docs_dir}")
    encoder = configured_encoder(settings)
    batches = training_batches(settings, pdfs, encoder)
    gnn = GnnConfig(dim=encoder.dim, hidden=encoder.dim, groups=tuple(groups), encoder=settings.encoder_model)
    config = replace(config or TrainConfig(), epochs=epochs, seed=seed, gnn=gnn)
    docs, counts = [], {"train": 0, "held_out": 0}
    cache = DiskCache(settings.home / "cache")  # queries are deterministic: a rerun encodes nothing
    for batch in batches:
        train, held = split_held_out(make_queries(batch, seed), seed=seed)
        train_vectors = encode_cached([q.text for q in train], encoder, cache)
        held_vectors = encode_cached([q.text for q in held], encoder, cache)
        docs.append(prepare_document(batch, train, train_vectors, held, held_vectors, groups))
        counts["train"] += docs[-1].train.size
        counts["held_out"] += docs[-1].held_out.size
    with _ProgressBar(progress) as report_progress:
        result = train_model(docs, config, report_progress)
    meta = {
        "documents": [
            {"file": pdf.name, "doc_id": b.doc_id, "sha256": b.sha256} for pdf, b in zip(pdfs, batches, strict=True)
        ],
        "queries": counts,
        "seed": seed,
        "train_config": {k: v for k, v in config.__dict__.items() if k != "gnn"},
        **training_summary(result),
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
    )


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


# ---- re-embedding stored documents -----------------------------------------------------------


def reembed(
    store: GraphStore,
    settings: Settings,
    checkpoint: Path | None = None,
    doc_id: str | None = None,
    prop: str = GNN_PROPERTY,
) -> int:
    """Recompute the GNN vectors (``prop``) of stored documents (all, or ``doc_id``); returns nodes updated.

    A document stored without IS_SIMILAR edges gets them (computed from the stored embeddings).
    """
    model = gnn_for(settings, checkpoint)
    doc_ids = [doc_id] if doc_id else [str(row["doc_id"]) for row in store.read(load("gnn_documents", store.dialect))]
    updated = 0
    for document in doc_ids:
        nodes = _stored_nodes(store, document)
        edges = _stored_edges(store, document)
        if not any(edge.type == "IS_SIMILAR" for edge in edges):
            batch = GraphBatch(doc_id=document, sha256="", nodes=nodes)
            fresh = similarity_edges(batch)
            _write_similarity(store, fresh)
            edges += fresh
        graph = records_to_tensors(nodes, edges, model.config.groups)
        vectors = model.embed(graph).numpy()
        updated += _write_vectors(store, graph.nodes, vectors, prop)
        if prop == GNN_PROPERTY:
            _record_checkpoint(store, document, checkpoint_tag(checkpoint or configured_checkpoint(settings)))
    return updated


def _record_checkpoint(store: GraphStore, doc_id: str, tag: str) -> None:
    """Name the checkpoint in the document's build, so that the build says what made its vectors and
    retrieval (which reloads a document whose build changed) reads the new ones."""
    from app.pipeline import with_gnn_build

    [row] = store.read(load("document_build", store.dialect), {"doc_id": doc_id}) or [{"build": ""}]
    build = with_gnn_build(str(row["build"]), tag)
    store.write(load("set_document_build", store.dialect), {"doc_id": doc_id, "build": build})


def ensure_variant(store: GraphStore, settings: Settings, name: str, doc_id: str | None = None) -> str:
    """Compute a GNN variant's vectors for stored documents; returns the Region property they are in.

    The main ``gnn`` variant is also written at ingest; ablation variants (``no-cross-page``,
    ``no-sim``) live in properties of their own, which only exact in-document vector search reads.
    Vectors are recomputed every time: inference takes seconds per document.
    """
    variant = GNN_VARIANTS.get(name)
    if variant is None:
        raise ModelError(f"unknown GNN variant {name!r}; choose one of: {', '.join(GNN_VARIANTS)}")
    model = gnn_for(settings, variant.checkpoint)
    if set(model.config.groups) != set(variant.groups):
        raise ModelError(f"{variant.checkpoint} was trained with relation groups {list(model.config.groups)}")
    reembed(store, settings, variant.checkpoint, doc_id, variant.prop)
    return variant.prop


def _stored_nodes(store: GraphStore, doc_id: str) -> list[NodeRecord]:
    nodes: list[NodeRecord] = []
    for label in GNN_LABELS:
        query = render("gnn_read_nodes", store.dialect, label=label, id=ID_PROPERTY[label])
        for row in store.read(query, {"doc_id": doc_id}):
            embedding = row.get("embedding")
            props = {"kind": row.get("kind"), "page": row.get("page"), "embedding": _floats(embedding)}
            nodes.append(NodeRecord(label, str(row["key"]), props))
    return nodes


def _stored_edges(store: GraphStore, doc_id: str) -> list[EdgeRecord]:
    edges: list[EdgeRecord] = []
    for label in GNN_LABELS:
        query = render("gnn_read_edges", store.dialect, label=label, id=ID_PROPERTY[label])
        for row in store.read(query, {"doc_id": doc_id, "types": list(READ_EDGE_TYPES)}):
            props = {"cross_page": bool(row.get("cross_page")), "continuation": bool(row.get("continuation"))}
            edges.append(
                EdgeRecord(str(row["type"]), label, str(row["src"]), str(row["dst_label"]), str(row["dst"]), props)
            )
    return edges


def _floats(value: Any) -> list[float] | None:
    if value is None:
        return None
    return [float(v) for v in value]


def _write_similarity(store: GraphStore, edges: list[EdgeRecord]) -> None:
    rows = [{"src": e.src_key, "dst": e.dst_key, "score": e.props["score"]} for e in edges]
    query = load("gnn_write_similar", store.dialect)
    for start in range(0, len(rows), WRITE_CHUNK):
        store.write(query, {"rows": rows[start : start + WRITE_CHUNK]})


def _write_vectors(store: GraphStore, refs: list[tuple[str, str]], vectors: np.ndarray, prop: str) -> int:
    written = 0
    for label in GNN_LABELS:
        rows = [{"key": key, "vector": vectors[i].tolist()} for i, (lab, key) in enumerate(refs) if lab == label]
        query = render("gnn_write_embeddings", store.dialect, label=label, id=ID_PROPERTY[label], property=prop)
        for start in range(0, len(rows), WRITE_CHUNK):
            result = store.write(query, {"rows": rows[start : start + WRITE_CHUNK]})
            written += int(result[0]["written"]) if result else 0
    return written

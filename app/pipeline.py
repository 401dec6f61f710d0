"""Ingestion pipeline: a sequence of stages over one context object per document.

read (PDF -> regions) -> graph (regions -> node/edge records) -> embed (optional) -> write (one
transaction). Parsing and embedding finish before anything is written, so a bad file never touches
the graph, and the store's transactional write keeps a failed write from leaving half a document.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from app.config import Settings
from app.exceptions import BadDocumentError, DocgraphError, IngestError
from app.stores.base import GraphStore, WriteResult
from ingest.errors import PdfInputError
from ingest.graph import build_graph
from ingest.types import (
    BUILD_SEPARATOR,
    GNN_BUILD_PREFIX,
    DocumentLayout,
    GraphBatch,
    ProgressCallback,
    Reader,
)

if TYPE_CHECKING:
    from app.gnn import GnnStage

ProgressFn = Callable[[str, int, int], None]  # (stage, done, total)


@dataclass
class IngestContext:
    path: Path
    progress: ProgressFn | None = None
    build: str = ""  # how the pipeline builds graphs (see GraphBatch.version)
    layout: DocumentLayout | None = None
    batch: GraphBatch | None = None
    result: WriteResult | None = None
    refreshed: bool = False  # the stored version's GNN vectors (another checkpoint's) were replaced by this build's
    timings: dict[str, float] = field(default_factory=dict)


class Stage(Protocol):
    name: str

    def run(self, ctx: IngestContext) -> None: ...


@dataclass
class ReadStage:
    reader: Reader
    name: str = "read"

    def run(self, ctx: IngestContext) -> None:
        def page_done(done: int, total: int) -> None:
            if ctx.progress:
                ctx.progress("read", done, total)

        ctx.layout = read_pdf(self.reader, ctx.path, page_done)


@dataclass
class GraphStage:
    name: str = "graph"

    def run(self, ctx: IngestContext) -> None:
        assert ctx.layout is not None
        ingested_at = datetime.now(UTC).isoformat(timespec="seconds")
        ctx.batch = build_graph(ctx.layout, ingested_at=ingested_at, build=ctx.build)
        document = next(n for n in ctx.batch.nodes if n.label == "Document")
        document.props["source_path"] = str(ctx.path.resolve())


@dataclass
class EmbedStage:
    encoder: Any  # models.encoders.TextEncoder; typed loosely to keep torch out of import time
    name: str = "embed"

    def run(self, ctx: IngestContext) -> None:
        from app.embedding import embed_batch

        assert ctx.batch is not None
        embed_batch(ctx.batch, self.encoder)


@dataclass
class WriteStage:
    store: GraphStore
    files_dir: Path | None = None  # where a copy of each PDF is kept for rendering
    force: bool = False  # rewrite a document stored in the same version (GraphStore.write_document)
    name: str = "graph_write"

    def run(self, ctx: IngestContext) -> None:
        assert ctx.batch is not None
        ctx.result = self.store.write_document(ctx.batch, force=self.force)
        if not ctx.result.written:
            from app.gnn_store import refresh_stale_gnn

            ctx.refreshed = refresh_stale_gnn(self.store, ctx.batch)
        if self.files_dir is not None:
            keep_copy(ctx.path, self.files_dir, ctx.batch.sha256)


def keep_copy(path: Path, files_dir: Path, sha256: str) -> Path:
    """Keep the PDF under the data home by content hash, so pages render after the file moves."""
    target = files_dir / f"{sha256}.pdf"
    if not target.exists():
        files_dir.mkdir(parents=True, exist_ok=True)
        tmp = target.with_suffix(".part")
        shutil.copyfile(path, tmp)
        tmp.replace(target)
    return target


@dataclass
class IngestReport:
    path: Path
    doc_id: str = ""
    pages: int = 0
    regions: int = 0
    sections: int = 0
    nodes: dict[str, int] = field(default_factory=dict)
    edges: dict[str, int] = field(default_factory=dict)
    stats: dict[str, Any] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)
    seconds: float = 0.0
    status: str = "ingested"  # ingested | replaced | refreshed | unchanged | failed
    error: str = ""
    notes: list[str] = field(default_factory=list)  # what the pipeline ran without (OCR, the GNN, …)

    def to_json(self) -> dict[str, Any]:
        return {
            "file": str(self.path),
            "doc_id": self.doc_id,
            "status": self.status,
            "error": self.error,
            "pages": self.pages,
            "regions": self.regions,
            "sections": self.sections,
            "nodes": self.nodes,
            "edges": self.edges,
            "stats": self.stats,
            "stages": {name: round(seconds, 3) for name, seconds in self.timings.items()},
            "seconds": round(self.seconds, 3),
            "notes": list(self.notes),
        }


class IngestPipeline:
    def __init__(self, stages: Sequence[Stage], notes: Sequence[str] = (), build: str = "") -> None:
        self.stages = list(stages)
        self.notes = list(notes)  # what is switched off and why, for the user to see once
        self.build = build  # part of each document's version: another build replaces a stored one

    def ingest(self, path: Path, progress: ProgressFn | None = None) -> IngestReport:
        report = self._run(path, progress)
        report.notes = list(self.notes)
        return report

    def _run(self, path: Path, progress: ProgressFn | None) -> IngestReport:
        ctx = IngestContext(path=path, progress=progress, build=self.build)
        started = time.perf_counter()
        try:
            for stage in self.stages:
                stage_start = time.perf_counter()
                stage.run(ctx)
                ctx.timings[stage.name] = time.perf_counter() - stage_start
        except DocgraphError as exc:
            return IngestReport(path=path, status="failed", error=str(exc), timings=ctx.timings)
        except Exception as exc:
            message = f"{path.name}: {type(exc).__name__}: {exc}"
            return IngestReport(path=path, status="failed", error=message, timings=ctx.timings)
        return _report(ctx, time.perf_counter() - started)


def _report(ctx: IngestContext, seconds: float) -> IngestReport:
    if ctx.batch is None:
        raise IngestError(f"{ctx.path.name}: no graph was built")
    batch, result = ctx.batch, ctx.result
    nodes = batch.node_counts()
    status = "ingested"
    if result is not None and not result.written:
        status = "refreshed" if ctx.refreshed else "unchanged"
    elif result is not None and result.replaced:
        status = "replaced"
    return IngestReport(
        path=ctx.path,
        doc_id=batch.doc_id,
        pages=nodes.get("Page", 0),
        regions=nodes.get("Region", 0),
        sections=nodes.get("Section", 0),
        nodes=nodes,
        edges=batch.edge_counts(),
        stats=dict(batch.stats),
        timings=ctx.timings,
        seconds=seconds,
        status=status,
    )


def expand_paths(paths: Iterable[Path]) -> list[Path]:
    """Files as given, and the PDFs inside folders (recursively, sorted)."""
    found: list[Path] = []
    for path in paths:
        if path.is_dir():
            found.extend(sorted(p for p in path.rglob("*") if p.suffix.lower() == ".pdf" and p.is_file()))
        else:
            found.append(path)
    return found


def read_pdf(reader: Reader, path: Path, progress: ProgressCallback | None = None) -> DocumentLayout:
    """``path`` read by ``reader``; a missing, unreadable or broken file is a one-line
    :class:`BadDocumentError`, not a traceback."""
    check_exists(path)
    try:
        return reader.read(path, progress=progress)
    except PdfInputError as exc:
        raise BadDocumentError(str(exc)) from exc


def check_exists(path: Path) -> None:
    if not path.exists():
        raise BadDocumentError(f"{path}: no such file")
    if not path.is_file():
        raise BadDocumentError(f"{path}: not a file")


def build_ingest_pipeline(
    store: GraphStore, settings: Settings, reader: Reader | None = None, embed: bool = True, force: bool = False
) -> IngestPipeline:
    """The standard pipeline: read, build the graph, embed regions (unless told not to), write.

    Its ``build`` names the reader, the encoder, the GNN checkpoint and the docgraph release: a file
    stored as another pipeline built it is rebuilt (for another checkpoint only, its GNN vectors
    are rewritten), not skipped as unchanged. ``force``
    rebuilds a file stored as this pipeline builds it too: what the build does not name (a change
    to docgraph's code within one release) reaches it only so."""
    from app.readers import make_reader, reader_notes

    chosen = reader or make_reader(settings.reader, settings)
    stages: list[Stage] = [ReadStage(chosen), GraphStage()]
    notes: list[str] = reader_notes(chosen)
    build = [f"docgraph {docgraph_release()}", reader_build(chosen, settings)]
    if embed:
        from app.embedding import configured_encoder

        stages.append(EmbedStage(configured_encoder(settings)))
        build.append(encoder_build(settings))
        gnn = _gnn_stages(settings, notes)
        stages.extend(gnn)
        build += similarity_build(settings)  # before the GNN part, which with_gnn_build keeps last
        build += [gnn_build(stage.checkpoint) for stage in gnn]
        if settings.similarity_corpus_k:
            from app.corpus_similarity import CorpusSimilarityStage

            stages.append(CorpusSimilarityStage(store, settings.similarity_corpus_k, settings.similarity_corpus_min))
    else:
        notes.append("embeddings off (--no-embed): vector search and the GNN will not see these documents")
        build.append("no embeddings")
    stages.append(WriteStage(store, files_dir=settings.home / "files", force=force))
    return IngestPipeline(stages, notes, "; ".join(build))


def reader_build(reader: Reader, settings: Settings) -> str:
    """The reader's part of a build: its name, and for the layout-model readers the model and the
    OCR languages, which change what they read (``ocr off`` for ``auto`` without tesseract, so that
    its scanned documents are read again once it is installed), and whether pictures are OCR'd."""
    from app.readers import reader_ocr_off

    if reader.name not in ("detector", "auto"):
        return f"reader {reader.name}"
    if reader_ocr_off(reader):
        ocr = "ocr off"
    else:
        ocr = f"ocr {settings.ocr_lang}" + (" and pictures" if getattr(reader, "image_text", False) else "")
    return f"reader {reader.name} (layout model {settings.detector_model or 'default'}, {ocr})"


def encoder_build(settings: Settings) -> str:
    """The encoder's part of a build: its model, and the runtime unless torch (int8 changes vectors)."""
    runtime = "" if settings.encoder_runtime == "torch" else f" ({settings.encoder_runtime})"
    return f"encoder {settings.encoder_model}{runtime}"


def similarity_build(settings: Settings) -> list[str]:
    """The kNN settings' part of a build, when not the defaults: another ``k`` changes the GNN's input
    graph, and turning on neighbours in other documents must relink a document re-ingested for it."""
    from ingest.similarity import DEFAULT_K  # not at import: it loads numpy, which light commands never need

    parts = [f"similar k={settings.similarity_k}"] if settings.similarity_k != DEFAULT_K else []
    if settings.similarity_corpus_k:
        parts.append(f"similar in corpus k={settings.similarity_corpus_k} min={settings.similarity_corpus_min:g}")
    return parts


def gnn_build(checkpoint_tag: str) -> str:
    """The GNN's part of a build: ``gnn <checkpoint file> <sha256 prefix>``."""
    return f"{GNN_BUILD_PREFIX}{checkpoint_tag}"


def with_gnn_build(build: str, checkpoint_tag: str) -> str:
    """``build`` with its GNN part naming ``checkpoint_tag`` (added when it had none)."""
    parts = [p for p in build.split(BUILD_SEPARATOR) if p and not p.startswith(GNN_BUILD_PREFIX)]
    return BUILD_SEPARATOR.join([*parts, gnn_build(checkpoint_tag)])


def docgraph_release() -> str:
    """The installed docgraph version ("unknown" when run from a source tree that is not installed)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("docgraph")
    except PackageNotFoundError:
        return "unknown"


def _gnn_stages(settings: Settings, notes: list[str]) -> list[GnnStage]:
    """The GNN stage when the shipped (or configured) checkpoint fits the encoder; none otherwise.

    Without a fitting checkpoint regions still get text embeddings; ``docgraph reembed`` adds the GNN
    vectors after ``docgraph train-gnn``.
    """
    from app.exceptions import ModelError
    from app.gnn import GnnStage, checkpoint_tag, configured_checkpoint, gnn_for

    try:
        model = gnn_for(settings)
        tag = checkpoint_tag(configured_checkpoint(settings))
        return [GnnStage(model, similarity_k=settings.similarity_k, checkpoint=tag)]
    except (ModelError, FileNotFoundError) as exc:
        notes.append(f"GNN embeddings off: {exc}")
        return []

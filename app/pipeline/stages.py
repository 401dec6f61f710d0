"""The stage framework: one context object per document, passed through a list of stages.

The stages defined here are the ones every pipeline has: read (PDF -> regions), graph (regions ->
node and edge records), embed, and write (one transaction). Parsing and embedding finish before
anything is written, so a bad file never touches the graph. ``build.py`` puts the list together.
"""

from __future__ import annotations

import hashlib
import shutil
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from docgraph.app.pipeline.embedding import embed_batch
from docgraph.app.pipeline.gnn_store import refresh_stale_gnn
from docgraph.app.stores import cypher
from docgraph.app.stores.base import GraphStore, WriteResult
from docgraph.errors import BadDocumentError, DocgraphError, IngestError
from docgraph.ingest.graph import build_graph
from docgraph.ingest.types import DocumentLayout, ProgressCallback, Reader
from docgraph.records import GraphBatch

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
        previous = stored_sha256(self.store, ctx.batch.doc_id) if self.files_dir is not None else None
        ctx.result = self.store.write_document(ctx.batch, force=self.force)
        if not ctx.result.written:
            ctx.refreshed = refresh_stale_gnn(self.store, ctx.batch)
        if self.files_dir is not None:
            keep_copy(ctx.path, self.files_dir, ctx.batch.sha256)
            if previous and previous != ctx.batch.sha256:  # another file replaced: its copy may go
                drop_unused_copy(self.store, self.files_dir, previous)


def embedded_batch(ctx: IngestContext, stage: str) -> GraphBatch | None:
    """The batch a stage after ``embed`` works on; None when no region was embedded (an empty
    document: nothing to link or enrich)."""
    if ctx.batch is None:
        raise IngestError(f"{ctx.path.name}: the {stage} stage needs a built graph")
    if not any(node.props.get("embedding") for node in ctx.batch.nodes if node.label == "Region"):
        return None
    return ctx.batch


def kept_copies_dir(home: Path, store: GraphStore) -> Path:
    """Where the PDFs of ``store``'s documents are kept under the data home: one folder per store,
    so that deleting a document of one graph never takes a file another graph renders from."""
    return home / "files" / hashlib.sha256(store.url.encode()).hexdigest()[:12]


def stored_sha256(store: GraphStore, doc_id: str) -> str | None:
    rows = store.read(cypher.load("document_sha256", store.dialect), {"doc_id": doc_id})
    return str(rows[0]["sha256"]) if rows and rows[0]["sha256"] else None


def drop_unused_copy(store: GraphStore, files_dir: Path, sha256: str) -> None:
    """Remove the kept copy of ``sha256`` unless a stored document still has that content."""
    rows = store.read(cypher.load("count_documents_with_sha256", store.dialect), {"sha256": sha256})
    if not rows or not int(rows[0]["documents"] or 0):
        (files_dir / f"{sha256}.pdf").unlink(missing_ok=True)


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
    return reader.read(path, progress=progress)


def check_exists(path: Path) -> None:
    if not path.exists():
        raise BadDocumentError(f"{path}: no such file")
    if not path.is_file():
        raise BadDocumentError(f"{path}: not a file")

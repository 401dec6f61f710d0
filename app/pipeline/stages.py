"""The stages: one context object per document, passed through a list of them.

The stages defined here are the ones every pipeline has: read (PDF -> regions), graph (regions ->
node and edge records), embed, and write (one transaction). Parsing and embedding finish before
anything is written, so a bad file never touches the graph. ``build.py`` puts the list together;
:mod:`app.pipeline.ingest_pipeline` runs it, the store-free work on the executor's workers.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from docgraph.app.file_states import FileState, file_state
from docgraph.app.pipeline.descriptions import carry_descriptions
from docgraph.app.pipeline.embedding import embed_batch
from docgraph.app.pipeline.execution.base import SourceFile, TaskExecutor
from docgraph.app.pipeline.execution.spread_encoder import SpreadEncoder
from docgraph.app.pipeline.gnn_store import refresh_stale_gnn
from docgraph.app.pipeline.unchanged import same_source, source_path_of, uploaded_source
from docgraph.app.pipeline.vanished_links import Relink, links_with_other_documents, write_with_current_links
from docgraph.app.stores.base import GraphStore, Row, WriteResult
from docgraph.app.stores.cypher import load
from docgraph.app.stores.kept_copies import (
    changed_message,
    copies_locked,
    drop_unused_copy,
    keep_copy,
)
from docgraph.app.stores.page_cache import drop_unused_images
from docgraph.errors import BadDocumentError, IngestError, StoreError
from docgraph.ingest.types import DocumentLayout
from docgraph.records import GraphBatch

if TYPE_CHECKING:  # the scanners load PyMuPDF, which asking a question does without
    from docgraph.ingest.page.scan import PageScan

ProgressFn = Callable[[str, int, int], None]  # (stage, done, total); at the end (status, 1, 1)


@dataclass
class IngestContext:
    path: Path
    progress: ProgressFn | None = None
    build: str = ""  # how the pipeline builds graphs (see GraphBatch.version)
    tasks: TaskExecutor | None = None  # where the store-free work runs
    source: SourceFile | None = None  # the file as the executor's workers read it
    scans: list[PageScan] | None = None  # every page's scan, before assembly (paged readers)
    layout: DocumentLayout | None = None  # a whole document's layout (readers that are not paged)
    batch: GraphBatch | None = None
    result: WriteResult | None = None
    refreshed: bool = False  # the stored version's GNN vectors (another checkpoint's) were replaced by this build's
    file_state: FileState | None = None  # the file as the ingest began, to tell whether it changed since
    uploaded_as: str = ""  # a client's upload (API, UI) of this name: its temporary path is no source
    replace: bool = False  # the caller lets this file replace whatever its document id holds at the write
    timings: dict[str, float] = field(default_factory=dict)

    def run(self, method: str, *args: Any) -> Future[Any]:
        if self.tasks is None or self.source is None:
            raise IngestError(f"{self.path.name}: this stage runs inside a pipeline (no executor given)")
        return self.tasks.submit(method, *args)


class Stage(Protocol):
    name: str

    def run(self, ctx: IngestContext) -> None: ...


@dataclass
class GraphStage:
    """Assembly (over the whole document) and graph records, in one task on a worker."""

    name: str = "graph"

    def run(self, ctx: IngestContext) -> None:
        ingested_at = datetime.now(UTC).isoformat(timespec="seconds")
        read = ctx.scans if ctx.scans is not None else ctx.layout
        if read is None:
            raise IngestError(f"{ctx.path.name}: the graph stage needs a read document")
        ctx.batch = ctx.run("build_graph", ctx.source, read, ctx.build, ingested_at).result()
        ctx.scans = ctx.layout = None  # what the batch holds now; the rest may go
        document = next(n for n in ctx.batch.nodes if n.label == "Document")
        document.props["source_path"] = (
            uploaded_source(ctx.uploaded_as) if ctx.uploaded_as else source_path_of(ctx.path)
        )


@dataclass
class EmbedStage:
    """Region and section embeddings; with several workers, their texts are encoded in chunks there."""

    encoder: Any = None  # models.encoders.TextEncoder, or None: the executor's workers encode
    name: str = "embed"

    def run(self, ctx: IngestContext) -> None:
        assert ctx.batch is not None and ctx.tasks is not None
        if self.encoder is None:  # the workers' encoder: its name and size asked once, not per document
            self.encoder = SpreadEncoder.of(ctx.tasks)
        progress = ctx.progress
        counted = None if progress is None else lambda done, total: progress(self.name, done, total)
        embed_batch(ctx.batch, self.encoder, progress=counted)  # "embed 120/300" regions, batch by batch


@dataclass
class WorkerStage:
    """An in-document stage (similarity, GNN) run on a worker by name; the batch comes back."""

    name: str

    def run(self, ctx: IngestContext) -> None:
        ctx.batch = ctx.run("run_stage", self.name, ctx.path, ctx.batch).result()


@dataclass
class WriteStage:
    store: GraphStore
    uses_store = True  # run by one document at a time (IngestPipeline)
    files_dir: Path | None = None  # where a copy of each PDF is kept for rendering
    page_cache: Path | None = None  # where rendered page images are kept (a replaced version's go)
    force: bool = False  # rewrite a document stored in the same version (GraphStore.write_document)
    relink: Relink | None = None  # chooses the links to other documents again (corpus_similarity_edges)
    name: str = "graph_write"

    def run(self, ctx: IngestContext) -> None:
        """The copy is kept before the write (a full disk fails the ingest, not a stored document
        without its PDF), and goes again if the write fails and nothing else uses it."""
        assert ctx.batch is not None
        check_unchanged(ctx)
        if self.files_dir is None:
            stored = self._stored_unless_taken(ctx)
            self._write(ctx, stored)
        else:
            with copies_locked(self.files_dir):  # held by every write on this data home: no write comes between
                stored = self._stored_unless_taken(ctx)
                self._write_with_copy(ctx, self.files_dir, stored)
        if stored is not None and ctx.result is not None and ctx.result.written:
            self._drop_replaced_images(str(stored["sha256"] or ""))

    def _stored_unless_taken(self, ctx: IngestContext) -> Row | None:
        """What is stored under the document's id (its sha256 and source_path; None: nothing), with
        the caller's check of the name made again: another process may have stored another file
        under this id since (two files of one new name, in two processes, or in a long batch), and a
        name alone never replaces a document. A file replaces what was read from its own path; an
        upload, nothing but its own content."""
        assert ctx.batch is not None
        rows = self.store.read(load("stored_source", self.store.dialect), {"doc_id": ctx.batch.doc_id})
        stored = rows[0] if rows else None
        if stored is None or ctx.replace or stored["sha256"] == ctx.batch.sha256:
            return stored
        source = str(stored["source_path"] or "")
        # An upload's name was let through only with nothing else stored under it (the API, the web
        # app): any other content there now came since.
        if ctx.uploaded_as or (source and not same_source(source, ctx.path)):
            raise BadDocumentError(taken_message(ctx.path.name, ctx.batch.doc_id, source))
        return stored

    def _write_with_copy(self, ctx: IngestContext, files_dir: Path, stored: Row | None) -> None:
        assert ctx.batch is not None
        previous = str(stored["sha256"] or "") if stored else ""
        made = keep_copy(ctx.path, files_dir, ctx.batch.sha256)
        try:
            self._write(ctx, stored)
        except BaseException:
            if made:
                drop_unused_copy(self.store, files_dir, ctx.batch.sha256)
            raise
        if previous and previous != ctx.batch.sha256:  # another file replaced: its copy may go
            drop_unused_copy(self.store, files_dir, previous)

    def _drop_replaced_images(self, sha256: str) -> None:
        """The replaced version's cached page images (another file's, or those of the reading a
        --force re-read replaced), but those of stored documents of that content. Best effort: a
        later delete of the document takes what is left."""
        if self.page_cache is not None and sha256:
            with contextlib.suppress(StoreError, OSError):
                drop_unused_images(self.store, self.page_cache, sha256)

    def _write(self, ctx: IngestContext, stored: Row | None) -> None:
        assert ctx.batch is not None
        carry_descriptions(self.store, ctx.batch)
        doc_id = ctx.batch.doc_id
        linked = links_with_other_documents(self.store, doc_id) if stored else 0
        ctx.result = write_with_current_links(self.store, ctx.batch, self.force, self.relink)
        if not ctx.result.written:
            ctx.refreshed = refresh_stale_gnn(self.store, ctx.batch)
        elif linked and not links_with_other_documents(self.store, doc_id):  # `docgraph relink` made them
            ctx.batch.stats["links_with_other_documents_dropped"] = linked


def embedded_batch(ctx: IngestContext, stage: str) -> GraphBatch | None:
    """The batch a stage after ``embed`` works on; None when no region was embedded (an empty
    document: nothing to link or enrich)."""
    if ctx.batch is None:
        raise IngestError(f"{ctx.path.name}: the {stage} stage needs a built graph")
    if not any(_has_vector(node.props.get("embedding")) for node in ctx.batch.nodes if node.label == "Region"):
        return None
    return ctx.batch


def _has_vector(value: Any) -> bool:
    return value is not None and len(value) > 0


def taken_message(file_name: str, doc_id: str, source: str) -> str:
    return (
        f"{file_name}: another file is stored as {doc_id!r} ({source}), stored since this one's name was "
        "checked; nothing was written: replace that document (--replace, replace=true) or rename this file"
    )


def file_changed(ctx: IngestContext) -> bool:
    """Whether the file is not as it was when its ingest began (rewritten, replaced or gone)."""
    return ctx.file_state is not None and file_state(ctx.path) != ctx.file_state


def check_unchanged(ctx: IngestContext) -> None:
    """Refuse to write a graph read from a file that was rewritten (or replaced) while it was read:
    its pages may come from two versions. Nothing is written; ingesting it again reads it whole."""
    if file_changed(ctx):
        raise BadDocumentError(changed_message(ctx.path))

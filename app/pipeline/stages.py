"""The stage framework: one context object per document, passed through a list of stages.

The stages defined here are the ones every pipeline has: read (PDF -> regions), graph (regions ->
node and edge records), embed, and write (one transaction). Parsing and embedding finish before
anything is written, so a bad file never touches the graph. ``build.py`` puts the list together.

The store-free work goes through the pipeline's executor (:mod:`app.pipeline.execution`): page
windows are read, texts encoded and the in-document stages run on its workers, several documents
at a time; the stages that use the store run in this process, one document at a time.
"""

from __future__ import annotations

import contextvars
import time
from collections.abc import Callable, Collection, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from docgraph.app.pipeline.descriptions import carry_descriptions
from docgraph.app.pipeline.embedding import embed_batch
from docgraph.app.pipeline.execution.base import SourceFile, TaskExecutor
from docgraph.app.pipeline.execution.spread_encoder import SpreadEncoder
from docgraph.app.pipeline.gnn_store import refresh_stale_gnn
from docgraph.app.pipeline.memory import release_free_memory
from docgraph.app.pipeline.reports import IngestReport
from docgraph.app.pipeline.store_locks import store_lock
from docgraph.app.pipeline.unchanged import (
    KEPT_EMBEDDINGS_NOTE,
    note_moved_source,
    stored_as_built,
    uploaded_source,
)
from docgraph.app.pipeline.vanished_links import Relink, write_with_current_links
from docgraph.app.stores.base import GraphStore, WriteResult
from docgraph.app.stores.kept_copies import (
    changed_message,
    copies_locked,
    drop_unused_copy,
    is_kept,
    keep_copy,
    stored_sha256,
)
from docgraph.errors import BadDocumentError, DocgraphError, IngestError, IngestInterrupted, WorkerLostError
from docgraph.ingest.types import DocumentLayout
from docgraph.records import GraphBatch

if TYPE_CHECKING:  # the scanners load PyMuPDF, which asking a question does without
    from docgraph.ingest.page.scan import PageScan

FileState = tuple[int, int, int]  # size, modification time (ns), inode
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
        document.props["source_path"] = uploaded_source(ctx.uploaded_as) if ctx.uploaded_as else str(ctx.path.resolve())


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
    force: bool = False  # rewrite a document stored in the same version (GraphStore.write_document)
    relink: Relink | None = None  # chooses the links to other documents again (corpus_similarity_edges)
    name: str = "graph_write"

    def run(self, ctx: IngestContext) -> None:
        """The copy is kept before the write (a full disk fails the ingest, not a stored document
        without its PDF), and goes again if the write fails and nothing else uses it."""
        assert ctx.batch is not None
        check_unchanged(ctx)
        if self.files_dir is None:
            self._write(ctx)
            return
        with copies_locked(self.files_dir):
            self._write_with_copy(ctx, self.files_dir)

    def _write_with_copy(self, ctx: IngestContext, files_dir: Path) -> None:
        assert ctx.batch is not None
        previous = stored_sha256(self.store, ctx.batch.doc_id)
        made = keep_copy(ctx.path, files_dir, ctx.batch.sha256)
        try:
            self._write(ctx)
        except BaseException:
            if made:
                drop_unused_copy(self.store, files_dir, ctx.batch.sha256)
            raise
        if previous and previous != ctx.batch.sha256:  # another file replaced: its copy may go
            drop_unused_copy(self.store, files_dir, previous)

    def _write(self, ctx: IngestContext) -> None:
        assert ctx.batch is not None
        carry_descriptions(self.store, ctx.batch)
        ctx.result = write_with_current_links(self.store, ctx.batch, self.force, self.relink)
        if not ctx.result.written:
            ctx.refreshed = refresh_stale_gnn(self.store, ctx.batch)


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


def file_state(path: Path) -> FileState | None:
    """What tells one content of a file from the next without reading it (None: no such file)."""
    try:
        found = path.stat()
    except OSError:
        return None
    return found.st_size, found.st_mtime_ns, found.st_ino


def file_changed(ctx: IngestContext) -> bool:
    """Whether the file is not as it was when its ingest began (rewritten, replaced or gone)."""
    return ctx.file_state is not None and file_state(ctx.path) != ctx.file_state


def check_unchanged(ctx: IngestContext) -> None:
    """Refuse to write a graph read from a file that was rewritten (or replaced) while it was read:
    its pages may come from two versions. Nothing is written; ingesting it again reads it whole."""
    if file_changed(ctx):
        raise BadDocumentError(changed_message(ctx.path))


class IngestPipeline:
    """The stages, and the executor their store-free work runs on (``tasks``)."""

    def __init__(self, stages: Sequence[Stage], notes: Sequence[str] = (), build: str = "", *, tasks: TaskExecutor):
        self.stages = list(stages)
        self.notes = list(notes)  # what is switched off and why, for the user to see once
        self.build = build  # part of each document's version: another build replaces a stored one
        self.tasks = tasks
        self._store_lock = store_lock(_written_store(self.stages))  # one document at a time in store stages

    def ingest(self, path: Path, progress: ProgressFn | None = None, uploaded_as: str = "") -> IngestReport:
        """One file through the stages; ``progress`` hears each stage start (name, 0, 0) and what it
        reports as it goes, then the outcome (its status, 1, 1). ``uploaded_as``: the client's name
        of an uploaded file, recorded as its source instead of the upload's temporary path."""
        report = self._run(path, progress, uploaded_as)
        report.notes = report.notes or list(self.notes)  # a document kept as stored says why instead
        if progress:
            progress(report.status, 1, 1)
        return report

    def ingest_many(
        self,
        paths: Sequence[Path],
        progress: Callable[[Path], ProgressFn | None] | None = None,
        finishing: Callable[[list[Path]], None] | None = None,
        uploaded: Collection[Path] = (),
    ) -> list[IngestReport]:
        """Every file, in order of ``paths``: one after another with one worker; with more, as many
        documents at once as there are workers, and one more, the largest files first. The files in
        ``uploaded`` are a client's uploads (see :meth:`ingest`).

        Ctrl-C raises :class:`IngestInterrupted` with the reports of the files that ended: one after
        another, the file being read stops; with workers, the documents under way finish first
        (``finishing`` is told which) and those not started are left."""

        def one(path: Path) -> IngestReport:
            return self.ingest(path, progress(path) if progress else None, path.name if path in uploaded else "")

        if self.tasks.workers <= 1 or len(paths) <= 1:
            reports: list[IngestReport] = []
            try:
                for path in paths:
                    reports.append(one(path))
            except KeyboardInterrupt:
                raise IngestInterrupted(reports, paths[len(reports) :]) from None
            return reports
        order = sorted(range(len(paths)), key=lambda i: -_file_size(paths[i]))
        documents = ThreadPoolExecutor(self.tasks.workers + 1, thread_name_prefix="docgraph-document")
        futures: dict[int, Future[IngestReport]] = {}
        abandoned = False
        try:  # each in a copy of this context: a block the caller opened (fulltext_refresh_deferred) covers it
            for i in order:  # one by one: an interrupt among them keeps those submitted
                futures[i] = documents.submit(contextvars.copy_context().run, one, paths[i])
            return [futures[i].result() for i in range(len(paths))]
        except KeyboardInterrupt:
            if finishing is not None:
                finishing([paths[i] for i, future in futures.items() if future.running()])
            abandoned = not _waited_for(documents)
            ended = [i for i in sorted(futures) if _ended_well(futures[i])]
            reports = [futures[i].result() for i in ended]
            left = [paths[i] for i in range(len(paths)) if i not in ended]
            raise IngestInterrupted(reports, left, abandoned) from None
        finally:
            documents.shutdown(wait=not abandoned, cancel_futures=True)

    def _unchanged(self, path: Path, started: float, uploaded: bool) -> IngestReport | None:
        """The report of a file stored as this pipeline builds it, without reading it (its kept
        copy made again if it went); None when it must run (another version or build, --force)."""
        write = _write_stage(self.stages)
        if write is None or write.force or not path.is_file():
            return None
        stored = stored_as_built(write.store, path, self.build)
        if stored is not None and write.files_dir is not None and not is_kept(write.files_dir, stored.sha256):
            with copies_locked(write.files_dir):  # asked again: a delete may have come in between
                stored = stored_as_built(write.store, path, self.build)
                if stored is not None:
                    keep_copy(path, write.files_dir, stored.sha256)
        if stored is None:
            return None
        if not uploaded:  # an upload's temporary file never becomes a document's source
            note_moved_source(write.store, stored, path)
        counts = {"Document": 1, "Page": stored.pages, "Section": stored.sections, "Region": stored.regions}
        kept_embedded = stored.build != self.build  # stored with embeddings (see stored_as_built)
        return IngestReport(
            path=path,
            doc_id=stored.doc_id,
            pages=stored.pages,
            regions=stored.regions,
            sections=stored.sections,
            nodes=counts,
            seconds=time.perf_counter() - started,
            status="unchanged",
            notes=[KEPT_EMBEDDINGS_NOTE] if kept_embedded else [],
        )

    def _run_stages(self, ctx: IngestContext, progress: ProgressFn | None) -> None:
        """Each stage in turn. Stages that use the store run one document at a time, and one hold of
        the lock covers a run of them: links to other documents (``corpus_similarity``) are chosen
        and written before another document's write can remove their targets."""
        held = False
        try:
            for stage in self.stages:
                stage_start = time.perf_counter()
                if progress:
                    progress(stage.name, 0, 0)  # each stage is named as it starts; some report more
                uses_store = bool(getattr(stage, "uses_store", False))
                if uses_store and not held:
                    self._store_lock.acquire()
                elif held and not uses_store:
                    self._store_lock.release()
                held = uses_store
                stage.run(ctx)
                release_free_memory()  # what the stage freed, before the next one allocates anew
                ctx.timings[stage.name] = time.perf_counter() - stage_start
        finally:
            if held:
                self._store_lock.release()

    def _run(self, path: Path, progress: ProgressFn | None, uploaded_as: str) -> IngestReport:
        ctx = IngestContext(path=path, progress=progress, build=self.build, tasks=self.tasks, uploaded_as=uploaded_as)
        started = time.perf_counter()
        try:
            ctx.file_state = file_state(path) if path.is_file() else None
            skipped = self._unchanged(path, started, bool(uploaded_as))
            if skipped is not None:
                return skipped
            ctx.source = self.tasks.source(path) if path.is_file() else SourceFile(path)
            self._run_stages(ctx, progress)
        except WorkerLostError as exc:  # says which task, not which file
            return _failed(ctx, f"{path.name}: {exc}")
        except DocgraphError as exc:
            return _failed(ctx, str(exc))
        except Exception as exc:
            return _failed(ctx, f"{path.name}: {type(exc).__name__}: {exc}")
        return _report(ctx, time.perf_counter() - started)


def _failed(ctx: IngestContext, error: str) -> IngestReport:
    """The report of a file that failed; one rewritten while it was read failed for that reason
    (its later pages may look damaged, read half old and half new)."""
    changed = changed_message(ctx.path)
    if error != changed and file_changed(ctx):  # the copy stage may have said so itself
        error = f"{changed} (reading it ended in: {error})"
    return IngestReport.failed(ctx.path, error, ctx.timings)


def _write_stage(stages: Sequence[Stage]) -> WriteStage | None:
    """The pipeline's write stage, also when a job wraps each stage (``inner``)."""
    for stage in stages:
        inner = getattr(stage, "inner", stage)
        if isinstance(inner, WriteStage):
            return inner
    return None


def _written_store(stages: Sequence[Stage]) -> GraphStore | None:
    write = _write_stage(stages)
    return write.store if write is not None else None


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


def _file_size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def _waited_for(documents: ThreadPoolExecutor) -> bool:
    """Let the documents under way finish and start no other; False when a second Ctrl-C stops the
    wait (the second one was lost in the wait before, and with it the reports of what had ended)."""
    try:
        documents.shutdown(wait=True, cancel_futures=True)
    except KeyboardInterrupt:
        return False
    return True


def _ended_well(future: Future[IngestReport]) -> bool:
    return future.done() and not future.cancelled() and future.exception() is None

"""The pipeline: a document's stages in turn, several documents at once on the executor's
workers, and the report of each (see :mod:`app.pipeline.stages` for the stages themselves).

The store-free work goes through the executor (:mod:`app.pipeline.execution`); the stages that
use the store run in this process, one document at a time.
"""

from __future__ import annotations

import concurrent.futures
import contextvars
import time
from collections.abc import Callable, Collection, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import AbstractContextManager, nullcontext
from pathlib import Path

from docgraph.app.file_states import file_state
from docgraph.app.pipeline.execution.base import SourceFile, TaskExecutor
from docgraph.app.pipeline.memory import release_free_memory
from docgraph.app.pipeline.reports import IngestReport
from docgraph.app.pipeline.source_files import first_copies
from docgraph.app.pipeline.stages import (
    IngestContext,
    ProgressFn,
    Stage,
    WriteStage,
    file_changed,
)
from docgraph.app.pipeline.store_locks import store_lock
from docgraph.app.pipeline.unchanged import kept_as_stored_note, note_moved_source, stored_as_built
from docgraph.app.stores.base import GraphStore
from docgraph.app.stores.ingest_claims import ingest_claim
from docgraph.app.stores.kept_copies import changed_message, copies_locked, is_kept, keep_copy
from docgraph.errors import DocgraphError, IngestError, IngestInterrupted, WorkerLostError
from docgraph.ingest.structure.ids import doc_id_for


class IngestPipeline:
    """The stages, and the executor their store-free work runs on (``tasks``)."""

    def __init__(self, stages: Sequence[Stage], notes: Sequence[str] = (), build: str = "", *, tasks: TaskExecutor):
        self.stages = list(stages)
        self.notes = list(notes)  # what is switched off and why, for the user to see once
        self.build = build  # part of each document's version: another build replaces a stored one
        self.tasks = tasks
        self._store_lock = store_lock(_written_store(self.stages))  # one document at a time in store stages

    def ingest(
        self, path: Path, progress: ProgressFn | None = None, uploaded_as: str = "", replace: bool = False
    ) -> IngestReport:
        """One file through the stages; ``progress`` hears each stage start (name, 0, 0) and what it
        reports as it goes, then the outcome (its status, 1, 1). ``uploaded_as``: the client's name
        of an uploaded file, recorded as its source instead of the upload's temporary path. Without
        ``replace``, a document another ingest stores under this id meanwhile is not replaced."""
        report = self._run(path, progress, uploaded_as, replace)
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
        replace: bool = False,
    ) -> list[IngestReport]:
        """Every file, in order of ``paths``: one after another with one worker; with more, as many
        documents at once as there are workers, and one more, the largest files first. The files in
        ``uploaded`` are a client's uploads; ``replace``: see :meth:`ingest`.

        Ctrl-C raises :class:`IngestInterrupted` with the reports of the files that ended: one after
        another, the file being read stops; with workers, the documents under way finish first
        (``finishing`` is told which) and those not started are left."""

        def one(path: Path) -> IngestReport:
            uploaded_as = path.name if path in uploaded else ""
            return self.ingest(path, progress(path) if progress else None, uploaded_as, replace)

        if self.tasks.workers <= 1 or len(paths) <= 1:
            reports: list[IngestReport] = []
            try:
                for path in paths:
                    reports.append(one(path))
            except KeyboardInterrupt:
                raise IngestInterrupted(reports, paths[len(reports) :]) from None
            return reports
        order = sorted(range(len(paths)), key=lambda i: -_file_size(paths[i]))  # stable: copies keep their order
        firsts = first_copies(list(paths))
        documents = ThreadPoolExecutor(self.tasks.workers + 1, thread_name_prefix="docgraph-document")
        futures: dict[int, Future[IngestReport]] = {}
        abandoned = False

        def after_its_first(i: int) -> IngestReport:
            """A later copy waits for its first (submitted before it, so never waiting on it), then
            finds it stored instead of reading it again."""
            if i in firsts:
                concurrent.futures.wait([futures[firsts[i]]])
            return one(paths[i])

        try:  # each in a copy of this context: a block the caller opened (fulltext_refresh_deferred) covers it
            for i in order:  # one by one: an interrupt among them keeps those submitted
                futures[i] = documents.submit(contextvars.copy_context().run, after_its_first, i)
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
        kept = kept_as_stored_note(stored, self.build)  # stored with more than this build makes
        return IngestReport(
            path=path,
            doc_id=stored.doc_id,
            pages=stored.pages,
            regions=stored.regions,
            sections=stored.sections,
            nodes=counts,
            seconds=time.perf_counter() - started,
            status="unchanged",
            notes=[kept] if kept else [],
        )

    def _run_stages(self, ctx: IngestContext) -> None:
        """Each stage in turn. Stages that use the store run one document at a time, and one hold of
        the lock covers a run of them: links to other documents (``corpus_similarity``) are chosen
        and written before another document's write can remove their targets."""
        held, progress = False, ctx.progress
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

    def _run(self, path: Path, progress: ProgressFn | None, uploaded_as: str, replace: bool) -> IngestReport:
        ctx = IngestContext(
            path=path, progress=progress, build=self.build, tasks=self.tasks, uploaded_as=uploaded_as, replace=replace
        )
        started = time.perf_counter()
        try:
            with self._claimed(path):
                return self._run_claimed(ctx, started)
        except DocgraphError as exc:  # a name that gives no document id, a claim that cannot be taken
            return _failed(ctx, str(exc))

    def _claimed(self, path: Path) -> AbstractContextManager[None]:
        """The document held as being ingested, so that no process on this data home deletes it
        meanwhile (the write would bring it back); nothing to hold without kept copies."""
        write = _write_stage(self.stages)
        if write is None or write.files_dir is None:
            return nullcontext()
        return ingest_claim(write.files_dir, doc_id_for(path.name))

    def _run_claimed(self, ctx: IngestContext, started: float) -> IngestReport:
        path, uploaded_as = ctx.path, ctx.uploaded_as
        try:
            ctx.file_state = file_state(path) if path.is_file() else None
            skipped = self._unchanged(path, started, bool(uploaded_as))
            if skipped is not None:
                return skipped
            ctx.source = self.tasks.source(path) if path.is_file() else SourceFile(path)
            self._run_stages(ctx)
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

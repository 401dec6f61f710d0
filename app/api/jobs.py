"""Ingest jobs: an uploaded PDF goes through the ingest pipeline in a background thread.

One thread runs the jobs in order of arrival, each through the configured executor (a long file's
pages are read and embedded by the worker processes, or on a Ray cluster); the document is written
in one transaction. Each job records which pipeline stage runs and how far it got, for
``GET /jobs/{id}``; ``DELETE /jobs/{id}`` cancels a job until its write begins. Every unfinished
job and the newest :data:`KEPT_JOBS` finished ones are kept on disk (:mod:`app.api.job_store`): a
restarted server still answers for them, and runs again the ones it had not finished. A job checks
its file's name against the store again as it starts.
"""

from __future__ import annotations

import dataclasses
import logging
import shutil
import threading
import uuid
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from docgraph.app.api.job_store import JobStore
from docgraph.app.jobs.documents import doc_id_or_empty
from docgraph.app.pipeline.ingest_pipeline import IngestPipeline
from docgraph.app.pipeline.reports import OUTCOMES, IngestReport
from docgraph.app.pipeline.stages import IngestContext, Stage, WriteStage
from docgraph.errors import DocgraphError, IngestCancelled, JobNotFoundError, JobStateError

log = logging.getLogger("docgraph.api")

KEPT_JOBS = 500
PipelineFactory = Callable[[bool, bool, Path], IngestPipeline]  # (embed?, force?, file) -> the pipeline to run
ClashCheck = Callable[[str, Path], str | None]  # (name, file) -> a different stored document it would replace
CopiesNote = Callable[[IngestReport], None]  # says in a new document's report which stored ones it copies
UNFINISHED = ("queued", "running")
MAX_RESTARTS = 2  # a job the server stopped during more often than this (a file that kills it) fails


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


@dataclass
class Job:
    job_id: str
    file_name: str
    path: Path  # the uploaded file; removed when the job ends (the store keeps its own copy)
    embed: bool = True
    force: bool = False  # rebuild a file stored as this server would build it
    replace: bool = False  # replace a different document stored under the same name
    status: str = "queued"  # queued | running | succeeded | failed | cancelled
    stage: str = ""  # prepare, then the pipeline's stages: read, graph, embed, graph_write
    writing: bool = False  # the stage writes the document: too late to cancel
    cancelling: bool = False  # a cancel was asked while it ran: it stops before its write
    stopped_by_cancel: bool = False  # the cancel took effect (not a failure of the ingest's own)
    stage_index: int = 0
    stages: int = 0
    done: int = 0
    total: int = 0
    created_at: str = field(default_factory=_now)
    started_at: str | None = None
    finished_at: str | None = None
    error: str = ""
    report: dict[str, Any] | None = None
    restarts: int = 0  # times the server stopped while this job ran
    sent_by: str = ""  # the id of the API key that uploaded the file ("" without keys)
    cancelled_by: str = ""  # the id of the key that asked for the cancel
    # stage changes, cancels and saves: a cancel is seen or refused, and the last save is the latest state
    lock: threading.RLock = field(default_factory=threading.RLock, repr=False, compare=False)

    def to_json(self) -> dict[str, Any]:
        return {
            "job_id": self.job_id,
            "status": self.status,
            "file_name": self.file_name,
            "stage": self.stage,
            "stage_index": self.stage_index,
            "stages": self.stages,
            "done": self.done,
            "total": self.total,
            "created_at": self.created_at,
            "started_at": self.started_at,
            "finished_at": self.finished_at,
            "error": self.error,
            "report": self.report,
            "restarts": self.restarts,
            "cancelling": self.cancelling,
            "sent_by": self.sent_by,
            "cancelled_by": self.cancelled_by,
        }

    def record(self) -> dict[str, Any]:
        """What is kept on disk: the JSON above, and what it takes to run the job again."""
        rerun = {
            "path": str(self.path),
            "embed": self.embed,
            "force": self.force,
            "replace": self.replace,
        }
        return {**self.to_json(), **rerun}

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> Job:
        kept = set(cls.__dataclass_fields__) - {"path", "lock"}
        fields = {name: record[name] for name in kept if name in record}
        return cls(path=Path(record["path"]), **fields)


@dataclass
class ReportingStage:
    """A pipeline stage that tells its job when it starts."""

    inner: Stage
    job: Job
    index: int
    saved: Callable[[Job], None]  # keeps the job's record
    name: str = field(init=False)
    uses_store: bool = field(init=False)

    def __post_init__(self) -> None:
        self.name = self.inner.name  # the report's stage timings keep the real names
        self.uses_store = bool(getattr(self.inner, "uses_store", False))

    def run(self, ctx: IngestContext) -> None:
        with self.job.lock:  # a cancel is either seen here or refused as too late, never lost
            stop_if_cancelled(self.job)
            self.job.stage, self.job.stage_index, self.job.done, self.job.total = self.inner.name, self.index, 0, 0
            self.job.writing = isinstance(self.inner, WriteStage)
        self.saved(self.job)
        self.inner.run(ctx)


def stop_if_cancelled(job: Job) -> None:
    if job.cancelling:
        job.stopped_by_cancel = True
        raise IngestCancelled(f"cancelled at {job.stage or 'its start'}: nothing was written")


class JobManager:
    def __init__(
        self,
        pipeline_for: PipelineFactory,
        store: JobStore | None = None,
        kept: int = KEPT_JOBS,
        clash_of: ClashCheck | None = None,
        note_copies: CopiesNote | None = None,
        public: Callable[[str], str] = str,
    ) -> None:
        self._pipeline_for = pipeline_for
        self._public = public  # an error as any key's holder may read it (no store address)
        self._clash_of = clash_of  # checked again as a job starts: an upload queued before may have landed
        self._note_copies = note_copies
        self._kept = kept
        self._store = store
        self._jobs: OrderedDict[str, Job] = OrderedDict()
        self._lock = threading.Lock()
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="docgraph-ingest")
        if store is not None:
            store.claim()
            self._resume(store)

    def submit(
        self,
        file_name: str,
        path: Path,
        embed: bool = True,
        force: bool = False,
        replace: bool = False,
        sent_by: str = "",
    ) -> Job:
        job_id = uuid.uuid4().hex
        job = Job(job_id, file_name, path, embed=embed, force=force, replace=replace, sent_by=sent_by)
        self._queue(job)
        return job

    def get(self, job_id: str) -> Job:
        with self._lock:
            job = self._jobs.get(job_id)
        if job is None:
            raise JobNotFoundError(f"no job {job_id!r} (the newest {self._kept} jobs are kept)")
        return job

    def listed(self, status: str | None = None, limit: int = KEPT_JOBS) -> list[Job]:
        """The kept jobs, newest first (only those in ``status`` when given), at most ``limit``."""
        with self._lock:
            jobs = [job for job in reversed(self._jobs.values()) if status is None or job.status == status]
        return jobs[:limit]

    def cancel(self, job_id: str, by: str = "") -> Job:
        """A queued job is cancelled at once (its upload goes); a running one stops at its next page
        window, chunk of texts or stage, before its write. Raises JobStateError for a job that has
        ended or is writing its document. ``by`` is the id of the key that asks (the first one is kept).
        Returns the job as the cancel left it (a copy: the job itself may end meanwhile)."""
        job = self.get(job_id)
        with job.lock:
            if job.status not in UNFINISHED:
                raise JobStateError(f"job {job_id} has ended ({job.status}): there is nothing to cancel")
            if job.writing:
                raise JobStateError(f"job {job_id} is writing its document ({job.file_name}): too late to cancel")
            job.cancelled_by = job.cancelled_by or by
            if job.status == "running":
                job.cancelling = True
                self._save(job)
            else:
                self._end(job, "cancelled", "cancelled before it started")
            left = dataclasses.replace(job)
        asker = f" (asked with key {by})" if by else ""
        if left.status == "cancelled":
            log.info("ingest job %s (%s) is cancelled before it started%s", job.job_id, job.file_name, asker)
        else:
            log.info("ingest job %s (%s) is cancelling: it stops before its write%s", job.job_id, job.file_name, asker)
        return left

    def unfinished_job_for(self, doc_ids: set[str]) -> Job | None:
        """The queued or running job that writes one of the documents ``doc_ids``."""
        with self._lock:
            unfinished = [job for job in self._jobs.values() if job.status in UNFINISHED]
        return next((job for job in unfinished if doc_id_or_empty(job.file_name) in doc_ids), None)

    def forget_document(self, doc_id: str) -> int:
        """Drop the ended jobs that stored or tried ``doc_id`` (their file names and reports), from
        memory and disk: a deleted document's name is gone from ``GET /jobs`` too. How many went."""
        with self._lock:
            gone = [
                key
                for key, job in self._jobs.items()
                if job.status not in UNFINISHED
                and doc_id in (doc_id_or_empty(job.file_name), str((job.report or {}).get("doc_id") or ""))
            ]
            for key in gone:
                del self._jobs[key]
        if self._store is not None and gone:
            self._store.forget(gone)
        return len(gone)

    def _queue(self, job: Job) -> None:
        with self._lock:
            self._jobs[job.job_id] = job
            finished = [key for key, kept in self._jobs.items() if kept.status not in UNFINISHED]
            for key in finished[: max(0, len(self._jobs) - self._kept)]:  # the oldest finished ones go
                del self._jobs[key]
        self._save(job)
        self._executor.submit(self._run, job)

    def _resume(self, store: JobStore) -> None:
        """The jobs a stopped server left: finished ones as they were, unfinished ones run again."""
        for record in store.load():
            job = Job.from_record(record)
            if job.cancelling and job.status in UNFINISHED:  # the stop came before the cancel took effect
                stopped = "cancelled; the server stopped before the job did: nothing was written"
                self._end_on_resume(job, stopped, "cancelled")
                continue
            job.restarts += job.status == "running"
            if job.status not in UNFINISHED:
                job.cancelling = False  # an ended job saved by an earlier release may still say so
                with self._lock:
                    self._jobs[job.job_id] = job
            elif job.restarts > MAX_RESTARTS:
                self._end_on_resume(
                    job,
                    f"the server stopped during this ingest {job.restarts} times (the file may "
                    "crash it or exhaust its memory): it is not run again; send the file to retry",
                )
            elif job.path.is_file():
                job.status, job.stage, job.started_at = "queued", "", None
                job.stage_index = job.stages = job.done = job.total = 0  # the stopped run's position is gone
                log.info("ingest job %s (%s) runs again after a restart", job.job_id, job.file_name)
                self._queue(job)
            else:
                self._end_on_resume(
                    job, "the server stopped before this job finished, and its upload is gone: send the file again"
                )

    def _end_on_resume(self, job: Job, error: str, status: str = "failed") -> None:
        job.status, job.finished_at, job.error, job.cancelling = status, _now(), error, False
        with self._lock:
            self._jobs[job.job_id] = job
        self._save(job)

    def _save(self, job: Job) -> None:
        if self._store is None:
            return
        try:
            with job.lock:  # the record made and written in one hold: an older state never lands last
                self._store.save(job.job_id, job.created_at, job.record())
        except Exception:  # the job goes on (and ends); only its record after a restart is at stake
            log.exception("could not save ingest job %s", job.job_id)

    def unfinished_uploads(self) -> set[Path]:
        """The upload folders of the jobs still to run: every other one under the uploads folder is a
        leftover."""
        with self._lock:
            return {job.path.parent for job in self._jobs.values() if job.status in UNFINISHED}

    def shutdown(self) -> None:
        """Stop taking jobs; a job already running finishes (the store write is one transaction), and
        the log names it, so that a stop that takes minutes says why."""
        with self._lock:
            running = [job for job in self._jobs.values() if job.status == "running"]
            queued = sum(job.status == "queued" for job in self._jobs.values())
        fate = "will run after a restart" if self._store is not None else "will be dropped (no job store)"
        later = f"; {queued} queued job{'' if queued == 1 else 's'} {fate}" if queued else ""
        for job in running:
            at = job.stage or "its start"
            until = "stop (it is cancelling)" if job.cancelling else "finish"
            log.warning(
                "waiting for ingest job %s (%s, at %s) to %s before stopping%s",
                job.job_id,
                job.file_name,
                at,
                until,
                later,
            )
        self._executor.shutdown(wait=True, cancel_futures=True)
        if self._store is not None:
            self._store.release()

    def _run(self, job: Job) -> None:
        with job.lock:
            if job.status != "queued":  # cancelled while it waited
                return
            job.status, job.started_at = "running", _now()
        self._save(job)
        status, error, report = self._outcome(job)
        if report is not None:
            report["error"] = self._public(str(report.get("error", "")))
        self._end(job, status, self._public(error), report)

    def _end(self, job: Job, status: str, error: str, report: dict[str, Any] | None = None) -> None:
        """End ``job``: its record first (a crash after it leaves only an upload folder, which the
        next start sweeps; before it, the job runs again), then its upload goes, and only then does
        the job show its end, so that nobody sees it ended with its upload still there."""
        with job.lock:  # an ended job is no longer cancelling (cancelled_by still names who asked)
            finished_at = _now()
            ended = dataclasses.replace(job, status=status, error=error, report=report, finished_at=finished_at)
            ended.cancelling = False
            self._save(ended)
            shutil.rmtree(job.path.parent, ignore_errors=True)
            job.status, job.error, job.report, job.finished_at = status, error, report, finished_at
            job.cancelling = False

    def _outcome(self, job: Job) -> tuple[str, str, dict[str, Any] | None]:
        """The ended job's status, error and report, with the server's upload path left out."""
        try:
            ingested = self._ingest(job)
        except DocgraphError as refused:  # e.g. a Ray cluster that cannot be joined: said as it is
            log.warning("ingest job %s (%s) failed: %s", job.job_id, job.file_name, refused)
            return "failed", without_upload_path(str(refused), job), None
        except Exception as unexpected:  # the pipeline reports its own failures; this is anything else
            log.exception("ingest job %s (%s) failed", job.job_id, job.file_name)
            return "failed", without_upload_path(f"{type(unexpected).__name__}: {unexpected}", job), None
        status, error = ("failed" if ingested.status == "failed" else "succeeded"), ingested.error
        report: dict[str, Any] | None = ingested.to_json()
        if job.cancelling and (job.stopped_by_cancel or ingested.status == "unchanged"):  # nothing written
            status, report = "cancelled", None
            error = error or "cancelled: the file was stored already as this server builds it"
        if report is not None:
            report["error"] = without_upload_path(str(report.get("error", "")), job)
        return status, without_upload_path(error or "", job), report

    def _ingest(self, job: Job) -> IngestReport:
        clash = None if job.replace or self._clash_of is None else self._clash_of(job.file_name, job.path)
        if clash is not None:  # another upload under this name landed while this one waited
            return IngestReport.failed(Path(job.file_name), clash_refusal(clash))
        job.stage = "prepare"  # loading the reader and the encoder; the first job takes a while here
        pipeline = self._pipeline_for(job.embed, job.force, job.path)
        stages = [ReportingStage(stage, job, i, self._save) for i, stage in enumerate(pipeline.stages, start=1)]
        job.stages = len(stages)

        def progress(stage: str, done: int, total: int) -> None:
            if stage in OUTCOMES:  # the end, said by the job's status
                return
            stop_if_cancelled(job)  # a cancel stops the stage at its next step
            job.done, job.total = done, total

        rerun = IngestPipeline(stages, pipeline.notes, pipeline.build, tasks=pipeline.tasks)
        report = rerun.ingest(job.path, progress, uploaded_as=job.file_name, replace=job.replace)
        report.path = Path(job.file_name)  # the client's name for the file, not the server's temp path
        if self._note_copies is not None:  # a copy under another name: as `docgraph ingest` says
            try:
                self._note_copies(report)
            except DocgraphError as error:  # the document is stored: only this remark is lost
                log.warning("ingest job %s: could not look for copies of %s: %s", job.job_id, report.doc_id, error)
        return report


def clash_refusal(doc_id: str) -> str:
    """Why an upload without replace=true is refused, on arrival (409) or as its job starts."""
    return f"a different document is stored as {doc_id!r}: send the file again with replace=true to replace it"


def without_upload_path(text: str, job: Job) -> str:
    """``text`` with the server's upload path of the job's file replaced by the client's file name."""
    return text.replace(str(job.path), job.file_name).replace(str(job.path.parent), "<upload>")

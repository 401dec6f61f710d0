"""UI ingests in the background: a batch runs on a thread of its own, so that leaving the
Documents page, or the tab, does not stop it half-way. The page shows how far its owner's batch
has got (the owner is the signed-in key, or the local user: a reloaded tab still finds it) and,
once it has ended, its reports; other owners see that an ingest runs.
"""

from __future__ import annotations

import shutil
import threading
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from docgraph.app.pipeline.reports import IngestReport
from docgraph.app.ui_support.ingest import OverallProgress, report_line, report_notes
from docgraph.errors import ConfigError
from docgraph.ingest.structure.ids import doc_id_for

KEPT_FINISHED = 100  # finished runs nobody came back for (a closed tab) are kept up to this many
BatchWork = Callable[[OverallProgress], list[IngestReport]]


@dataclass
class IngestRun:
    """One batch: who started it, how far it is, and what came of it."""

    run_id: str
    owner: str  # who started it (ui.signin.ingest_owner)
    files: list[str]
    fraction: float = 0.0
    text: str = "starting…"
    reports: list[IngestReport] = field(default_factory=list)
    error: str = ""  # the batch as a whole failed (the store went away); each file's own failure is in its report
    finished: bool = False


class IngestRuns:
    """This process's UI ingests; safe to use from every session's thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._runs: dict[str, IngestRun] = {}
        # One batch writes at a time: each checks its file names against the store when its turn
        # comes, so two users' uploads under one new name cannot both pass and one replace the other.
        self._turn = threading.Lock()

    def start(self, owner: str, files: Sequence[Path], work: BatchWork, *, uploads: Sequence[Path] = ()) -> IngestRun:
        """Run ``work`` (given a progress callback) on a thread of its own; ``uploads``, folders of
        uploaded files, are removed when it ends (the store keeps its own copy of each PDF). One
        batch at a time per owner: a second is refused (its uploads removed) while the first runs."""
        with self._lock:
            if any(run.owner == owner and not run.finished for run in self._runs.values()):
                _remove(uploads)
                raise ConfigError("an ingest started here is still running: wait for it to end")
            run = IngestRun(uuid.uuid4().hex, owner, [path.name for path in files])
            self._runs[run.run_id] = run
        thread = threading.Thread(
            target=self._run, args=(run, work, list(uploads)), name=f"docgraph-ui-ingest-{run.run_id[:8]}", daemon=True
        )
        thread.start()
        return run

    def _run(self, run: IngestRun, work: BatchWork, uploads: list[Path]) -> None:
        def progress(fraction: float, text: str) -> None:
            run.fraction, run.text = fraction, text

        try:
            if not self._turn.acquire(blocking=False):
                run.text = "waiting for another user's ingest to end…"
                self._turn.acquire()
            try:
                run.text = "starting…"
                run.reports = work(progress)
            finally:
                self._turn.release()
        except Exception as exc:  # one line for the page; the document being written was not
            run.error = f"{type(exc).__name__}: {exc}" if not str(exc) else str(exc)
        finally:
            _remove(uploads)
            with self._lock:
                run.finished = True
                self._forget_old()

    def running(self, owner: str) -> IngestRun | None:
        """``owner``'s batch that has not ended, if any."""
        with self._lock:
            return next((run for run in self._runs.values() if run.owner == owner and not run.finished), None)

    def others_running(self, owner: str) -> list[IngestRun]:
        with self._lock:
            return [run for run in self._runs.values() if run.owner != owner and not run.finished]

    def writing(self, doc_id: str) -> IngestRun | None:
        """A batch not yet ended that stores a file as ``doc_id``: deleting it now would report a
        success the batch then undoes."""
        with self._lock:
            unfinished = [run for run in self._runs.values() if not run.finished]
        return next((run for run in unfinished if doc_id in {doc_id_for(name) for name in run.files}), None)

    def collect(self, owner: str) -> list[IngestRun]:
        """``owner``'s batches that have ended, in the order they started; each is given out once."""
        with self._lock:
            done = [run for run in self._runs.values() if run.owner == owner and run.finished]
            for run in done:
                del self._runs[run.run_id]
        return done

    def _forget_old(self) -> None:
        finished = [key for key, run in self._runs.items() if run.finished]
        for key in finished[: max(0, len(finished) - KEPT_FINISHED)]:
            del self._runs[key]


def _remove(folders: Sequence[Path]) -> None:
    for folder in folders:
        shutil.rmtree(folder, ignore_errors=True)


def run_messages(run: IngestRun) -> list[tuple[str, str]]:
    """What the page says of an ended batch: (level, text), a line per file and each note once."""
    if run.error:
        return [("error", f"Ingesting {', '.join(run.files)} failed: {run.error}")]
    lines = [("error" if report.status == "failed" else "success", report_line(report)) for report in run.reports]
    return lines + [("warning", f"Note: {note}") for note in report_notes(run.reports)]

"""The executor an ingest uses: this process, local worker processes, or a Ray cluster."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

from docgraph.app.config import Settings
from docgraph.app.pipeline.execution.base import TaskExecutor, machine_cores
from docgraph.app.pipeline.execution.processes import ProcessPool
from docgraph.app.pipeline.worker import WorkerSpec
from docgraph.errors import ConfigError, DocgraphError
from docgraph.ingest.readers.paged import DEFAULT_WINDOW_PAGES, page_count


def ingest_executor(
    settings: Settings,
    reader: str,
    workers: int | None = None,
    ray_address: str | None = None,
    files: Sequence[Path] | None = None,
) -> TaskExecutor | None:
    """Workers for an ingest with ``reader`` (for ``files``: no more than they have page windows);
    None: this process does the work (one worker)."""
    address = settings.ray_address if ray_address is None else ray_address
    if address:
        from docgraph.app.pipeline.execution.ray_driver import RayDriverProcess

        return RayDriverProcess(WorkerSpec(settings, reader), address)
    count = configured_workers(settings, workers)
    if files is not None:
        count = useful_workers(files, count, settings.max_pages)
    return ProcessPool(WorkerSpec(settings, reader), count) if count > 1 else None


def configured_workers(settings: Settings, workers: int | None = None) -> int:
    """``workers``, else the setting; 0 is one worker per two cores (see :func:`default_workers`)."""
    count = settings.ingest_workers if workers is None else workers
    if count < 0:
        raise ConfigError(f"workers must be at least 1 (0: one per two cores), not {count}")
    return count or default_workers()


def default_workers(cores: int | None = None) -> int:
    """One worker per two cores: one process's encoder uses two threads as well as two processes use
    one each, at a third of the memory, so on two cores a single worker is the faster and leaner
    choice; above that, more workers read pages and documents in parallel."""
    return max(1, (cores or machine_cores()) // 2)


def useful_workers(paths: Sequence[Path], workers: int, max_pages: int) -> int:
    """No more workers than there are page windows to read: a lone short file is read here."""
    windows = 0
    for path in paths:
        try:
            windows += -(-page_count(path, max_pages) // DEFAULT_WINDOW_PAGES)
        except DocgraphError:  # the pipeline reports a broken file; it counts as one window here
            windows += 1
        if windows >= workers:
            return workers
    return max(1, min(workers, windows))


class SharedWorkers:
    """The ingest workers of a long-running server (the HTTP API, the web app): started when an
    ingest first has use for them, shared by every ingest after it, closed with the server."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._tasks: TaskExecutor | None = None
        self._lock = threading.Lock()
        self._closed = False

    def for_files(self, paths: Sequence[Path] | None = None) -> TaskExecutor | None:
        """The workers, when ``paths`` (None: files not known yet) have page windows enough for more
        than one or a Ray cluster is configured; None: the ingest runs in this process."""
        if self.settings.ray_address:
            return self._started()
        workers = configured_workers(self.settings)
        if paths is not None:
            workers = useful_workers(paths, workers, self.settings.max_pages)
        return self._started() if workers > 1 else None

    def _started(self) -> TaskExecutor | None:
        with self._lock:
            if self._closed:
                raise ConfigError("the server is stopping: no ingest starts now")
            if self._tasks is None:
                self._tasks = ingest_executor(self.settings, self.settings.reader)  # they end with this process
            return self._tasks

    def close(self) -> None:
        with self._lock:
            self._closed = True
            tasks, self._tasks = self._tasks, None
        if tasks is not None:
            tasks.close()

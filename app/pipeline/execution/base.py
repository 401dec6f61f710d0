"""The executor interface: the ingest pipeline hands its store-free work to one of these.

A task names a method of :class:`~docgraph.app.pipeline.worker.IngestWorker` and its arguments;
the executor runs it on a worker (this process, a worker process, a Ray worker) and returns a
future. Writes never go through an executor: the process that runs the pipeline writes.
"""

from __future__ import annotations

import os
from concurrent.futures import Future
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol


@dataclass(frozen=True, slots=True)
class SourceFile:
    """A PDF as tasks receive it: its path where workers share this machine's files, its bytes (or
    a handle to them in a cluster's object store) where they do not."""

    path: Path
    data: Any = None  # None: read ``path``


@dataclass(frozen=True, slots=True)
class WorkerStats:
    """What one worker did: tasks run and its peak resident memory."""

    worker: str
    tasks: int
    peak_rss_mb: float


class TaskExecutor(Protocol):
    workers: int  # how many tasks run at once

    def submit(self, method: str, *args: Any) -> Future[Any]:
        """Run ``IngestWorker.<method>(*args)`` on a worker."""
        ...

    def source(self, path: Path) -> SourceFile:
        """``path`` in the form this executor's workers can read."""
        ...

    def stats(self) -> list[WorkerStats]:
        """Per worker: tasks run so far and peak memory."""
        ...

    def close(self) -> None: ...


@dataclass
class InlineExecutor:
    """Runs each task at once, in the calling thread: one document at a time, as a plain loop would."""

    worker: Any  # an app.pipeline.worker.IngestWorker
    workers: int = 1
    _tasks: int = field(default=0, init=False)

    def submit(self, method: str, *args: Any) -> Future[Any]:
        future: Future[Any] = Future()
        self._tasks += 1
        try:
            future.set_result(getattr(self.worker, method)(*args))
        except BaseException as error:  # the caller's .result() raises it, as a worker's would
            future.set_exception(error)
        return future

    def source(self, path: Path) -> SourceFile:
        return SourceFile(path)

    def stats(self) -> list[WorkerStats]:
        return [WorkerStats("this process", self._tasks, peak_rss_mb())]

    def close(self) -> None:
        pass


def machine_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def threads_per_worker(workers: int, cores: int | None = None) -> int:
    """Each worker's share of the cores, so that workers times their threads never exceed them."""
    return max(1, (cores or machine_cores()) // max(1, workers))


def peak_rss_mb() -> float:
    """This process's peak resident memory so far, in MiB."""
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

"""Worker processes on this machine: each builds its own IngestWorker and runs one task at a time.

Each worker has a thread here that hands it tasks from a shared queue and waits for the answer,
so the pool knows which task a worker was running when it died: only that task fails (with
:class:`WorkerLostError`), a fresh process takes the worker's place, and the other tasks go on.
Workers get ``DOCGRAPH_THREADS`` = their share of the cores (at least one) before anything loads,
so the encoder's, the layout model's and OCR's threads across all workers never outnumber the cores
unless more workers than cores were asked for. A worker ends when its parent is gone.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import os
import pickle
import queue
import signal
import threading
import time
from concurrent.futures import Future
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from docgraph.app.pipeline.execution.base import SourceFile, WorkerStats, peak_rss_mb, threads_per_worker
from docgraph.app.pipeline.memory import release_free_memory
from docgraph.app.pipeline.worker import WorkerSpec
from docgraph.errors import DocgraphError, IngestError, WorkerLostError

STOP_TIMEOUT_S = 10.0  # how long a worker gets to exit on close before it is killed


@dataclass
class _Task:
    method: str
    args: tuple[Any, ...]
    future: Future[Any] = field(default_factory=Future)


class ProcessPool:
    """``workers`` processes (spawned: a fork of a process running threads and models is unsafe)."""

    def __init__(self, spec: WorkerSpec, workers: int, threads: int | None = None) -> None:
        if workers < 1:
            raise ValueError("a pool needs at least one worker")
        self.workers = workers
        self._spec = spec
        self._threads = threads or threads_per_worker(workers)
        self._queue: queue.SimpleQueue[_Task | None] = queue.SimpleQueue()
        self._slots = [_Slot(self, index) for index in range(workers)]
        self._closed = False

    def submit(self, method: str, *args: Any) -> Future[Any]:
        if self._closed:
            raise IngestError("the worker pool is closed")
        task = _Task(method, args)
        self._queue.put(task)
        return task.future

    def source(self, path: Path) -> SourceFile:
        return SourceFile(path)  # the workers share this machine's files

    def stats(self) -> list[WorkerStats]:
        return [slot.stats() for slot in self._slots]

    def pids(self, busy: bool = False) -> list[int]:
        """The running workers' process ids (a worker not started yet has none); ``busy``: only those
        running a task now."""
        return [pid for slot in self._slots if (pid := slot.pid()) is not None and (slot.busy or not busy)]

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        for _ in self._slots:
            self._queue.put(None)
        for slot in self._slots:
            slot.join()


class _Slot:
    """One worker process and the thread here that feeds it."""

    def __init__(self, pool: ProcessPool, index: int) -> None:
        self._pool = pool
        self._name = f"worker {index + 1}"
        self._process: multiprocessing.process.BaseProcess | None = None
        self._connection: Connection | None = None
        self._tasks = 0
        self._peak_mb = 0.0
        self.busy = False  # a task was sent and its answer is awaited
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._serve, name=f"docgraph-{self._name}", daemon=True)
        self._thread.start()

    def pid(self) -> int | None:
        with self._lock:
            return self._process.pid if self._process is not None and self._process.is_alive() else None

    def stats(self) -> WorkerStats:
        return WorkerStats(self._name, self._tasks, self._peak_mb)

    def join(self) -> None:
        self._thread.join()

    def _serve(self) -> None:
        while (task := self._pool._queue.get()) is not None:
            if task.future.set_running_or_notify_cancel():
                self._run(task)
        self._stop()

    def _run(self, task: _Task) -> None:
        try:
            connection = self._started()
            connection.send((task.method, task.args))
            self.busy = True
            status, payload, peak_mb = connection.recv()
        except (EOFError, OSError):
            task.future.set_exception(self._lost(task))
            return
        except (pickle.PicklingError, TypeError, AttributeError) as error:
            task.future.set_exception(IngestError(f"{task.method}: cannot send the task to a worker: {error}"))
            return
        except Exception as error:  # e.g. no memory to take the answer in: the rest of it may be in the pipe
            self._discard()
            task.future.set_exception(IngestError(f"{task.method}: the worker's answer was lost: {error!r}"))
            return
        finally:
            self.busy = False
        self._tasks += 1
        self._peak_mb = max(self._peak_mb, float(peak_mb))
        if status == "ok":
            task.future.set_result(payload)
        else:
            task.future.set_exception(payload)

    def _started(self) -> Connection:
        with self._lock:
            if self._process is None or not self._process.is_alive() or self._connection is None:
                context = multiprocessing.get_context("spawn")
                here, there = context.Pipe()
                process = context.Process(
                    target=serve_tasks, args=(there, self._pool._spec, self._pool._threads, os.getpid()), daemon=True
                )
                process.start()
                there.close()
                self._process, self._connection = process, here
            return self._connection

    def _lost(self, task: _Task) -> WorkerLostError:
        with self._lock:
            process, self._process, self._connection = self._process, None, None
        code = None
        if process is not None:
            process.join(STOP_TIMEOUT_S)
            code = process.exitcode
        how = f"killed by signal {-code}" if code is not None and code < 0 else f"exit code {code}"
        return WorkerLostError(f"an ingest worker process died ({how}) while it ran {task.method}")

    def _discard(self) -> None:
        """Kill the worker process: the next task starts a fresh one."""
        with self._lock:
            process, connection = self._process, self._connection
            self._process = self._connection = None
        if process is not None:
            process.kill()
            process.join()
        if connection is not None:
            connection.close()

    def _stop(self) -> None:
        with self._lock:
            process, connection = self._process, self._connection
            self._process = self._connection = None
        if process is None or connection is None:
            return
        with contextlib.suppress(OSError):
            connection.send(None)
        process.join(STOP_TIMEOUT_S)
        if process.is_alive():
            process.kill()
            process.join()
        connection.close()


def serve_tasks(connection: Connection, spec: WorkerSpec, threads: int, parent: int) -> None:
    """A worker process's loop: build the worker on the first task, answer tasks until told to stop
    or until ``parent`` (the process id of the one that started it) is gone."""
    os.environ["DOCGRAPH_THREADS"] = str(threads)
    # the thread pools of numpy's BLAS, torch, and the tokenizers (Rayon)
    for pool in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "RAYON_NUM_THREADS"):
        os.environ.setdefault(pool, str(threads))
    # Ctrl-C and a service manager's SIGTERM to the whole group are the parent's to handle (it lets
    # the documents under way finish); a worker ends with its parent (exit_with_parent) or is killed.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if not os.environ.get("DOCGRAPH_DEBUG"):  # MuPDF on a damaged page: the document's report says it
        logging.getLogger("pymupdf").addHandler(logging.NullHandler())
    exit_with_parent(parent)
    from docgraph.app.pipeline.build import build_ingest_worker  # after the thread settings

    worker = None
    while True:
        try:
            message = connection.recv()
        except (EOFError, OSError):
            return  # the parent is gone
        if message is None:
            return
        method, args = message
        try:
            worker = worker or build_ingest_worker(spec)
            reply: tuple[str, Any] = ("ok", getattr(worker, method)(*args))
        except Exception as error:
            reply = ("error", portable(error))
        release_free_memory()  # what the task freed, before the next one allocates anew
        try:
            connection.send((*reply, peak_rss_mb()))
        except (pickle.PicklingError, TypeError, AttributeError) as error:
            connection.send(("error", IngestError(f"{method}: its result cannot be sent back: {error}"), peak_rss_mb()))


def exit_with_parent(parent: int, every_s: float = 1.0) -> None:
    """End this worker soon after its parent goes (killed, or stopped by SIGTERM): otherwise it only
    finds out at its next message, after the task it runs, a minute of a core for nothing."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(every_s)
        os._exit(0)

    threading.Thread(target=watch, name="docgraph-parent-watch", daemon=True).start()


def portable(error: Exception) -> Exception:
    """``error`` if it survives pickling as it is, else a DocgraphError with its type and message."""
    try:
        pickle.loads(pickle.dumps(error))
    except Exception:
        kind = DocgraphError if isinstance(error, DocgraphError) else IngestError
        return kind(f"{type(error).__name__}: {error}")
    return error

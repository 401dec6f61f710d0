"""Ingest on a Ray cluster through a driver process of its own.

Ray ends a driver whose cluster goes away at once (its object store's connection broken: exit 1,
no word from Python). A command, the HTTP API or a script that joined the cluster itself would
end with it. Here a child process joins the cluster and runs a :class:`RayExecutor`; this process
sends it the tasks and keeps the pipeline and the writes. When the child ends, every task it held
fails with the reason and the documents under way are not written; the next task starts a fresh
child, which joins the cluster again (or fails at once while it cannot).
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import multiprocessing
import os
import queue
import signal
import threading
import time
from concurrent.futures import Future, InvalidStateError
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from docgraph.app.pipeline.execution.base import SourceFile, WorkerStats
from docgraph.app.pipeline.execution.processes import exit_with_parent, portable
from docgraph.app.pipeline.worker import WorkerSpec
from docgraph.errors import ConfigError, DocgraphError, IngestError, WorkerLostError

CONNECT_TIMEOUT_S = 60.0
START_MARGIN_S = 60.0  # the child's imports (Ray's among them) before it tries to join
STOP_WAIT_S = 20.0  # a closing child's Ray shutdown (10 s, 3 s once the cluster is gone) and exit
REJOIN_AFTER_S = 30.0  # a failed join is the answer for this long: asks do not wait a join each
GONE = -1  # the task id of a driver's last word: it found its cluster gone, and why


@dataclass
class _Driver:
    """One driver process and the tasks sent to it, not answered yet."""

    process: multiprocessing.process.BaseProcess
    connection: Connection
    workers: int
    pending: dict[int, Future[Any]] = field(default_factory=dict)
    gone: str = ""  # why its tasks failed: set once, by the thread that reads its answers
    lock: threading.Lock = field(default_factory=threading.Lock)


class RayDriverProcess:
    """Tasks on the Ray cluster at ``address`` (``auto``, ``HOST:PORT`` or ``ray://HOST:PORT``),
    asked of a driver process that joins it; a cluster that cannot be joined is refused here."""

    def __init__(self, spec: WorkerSpec, address: str, connect_timeout_s: float = CONNECT_TIMEOUT_S) -> None:
        self.address = address
        self._spec = spec
        self._connect_timeout_s = connect_timeout_s
        self._ids = itertools.count()
        self._stats: list[WorkerStats] = []
        self._closed = False
        self._refused: tuple[float, str] | None = None  # when a fresh driver last failed to join, and why
        self._went_away = False  # a driver ended uninvited, and no fresh one could join since
        self._driver: _Driver | None = self._start()
        self.workers = self._driver.workers
        self._asks: queue.SimpleQueue[tuple[int, Future[Any], str, tuple[Any, ...]] | None] = queue.SimpleQueue()
        self._closing = threading.Lock()  # a task is queued before the close's end mark, or refused
        self._sender = threading.Thread(target=self._send_asks, name="docgraph-ray-send", daemon=True)
        self._sender.start()

    def submit(self, method: str, *args: Any) -> Future[Any]:
        result: Future[Any] = Future()
        with self._closing:
            if self._closed:
                raise IngestError("the Ray executor is closed")
            self._asks.put((next(self._ids), result, method, args))
        return result

    def source(self, path: Path) -> SourceFile:
        return SourceFile(path)  # the driver puts its bytes into the cluster's object store per task

    def stats(self) -> list[WorkerStats]:
        return list(self._stats)

    def close(self) -> None:
        """The tasks not sent yet fail; the driver lets go of the cluster and ends (killed if the
        sending is stuck: a join under way, a task the driver does not take)."""
        with self._closing:
            if self._closed:
                return
            self._closed = True
            self._asks.put(None)
        self._sender.join(STOP_WAIT_S)
        driver = self._driver
        if self._sender.is_alive() and driver is not None:
            driver.process.kill()  # the send under way breaks off; the thread then stops it
        self._sender.join(STOP_WAIT_S)

    def _send_asks(self) -> None:
        while (ask := self._asks.get()) is not None:
            task_id, result, method, args = ask
            if not result.set_running_or_notify_cancel():
                continue
            if self._closed:
                result.set_exception(WorkerLostError("the Ray executor was closed before this task ran"))
                continue
            try:
                self._send(self._live_driver(), task_id, result, method, args)
            except Exception as error:  # this task fails; the thread goes on with the next
                with contextlib.suppress(InvalidStateError):  # unless its answer came first
                    result.set_exception(error)
        if self._driver is not None:
            self._stop(self._driver)

    def _send(self, driver: _Driver, task_id: int, result: Future[Any], method: str, args: tuple[Any, ...]) -> None:
        with driver.lock:
            if driver.gone:
                result.set_exception(WorkerLostError(driver.gone))
                return
            driver.pending[task_id] = result
        try:
            driver.connection.send((task_id, method, args))
        except OSError:
            pass  # the driver is gone: its reader fails the task with the reason
        except Exception as error:  # its arguments cannot be sent
            with driver.lock:
                driver.pending.pop(task_id, None)
            result.set_exception(IngestError(f"{method}: cannot send the task to the Ray driver: {error}"))

    def _live_driver(self) -> _Driver:
        """The running driver, else a fresh one (unless one failed to join a moment ago)."""
        driver = self._driver
        if driver is not None and not driver.gone:
            return driver
        self._driver = None
        self._went_away = self._went_away or driver is not None
        if self._refused is not None and time.monotonic() - self._refused[0] < REJOIN_AFTER_S:
            raise WorkerLostError(self._refused[1])
        try:
            self._driver = self._start()
        except Exception as error:  # a refused join, or no process to start (no file descriptors left)
            self._refused = (time.monotonic(), self._not_joined_again(error))
            raise WorkerLostError(self._refused[1]) from error
        self._went_away = False
        return self._driver

    def _not_joined_again(self, error: Exception) -> str:
        said = str(error) if isinstance(error, DocgraphError) else f"{type(error).__name__}: {error}"
        if not self._went_away:
            return f"{said}; this document is not written"
        reason = said.removeprefix(f"cannot join the Ray cluster at {self.address}: ")
        went = f"the Ray cluster at {self.address} went away and cannot be joined again"
        return f"{went}: {reason}; this document is not written"

    def _start(self) -> _Driver:
        context = multiprocessing.get_context("spawn")  # a fork of a process running threads is unsafe
        here, there = context.Pipe()
        args = (there, self._spec, self.address, self._connect_timeout_s, os.getpid())
        process = context.Process(target=drive_ray, args=args, name="docgraph-ray-driver", daemon=True)
        process.start()
        there.close()
        try:
            waited = self._connect_timeout_s + START_MARGIN_S
            if not here.poll(waited):
                raise ConfigError(f"the Ray cluster at {self.address} did not answer within {waited:g}s")
            joined, answer = here.recv()
        except (EOFError, OSError):
            process.join(STOP_WAIT_S)
            joining = f"the driver process joining it ended ({ended(process)})"
            raise ConfigError(f"cannot join the Ray cluster at {self.address}: {joining}") from None
        except BaseException:
            process.kill()
            raise
        if not joined:
            process.join(STOP_WAIT_S)
            raise answer
        driver = _Driver(process, here, int(answer))
        reader = threading.Thread(target=self._read_answers, args=(driver,), name="docgraph-ray-answers", daemon=True)
        reader.start()
        return driver

    def _read_answers(self, driver: _Driver) -> None:
        said = ""  # the driver's own reason to end, if it gave one
        while True:
            try:
                task_id, ok, payload, stats = driver.connection.recv()
            except Exception:  # EOF: the driver ended; anything else: its answers cannot be read
                break
            self._stats = stats
            if task_id == GONE:
                said = str(payload)
                continue
            with driver.lock:
                result = driver.pending.pop(task_id, None)
            if result is not None and ok:
                result.set_result(payload)
            elif result is not None:
                result.set_exception(payload)
        driver.process.join(STOP_WAIT_S)
        if driver.process.is_alive():  # its answers cannot be read: not left joined to the cluster
            driver.process.kill()
            driver.process.join(STOP_WAIT_S)
        if self._closed:
            reason = "the Ray executor was closed before this task ended"
        elif said:
            reason = said
        else:
            reason = (
                f"the Ray cluster at {self.address} went away or failed: the driver that joined it ended "
                f"({ended(driver.process)}; the cluster's logs say why); this document is not written"
            )
        with driver.lock:
            driver.gone = reason
            pending, driver.pending = driver.pending, {}
        for result in pending.values():
            result.set_exception(WorkerLostError(reason))

    def _stop(self, driver: _Driver) -> None:
        with contextlib.suppress(OSError):  # already gone
            driver.connection.send(None)
        driver.process.join(STOP_WAIT_S)
        if driver.process.is_alive():
            driver.process.kill()
            driver.process.join()


def ended(process: multiprocessing.process.BaseProcess) -> str:
    code = process.exitcode
    if code is None:
        return "it stopped answering"
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit {code}"


def drive_ray(connection: Connection, spec: WorkerSpec, address: str, connect_timeout_s: float, parent: int) -> None:
    """The driver process: join the cluster, then run the tasks asked of it until told to stop or
    until ``parent`` is gone."""
    # Ctrl-C and a service manager's SIGTERM to the whole group are the parent's to handle: its
    # documents under way finish through this driver, which ends with it
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    exit_with_parent(parent)
    os.dup2(2, 1)  # Ray's messages must not reach the parent's standard output (--json)
    from docgraph.app.pipeline.execution.ray_cluster import RayExecutor  # imports Ray

    try:
        executor = RayExecutor(spec, address, connect_timeout_s)
    except Exception as error:
        connection.send((False, portable(error)))
        os._exit(1)  # a join left waiting in Ray's thread must not hold the exit
    connection.send((True, executor.workers))
    sending = threading.Lock()
    threading.Thread(target=_end_when_gone, args=(connection, sending, executor), daemon=True).start()
    while True:
        try:
            message = connection.recv()
        except (EOFError, OSError):
            break
        if message is None:
            break
        task_id, method, args = message
        try:
            asked = executor.submit(method, *(_in_object_store(executor, arg) for arg in args))
        except Exception as error:
            asked = Future()
            asked.set_exception(error)
        asked.add_done_callback(functools.partial(_answer, connection, sending, executor, task_id, method))
    executor.close()
    os._exit(0)  # Ray's own exit handlers may wait for a cluster that is gone


def _end_when_gone(connection: Connection, sending: threading.Lock, executor: Any) -> None:
    """Once the executor found the cluster gone (its tasks failed and answered), this driver ends:
    the next task starts a fresh one, which joins the cluster again if it is back by then (a driver
    that found it gone fails every task for good)."""
    executor.gone.wait()
    with sending:
        with contextlib.suppress(OSError):
            connection.send((GONE, False, executor.lost_reason, executor.stats()))
        os._exit(0)


def _in_object_store(executor: Any, arg: Any) -> Any:
    """A PDF named by its path goes into the cluster's object store, for workers on other machines."""
    return executor.source(arg.path) if isinstance(arg, SourceFile) and arg.data is None else arg


def _answer(
    connection: Connection, sending: threading.Lock, executor: Any, task_id: int, method: str, done: Future[Any]
) -> None:
    error = done.exception()
    if error is None:
        outcome: tuple[bool, Any] = (True, done.result())
    else:
        outcome = (False, portable(error) if isinstance(error, Exception) else IngestError(repr(error)))
    answer = (task_id, *outcome, executor.stats())
    with sending:
        try:
            connection.send(answer)
        except OSError:
            return  # the parent is gone
        except Exception as unsent:  # the result cannot be pickled
            failed = IngestError(f"{method}: its result cannot be sent back: {unsent}")
            connection.send((task_id, False, failed, executor.stats()))

"""Ingest on a Ray cluster: the same tasks as the local worker processes, run by Ray's workers.

Ray is an optional extra (``pip install 'docgraph[ray]'``). Each task asks for one CPU, and its
worker process gets ``DOCGRAPH_THREADS=1``; a Ray worker builds its IngestWorker on its first task
and keeps it. The PDF goes into the cluster's object store once per document, so workers on other
machines read it too; the store is written by this process only (the pipeline's last stages).
"""

from __future__ import annotations

import functools
import logging
import os
import queue
import socket
import threading
import time
import uuid
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from docgraph.app.pipeline.execution.base import SourceFile, WorkerStats, peak_rss_mb
from docgraph.app.pipeline.memory import release_free_memory
from docgraph.app.pipeline.worker import IngestWorker, WorkerSpec
from docgraph.errors import ConfigError, IngestError, WorkerLostError

LOOPBACK_HOSTS = ("127.0.0.1", "localhost")
CONNECT_TIMEOUT_S = 60.0
WATCH_EVERY_S = 1.0  # how often the cluster's address is tried while tasks may be asked of it
# Ray's driver waits this long for its control service (GCS) to come back, then ends the process:
# the watch gives a restarting GCS most of it and still fails the documents before Ray ends it.
GCS_RECONNECT_ENV, GCS_RECONNECT_DEFAULT_S = "RAY_gcs_rpc_server_reconnect_timeout_s", 60.0
GCS_MARGIN_S, LOST_AFTER_AT_LEAST_S = 15.0, 5.0
CLOSE_WAIT_S = 10.0  # how long a close waits for the asking thread
LOST_CLOSE_WAIT_S = 3.0  # and, once the cluster is gone, for Ray's shutdown
_WORKERS: dict[str, IngestWorker] = {}  # in a Ray worker process: its IngestWorker per executor


def run_ray_task(token: str, spec: WorkerSpec, method: str, args: tuple[Any, ...]) -> tuple[Any, int, float]:
    """What a Ray worker runs: the task, with its process id and peak memory for the stats."""
    from docgraph.app.pipeline.build import build_ingest_worker

    worker = _WORKERS.get(token)
    if worker is None:
        _WORKERS.clear()  # one executor at a time: an earlier one's models may go
        worker = _WORKERS[token] = build_ingest_worker(spec)
    resolved = tuple(_with_bytes(arg) for arg in args)
    try:
        return getattr(worker, method)(*resolved), os.getpid(), peak_rss_mb()
    finally:
        release_free_memory()  # what the task freed, before the next one allocates anew


def _with_bytes(arg: Any) -> Any:
    if isinstance(arg, SourceFile) and arg.data is not None and not isinstance(arg.data, bytes):
        import ray

        return SourceFile(arg.path, ray.get(arg.data))
    return arg


def check_reachable(address: str, timeout_s: float) -> None:
    """Refuse at once a cluster address whose host does not resolve or where nothing listens: Ray
    would try for the whole connect time-out, logging each try. ``auto`` is Ray's to find."""
    found = None if address == "auto" else _host_and_port(address)
    if found is None:
        return
    reason = unreachable_because(*found, min(timeout_s, 10.0))
    if reason is not None:
        raise ConfigError(f"cannot join the Ray cluster at {address}: {reason}")


def _host_and_port(address: str) -> tuple[str, int] | None:
    """``HOST:PORT`` (a scheme before it ignored) split; None when it has no port."""
    host, _, port = address.split("://", 1)[-1].rpartition(":")
    return (host, int(port)) if host and port.isdigit() else None


def unreachable_because(host: str, port: int, timeout_s: float) -> str | None:
    """Why nothing takes a connection at ``host``:``port`` (None: something does)."""
    try:
        with socket.create_connection((host.strip("[]"), port), timeout=timeout_s):
            return None
    except socket.gaierror as error:
        return f"no host {host!r} ({error.strerror})"
    except OSError as error:
        return f"nothing answers there ({error.strerror or str(error) or type(error).__name__})"


def _errors_to_stderr(ray: Any) -> None:
    """Ray prints the cluster's error messages for the driver ("(raylet) A worker died ...") to
    standard output, where they broke ``--json``: they go to standard error."""
    worker_module: Any = getattr(getattr(ray, "_private", None), "worker", None)
    printed = getattr(worker_module, "print_to_stdstream", None)
    if printed is None or getattr(printed, "to_stderr", False):  # another Ray: its own way, as it is
        return

    said: set[str] = set()

    def to_stderr(data: dict[str, Any], ignore_prefix: bool) -> None:
        lines = _first_line(data.get("lines", []))
        if len(lines) == 1 and lines[0] in said:  # a lost raylet is reported twice
            return
        said.update(lines[:1])
        printed({**data, "is_err": True, "lines": lines}, ignore_prefix)

    to_stderr.to_stderr = True  # type: ignore[attr-defined]
    worker_module.print_to_stdstream = to_stderr


def _first_line(messages: list[str]) -> list[str]:
    """A cluster message of several lines cut to its first: a lost raylet came with 25 lines of its
    log's state dump, which the cluster's own log files keep."""
    lines = [line for message in messages for line in str(message).splitlines()]
    if len(lines) <= 2:
        return lines
    return [f"{lines[0]} ({len(lines) - 1} more lines in the cluster's logs)"]


def _watched_address(ray: Any, address: str) -> tuple[str, int] | None:
    """The cluster's control service (GCS), whose going away ends the cluster; None for a Ray Client
    (``ray://``), whose connection reports its own loss."""
    if address.startswith("ray://"):
        return None
    try:
        return _host_and_port(str(ray.get_runtime_context().gcs_address))
    except Exception:  # another Ray: not watched, as before
        return None


def _join(ray: Any, address: str, timeout_s: float) -> None:
    """``ray.init`` on the cluster, given ``timeout_s`` to answer (Ray itself may retry for ever)."""
    check_reachable(address, timeout_s)
    _errors_to_stderr(ray)
    env = {"DOCGRAPH_THREADS": "1", "OMP_NUM_THREADS": "1"}
    outcome: list[BaseException | None] = []

    def connect() -> None:
        try:
            ray.init(address=address, runtime_env={"env_vars": env}, logging_level=logging.ERROR, log_to_driver=False)
            outcome.append(None)
        except Exception as error:
            outcome.append(error)

    # Joined from a thread (to bound the wait), Ray warns that it cannot set its SIGTERM handler there:
    # the driver needs none, docgraph closes the connection itself.
    logging.getLogger("ray").setLevel(logging.ERROR)
    thread = threading.Thread(target=connect, name="docgraph-ray-connect", daemon=True)
    thread.start()
    thread.join(timeout_s)
    if not outcome:
        raise ConfigError(f"the Ray cluster at {address} did not answer within {timeout_s:g}s")
    if outcome[0] is not None:
        raise ConfigError(f"cannot join the Ray cluster at {address}: {outcome[0]}") from outcome[0]


class RayExecutor:
    """Tasks on the Ray cluster at ``address`` (``auto``, ``HOST:PORT`` or ``ray://HOST:PORT``)."""

    def __init__(self, spec: WorkerSpec, address: str, connect_timeout_s: float = CONNECT_TIMEOUT_S) -> None:
        if address.split("://")[-1].rsplit(":", 1)[0] in LOOPBACK_HOSTS:
            # Ray reads this when it is imported: without it, a driver swaps the loopback address of a
            # cluster on this machine for the machine's own, where nothing listens, and waits for ever.
            os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
        try:
            import ray
        except ImportError as error:
            raise ConfigError("--ray needs Ray: pip install 'docgraph[ray]'") from error
        _join(ray, address, connect_timeout_s)
        self._ray = ray
        self.address = address
        self.workers = max(1, int(ray.cluster_resources().get("CPU", 1)))  # type: ignore[no-untyped-call]
        self._token = uuid.uuid4().hex
        self._spec = ray.put(spec)
        self._task = ray.remote(num_cpus=1, max_retries=0)(run_ray_task)
        self._stats: dict[int, WorkerStats] = {}
        # A cluster that goes away mid-ingest: the tasks asked of it would wait until Ray ends this
        # process, a minute later, without a word. Watched, they fail at once, each with the reason.
        self._pending: set[Future[Any]] = set()
        self._pending_lock = threading.Lock()
        self._lost = ""
        self.gone = threading.Event()  # set once the cluster is found gone and its tasks have failed
        self._closed = threading.Event()
        watched = _watched_address(ray, address)
        if watched is not None:
            threading.Thread(target=self._watch, args=watched, name="docgraph-ray-watch", daemon=True).start()
        # Asking Ray for a task waits for the control service (the task's first export), so the
        # asking happens in a thread of its own: the pipeline waits on futures the watch can fail.
        self._asks: queue.SimpleQueue[tuple[Future[Any], str, tuple[Any, ...]] | None] = queue.SimpleQueue()
        self._asking = threading.Thread(target=self._ask_ray, name="docgraph-ray-submit", daemon=True)
        self._asking.start()

    def submit(self, method: str, *args: Any) -> Future[Any]:
        result: Future[Any] = Future()
        with self._pending_lock:
            if self._lost:
                result.set_exception(WorkerLostError(self._lost))
                return result
            self._pending.add(result)
        self._asks.put((result, method, args))
        return result

    def _ask_ray(self) -> None:
        while (ask := self._asks.get()) is not None:
            result, method, args = ask
            if self._lost or self._closed.is_set():  # failed with the cluster, or asked of Ray no more
                closed = WorkerLostError(self._lost or "the Ray executor was closed before this task ran")
                self._settle_with(result, functools.partial(result.set_exception, closed))
                continue
            try:
                ref = self._task.remote(self._token, self._spec, method, args)
                ref.future().add_done_callback(functools.partial(self._settle, result=result, method=method))
            except Exception as error:  # not sent (its arguments, a Ray Client gone): this task fails
                self._settle_with(result, functools.partial(result.set_exception, error))

    def source(self, path: Path) -> SourceFile:
        if self._lost:
            raise WorkerLostError(self._lost)
        return SourceFile(path, self._ray.put(path.read_bytes()))

    @property
    def lost_reason(self) -> str:
        """Why the cluster's tasks fail (empty while it answers)."""
        return self._lost

    def stats(self) -> list[WorkerStats]:
        return list(self._stats.values())

    def close(self) -> None:
        """Ask Ray for nothing more (the tasks still queued fail), then let go of the cluster."""
        self._closed.set()
        self._asks.put(None)
        if not self._lost:
            self._asking.join(CLOSE_WAIT_S)  # a task asked of Ray after its shutdown would start a Ray here
            self._ray.shutdown()
            return
        # Without its control service, asking and shutting down wait for it: given a while, then left
        # (before Ray ends the process, so that the reports are printed).
        ending = threading.Thread(target=self._ray.shutdown, name="docgraph-ray-shutdown", daemon=True)
        ending.start()
        ending.join(LOST_CLOSE_WAIT_S)

    def _watch(self, host: str, port: int) -> None:
        """Fail the cluster's tasks once its control service (at ``host``:``port``) has not answered
        for most of the time Ray's driver gives it to come back (a GCS that restarts, with fault
        tolerance, comes back)."""
        reconnect_s = float(os.environ.get(GCS_RECONNECT_ENV) or GCS_RECONNECT_DEFAULT_S)
        lost_after_s = max(LOST_AFTER_AT_LEAST_S, reconnect_s - GCS_MARGIN_S)
        gone_since: float | None = None
        while not self._closed.wait(WATCH_EVERY_S):
            reason = unreachable_because(host, port, timeout_s=WATCH_EVERY_S)
            if reason is None:
                gone_since = None
                continue
            gone_since = gone_since or time.monotonic()
            if time.monotonic() - gone_since >= lost_after_s:
                self._lose(f"{reason} for {lost_after_s:g}s")
                return

    def _lose(self, reason: str) -> None:
        """The cluster is gone: every task waiting on it, and every one asked later, fails."""
        with self._pending_lock:
            if not self._lost:
                self._lost = f"the Ray cluster at {self.address} is gone: {reason}; this document is not written"
            pending, self._pending = self._pending, set()
        for result in pending:
            if result.set_running_or_notify_cancel():
                result.set_exception(WorkerLostError(self._lost))
        self.gone.set()

    def _settle_with(self, result: Future[Any], outcome: Callable[[], None]) -> None:
        """Give ``result`` its ``outcome`` unless it has one (the cluster's loss got there first)."""
        with self._pending_lock:
            if result not in self._pending:
                return
            self._pending.discard(result)
        if result.set_running_or_notify_cancel():
            outcome()

    def _settle(self, done: Future[Any], result: Future[Any], method: str) -> None:
        self._settle_with(result, lambda: self._outcome(done, result, method))

    def _outcome(self, done: Future[Any], result: Future[Any], method: str) -> None:
        error = done.exception()
        if error is None:
            value, pid, peak_mb = done.result()
            seen = self._stats.get(pid)
            tasks = seen.tasks + 1 if seen else 1
            self._stats[pid] = WorkerStats(f"ray pid {pid}", tasks, max(peak_mb, seen.peak_rss_mb if seen else 0))
            result.set_result(value)
        else:
            result.set_exception(self._translated(error, method))

    def _translated(self, error: BaseException, method: str) -> BaseException:
        exceptions = self._ray.exceptions
        if isinstance(error, exceptions.RayTaskError):  # the task's own error, without Ray's traceback
            cause = getattr(error, "cause", None)
            return cause if isinstance(cause, Exception) else IngestError(str(error).splitlines()[-1])
        if isinstance(error, exceptions.RayError):  # the watch says whether the whole cluster went with it
            return WorkerLostError(self._lost or f"a Ray worker was lost while it ran {method}: {type(error).__name__}")
        return error

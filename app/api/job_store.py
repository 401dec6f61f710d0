"""Ingest jobs on disk (``<home>/jobs/<store key>.sqlite``), so that they outlive the server process.

One server at a time holds a store's jobs (:meth:`JobStore.claim`, a lock beside the file).

A job is saved when it is queued, when it starts, when its stage changes and when it ends. On
start the server reads them back: a job that was queued or running when the server stopped runs
again if its upload is still there (a document write is one transaction, so a job cut short wrote
nothing), and fails with a clear error if it is not.
"""

from __future__ import annotations

import fcntl
import json
import sqlite3
import threading
from pathlib import Path
from typing import IO, Any

from docgraph.errors import ConfigError


class JobStore:
    def __init__(self, path: Path, kept: int) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._kept = kept
        self._lock = threading.Lock()
        self._claim: IO[str] | None = None
        with self._connect() as db:
            db.execute(
                "CREATE TABLE IF NOT EXISTS jobs "
                "(job_id TEXT PRIMARY KEY, created_at TEXT NOT NULL, record TEXT NOT NULL)"
            )

    def claim(self) -> None:
        """Hold these jobs for this process until :meth:`release`: a second server on the same data
        home and store would run the first one's unfinished jobs again, beside it."""
        if self._claim is not None:
            return
        handle = self.path.with_suffix(".lock").open("a")
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)  # per open file: a second JobStore of this process too
        except OSError as error:
            handle.close()
            raise ConfigError(
                f"another docgraph server runs the ingest jobs of this store from {self.path.parent.parent}: "
                "stop it, or start this one with another DOCGRAPH_HOME"
            ) from error
        self._claim = handle

    def release(self) -> None:
        if self._claim is not None:
            self._claim.close()
            self._claim = None

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(self.path, timeout=30)

    def save(self, job_id: str, created_at: str, record: dict[str, Any]) -> None:
        text = json.dumps(record, ensure_ascii=False)
        with self._lock, self._connect() as db:
            db.execute(  # an update keeps the row's rowid: jobs of one second stay in the order they came
                "INSERT INTO jobs (job_id, created_at, record) VALUES (?, ?, ?) "
                "ON CONFLICT(job_id) DO UPDATE SET record = excluded.record",
                (job_id, created_at, text),
            )
            db.execute(  # the newest finished ones are kept; an unfinished one always
                "DELETE FROM jobs WHERE json_extract(record, '$.status') NOT IN ('queued', 'running') "
                "AND job_id NOT IN (SELECT job_id FROM jobs ORDER BY created_at DESC, rowid DESC LIMIT ?)",
                (self._kept,),
            )

    def forget(self, job_ids: list[str]) -> None:
        with self._lock, self._connect() as db:
            db.executemany("DELETE FROM jobs WHERE job_id = ?", [(job_id,) for job_id in job_ids])

    def load(self) -> list[dict[str, Any]]:
        """Every kept job's record, oldest first."""
        with self._lock, self._connect() as db:
            rows = db.execute("SELECT record FROM jobs ORDER BY created_at, rowid").fetchall()
        return [json.loads(row[0]) for row in rows]

"""Ingest jobs on disk (``<home>/jobs.sqlite``), so that they outlive the server process.

A job is saved when it is queued, when it starts, when its stage changes and when it ends. On
start the server reads them back: a job that was queued or running when the server stopped runs
again if its upload is still there (a document write is one transaction, so a job cut short wrote
nothing), and fails with a clear error if it is not.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path
from typing import Any


class JobStore:
    def __init__(self, path: Path, kept: int) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._kept = kept
        self._lock = threading.Lock()
        with self._connect() as db:
            db.execute(
                "CREATE TABLE IF NOT EXISTS jobs "
                "(job_id TEXT PRIMARY KEY, created_at TEXT NOT NULL, record TEXT NOT NULL)"
            )

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(self.path, timeout=30)

    def save(self, job_id: str, created_at: str, record: dict[str, Any]) -> None:
        text = json.dumps(record, ensure_ascii=False)
        with self._lock, self._connect() as db:
            db.execute(
                "INSERT OR REPLACE INTO jobs (job_id, created_at, record) VALUES (?, ?, ?)", (job_id, created_at, text)
            )
            db.execute(
                "DELETE FROM jobs WHERE job_id NOT IN "
                "(SELECT job_id FROM jobs ORDER BY created_at DESC, rowid DESC LIMIT ?)",
                (self._kept,),
            )

    def load(self) -> list[dict[str, Any]]:
        """Every kept job's record, oldest first."""
        with self._lock, self._connect() as db:
            rows = db.execute("SELECT record FROM jobs ORDER BY created_at, rowid").fetchall()
        return [json.loads(row[0]) for row in rows]

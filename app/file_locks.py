"""An exclusive lock between processes and threads, on a file beside what it guards."""

from __future__ import annotations

import fcntl
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def file_lock(path: Path) -> Iterator[None]:
    """Hold ``path`` (made if missing) locked while the block runs. Each holder opens the file
    anew, so threads of one process exclude each other as processes do; the lock goes with the
    file's closing, also when the process dies."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        yield

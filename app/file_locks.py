"""An exclusive lock between processes and threads, on a file beside what it guards."""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def file_lock(path: Path) -> Iterator[None]:
    """Hold ``path`` (made if missing) locked while the block runs. Each holder opens the file
    anew, so threads of one process exclude each other as processes do; the lock goes with the
    file's closing, also when the process dies."""
    path.parent.mkdir(parents=True, exist_ok=True)
    # Read-only, and readable by all: the file holds nothing, and a lock file another user made
    # (a container's user and root sharing a home) must still open.
    descriptor = os.open(path, os.O_RDONLY | os.O_CREAT, 0o644)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        yield
    finally:
        os.close(descriptor)

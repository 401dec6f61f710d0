"""What tells one content of a file from the next without reading it: an ingest's file rewritten
while it was read, a checkpoint replaced under a running server."""

from __future__ import annotations

from pathlib import Path

FileState = tuple[int, int, int]  # size, modification time (ns), inode


def file_state(path: Path) -> FileState | None:
    """The file's size, modification time and inode (None: no such file)."""
    try:
        found = path.stat()
    except OSError:
        return None
    return found.st_size, found.st_mtime_ns, found.st_ino

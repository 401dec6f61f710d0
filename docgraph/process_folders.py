"""Temp folders of one process, named with its pid (``<prefix><pid>-<random>``): a worker's copies of
the PDFs it was sent, the page images OCR reads. A process killed before it could remove its folder
leaves the documents' content behind; the next process of this user that makes such a folder
removes the ones of processes that no longer run."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def process_temp_folder(prefix: str) -> Iterator[Path]:
    """A temp folder of this process, removed on leaving; orphaned ones of ``prefix`` go first."""
    base = Path(tempfile.gettempdir())
    remove_orphaned_folders(base, prefix)
    with tempfile.TemporaryDirectory(prefix=f"{prefix}{os.getpid()}-", dir=base) as folder:
        yield Path(folder)


def remove_orphaned_folders(base: Path, prefix: str) -> list[Path]:
    """Remove this user's folders named ``<prefix><pid>-...`` whose process no longer runs."""
    removed = []
    for folder in base.glob(f"{prefix}*"):
        pid = folder.name.removeprefix(prefix).split("-", 1)[0]
        try:
            owned = folder.is_dir() and folder.stat().st_uid == os.getuid()
        except OSError:
            continue
        if owned and pid.isdigit() and not _running(int(pid)):
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
    return removed


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process of that pid: running
        return True
    return True

"""A worker's copy of a PDF it received as bytes: written once per process, by content.

The copies of one process live in a temp folder named with its pid; the folder goes when the
process exits, and a worker that makes its first copy removes the folders of processes that died
without that (a Ray worker is killed, not stopped).
"""

from __future__ import annotations

import atexit
import hashlib
import os
import shutil
import tempfile
import threading
from collections import OrderedDict
from pathlib import Path

from docgraph.app.pipeline.execution.base import SourceFile
from docgraph.process_folders import remove_orphaned_folders

KEPT_FILES = 8  # the documents a worker may be reading at once, and a margin
FOLDER_PREFIX = "docgraph-sources-"  # then the pid, a dash and mkdtemp's random part

_lock = threading.Lock()
_copies: OrderedDict[str, Path] = OrderedDict()
_folder: Path | None = None


def local_path(source: SourceFile) -> Path:
    """The file to read: the source's own path, or a private copy of the bytes it came with (under
    the same file name, which errors and the document's record use)."""
    if source.data is None:
        return source.path
    data: bytes = source.data
    digest = hashlib.sha256(data).hexdigest()
    with _lock:
        if digest in _copies and _copies[digest].exists():
            _copies.move_to_end(digest)
            return _copies[digest]
        target = _process_folder() / digest[:16] / source.path.name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        _copies[digest] = target
        while len(_copies) > KEPT_FILES:
            _, old = _copies.popitem(last=False)
            shutil.rmtree(old.parent, ignore_errors=True)
        return target


def _process_folder() -> Path:
    """This process's folder of copies, made on first use (called under ``_lock``)."""
    global _folder
    if _folder is None:
        base = Path(tempfile.gettempdir())
        remove_orphaned_folders(base, FOLDER_PREFIX)
        _folder = Path(tempfile.mkdtemp(prefix=f"{FOLDER_PREFIX}{os.getpid()}-", dir=base))
        atexit.register(shutil.rmtree, _folder, True)
    return _folder

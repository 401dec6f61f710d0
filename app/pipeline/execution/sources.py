"""A worker's copy of a PDF it received as bytes: written once per process, by content."""

from __future__ import annotations

import hashlib
import shutil
import tempfile
import threading
from collections import OrderedDict
from pathlib import Path

from docgraph.app.pipeline.execution.base import SourceFile

KEPT_FILES = 8  # the documents a worker may be reading at once, and a margin

_lock = threading.Lock()
_copies: OrderedDict[str, Path] = OrderedDict()


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
        folder = Path(tempfile.mkdtemp(prefix="docgraph-source-"))
        target = folder / source.path.name
        target.write_bytes(data)
        _copies[digest] = target
        while len(_copies) > KEPT_FILES:
            _, old = _copies.popitem(last=False)
            shutil.rmtree(old.parent, ignore_errors=True)
        return target

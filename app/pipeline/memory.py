"""Freed memory handed back to the system between ingest stages.

glibc's allocator keeps what a stage freed (the GNN's per-window tensors, a document's temporary
lists) in its heaps, so a process that has ingested a long document stays as large as its largest
stage was. ``malloc_trim`` returns the free pages; elsewhere (macOS, musl) this does nothing.
"""

from __future__ import annotations

import ctypes
import sys
from functools import lru_cache
from typing import Any


@lru_cache(maxsize=1)
def _glibc() -> Any:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL("libc.so.6")
    except OSError:
        return None
    return libc if hasattr(libc, "malloc_trim") else None


def release_free_memory() -> None:
    """Give the pages the allocator holds free back to the system (glibc only)."""
    libc = _glibc()
    if libc is not None:
        libc.malloc_trim(0)

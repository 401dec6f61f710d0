"""Working arrays of a long document kept in files rather than in the process's memory.

A :class:`SpillFolder` hands out float32 tensors backed by memory-mapped files in a folder on disk.
The kernel pages them in as they are read and written back as it needs the memory; ``release``
drops the pages the process has touched so far from its resident set (the data stays in the file
and the page cache). The files are unlinked as soon as they are made, so nothing is left on disk
once the tensors are gone, whatever way the process ends.
"""

from __future__ import annotations

import mmap
import os
import tempfile
import threading
import weakref
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from docgraph.errors import ModelError

if TYPE_CHECKING:  # stores call release_spilled_pages, and asking a question does without torch
    import torch


_LIVE_LOCK = threading.Lock()
_LIVE: list[weakref.ref[mmap.mmap]] = []  # every folder's files still mapped


class SpillFolder:
    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def empty(self, rows: int, cols: int) -> torch.Tensor:
        """An uninitialised (rows, cols) float32 tensor in a file of this folder (zeros, in fact)."""
        import torch

        size = rows * cols * 4
        if size == 0:
            return torch.empty((rows, cols), dtype=torch.float32)
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            descriptor, name = tempfile.mkstemp(prefix="docgraph-spill-", dir=self.folder)
        except OSError as exc:
            raise ModelError(f"cannot make a working file in {self.folder}: {exc}") from exc
        try:
            os.unlink(name)
            if hasattr(os, "posix_fallocate"):  # a full disk is an error here, not a SIGBUS later
                os.posix_fallocate(descriptor, 0, size)
            else:
                os.ftruncate(descriptor, size)
            mapped = mmap.mmap(descriptor, size)
        except OSError as exc:
            raise ModelError(f"cannot make a working file of {size:,} bytes in {self.folder}: {exc}") from exc
        finally:
            os.close(descriptor)
        with _LIVE_LOCK:
            _LIVE.append(weakref.ref(mapped))
        return torch.from_numpy(np.frombuffer(mapped, dtype=np.float32).reshape(rows, cols))

    def like(self, tensor: torch.Tensor) -> torch.Tensor:
        """A file-backed copy of a 2-d float32 ``tensor``."""
        copy = self.empty(int(tensor.shape[0]), int(tensor.shape[1]))
        copy.copy_(tensor)
        return copy

    def release(self) -> None:
        """Drop the mapped pages from this process's resident memory; their data stays in the files.
        (Every folder's: one document is ingested at a time in a process, and a page let go early
        only costs reading it again.)"""
        release_spilled_pages()


def release_spilled_pages() -> None:
    """Drop the pages of every spill file still mapped from the resident memory (a writer reading a
    long document's vectors calls it between chunks)."""
    with _LIVE_LOCK:
        alive = [mapped for ref in _LIVE if (mapped := ref()) is not None and not mapped.closed]
        for mapped in alive:
            mapped.madvise(mmap.MADV_DONTNEED)
        _LIVE[:] = [weakref.ref(mapped) for mapped in alive]

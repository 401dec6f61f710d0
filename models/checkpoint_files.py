"""Checkpoint files of the GNN and the reranker: written whole or not at all, and read back with one
line of error when a file is not what it claims (empty, a Git LFS pointer, cut short)."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import torch

from docgraph.errors import ModelError

_SENTENCE_END = re.compile(r"\. (?=[A-Z][a-z])")  # "directory. This", not "e.g. /tmp" or a path


def save_atomically(payload: dict[str, Any], path: Path) -> Path:
    """``torch.save`` through a part file of this process's own: a crash mid-save leaves the old
    file whole, and two processes saving at once do not write into one part file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f"{path.name}.{os.getpid()}.part")
    try:
        torch.save(payload, partial)
        partial.replace(path)
    finally:
        partial.unlink(missing_ok=True)
    return path


def unreadable(path: Path, kind: str, error: Exception) -> ModelError:
    """The error for a file that is no ``kind`` checkpoint, with the first line of why (torch's
    unpickling errors go on for a paragraph, and advise loading the file unsafely)."""
    lines = str(error).strip().splitlines()
    first = lines[0] if lines else type(error).__name__
    # torch's zip reader goes on in one line: "… central directory. This is an internal miniz…"
    end = _SENTENCE_END.search(first)
    return ModelError(f"{path} is not a docgraph {kind} checkpoint: {first[: end.start() + 1] if end else first}")

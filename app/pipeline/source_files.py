"""The files an ingest takes: PDFs named or found in folders, each checked before it is read."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from docgraph.errors import BadDocumentError
from docgraph.ingest.types import DocumentLayout, ProgressCallback, Reader


def expand_paths(paths: Iterable[Path]) -> list[Path]:
    """Files as given, and the PDFs inside folders (recursively, sorted); a file named twice (itself
    and its folder) once, where it first comes, so that its one report says what was done to it."""
    found: dict[Path, Path] = {}
    for path in paths:
        files = (
            sorted(p for p in path.rglob("*") if p.suffix.lower() == ".pdf" and p.is_file())
            if path.is_dir()
            else [path]
        )
        for file in files:
            found.setdefault(Path(os.path.abspath(file)), file)  # links keep their own names
    return list(found.values())


def read_pdf(reader: Reader, path: Path, progress: ProgressCallback | None = None) -> DocumentLayout:
    """``path`` read by ``reader``; a missing, unreadable or broken file is a one-line
    :class:`BadDocumentError`, not a traceback."""
    check_exists(path)
    return reader.read(path, progress=progress)


def check_exists(path: Path) -> None:
    if not path.exists():
        raise BadDocumentError(f"{path}: no such file")
    if not path.is_file():
        raise BadDocumentError(f"{path}: not a file")

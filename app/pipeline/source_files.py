"""The files an ingest takes: PDFs named or found in folders, each checked before it is read."""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path

from docgraph.errors import BadDocumentError, DocgraphError
from docgraph.ingest.structure.ids import doc_id_for, file_sha256
from docgraph.ingest.types import DocumentLayout, ProgressCallback, Reader


def expand_paths(paths: Iterable[Path]) -> list[Path]:
    """Files as given, and the PDFs inside folders (recursively, sorted); a file named twice (itself
    and its folder) once, where it first comes, so that its one report says what was done to it."""
    found: dict[tuple[str, str], Path] = {}
    for path in paths:
        for file in pdfs_under(path) if path.is_dir() else [path]:
            # one real file once, however many linked folders lead to it; a link to a file under
            # another name is that name's document
            found.setdefault((os.path.realpath(file), file.name), file)
    return list(found.values())


def pdfs_under(folder: Path) -> list[Path]:
    """The PDFs in ``folder`` and below, sorted; linked folders are followed (a library's shelves are
    often links), each real folder once, so that a link back up ends there. Hidden files and folders
    are left out (macOS's ``._name.pdf`` resource files, ``.git``, a ``.Trash``); named alone they
    ingest."""
    seen: set[tuple[int, int]] = set()
    found: list[Path] = []
    for root, folders, names in os.walk(folder, followlinks=True):
        where = os.stat(root)
        if (where.st_dev, where.st_ino) in seen:
            folders[:] = []
            continue
        seen.add((where.st_dev, where.st_ino))
        folders[:] = sorted(name for name in folders if not name.startswith("."))  # the first of two links
        # to one folder is the one kept, whatever the disk's order
        found += [Path(root, name) for name in names if _is_shown_pdf(name) and Path(root, name).is_file()]
    return sorted(found)


def same_content(paths: list[Path]) -> bool:
    """Whether the files hold the same bytes (a copy in another folder stores the same document); a
    file that cannot be read is left for its ingest to report."""
    try:
        return len({file_sha256(path) for path in paths}) == 1
    except OSError:
        return False


def by_document_id(paths: Sequence[Path]) -> dict[str, list[int]]:
    """The indexes of ``paths`` under the document id each file would be stored as; a name that
    gives no id is left out (its ingest reports it)."""
    by_id: dict[str, list[int]] = {}
    for index, path in enumerate(paths):
        try:
            by_id.setdefault(doc_id_for(path.name), []).append(index)
        except DocgraphError:
            continue
    return by_id


def first_copies(paths: list[Path]) -> dict[int, int]:
    """For each later copy among ``paths`` (another path of one document id holding the same bytes),
    the index of its first: read together, both copies would be read; one after the other, the
    second is found stored."""
    firsts: dict[int, int] = {}
    for indexes in by_document_id(paths).values():
        if len(indexes) > 1 and same_content([paths[i] for i in indexes]):
            firsts |= dict.fromkeys(indexes[1:], indexes[0])
    return firsts


def _is_shown_pdf(name: str) -> bool:
    return name.lower().endswith(".pdf") and not name.startswith(".")


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

"""The PDFs of a store's documents, kept under the data home by content hash (pages render from
them after the original file moves): where, making a copy, and removing one no document uses."""

from __future__ import annotations

import hashlib
import shutil
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from docgraph.app.file_locks import file_lock
from docgraph.app.stores import cypher
from docgraph.app.stores.base import GraphStore
from docgraph.app.stores.ingest_claims import claims_dir
from docgraph.errors import BadDocumentError


def kept_copies_dir(home: Path, store: GraphStore) -> Path:
    """One folder per store, so that deleting a document of one graph never takes a file another
    graph renders from."""
    return home / "files" / store_key(store)


def store_key(store: GraphStore) -> str:
    """The name of a store's own folders under a data home (its graph's, on a shared server)."""
    return hashlib.sha256(store.url.encode()).hexdigest()[:12]


def stored_sha256(store: GraphStore, doc_id: str) -> str | None:
    rows = store.read(cypher.load("document_sha256", store.dialect), {"doc_id": doc_id})
    return str(rows[0]["sha256"]) if rows and rows[0]["sha256"] else None


def remove_kept_copies(files_dir: Path) -> None:
    """The folder of a store that is gone (a throw-away store), its lock and its ingest claims."""
    shutil.rmtree(files_dir, ignore_errors=True)
    shutil.rmtree(claims_dir(files_dir), ignore_errors=True)
    _lock_path(files_dir).unlink(missing_ok=True)


def _lock_path(files_dir: Path) -> Path:
    return files_dir.with_name(f"{files_dir.name}.lock")


@contextmanager
def copies_locked(files_dir: Path) -> Iterator[None]:
    """The store's kept copies held still, across threads and processes: a write finds or makes its
    copy and stores its document, or a delete finds a copy unused and removes it, never both at
    once (a delete removed the copy a write of the same content had just found kept)."""
    with file_lock(_lock_path(files_dir)):
        yield


def drop_unused_copy(store: GraphStore, files_dir: Path, sha256: str) -> None:
    """Remove the kept copy of ``sha256`` unless a stored document still has that content; the
    caller holds :func:`copies_locked`."""
    rows = store.read(cypher.load("count_documents_with_sha256", store.dialect), {"sha256": sha256})
    if not rows or not int(rows[0]["documents"] or 0):
        kept_copy_path(files_dir, sha256).unlink(missing_ok=True)


def unused_copies(store: GraphStore, files_dir: Path) -> list[str]:
    """The kept copies no stored document uses, and copies left half made: an ingest or a delete cut
    off between its copy and its write (killed, the server gone) leaves them, and no document names
    them any more. The caller holds :func:`copies_locked`, under which every write makes its copy
    and stores its document, so no write is half done meanwhile."""
    if not files_dir.is_dir():
        return []
    stored = {str(row["sha256"]) for row in store.read(cypher.load("stored_sha256s", store.dialect))}
    unused = [path.name for path in files_dir.glob("*.pdf") if path.stem not in stored]
    return sorted(unused + [path.name for path in files_dir.glob("*.part")])


def drop_unused_copies(store: GraphStore, files_dir: Path) -> list[str]:
    """Remove :func:`unused_copies` (the caller holds :func:`copies_locked`); their names."""
    unused = unused_copies(store, files_dir)
    for name in unused:
        (files_dir / name).unlink(missing_ok=True)
    return unused


def kept_copy_path(files_dir: Path, sha256: str) -> Path:
    return files_dir / f"{sha256}.pdf"


def is_kept(files_dir: Path, sha256: str) -> bool:
    return kept_copy_path(files_dir, sha256).is_file()


def keep_copy(path: Path, files_dir: Path, sha256: str) -> bool:
    """Keep the PDF under the data home by content hash, so pages render after the file moves;
    True when the copy was made now (False: one was kept already). A copy whose content is not
    ``sha256`` (the file was rewritten since it was read) is refused, and nothing is kept."""
    target = kept_copy_path(files_dir, sha256)
    if target.exists():
        return False
    files_dir.mkdir(parents=True, exist_ok=True)
    tmp = target.with_suffix(f".{uuid.uuid4().hex}.part")  # its own: another process may copy the same file
    try:
        if _hashed_copy(path, tmp) != sha256:
            raise BadDocumentError(changed_message(path))
        tmp.replace(target)
    finally:
        tmp.unlink(missing_ok=True)
    return True


def _hashed_copy(source: Path, target: Path) -> str:
    digest = hashlib.sha256()
    with source.open("rb") as reading, target.open("wb") as writing:
        while block := reading.read(1 << 20):
            digest.update(block)
            writing.write(block)
    return digest.hexdigest()


def changed_message(path: Path) -> str:
    return f"{path.name}: the file changed while it was read; nothing was written, ingest it again"

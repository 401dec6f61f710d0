"""Which documents are being ingested, across the processes that share a data home (the CLI, the
web app, the API's jobs): a delete of one is refused, since the ingest's write would bring the
document back after the delete reported it gone. A lock file per document beside the store's kept
copies: ingests hold it shared (two ingests of one document do not wait for each other), a delete
tries it exclusive. The lock goes with its process, however that ends."""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from docgraph.errors import DocumentBusyError, StoreError

MAX_OPENS = 100  # a lock file unlinked by a delete between our open and lock: open it anew


def claims_dir(files_dir: Path) -> Path:
    return files_dir.with_name(f"{files_dir.name}.ingesting")


def claim_path(files_dir: Path, doc_id: str) -> Path:
    return claims_dir(files_dir) / f"{hashlib.sha256(doc_id.encode()).hexdigest()[:24]}.lock"


@contextmanager
def ingest_claim(files_dir: Path, doc_id: str) -> Iterator[None]:
    """Held while ``doc_id`` is ingested; waits only for a delete of it under way."""
    descriptor = _locked(claim_path(files_dir, doc_id), fcntl.LOCK_SH)
    try:
        yield
    finally:
        os.close(descriptor)


@contextmanager
def delete_claim(files_dir: Path, doc_id: str) -> Iterator[None]:
    """Held while ``doc_id`` is deleted; :class:`DocumentBusyError` at once while an ingest holds it."""
    path = claim_path(files_dir, doc_id)
    try:
        descriptor = _locked(path, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise DocumentBusyError(
            f"{doc_id!r} is being ingested (by a docgraph process on this data home): "
            "delete it once that ingest has ended"
        ) from None
    try:
        yield
    finally:
        with contextlib.suppress(OSError):  # the delete is done: a lock file left behind is harmless
            path.unlink(missing_ok=True)  # still held: nobody else holds this file; later ones make anew
        os.close(descriptor)


def check_not_ingested(files_dir: Path, doc_id: str) -> None:
    """:class:`DocumentBusyError` while a process on this data home ingests ``doc_id``."""
    with delete_claim(files_dir, doc_id):
        pass


def _locked(path: Path, mode: int) -> int:
    """A descriptor of ``path`` locked in ``mode``, the file still at that path once locked; a
    folder that cannot be written (another user's data home) is a StoreError, in one line."""
    try:
        return _opened_and_locked(path, mode)
    except BlockingIOError:
        raise
    except OSError as error:
        raise StoreError(f"cannot lock {path}: {error.strerror or error}") from error


def _opened_and_locked(path: Path, mode: int) -> int:
    path.parent.mkdir(parents=True, exist_ok=True)
    for _ in range(MAX_OPENS):
        descriptor = os.open(path, os.O_RDONLY | os.O_CREAT, 0o644)
        try:
            fcntl.flock(descriptor, mode)
            if _same_file(descriptor, path):
                return descriptor
        except BaseException:
            os.close(descriptor)
            raise
        os.close(descriptor)
    raise StoreError(f"could not lock {path}: it was removed {MAX_OPENS} times while being locked")


def _same_file(descriptor: int, path: Path) -> bool:
    try:
        return os.fstat(descriptor).st_ino == path.stat().st_ino
    except FileNotFoundError:
        return False

"""A file stored exactly as the pipeline would build it is not read again.

Reading, embedding and the GNN take seconds to minutes a document; a re-ingest of a folder where
nothing changed should cost a hash of each file. The stored version and build must both be this
pipeline's: a build that differs in the GNN checkpoint alone still runs, to refresh the vectors.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from docgraph.app.stores.base import GraphStore
from docgraph.app.stores.cypher import load
from docgraph.ingest.structure.ids import doc_id_for, file_sha256
from docgraph.records import (
    BUILD_SEPARATOR,
    CORPUS_LINKS_BUILD_PREFIX,
    ENCODER_BUILD_PREFIX,
    NO_EMBEDDINGS,
    document_version,
)


@dataclass(frozen=True, slots=True)
class StoredDocument:
    doc_id: str
    sha256: str
    pages: int
    sections: int
    regions: int
    version: str
    source_path: str  # where it was read from, last
    build: str  # how it was built: the pipeline's build, or that build with embeddings (stored_as_built)


KEPT_EMBEDDINGS_NOTE = (
    "stored with embeddings, kept as it is: re-reading it without them (--no-embed) would drop its "
    "vectors and similarity links (--force does that)"
)


KEPT_CORPUS_LINKS_NOTE = (
    "stored with links to other documents (--similar-elsewhere), kept as it is: re-reading it without "
    "them would drop those links (--force does that)"
)


def stored_as_built(store: GraphStore, path: Path, build: str) -> StoredDocument | None:
    """The stored document of ``path`` when its content and build are this file's and ``build``;
    for a build without embeddings, also one stored as that build with embeddings, and for a
    build without links to other documents, one stored with them: builds it would only take from."""
    doc_id = doc_id_for(path.name)
    rows = store.read(load("document_versions", store.dialect), {"doc_id": doc_id})
    stored_build = str(rows[0]["build"] or "") if rows else ""
    if not rows or not _builds_as(stored_build, build):
        return None
    sha256 = file_sha256(path)
    if rows[0]["version"] != document_version(sha256, stored_build):
        return None
    counts = store.read(load("document_counts", store.dialect), {"doc_id": doc_id})
    if not counts:
        return None  # deleted since
    row = counts[0]
    pages, sections, regions = int(row["pages"] or 0), int(row["sections"]), int(row["regions"])
    source_path = str(row["source_path"] or "")
    return StoredDocument(doc_id, sha256, pages, sections, regions, str(rows[0]["version"]), source_path, stored_build)


def _builds_as(stored: str, build: str) -> bool:
    """Whether a document stored as ``stored`` is kept for ``build``: the same build, or one this
    build would only take from (its vectors, its links to other documents), by whatever release or
    reading revision (the first part: re-reading loses what this build would not make again)."""
    if stored == build:
        return True
    stored, build = _past_release(stored), _past_release(build)
    if _without_corpus_links(stored) == build != stored:  # stored with links to other documents
        return True
    without = build.removesuffix(f"{BUILD_SEPARATOR}{NO_EMBEDDINGS}")
    return without != build and stored.startswith(f"{without}{BUILD_SEPARATOR}{ENCODER_BUILD_PREFIX}")


def _past_release(build: str) -> str:
    """A build without its first part, the docgraph release and reading revision."""
    return build.split(BUILD_SEPARATOR, 1)[-1]


def _without_corpus_links(build: str) -> str:
    parts = build.split(BUILD_SEPARATOR)
    return BUILD_SEPARATOR.join(part for part in parts if not part.startswith(CORPUS_LINKS_BUILD_PREFIX))


def kept_as_stored_note(stored: StoredDocument, build: str) -> str | None:
    """Why a document stored as another build than ``build`` was kept as it is (see stored_as_built)."""
    if stored.build == build:
        return None
    links_only = _without_corpus_links(_past_release(stored.build)) == _past_release(build)
    return KEPT_CORPUS_LINKS_NOTE if links_only else KEPT_EMBEDDINGS_NOTE


def source_path_of(path: Path) -> str:
    """What a document records as the file it was read from: the path as given, made absolute,
    links kept (``manual-latest.pdf`` pointed at each new edition in turn stays that document's file);
    the file itself when that spelling leads elsewhere (``shelf/../x.pdf`` through a linked folder)."""
    given = os.path.abspath(path)
    try:
        return given if os.path.samefile(given, path) else str(path.resolve())
    except OSError:  # gone meanwhile: its ingest reports that
        return str(path.resolve())


def same_source(source: str, path: Path) -> bool:
    """Whether a recorded source names ``path``: spelled the same, or leading to the same file (a
    linked folder; documents stored before links were kept record the file a link led to)."""
    return source == source_path_of(path) or Path(source).resolve() == path.resolve()


def uploaded_source(name: str) -> str:
    """What a document read from a client's upload records as its source: no path on this machine."""
    return f"uploaded as {name}"


def note_moved_source(store: GraphStore, stored: StoredDocument, path: Path) -> None:
    """Make ``path`` the stored document's file when the file it was read from is gone (a folder
    moved), so that its next change where it is now is an update, not a clash. A copy beside a file
    that is still there (an upload of the same content) does not take it over."""
    if stored.source_path and not Path(stored.source_path).is_file():
        set_source_path(store, stored.doc_id, stored.version, path)


def set_source_path(store: GraphStore, doc_id: str, version: str, path: Path) -> None:
    """Record ``path`` as the file the stored ``version`` of ``doc_id`` was read from."""
    params = {"doc_id": doc_id, "version": version, "source_path": source_path_of(path)}
    store.write(load("set_document_source_path", store.dialect), params)


def take_over_source(store: GraphStore, doc_id: str, path: Path) -> None:
    """``--replace`` of a file found unchanged: it is the document's file from now on."""
    rows = store.read(load("document_versions", store.dialect), {"doc_id": doc_id})
    if rows:
        set_source_path(store, doc_id, str(rows[0]["version"]), path)

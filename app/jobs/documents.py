"""Document-level operations on a store: look up, list, locate the stored PDF."""

from __future__ import annotations

import contextlib
import unicodedata
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from docgraph.app.pipeline.reports import IngestReport
from docgraph.app.pipeline.source_files import by_document_id, same_content
from docgraph.app.pipeline.unchanged import same_source
from docgraph.app.stores import cypher
from docgraph.app.stores.base import GraphStore, Row
from docgraph.app.stores.ingest_claims import check_not_ingested, delete_claim
from docgraph.app.stores.kept_copies import copies_locked, drop_unused_copies, kept_copy_path, stored_sha256
from docgraph.app.stores.page_cache import drop_unused_images
from docgraph.errors import (
    AmbiguousDocumentError,
    ConfigError,
    DocgraphError,
    DocumentNotFoundError,
    StoreError,
    UnknownDocumentError,
)
from docgraph.ingest.structure.ids import doc_id_for, file_sha256

MAX_STEM_BYTES = 250  # file systems allow 255 bytes a name: room left for ".part" (and ".pdf")


def stem_within_bytes(stem: str) -> str:
    """``stem`` cut to ``MAX_STEM_BYTES`` of UTF-8 on a character boundary: 150 Japanese characters
    are 450 bytes, too long a file name to save an upload under."""
    return stem.encode("utf-8")[:MAX_STEM_BYTES].decode("utf-8", errors="ignore")


def upload_file_name(given: str | None) -> str:
    """The name an uploaded file is saved and ingested under: the client's name without its folders
    or control characters, not hidden, ending in ``.pdf``. Spaces and letters of any script stay,
    since the document id and the stored file name come from it: the same file uploaded through
    the API or the UI, or ingested from disk, must be the same document."""
    name = Path(_form_unescaped(given or "").replace("\\", "/")).name
    name = "".join("_" if unicodedata.category(ch) == "Cc" else ch for ch in name).strip().rstrip(". ")
    stem, suffix = (name[:-4], name[-4:]) if name.lower().endswith(".pdf") else (name, ".pdf")
    stem = stem_within_bytes(stem.lstrip(".")).rstrip(". ")  # leading spaces went with the name's
    return f"{stem}{suffix}" if stem else "upload.pdf"


def _form_unescaped(name: str) -> str:
    """A multipart file name as the user's file had it: browsers and curl send ``"``, CR and LF as
    %22, %0D and %0A (the HTML standard's form encoding), which made ``x"y.pdf`` the document
    ``x-22y`` through the API where ``docgraph ingest`` stores it as ``x-y``."""
    return name.replace("%22", '"').replace("%0D", "\r").replace("%0A", "\n")


def check_distinct_ids(paths: list[Path]) -> None:
    """Refuse a set of files of which some would be stored under one document id (``Report A.pdf``
    and ``report-a.pdf``): for a run that needs every file (an evaluation's documents)."""
    clashes = colliding_ids(paths)
    if clashes:
        raise ConfigError(next(iter(clashes.values())))


def colliding_ids(paths: list[Path]) -> dict[Path, str]:
    """The files that would be stored under one document id with another file of ``paths`` holding
    other content, each with why: ingested together, the later would silently replace the earlier
    (copies of one file are one document). A name that gives no id at all is left for the ingest."""
    clashes: dict[Path, str] = {}
    for doc_id, indexes in by_document_id(paths).items():
        same = [paths[i] for i in indexes]
        if len({p.resolve() for p in same}) > 1 and not same_content(same):
            names = " and ".join(str(p) for p in same[:3]) + (f" and {len(same) - 3} more" if len(same) > 3 else "")
            clashes |= dict.fromkeys(
                same, f"{names} would all be stored as {doc_id!r}, one replacing the other: rename them"
            )
    return clashes


def same_content_as(store: GraphStore, doc_id: str) -> list[Row]:
    """The other stored documents whose file has the same content as ``doc_id``'s (ids, file names)."""
    sha256 = stored_sha256(store, doc_id)
    if not sha256:
        return []
    return store.read(cypher.load("documents_with_sha256", store.dialect), {"sha256": sha256, "doc_id": doc_id})


def note_copies(store: GraphStore, report: IngestReport) -> None:
    """A new document whose file is a copy of a stored one: its report says which
    (``stats.same_content_as``), and which of those have its file name too
    (``stats.same_file_stored_as``: ids an older docgraph gave that name, which now gets another)."""
    if report.status in ("ingested", "replaced"):
        same = same_content_as(store, report.doc_id)
        if same:
            report.stats["same_content_as"] = [str(row["doc_id"]) for row in same]
        same_name = [str(row["doc_id"]) for row in same if row["file_name"] == report.path.name]
        if same_name:
            report.stats["same_file_stored_as"] = same_name
        gone = [
            str(row["doc_id"])
            for row in same
            if row["doc_id"] not in same_name and source_found(row["source_path"]) is False
        ]
        if gone:  # perhaps this file, renamed: the user decides
            report.stats["same_content_file_gone"] = gone


def holds_documents(store: GraphStore) -> bool:
    return bool(store.read(cypher.load("any_document", store.dialect)))


def list_documents(store: GraphStore) -> list[Row]:
    return store.read(cypher.load("list_documents", store.dialect))


def source_found(source_path: object) -> bool | None:
    """Whether a document's file is still where it was read from; None for an upload (no path)."""
    source = str(source_path or "")
    return Path(source).is_file() if Path(source).is_absolute() else None


def documents_with_sources(store: GraphStore) -> list[Row]:
    """The documents as listed, each with where it was read from (``source_path``, and whether that
    file is still there, ``source_found``), its content hash and its build: for scripts that look
    after a library."""
    sources = {row["doc_id"]: row for row in store.read(cypher.load("document_sources", store.dialect))}
    listed = []
    for row in list_documents(store):
        source = sources.get(row["doc_id"], {})
        extra = {key: source.get(key) for key in ("source_path", "sha256", "build")}
        listed.append({**row, **extra, "source_found": source_found(extra["source_path"])})
    return listed


def find_document(store: GraphStore, doc: str) -> Row:
    """The document whose id is ``doc``, else the one whose file name it is; a file name that
    several documents have (stored by releases that gave its name other ids) names none."""
    rows: list[Row] = []
    for spelling in dict.fromkeys((doc, unicodedata.normalize("NFC", doc), unicodedata.normalize("NFD", doc))):
        # a name copied from a macOS folder spells "ü" as "u" and a combining mark, the store may not
        rows = rows or store.read(cypher.load("find_document", store.dialect), {"doc": spelling})
    if not rows:
        raise UnknownDocumentError(f"no document {doc!r} in the store")
    if rows[0]["doc_id"] != doc and len(rows) > 1:
        ids = ", ".join(str(row["doc_id"]) for row in rows)
        raise AmbiguousDocumentError(f"{doc!r} is the file name of {len(rows)} documents ({ids}): name one by its id")
    return rows[0]


def page_regions(store: GraphStore, doc_id: str, page: int) -> list[Row]:
    return store.read(cypher.load("page_regions", store.dialect), {"doc_id": doc_id, "page": page})


def page_turn(store: GraphStore, doc_id: str, page: int) -> int:
    """Degrees the page was turned clockwise when it was read (0 for most): renders turn it too."""
    rows = store.read(cypher.load("page_turn", store.dialect), {"doc_id": doc_id, "page": page})
    return int(rows[0]["turn"] or 0) if rows else 0


def locate_pdf(document: dict[str, Any], files_dir: Path) -> Path:
    """The kept copy under the data home (in the store's folder, or where copies were kept before
    there were such folders), else the path it was ingested from."""
    sha256 = str(document["sha256"])
    for kept in (kept_copy_path(files_dir, sha256), kept_copy_path(files_dir.parent, sha256)):
        if kept.is_file():
            return kept
    source = Path(str(document.get("source_path") or ""))
    if source.is_file() and file_sha256(source) == sha256:  # a new edition there would get the old boxes
        return source
    where = f"at {source} as it was read" if source.is_file() else f"at {source}"
    raise DocumentNotFoundError(
        f"the PDF of {document['doc_id']!r} is neither under {files_dir} nor {where}: ingest it again"
    )


@dataclass(frozen=True, slots=True)
class DeletedDocument:
    doc_id: str
    deleted_nodes: int
    same_content: list[str]  # the stored documents that still hold the same file (a copy, a renamed one)
    page_images: int  # cached page images removed
    text_on_disk: bool = False  # the store's append-only file could not be rewritten without its text

    def to_json(self) -> dict[str, Any]:
        return {
            "doc_id": self.doc_id,
            "deleted_nodes": self.deleted_nodes,
            "same_content": self.same_content,
            "text_on_disk": self.text_on_disk,
        }

    @property
    def note(self) -> str:
        """What a user who deletes to be rid of the content must know: it is still stored."""
        notes = []
        if self.same_content:
            others = ", ".join(self.same_content)
            notes.append(f"the same file is still stored as {others}: delete that too to remove it")
        if self.text_on_disk:
            notes.append(
                "the store's append-only file could not be rewritten: its text stays on disk until the next "
                "compaction (`docgraph store stop` compacts it)"
            )
        return "; ".join(notes)


def delete_document(store: GraphStore, doc: str, files_dir: Path, page_cache: Path | None = None) -> DeletedDocument:
    """Delete a document (by id or file name), its kept PDF copy unless another stored document has
    the same content, and its page images cached under ``page_cache``. Refused
    (:class:`DocumentBusyError`) while a process on this data home ingests it, stored yet or not."""
    try:
        document = find_document(store, doc)
    except DocumentNotFoundError:
        for named in {doc, doc_id_or_empty(doc)} - {""}:
            check_not_ingested(files_dir, named)  # busy: its ingest will store it
        _drop_unused_copies(store, files_dir)  # an earlier delete of it may have been cut off
        raise
    doc_id, sha256 = str(document["doc_id"]), str(document.get("sha256") or "")
    with delete_claim(files_dir, doc_id):
        try:
            deleted = store.delete_document(doc_id)
        finally:  # also when cut off after the nodes went (the index rebuild, a signal, the server)
            images, same_content = _drop_leftovers(store, doc_id, files_dir, page_cache, sha256)
    return DeletedDocument(doc_id, deleted, same_content, images, bool(getattr(store, "deleted_text_on_disk", False)))


def delete_documents(
    store: GraphStore, docs: list[str], files_dir: Path, page_cache: Path | None = None
) -> tuple[list[DeletedDocument], DocgraphError | None]:
    """Delete the documents ``docs`` name (ids or file names), rebuilding the indexes and rewriting
    the store's files once for all. Each is found, and found not being ingested, before any is
    deleted (a typo deletes nothing); a failure midway ends the batch and is returned beside the
    documents deleted before it. A note about the same file stored elsewhere leaves out the others
    deleted here."""
    ids: list[str] = []
    for doc in docs:
        try:
            doc_id = str(find_document(store, doc)["doc_id"])
        except DocumentNotFoundError:
            delete_document(store, doc, files_dir)  # raises, saying why: being ingested, or not stored
            raise
        check_not_ingested(files_dir, doc_id)
        ids.append(doc_id)
    deleted: list[DeletedDocument] = []
    failure: DocgraphError | None = None
    with store.fulltext_refresh_deferred():
        for doc_id in dict.fromkeys(ids):
            try:
                deleted.append(delete_document(store, doc_id, files_dir, page_cache))
            except DocgraphError as error:
                failure = error
                break
    on_disk, gone = bool(getattr(store, "deleted_text_on_disk", False)), set(ids)
    kept = [
        replace(one, same_content=[o for o in one.same_content if o not in gone], text_on_disk=on_disk)
        for one in deleted
    ]
    return kept, failure


def _drop_leftovers(
    store: GraphStore, doc_id: str, files_dir: Path, page_cache: Path | None, sha256: str
) -> tuple[int, list[str]]:
    """Once ``doc_id`` is no longer stored: the kept copies no document uses and its cached page
    images; how many images went, and the documents still stored with its content. Best effort: a
    server that cannot be asked leaves them to a later delete or ``docgraph store check --repair``."""
    with contextlib.suppress(StoreError):
        if stored_sha256(store, doc_id) is not None:
            return 0, []
        _drop_unused_copies(store, files_dir)
        if sha256:
            images, rows = drop_unused_images(store, page_cache, sha256, doc_id)
            return images, sorted(str(row["doc_id"]) for row in rows)
    return 0, []


def _drop_unused_copies(store: GraphStore, files_dir: Path) -> None:
    with contextlib.suppress(StoreError), copies_locked(files_dir):  # best effort: a server gone keeps them
        drop_unused_copies(store, files_dir)


def doc_id_or_empty(file_name: str) -> str:
    """The id ``file_name`` gives its document; "" for a name that gives none (its ingest says why)."""
    try:
        return doc_id_for(file_name)
    except DocgraphError:
        return ""


REPLACE_REMEDY = "pass --replace (replace=True in Python) to replace it, or rename the file"


def files_replacing_others(store: GraphStore, paths: list[Path], remedy: str = REPLACE_REMEDY) -> dict[Path, str]:
    """The files that would replace a stored document read from another file of the same name
    (``/a/report.pdf`` over the ``report`` of ``/b/report.pdf``), each with why it is refused and
    ``remedy``: a changed file re-ingested from where it was read updates its document; another one
    only with ``--replace``."""
    refused: dict[Path, str] = {}
    for path in paths:
        try:
            stored = find_document(store, doc_id_for(path.name))
        except DocgraphError:  # not stored, or a name that gives no id (the ingest reports it)
            continue
        source = str(stored.get("source_path") or "")
        if not source or not path.is_file() or same_source(source, path):
            continue
        if str(stored.get("sha256") or "") != file_sha256(path):
            refused[path] = (
                f"{path} would replace the stored document {stored['doc_id']!r}, read from another file "
                f"({source}): {remedy}"
            )
    return refused


def clashing_document(store: GraphStore, file_name: str, path: Path) -> str | None:
    """The id of a stored document that ``path`` (to be ingested as ``file_name``) would replace
    though its content differs; None when nothing or the same file is stored under that name."""
    doc_id = doc_id_for(file_name)
    try:
        stored = find_document(store, doc_id)
    except DocumentNotFoundError:
        return None
    return doc_id if str(stored.get("sha256") or "") != file_sha256(path) else None

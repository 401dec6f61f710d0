"""What tells whether a stored document changed while an operation over stored documents ran.

``docgraph relink``, ``docgraph reembed`` and an ingest refreshing GNN vectors read documents,
compute, then write; another process may ingest or delete documents meanwhile. A document's stamp
is its version, its build and the ingest that stored it (a fresh id per ingest: the same file
deleted and stored again within a second still differs), so an unchanged stamp means nothing was
stored over it.
"""

from __future__ import annotations

from dataclasses import dataclass

from docgraph.app.stores.base import GraphStore
from docgraph.app.stores.cypher import load

# Passes an operation tries before giving up on documents that change under each of them.
MAX_PASSES = 3


@dataclass(frozen=True, slots=True)
class DocumentStamp:
    version: str
    build: str
    ingest_id: str  # the ingest time for documents stored before ingest ids


def document_stamps(store: GraphStore, doc_id: str | None = None) -> dict[str, DocumentStamp]:
    """Every stored document's stamp (or only ``doc_id``'s), by document id."""
    rows = store.read(load("corpus_document_stamps", store.dialect), {"doc_id": doc_id})
    return {
        str(row["doc_id"]): DocumentStamp(str(row["version"]), str(row["build"]), str(row["ingest_id"])) for row in rows
    }


def changed_documents(before: dict[str, DocumentStamp], after: dict[str, DocumentStamp]) -> list[str]:
    """The documents stored, stored again or deleted between two readings of the stamps."""
    return sorted(doc_id for doc_id in before.keys() | after.keys() if before.get(doc_id) != after.get(doc_id))


def set_build_if_unchanged(store: GraphStore, doc_id: str, stamp: DocumentStamp, build: str) -> bool:
    """Set the document's build, in one query, only if its stamp is still ``stamp``; whether it was."""
    params = {"doc_id": doc_id, "version": stamp.version, "build_read": stamp.build, "ingest_id": stamp.ingest_id}
    return bool(store.write(load("set_document_build_if_unchanged", store.dialect), {**params, "build": build}))

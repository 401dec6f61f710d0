"""Document-level operations on a store: look up, list, locate the stored PDF."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from docgraph.app.stores import cypher
from docgraph.app.stores.base import GraphStore, Row
from docgraph.errors import DocumentNotFoundError


def list_documents(store: GraphStore) -> list[Row]:
    return store.read(cypher.load("list_documents", store.dialect))


def find_document(store: GraphStore, doc: str) -> Row:
    rows = store.read(cypher.load("find_document", store.dialect), {"doc": doc})
    if not rows:
        raise DocumentNotFoundError(f"no document {doc!r} in the store (see `docgraph documents`)")
    return rows[0]


def page_regions(store: GraphStore, doc_id: str, page: int) -> list[Row]:
    return store.read(cypher.load("page_regions", store.dialect), {"doc_id": doc_id, "page": page})


def locate_pdf(document: dict[str, Any], files_dir: Path) -> Path:
    """The kept copy under the data home, else the path it was ingested from."""
    kept = files_dir / f"{document['sha256']}.pdf"
    if kept.is_file():
        return kept
    source = Path(str(document.get("source_path") or ""))
    if source.is_file():
        return source
    raise DocumentNotFoundError(
        f"the PDF of {document['doc_id']!r} is neither under {files_dir} nor at {source}: ingest it again"
    )

"""An in-memory view of the stored corpus that lexical and section retrieval need: each document's
:class:`~app.retrieval.document_index.DocumentIndex`, loaded from the store once and reloaded only
when its stored version changes, so a query costs one small version check. Region embeddings stay
in the database (vector search and cosines run there); the passage vectors of long regions are
loaded (few, and decoding them per query took ~1 ms a region).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from docgraph.app.retrieval.document_index import DocumentIndex, RegionInfo, SectionInfo
from docgraph.app.retrieval.fields import field_regions, row_label_tables
from docgraph.app.retrieval.labels import Label, LabelledPlaces, labelled_places, load_captions
from docgraph.app.retrieval.named_documents import NamedDocuments, named_documents, naming_words
from docgraph.app.retrieval.named_parts import named_notices, opens_with_label
from docgraph.app.retrieval.text import fold, named_options
from docgraph.app.stores import cypher
from docgraph.app.stores.base import GraphStore
from docgraph.ingest.types import landscape_throughout


def load_document(store: GraphStore, doc_id: str, version: str) -> DocumentIndex:
    dialect = store.dialect
    params = {"doc_id": doc_id}
    regions = [
        RegionInfo(
            region_id=str(row["region_id"]),
            doc_id=doc_id,
            page=int(row["page"]),
            order=int(row["order"] or 0),
            kind=str(row["kind"] or ""),
            bbox=tuple(float(x) for x in (row["bbox"] or ())),
            text=" ".join(str(part) for part in (row["text"], row.get("description")) if part),
            section_id=row["section_id"],
        )
        for row in store.read(cypher.load("retrieval_doc_regions", dialect), params)
    ]
    pages = store.read(cypher.load("retrieval_doc_pages", dialect), params)
    sections: dict[str, SectionInfo] = {}
    for row in store.read(cypher.load("retrieval_doc_sections", dialect), params):
        info = SectionInfo(
            section_id=str(row["section_id"]),
            title=str(row["title"] or ""),
            level=int(row["level"] or 1),
            page_start=int(row["page_start"] or 0),
            parent_id=row["parent_id"],
            number=str(row["number"] or ""),
        )
        sections[info.section_id] = info
    document = DocumentIndex(
        doc_id=doc_id,
        version=version,
        regions=regions,
        page_numbers=[int(p["number"]) for p in pages],
        page_texts=[str(p["text"] or "") for p in pages],
        sections=sections,
        passages=_passages(store, doc_id),
        slides=landscape_throughout([_page_size(row) for row in pages]),
    )
    document.references, document.referrers = _references(store, document)
    document.captions = load_captions(store, doc_id, document.referrers)
    return document


class _PageSize(NamedTuple):
    width: float
    height: float


def _page_size(row: dict[str, Any]) -> _PageSize:
    """A stored page's size, for the rule that says whether a document is a slide deck."""
    return _PageSize(float(row["width"] or 0), float(row["height"] or 0))


def _passages(store: GraphStore, doc_id: str) -> dict[str, NDArray[np.float32]]:
    """Region id -> its passage vectors (one row each), for the regions embedded passage by passage.
    The rows are as long as the stored embeddings; the query vector's length reshapes them."""
    rows = store.read(cypher.load("retrieval_doc_passages", store.dialect), {"doc_id": doc_id})
    return {str(row["region_id"]): np.asarray(row["vectors"], dtype=np.float32) for row in rows if row["vectors"]}


def _references(store: GraphStore, document: DocumentIndex) -> tuple[dict[str, frozenset[int]], dict[str, set[str]]]:
    """Region id -> the pages its REF edges point at: a page, a region's page, or every page a
    referenced section covers (with its subsections); and region id -> the regions that refer to it."""
    section_pages: dict[str, set[int]] = {}
    for region in document.regions:
        if region.section_id is not None:
            for section_id in document.ancestors(region.section_id):
                section_pages.setdefault(section_id, set()).add(region.page)
    pages: dict[str, set[int]] = {}
    referrers: dict[str, set[str]] = {}
    query = cypher.load("retrieval_doc_references", store.dialect)
    for row in store.read(query, {"doc_id": document.doc_id}):
        if row["target_id"] is not None:
            referrers.setdefault(str(row["target_id"]), set()).add(str(row["region_id"]))
        found = pages.setdefault(str(row["region_id"]), set())
        if row["page"] is not None:
            found.add(int(row["page"]))
        if row["section_id"] is not None:
            found |= section_pages.get(str(row["section_id"]), set())
    return {region_id: frozenset(found) for region_id, found in pages.items() if found}, referrers


def stored_builds(store: GraphStore) -> dict[str, tuple[str, str]]:
    """doc_id -> (stored version, Document.build). The build differs from the one the version was
    made from after ``docgraph reembed`` wrote another checkpoint's GNN vectors."""
    rows = store.read(cypher.load("retrieval_documents", store.dialect))
    return {str(row["doc_id"]): (str(row["version"] or ""), str(row["build"] or "")) for row in rows}


class Corpus:
    """The documents of one store, loaded lazily and kept in step with the stored versions."""

    def __init__(self, store: GraphStore) -> None:
        self.store = store
        self._documents: dict[str, DocumentIndex] = {}
        self._lock = threading.Lock()

    def versions(self) -> dict[str, str]:
        """doc_id -> what its index was loaded from: the stored version, and how many figure
        descriptions were written to it since (they change the regions' text, not the version)."""
        rows = self.store.read(cypher.load("retrieval_documents", self.store.dialect))
        return {
            str(row["doc_id"]): _with_descriptions(str(row["version"] or ""), int(row["described"] or 0))
            for row in rows
        }

    def documents(self, doc_id: str | None = None) -> list[DocumentIndex]:
        """The current index of ``doc_id`` (or of every document), reloading what changed."""
        versions = self._versions_now()
        wanted = [doc_id] if doc_id is not None else sorted(versions)
        return [document for name in wanted if (document := self._current(name, versions)) is not None]

    def loaded_first(self) -> Iterator[DocumentIndex]:
        """Every current document: those already loaded first, then the others, each loaded only
        when it is reached (a caller that stops early loads no more)."""
        versions = self._versions_now()
        with self._lock:
            loaded = sorted(name for name, index in self._documents.items() if index.version == versions.get(name))
        for name in [*loaded, *sorted(set(versions) - set(loaded))]:
            document = self._current(name, versions)
            if document is not None:
                yield document

    def _versions_now(self) -> dict[str, str]:
        """The stored versions, the indexes of documents no longer stored let go."""
        versions = self.versions()
        with self._lock:
            for stale in set(self._documents) - set(versions):
                del self._documents[stale]
        return versions

    def _current(self, name: str, versions: dict[str, str]) -> DocumentIndex | None:
        """``name``'s index as stored now (loaded or reloaded); None when it is not stored. It loads
        outside the lock: a long document's load does not hold up questions about the others."""
        if name not in versions:
            return None
        with self._lock:
            current = self._documents.get(name)
        if current is not None and current.version == versions[name]:
            return current
        loaded = load_document(self.store, name, versions[name])
        with self._lock:
            current = self._documents.get(name)
            if current is not None and current.version == versions[name]:
                return current  # another thread loaded it meanwhile
            self._documents[name] = loaded
        return loaded

    def passages(self, region_id: str, dim: int) -> NDArray[np.float32] | None:
        """The passage vectors (passages x ``dim``) of a long region; None for other regions. Its
        document is loaded first when it is not yet."""
        document = self._loaded(region_id)
        if document is None:
            self.documents(_doc_id_of(region_id))
            document = self._loaded(region_id)
        flat = document.passages.get(region_id) if document else None
        if flat is None or flat.size % dim:
            return None
        return flat.reshape(-1, dim)

    def references(self, region_id: str) -> frozenset[int]:
        """The pages a loaded region refers to (empty when none, or when its document is not loaded)."""
        document = self._loaded(region_id)
        return document.references.get(region_id, frozenset()) if document else frozenset()

    def region(self, region_id: str) -> RegionInfo | None:
        """A loaded region by id."""
        document = self._loaded(region_id)
        row = document.region_row.get(region_id) if document else None
        if document is not None and row is not None:
            return document.regions[row]
        with self._lock:  # another thread may be loading a document into the table
            others = list(self._documents.values())
        for other in others:
            row = other.region_row.get(region_id)
            if row is not None:
                return other.regions[row]
        return None

    def labelled(self, labels: frozenset[Label], doc_ids: set[str]) -> LabelledPlaces | None:
        """Where ``labels`` are in the loaded documents ``doc_ids`` (None: in none of them)."""
        with self._lock:
            documents = [self._documents[doc].captions for doc in sorted(doc_ids) if doc in self._documents]
        return labelled_places(labels, documents)

    def document_names(self, doc_ids: set[str]) -> list[str]:
        """The name texts (:attr:`DocumentIndex.name_texts`) of the loaded documents ``doc_ids``."""
        documents = self._loaded_of(doc_ids)
        return [text for document in documents for text in document.name_texts]

    def part_regions(self, question: str, doc_ids: set[str]) -> frozenset[str]:
        """The regions of the parts ``question`` names in the loaded documents ``doc_ids``."""
        documents = self._loaded_of(doc_ids)
        return frozenset(
            document.regions[row].region_id for document in documents for row in document.part_rows(question)
        )

    def named_documents(self, question: str, doc_id: str | None = None) -> NamedDocuments:
        """The documents in scope (``doc_id``'s, or all) that ``question`` names ("invoice 1043"):
        :func:`app.retrieval.named_documents.named_documents`."""
        return named_documents(question, self.documents(doc_id))

    def option_regions(self, question: str, doc_ids: set[str]) -> frozenset[str]:
        """The regions that hold a command-line option ``question`` names ("--retries"), in the
        loaded documents ``doc_ids``: where the option is documented, used or listed."""
        options = named_options(question)
        if not options:
            return frozenset()
        documents = self._loaded_of(doc_ids)
        return frozenset(
            document.regions[row].region_id
            for document in documents
            for option in options
            for row in document.region_bm25.rows_with(option)
        )

    def _loaded_of(self, doc_ids: set[str]) -> list[DocumentIndex]:
        """The loaded documents among ``doc_ids``, in id order (taken under the lock: a load or an
        eviction may run beside a question)."""
        with self._lock:
            return [self._documents[doc] for doc in sorted(doc_ids) if doc in self._documents]

    def field_regions(self, question: str, doc_ids: set[str]) -> dict[str, set[str]]:
        """The header fields of the loaded documents ``doc_ids`` whose labels ``question`` names
        ("Who was present?": "Present: ..."), each with its label's words
        (:func:`app.retrieval.fields.field_regions`)."""
        documents = self._loaded_of(doc_ids)
        return field_regions(question, documents)

    def row_label_tables(self, question: str, doc_ids: set[str]) -> dict[str, set[str]]:
        """The label-and-value tables of the loaded documents ``doc_ids`` with a row whose label
        ``question`` names ("When is the break date?": "| Break Date | 24 June 2029 |"), each with the
        label's words (:func:`app.retrieval.fields.row_label_tables`)."""
        documents = self._loaded_of(doc_ids)
        return row_label_tables(question, documents)

    def headed_regions(self, question: str, doc_ids: set[str], whole_title: bool = False) -> frozenset[str]:
        """The regions of the sections of the loaded documents ``doc_ids`` whose headings open with a
        word and a number ``question`` writes ("Ground 1": :meth:`DocumentIndex.series_rows`), or,
        ``whole_title``, that it asks for by their whole titles alone ("What is the conclusion?":
        :meth:`DocumentIndex.titled_rows`)."""
        documents = self._loaded_of(doc_ids)
        rows = (
            (document, document.titled_rows(question) if whole_title else document.series_rows(question))
            for document in documents
        )
        return frozenset(document.regions[row].region_id for document, found in rows for row in found)

    def reading_order(self, region_ids: frozenset[str]) -> dict[str, tuple[int, int]]:
        """Each loaded region of ``region_ids`` -> its page and position on the page."""
        found = {region_id: self.region(region_id) for region_id in region_ids}
        return {region_id: (info.page, info.order) for region_id, info in found.items() if info is not None}

    def naming_regions(self, question: str, doc_ids: set[str]) -> frozenset[str]:
        """The regions of the loaded documents ``doc_ids`` that hold every word ``question`` writes
        as a name, when it writes two or more ("Smith 1998": the bibliography entry and the notes
        citing it), a document's own names left out."""
        words = naming_words(question)
        documents = self._loaded_of(doc_ids)
        found: set[str] = set()
        for document in documents:
            own = words - document.name_words
            if len(own) >= 2:
                rows = set.intersection(*(set(document.region_bm25.rows_with(word)) for word in own))
                found.update(document.regions[row].region_id for row in rows)
        return frozenset(found)

    def notice_regions(self, question: str, doc_ids: set[str]) -> frozenset[str]:
        """The safety notices ``question`` names by their signal word ("the CAUTION notice") in the
        loaded documents ``doc_ids``: the regions that open with it."""
        labels = named_notices(question)
        if not labels:
            return frozenset()
        documents = self._loaded_of(doc_ids)
        return frozenset(
            document.regions[row].region_id
            for document in documents
            for label in labels
            for row in document.region_bm25.rows_with(fold(label))
            if opens_with_label(document.regions[row].text, label)
        )

    def section_titles(self, region_id: str) -> list[str]:
        """Titles of a loaded region's enclosing sections, outermost first (none when it has none)."""
        document = self._loaded(region_id)
        row = document.region_row.get(region_id) if document else None
        if document is None or row is None or document.regions[row].section_id is None:
            return []
        chain = document.ancestors(str(document.regions[row].section_id))
        return [document.sections[section].title for section in reversed(chain)]

    def _loaded(self, region_id: str) -> DocumentIndex | None:
        """The loaded document a region id names, if it is loaded."""
        return self._documents.get(_doc_id_of(region_id))


def _with_descriptions(version: str, described: int) -> str:
    """The stored version, with the count of descriptions written since when there are any."""
    return f"{version}+{described}" if described else version


def _doc_id_of(region_id: str) -> str:
    """Region ids start with their document's id: ``<doc_id>@<version>:...``."""
    return region_id.split("@", 1)[0]

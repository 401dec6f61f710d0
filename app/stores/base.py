"""The contract every graph store keeps.

Stores speak openCypher; what differs between FalkorDB and Neo4j (index DDL, vector and full-text
procedures, vector literals) lives in ``cypher/<dialect>/`` and ``schema/<dialect>/``.
"""

from __future__ import annotations

from collections.abc import Iterable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

from docgraph.records import GraphBatch

Dialect = Literal["falkordb", "neo4j"]
Row = dict[str, Any]


@dataclass(frozen=True, slots=True)
class ScoredNode:
    """A hit of an index search. ``score`` is a similarity: higher is better, whatever the store."""

    key: str  # the node's id property value
    score: float
    props: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class GraphCounts:
    labels: dict[str, int]
    relationship_types: dict[str, int]
    property_keys: dict[str, int]


@dataclass(frozen=True, slots=True)
class WriteResult:
    written: bool  # False when the same version was already stored (a no-op)
    replaced: bool  # True when a stored version of the document was replaced (an older one, or forced)
    nodes: int
    relationships: int


@runtime_checkable
class GraphStore(Protocol):
    dialect: Dialect
    url: str

    def apply_schema(self) -> None:
        """Create constraints and indexes; safe to call any number of times."""

    def write_document(self, batch: GraphBatch, force: bool = False) -> WriteResult:
        """Write one document's nodes and relationships in one transaction.

        The same version already stored is a no-op unless ``force`` (then it is rewritten, as a
        replacement: a docgraph change that the version does not name reaches stored documents);
        another version of ``doc_id`` is replaced in the same transaction. On failure the graph is
        left as it was.
        """

    def delete_document(self, doc_id: str) -> int:
        """Delete a document and everything under it; returns the number of nodes deleted."""

    def read(self, query: str, params: dict[str, Any] | None = None, timeout_s: float | None = None) -> list[Row]:
        """Run a query through the database's read-only path."""

    def write(self, query: str, params: dict[str, Any] | None = None, timeout_s: float | None = None) -> list[Row]:
        """Run a query that may write."""

    def explain(self, query: str, params: dict[str, Any] | None = None) -> str:
        """Ask the database to plan a query without running it (raises on syntax errors)."""

    def vector_top_k(
        self, label: str, prop: str, vector: list[float], k: int, doc_id: str | None = None
    ) -> list[ScoredNode]:
        """Nearest nodes by cosine similarity through the vector index."""

    def fulltext_top_k(self, label: str, text: str, k: int, doc_id: str | None = None) -> list[ScoredNode]:
        """Best full-text matches through the full-text index."""

    def counts(self) -> GraphCounts:
        """Node counts per label, relationship counts per type, property key usage."""

    def wait_for_indexes(self, timeout_s: float = 60.0) -> None:
        """Block until asynchronous index builds have finished."""

    def refresh_fulltext(self, labels: Iterable[str]) -> None:
        """Bring the full-text indexes of ``labels`` up to date after nodes with those labels were
        updated in place (a GNN vector, a description). ``write_document`` and ``delete_document``
        keep the indexes right themselves."""

    def fulltext_refresh_deferred(self) -> AbstractContextManager[None]:
        """A block in which the work of ``refresh_fulltext`` (called by the store or its caller) is
        done once, at the block's end: for a loop that replaces, deletes or updates many documents."""

    def close(self) -> None: ...

"""GraphStore on Neo4j 5, through the official driver.

* ``read`` runs in a session with ``default_access_mode=READ_ACCESS`` through ``execute_read``: the
  server refuses writes in it (``Neo.ClientError.Statement.AccessMode``).
* Timeouts are transaction timeouts (``unit_of_work(timeout=...)``; ``neo4j.Query`` for auto-commit
  statements such as EXPLAIN).
* A document write is one managed write transaction: the old version is deleted and the new one
  created in it, and any failure rolls the whole transaction back.
* Vector and full-text indexes are addressed by name, ``<label>_<property>`` (schema/neo4j/).
  Vector scores are turned back into cosine similarity (Neo4j reports ``(1 + cos) / 2``).
"""

from __future__ import annotations

import random
import re
import time
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager, nullcontext
from typing import Any

import neo4j
from neo4j import exceptions as neo4j_errors

from docgraph.app.stores.base import Dialect, GraphCounts, Row, ScoredNode, WriteResult
from docgraph.app.stores.cypher import load, render
from docgraph.app.stores.neo4j_notices import quiet_unrecognized_names
from docgraph.app.stores.records import (
    DOCUMENT_LABELS,
    check_vector_sizes,
    edge_groups,
    node_groups,
    render_edges,
    render_nodes,
)
from docgraph.app.stores.results import IndexInfo, fulltext_terms, graph_counts, plain_value, scored_nodes
from docgraph.app.stores.schema import DEFAULT_VECTOR_DIMENSION, FULLTEXT_PROPERTY, load_ddl
from docgraph.app.stores.url import StoreURL
from docgraph.errors import (
    ConfigError,
    MissingEndpointError,
    QuerySyntaxError,
    QueryTimeoutError,
    ReadOnlyViolationError,
    SchemaError,
    StoreBusyError,
    StoreError,
    StorePermissionError,
    StoreUnavailableError,
)
from docgraph.records import GraphBatch

DIALECT: Dialect = "neo4j"
_SYNTAX_CODES = (
    "Neo.ClientError.Statement.SyntaxError",
    "Neo.ClientError.Statement.SemanticError",
    "Neo.ClientError.Statement.ParameterMissing",
    "Neo.ClientError.Statement.TypeError",
    "Neo.ClientError.Procedure.ProcedureNotFound",
)
_READ_ONLY_CODES = ("Neo.ClientError.Statement.AccessMode", "Neo.ClientError.General.ForbiddenOnReadOnlyDatabase")
_NO_DATABASE = "Neo.ClientError.Database.DatabaseNotFound"
_ENTITY_NOT_FOUND = "Neo.ClientError.Statement.EntityNotFound"
_FORBIDDEN = "Neo.ClientError.Security.Forbidden"
_DATABASE_STARTING = "Neo.TransientError.General.DatabaseUnavailable"
# A transaction past its memory limit (db.memory.transaction.total.max, or the heap): transient to the
# driver, which retried a whole document's write for 30 s, though the same write fails the same way.
_MEMORY_CODES = (
    "Neo.TransientError.General.MemoryPoolOutOfMemoryError",
    "Neo.TransientError.General.TransactionMemoryLimit",
    "Neo.TransientError.General.OutOfMemoryError",
)
MEMORY_ADVICE = (
    "give Neo4j more: server.memory.heap.max_size and db.memory.transaction.total.max "
    "(docs/stores.md, 'Large documents on Neo4j')"
)
MIN_SERVER_VERSION = (5, 18)  # vector.similarity.cosine (5.18) and CREATE VECTOR INDEX (5.15)
# Two writers of one new document: the second meets the first's Document under the unique constraint
# (a client error the driver does not retry). Run again, it sees the committed version.
WRITE_CONFLICT_RETRIES = 5


class Neo4jStore:
    dialect: Dialect = DIALECT

    def __init__(
        self,
        driver: neo4j.Driver,
        database: str,
        url: str,
        *,
        query_timeout_s: float = 30.0,
        vector_dimension: int = DEFAULT_VECTOR_DIMENSION,
    ) -> None:
        self.url = url
        self.database = database
        self.vector_dimension = vector_dimension
        self._driver = driver
        self._timeout_s = query_timeout_s
        # Sessions share bookmarks: a read after a write sees it, also on a cluster's followers.
        self._bookmarks = neo4j.GraphDatabase.bookmark_manager()

    @classmethod
    def connect(
        cls, target: StoreURL, *, query_timeout_s: float = 30.0, vector_dimension: int = DEFAULT_VECTOR_DIMENSION
    ) -> Neo4jStore:
        auth = (target.username or "neo4j", target.password or "")
        quiet_unrecognized_names()
        try:
            driver = neo4j.GraphDatabase.driver(target.driver_uri, auth=auth)
        except ValueError as error:
            raise StoreUnavailableError(f"bad Neo4j address {target.redacted()}: {error}") from error
        try:
            agent = driver.get_server_info().agent  # connects and logs in, as verify_connectivity does
        except (neo4j_errors.Neo4jError, neo4j_errors.DriverError) as error:
            driver.close()
            raise _mapped(error, query_timeout_s, f"Neo4j at {target.redacted()}") from error
        try:
            check_server_version(agent, f"Neo4j at {target.redacted()}")
        except ConfigError:
            driver.close()
            raise
        return cls(
            driver, target.graph, target.redacted(), query_timeout_s=query_timeout_s, vector_dimension=vector_dimension
        )

    # ---- schema ----------------------------------------------------------------------------

    def apply_schema(self) -> None:
        # IF NOT EXISTS makes every statement idempotent; schema commands run as auto-commit.
        for statement in load_ddl(DIALECT, self.vector_dimension):
            try:
                with self._session(neo4j.WRITE_ACCESS) as session:
                    session.run(statement).consume()
            except (neo4j_errors.Neo4jError, neo4j_errors.DriverError) as error:
                mapped = _mapped(error, self._timeout_s, self.url)
                if isinstance(mapped, StoreUnavailableError | StorePermissionError):
                    raise mapped from error
                raise SchemaError(f"Neo4j rejected {statement!r}: {error}") from error

    def wait_for_indexes(self, timeout_s: float = 60.0) -> None:
        try:
            with self._session(neo4j.READ_ACCESS) as session:
                session.run(load("await_indexes", DIALECT), {"timeout": max(1, round(timeout_s))}).consume()
        except (neo4j_errors.Neo4jError, neo4j_errors.DriverError) as error:
            text = str(error).lower()
            if any(words in text for words in ("timed out", "awaiting", "come online within")):
                raise QueryTimeoutError(f"indexes still building after {timeout_s:.0f}s") from error
            if "failed state" in text:
                raise SchemaError(f"an index of {self.url} failed to build: {' '.join(str(error).split())}") from error
            raise _mapped(error, timeout_s, self.url) from error

    def refresh_fulltext(self, labels: Iterable[str]) -> None:
        """Nothing to do: Neo4j's full-text (Lucene) indexes follow updated nodes themselves."""

    def fulltext_refresh_deferred(self) -> AbstractContextManager[None]:
        return nullcontext()

    def list_indexes(self) -> list[IndexInfo]:
        """One entry per indexed (label, property, index type)."""
        infos = [
            IndexInfo(str(label), str(prop), str(row["type"]), str(row["state"]))
            for row in self.read(load("list_indexes", DIALECT))
            for label in row["labelsOrTypes"] or []
            for prop in row["properties"] or []
        ]
        return sorted(infos, key=lambda info: (info.label, info.property, info.kind))

    # ---- documents -------------------------------------------------------------------------

    def write_document(self, batch: GraphBatch, force: bool = False) -> WriteResult:
        check_vector_sizes(batch, self.vector_dimension)

        def write(tx: neo4j.ManagedTransaction) -> WriteResult:  # run again on a retry: rows are made afresh
            versions = [record["version"] for record in tx.run(load("document_versions", DIALECT), doc_id=batch.doc_id)]
            if versions == [batch.version] and not force:
                return WriteResult(written=False, replaced=False, nodes=0, relationships=0)
            for label in DOCUMENT_LABELS:
                tx.run(render("delete_document_nodes", DIALECT, label=label), doc_id=batch.doc_id).consume()
            for group in node_groups(batch, split_vectors=False):
                tx.run(render_nodes("write_nodes", DIALECT, group.labels), rows=group.rows).consume()
            for edge_group in edge_groups(batch):
                record = tx.run(render_edges("write_edges", DIALECT, edge_group), rows=edge_group.rows).single()
                if record is None or record["created"] != len(edge_group.rows):
                    # Raising inside the transaction function rolls the whole write back.
                    raise MissingEndpointError(
                        f"writing document {batch.doc_id} failed, the graph is unchanged: a "
                        f"{edge_group.type} relationship endpoint is not in the graph"
                    )
            return WriteResult(True, bool(versions), len(batch.nodes), len(batch.edges))

        work = memory_limit_not_retried(write, batch)
        for attempt in range(WRITE_CONFLICT_RETRIES):
            try:
                result: WriteResult = self._managed(work, neo4j.WRITE_ACCESS, None, bounded=False)
                return result
            except StoreError as error:
                if isinstance(error.__cause__, neo4j_errors.ConstraintError):
                    time.sleep(random.uniform(0.0, 0.05 * 2**attempt))  # another writer got in first
                    continue
                if "unchanged" in str(error) or isinstance(error, StoreUnavailableError):
                    raise
                raise type(error)(f"writing document {batch.doc_id} failed, the graph is unchanged: {error}") from error
        raise StoreBusyError(f"document {batch.doc_id} kept changing while it was written; try again")

    def delete_document(self, doc_id: str) -> int:
        def work(tx: neo4j.ManagedTransaction) -> int:
            deleted = 0
            for label in DOCUMENT_LABELS:
                summary = tx.run(render("delete_document_nodes", DIALECT, label=label), doc_id=doc_id).consume()
                deleted += summary.counters.nodes_deleted
            return deleted

        deleted: int = self._managed(work, neo4j.WRITE_ACCESS, None, bounded=False)
        return deleted

    # ---- queries ---------------------------------------------------------------------------

    def read(self, query: str, params: dict[str, Any] | None = None, timeout_s: float | None = None) -> list[Row]:
        rows: list[Row] = self._managed(_fetch(query, params), neo4j.READ_ACCESS, timeout_s)
        return rows

    def write(self, query: str, params: dict[str, Any] | None = None, timeout_s: float | None = None) -> list[Row]:
        """Without ``timeout_s`` a write has no time limit, as on FalkorDB: docgraph's own writes
        (vectors, links) may wait for the locks of a long document write."""
        bounded = timeout_s is not None
        rows: list[Row] = self._managed(_fetch(query, params), neo4j.WRITE_ACCESS, timeout_s, bounded=bounded)
        return rows

    def explain(self, query: str, params: dict[str, Any] | None = None) -> str:
        try:
            # A write session: EXPLAIN runs nothing, and a read session might refuse to plan a write.
            with self._session(neo4j.WRITE_ACCESS) as session:
                statement = neo4j.Query(f"EXPLAIN {query}", timeout=self._timeout_s)
                plan = session.run(statement, params or {}).consume().plan
        except (neo4j_errors.Neo4jError, neo4j_errors.DriverError) as error:
            raise _mapped(error, self._timeout_s, self.url) from error
        return "\n".join(_plan_lines(plan or {}, 0))

    def _managed(self, work: Any, mode: str, timeout_s: float | None, *, bounded: bool = True) -> Any:
        """Run ``work`` in a managed transaction; ``bounded`` ones get the query time limit
        (document writes do not: a long document may take longer than one query should).
        """
        limit_s = timeout_s if timeout_s is not None else self._timeout_s
        unit = neo4j.unit_of_work(timeout=limit_s)(work) if bounded else work
        try:
            with self._session(mode) as session:
                if mode == neo4j.READ_ACCESS:
                    return session.execute_read(unit)
                return session.execute_write(unit)
        except (neo4j_errors.Neo4jError, neo4j_errors.DriverError) as error:
            raise _mapped(error, limit_s, self.url) from error

    def _session(self, mode: str) -> neo4j.Session:
        return self._driver.session(database=self.database, default_access_mode=mode, bookmark_manager=self._bookmarks)

    # ---- search ----------------------------------------------------------------------------

    def vector_top_k(
        self, label: str, prop: str, vector: list[float], k: int, doc_id: str | None = None
    ) -> list[ScoredNode]:
        if k <= 0:
            return []
        vector = [float(x) for x in vector]
        if doc_id is None:
            params = {"index": f"{label.lower()}_{prop}", "k": k, "vector": vector}
            rows = self.read(load("vector_top_k", DIALECT), params)
        else:
            query = render("vector_top_k_in_document", DIALECT, label=label, property=prop)
            rows = self.read(query, {"doc_id": doc_id, "k": k, "vector": vector})
        return scored_nodes(rows, label)

    def fulltext_top_k(self, label: str, text: str, k: int, doc_id: str | None = None) -> list[ScoredNode]:
        prop = FULLTEXT_PROPERTY.get(label)
        if prop is None:
            raise StoreError(f"no full-text index on {label}; there are {', '.join(FULLTEXT_PROPERTY)}")
        terms = fulltext_terms(text)
        if k <= 0 or not terms:
            return []
        # Lucene: space-separated lower-case words are OR-ed; nothing in them is query syntax.
        params = {"index": f"{label.lower()}_{prop}", "query": " ".join(terms), "k": k, "doc_id": doc_id}
        return scored_nodes(self.read(load("fulltext_top_k", DIALECT), params), label)

    # ---- housekeeping ----------------------------------------------------------------------

    def counts(self) -> GraphCounts:
        return graph_counts(self.read, DIALECT)

    def close(self) -> None:
        self._driver.close()


def _fetch(query: str, params: dict[str, Any] | None) -> Any:
    def work(tx: neo4j.ManagedTransaction) -> list[Row]:
        result = tx.run(query, params or {})
        return [
            dict(zip(record.keys(), (plain_value(value) for value in record.values()), strict=True))
            for record in result
        ]

    return work


def _plan_lines(plan: dict[str, Any], depth: int) -> list[str]:
    details = plan.get("args", {}).get("Details")
    line = "    " * depth + str(plan.get("operatorType", "?")) + (f" | {details}" if details else "")
    return [line] + [sub for child in plan.get("children", []) for sub in _plan_lines(child, depth + 1)]


def _mapped(error: Exception, limit_s: float, where: str) -> StoreError:
    """The docgraph error for a driver error."""
    message = " ".join(str(error).split())
    if isinstance(error, StoreError):
        return error
    if isinstance(error, neo4j_errors.AuthError):
        return StoreUnavailableError(f"{where} refused the credentials (NEO4J_USER/NEO4J_PASSWORD): {message}")
    unreachable = neo4j_errors.ServiceUnavailable | neo4j_errors.SessionExpired | neo4j_errors.ConnectionPoolError
    if isinstance(error, unreachable | ValueError):
        if "routing information" in message:  # what neo4j:// says of a refused port, an HTTP one or a hang alike
            message += " (no Neo4j server answered there: check the host and port; bolt:// reaches one server directly)"
        return StoreUnavailableError(f"{where} is unavailable: {message}")
    code = getattr(error, "code", None) or ""
    if code == _DATABASE_STARTING:
        return StoreUnavailableError(f"{where}: the database is not available yet (starting or stopping): {message}")
    if code == _NO_DATABASE:
        return StoreUnavailableError(
            f"{where} has no database to use ({message}); Neo4j Community has only 'neo4j': name it in the "
            "URL path (neo4j://HOST:7687/neo4j) or in DOCGRAPH_GRAPH"
        )
    if code == _ENTITY_NOT_FOUND:  # deleted by a transaction that committed while this one waited for it
        return MissingEndpointError(f"a node the query uses was deleted by another transaction meanwhile: {message}")
    if code == _FORBIDDEN:  # the user's role (not the Forbidden schema errors of the same driver class)
        return StorePermissionError(f"{where}: the user may not do this: {message}")
    if code in _READ_ONLY_CODES or isinstance(error, neo4j_errors.ForbiddenOnReadOnlyDatabase):
        return ReadOnlyViolationError(f"the query writes; read-only queries only here ({message})")
    if code in _MEMORY_CODES:
        return StoreError(f"{where}: the transaction needs more memory than Neo4j allows; {MEMORY_ADVICE}")
    if "TransactionTimedOut" in code:
        return QueryTimeoutError(f"the query ran past its {limit_s:g}s limit")
    if isinstance(error, neo4j_errors.CypherSyntaxError) or code in _SYNTAX_CODES:
        return QuerySyntaxError(message)
    return StoreError(message)


def check_server_version(agent: str, where: str) -> None:
    """Refuse a Neo4j older than docgraph's queries need (``agent``: the server's "Neo4j/5.26.0");
    calendar versions (2025.01 on) are newer than any 5.x."""
    found = re.match(r"Neo4j/(\d+)\.(\d+)", agent)
    if found and (int(found[1]), int(found[2])) < MIN_SERVER_VERSION:
        needed = ".".join(map(str, MIN_SERVER_VERSION))
        raise ConfigError(f"{where} runs {agent}; docgraph needs Neo4j {needed} or later (its vector functions)")


def memory_limit_not_retried(
    write: Callable[[neo4j.ManagedTransaction], WriteResult], batch: GraphBatch
) -> Callable[[neo4j.ManagedTransaction], WriteResult]:
    """``write`` with a transaction memory limit turned into a docgraph error, which the driver does
    not retry (it retries the transient Neo4j errors, and the same write fails the same way)."""

    def work(tx: neo4j.ManagedTransaction) -> WriteResult:
        try:
            return write(tx)
        except neo4j_errors.TransientError as error:
            if error.code not in _MEMORY_CODES:
                raise
            raise StoreError(
                f"writing document {batch.doc_id} failed, the graph is unchanged: its {len(batch.nodes)} nodes "
                f"and {len(batch.edges)} relationships need more memory than Neo4j gives one transaction; "
                f"{MEMORY_ADVICE}"
            ) from error

    return work

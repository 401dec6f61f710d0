"""GraphStore on FalkorDB (local server or external), through the ``falkordb`` client.

* ``read`` goes through ``GRAPH.RO_QUERY``: FalkorDB itself refuses any query that writes.
* Timeouts are FalkorDB's ``timeout`` argument (ms). FalkorDB applies it to queries that only read;
  a query that writes runs to completion whatever the timeout.
* Reads go through a second client whose socket gives up on a reply ``REPLY_GRACE_S`` after the
  query's limit, so a server that stops answering (stuck, or a network path that died) fails a read
  with a clear error instead of hanging the caller. Writes have no reply timeout: FalkorDB runs them
  to completion anyway, and cutting off the client would leave it not knowing whether one happened.
* Vectors are stored as ``vecf32``; the vector index returns cosine distance, which the queries turn
  into cosine similarity (higher is better).
* Document writes are one MULTI/EXEC transaction (:mod:`app.stores.falkordb_write`).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

import redis
from falkordb import FalkorDB
from redis.exceptions import NoPermissionError

from docgraph.app.stores import falkordb_disk
from docgraph.app.stores.base import Dialect, GraphCounts, Row, ScoredNode, WriteResult
from docgraph.app.stores.cypher import identifier, load, render
from docgraph.app.stores.falkordb_client import ClosedPool, one_line, query_error, rows_of
from docgraph.app.stores.falkordb_ghosts import ghost_ids, repair_ghosts
from docgraph.app.stores.falkordb_graphs import GRAPHS_LOOKED_AT, graphs_with_documents
from docgraph.app.stores.falkordb_write import DocumentWriter, encode_query
from docgraph.app.stores.records import DEFAULT_CHUNK_ROWS, check_vector_sizes
from docgraph.app.stores.results import IndexInfo, fulltext_terms, graph_counts, scored_nodes
from docgraph.app.stores.schema import (
    DEFAULT_VECTOR_DIMENSION,
    FULLTEXT_PROPERTY,
    fulltext_index_ddl,
    load_ddl,
    load_falkordb_constraints,
    vector_index_ddl,
)
from docgraph.app.stores.url import masked_url
from docgraph.errors import (
    QuerySyntaxError,
    QueryTimeoutError,
    SchemaError,
    StoreError,
    StorePermissionError,
    StoreUnavailableError,
)
from docgraph.records import GraphBatch

DIALECT: Dialect = "falkordb"
FORGET_DELETED = "(deleted text)"  # put off with the index rebuilds in a fulltext_refresh_deferred block
_ALREADY_DONE = ("already indexed", "already exists")
_ALREADY_GONE = ("no such index",)
_BUILT = "OPERATIONAL"
INDEX_REBUILD_TIMEOUT_S = 600.0  # a full-text index of 10,500 regions takes about 11 s
REPLY_GRACE_S = 30.0  # slack past a read's own limit: for the wait before it runs, and its reply


class FalkorDBStore:
    dialect: Dialect = DIALECT

    def __init__(
        self,
        db: FalkorDB,
        graph: str,
        url: str,
        *,
        query_timeout_s: float = 30.0,
        vector_dimension: int = DEFAULT_VECTOR_DIMENSION,
        chunk_rows: int = DEFAULT_CHUNK_ROWS,
        compact_aof_bytes: int | None = None,
        reader: FalkorDB | None = None,
        restart: Callable[[], bool] | None = None,
    ) -> None:
        """``reader``: a client for reads whose reply timeout is ``query_timeout_s + REPLY_GRACE_S``
        (see ``connect_falkordb``). Writes, and reads given a longer limit, go through ``db``, which
        waits for its reply however long it takes. ``restart``: starts docgraph's own server again."""
        self.url = url
        self.graph_name = graph
        self.vector_dimension = vector_dimension
        self._db = db
        self._graph = db.select_graph(graph)
        self._reader = reader
        self._reader_graph = reader.select_graph(graph) if reader is not None else None
        self._timeout_s = query_timeout_s
        self._writer = DocumentWriter(db.connection, self._graph, chunk_rows)
        self._compact_aof_bytes = compact_aof_bytes  # docgraph's own server: it looks after its AOF
        self._restart = restart
        # the labels to rebuild when the outermost fulltext_refresh_deferred block ends: per context,
        # so the threads of the UI and the API sharing a store are not deferred by another's block
        self._deferral: ContextVar[set[str] | None] = ContextVar(f"fulltext_deferral_{id(self)}", default=None)
        self.deleted_text_on_disk = False  # the last delete's text is still in the append-only file
        if compact_aof_bytes is not None:
            falkordb_disk.stop_query_log(db.connection)
        with contextlib.suppress(StorePermissionError):  # a reader's account: the writers make the graph
            self.write(load("create_graph", DIALECT))

    def graphs_with_documents(self, limit: int = GRAPHS_LOOKED_AT) -> list[str]:
        """The server's other graphs that hold documents (:mod:`app.stores.falkordb_graphs`)."""
        return graphs_with_documents(self._db, self.graph_name, limit)

    # ---- schema ----------------------------------------------------------------------------

    def apply_schema(self) -> None:
        for statement in load_ddl(DIALECT, self.vector_dimension):
            self._schema_step(lambda statement=statement: self._graph.query(statement), statement)
        for arguments in load_falkordb_constraints():
            command = ("GRAPH.CONSTRAINT", "CREATE", self.graph_name, *arguments)
            self._schema_step(lambda command=command: self._db.execute_command(*command), " ".join(arguments))

    def _schema_step(self, run: Any, what: str, done: tuple[str, ...] = _ALREADY_DONE) -> None:
        """Run a schema change; an error saying it is already ``done`` (another client did it) is none."""
        try:
            run()
        except NoPermissionError as error:
            raise StorePermissionError(f"FalkorDB's user may not apply the schema ({what!r}): {error}") from error
        except redis.ResponseError as error:
            if not any(marker in str(error) for marker in done):
                raise SchemaError(f"FalkorDB rejected {what!r}: {error}") from error
        except redis.RedisError as error:
            raise self._unavailable(error) from error

    def wait_for_indexes(self, timeout_s: float = 60.0) -> None:
        deadline = time.monotonic() + timeout_s
        while True:
            constraints = self.read(load("list_constraints", DIALECT))
            failed = [
                f"{row['label']}({', '.join(row['properties'])})" for row in constraints if row["status"] == "FAILED"
            ]
            if failed:
                raise SchemaError(f"unique constraint(s) failed (duplicate ids in the data?): {', '.join(failed)}")
            pending = [row for row in self.read(load("list_indexes", DIALECT)) if row["status"] != _BUILT]
            pending += [row for row in constraints if row["status"] != _BUILT]
            if not pending:
                return
            if time.monotonic() >= deadline:
                raise QueryTimeoutError(f"indexes still building after {timeout_s:.0f}s")
            time.sleep(0.05)

    @contextmanager
    def fulltext_refresh_deferred(self) -> Iterator[None]:
        """Within the block, full-text rebuilds are put off to one at its end (even if it raises):
        ingesting many changed documents rebuilds the indexes once, not once per document. The
        block covers this thread and the work it hands to threads in a copy of its context
        (``contextvars.copy_context``, as ``IngestPipeline.ingest_many`` does); other threads using
        the store rebuild as usual."""
        if self._deferral.get() is not None:  # inside an outer block: that one rebuilds
            yield
            return
        stale: set[str] = set()
        token = self._deferral.set(stale)
        try:
            yield
        finally:
            self._deferral.reset(token)
            if stale:
                self.refresh_fulltext(stale)

    def refresh_fulltext(self, labels: Iterable[str]) -> None:
        """Rebuild the full-text indexes of ``labels`` (those that have one), then wait for them.

        FalkorDB 4.16 keeps counting a node's old entry in the term statistics of its label's
        full-text index when the node is updated or deleted, so every in-place write and delete
        lowers the index's scores (docs/falkordb.md): ``delete_document`` and a ``write_document``
        that replaces a stored version call this too. Meanwhile other clients' full-text queries
        fail or see part of the index. Two clients may rebuild at once: a drop or a create that the
        other one already made is not an error."""
        wanted = list(labels)
        deferred = self._deferral.get()
        if deferred is not None:
            deferred.update(wanted)
            return
        if FORGET_DELETED in wanted:
            self._forget_deleted_text()
        indexed = {info.label for info in self.list_indexes() if info.kind == "FULLTEXT"}
        rebuilt = [label for label in dict.fromkeys(wanted) if label in indexed and label in FULLTEXT_PROPERTY]
        for label in rebuilt:
            drop = render("drop_fulltext_index", DIALECT, label=label, property=FULLTEXT_PROPERTY[label])
            self._rebuild_index(drop, fulltext_index_ddl(DIALECT, label))
        if rebuilt:
            self.wait_for_indexes(INDEX_REBUILD_TIMEOUT_S)

    def refresh_vector_indexes(self) -> None:
        """Rebuild the vector indexes, then wait for them.

        FalkorDB 4.16 keeps a node's old vector in each vector index of its label when the node is
        updated, whichever property changed (FalkorDB#2197, fixed upstream). The orphans shadow live
        entries, so a search returns fewer than k nodes, and a node whose id was set twice (a failed
        forced rewrite moves the stored nodes aside and back) is not found at all. Setting the
        vector again does not repair it; building the index again does (about 1 s per 1,000
        regions). Vector writes done as ``gnn_write_embeddings`` does (cleared, then set) were not
        seen to leave orphans."""
        for label, prop, create in vector_index_ddl(DIALECT, self.vector_dimension):
            self._rebuild_index(render("drop_vector_index", DIALECT, label=label, property=prop), create)
        self.wait_for_indexes(INDEX_REBUILD_TIMEOUT_S)

    def _rebuild_index(self, drop: str, create: str) -> None:
        """Drop an index and create it again. Two clients may rebuild at once: a drop or a create
        that the other one already made is not an error."""
        for statement, done in ((drop, _ALREADY_GONE), (create, _ALREADY_DONE)):
            self._schema_step(lambda statement=statement: self._graph.query(statement), statement, done)

    def list_indexes(self) -> list[IndexInfo]:
        """One entry per indexed (label, property, index type)."""
        infos: list[IndexInfo] = []
        for row in self.read(load("list_indexes", DIALECT)):
            for prop, kinds in dict(row["types"]).items():
                infos += [IndexInfo(str(row["label"]), str(prop), str(kind), str(row["status"])) for kind in kinds]
        return sorted(infos, key=lambda info: (info.label, info.property, info.kind))

    # ---- documents -------------------------------------------------------------------------

    def write_document(self, batch: GraphBatch, force: bool = False) -> WriteResult:
        check_vector_sizes(batch, self.vector_dimension)
        try:
            result = self._writer.write(batch, force)
        except StoreError:  # the write's own error is the one to report, not a rebuild's
            with contextlib.suppress(StoreError):  # its nodes were made and deleted again: see refresh_fulltext
                self.refresh_fulltext(FULLTEXT_PROPERTY)
            if force:  # a failed rewrite may have moved the stored nodes aside and back
                with contextlib.suppress(StoreError):
                    self.refresh_vector_indexes()
            raise
        if result.replaced:  # the old version's nodes were deleted: see refresh_fulltext
            self.refresh_fulltext(FULLTEXT_PROPERTY)
        if result.written and self._compact_aof_bytes is not None:  # docgraph's own server: its disk
            falkordb_disk.check_aof_written(self._db.connection, batch.doc_id)
            falkordb_disk.start_compaction(self._db.connection, self._compact_aof_bytes)
        return result

    def delete_document(self, doc_id: str) -> int:
        """Delete the document, then rebuild the full-text indexes and forget the deleted text (both
        once at the end of a ``fulltext_refresh_deferred`` block)."""
        deleted = self._writer.delete(doc_id)
        if deleted:
            self.refresh_fulltext([*FULLTEXT_PROPERTY, FORGET_DELETED])
        return deleted

    def _forget_deleted_text(self) -> None:
        own_server = self._compact_aof_bytes is not None
        done = falkordb_disk.forget_deleted_text(self._db.connection, self.graph_name, own_server=own_server)
        self.deleted_text_on_disk = not done

    # ---- queries ---------------------------------------------------------------------------

    def read(self, query: str, params: dict[str, Any] | None = None, timeout_s: float | None = None) -> list[Row]:
        return self._run(query, params, timeout_s, read_only=True)

    def write(self, query: str, params: dict[str, Any] | None = None, timeout_s: float | None = None) -> list[Row]:
        return self._run(query, params, timeout_s, read_only=False)

    def explain(self, query: str, params: dict[str, Any] | None = None) -> str:
        try:
            plan = self._graph.explain(query, params)
        except redis.ResponseError as error:
            raise QuerySyntaxError(one_line(error)) from error
        except redis.RedisError as error:
            raise self._unavailable(error) from error
        return "\n".join(plan.plan)

    def _run(self, query: str, params: dict[str, Any] | None, timeout_s: float | None, read_only: bool) -> list[Row]:
        """The query's rows. When the connection fails and the server is docgraph's own, it is started
        again and the query sent once more: a read whatever failed, a write only if it was never sent."""
        try:
            return self._run_once(query, params, timeout_s, read_only)
        except StoreUnavailableError as error:
            cause = error.__cause__
            lost = isinstance(cause, redis.ConnectionError) and (read_only or "connecting to" in str(cause))
            if self._restart is None or not lost:
                raise
            if self._restart():
                self.mend_after_start()
            return self._run_once(query, params, timeout_s, read_only)

    def _run_once(
        self, query: str, params: dict[str, Any] | None, timeout_s: float | None, read_only: bool
    ) -> list[Row]:
        limit_s = timeout_s if timeout_s is not None else self._timeout_s
        timeout_ms = max(1, round(limit_s * 1000))
        try:
            if read_only:
                reader = self._reader_graph if self._reader_graph is not None and limit_s <= self._timeout_s else None
                result = (reader or self._graph).ro_query(query, params, timeout=timeout_ms)
            else:
                result = self._graph.query(query, params, timeout=timeout_ms)
        except redis.ResponseError as error:
            raise query_error(error, limit_s, lambda: self._is_malformed(query, params)) from error
        except redis.TimeoutError as error:
            if "reading" not in str(error):  # a connect timeout, not the reader's reply timeout
                raise self._unavailable(error) from error
            waited = self._timeout_s + REPLY_GRACE_S
            raise StoreUnavailableError(
                f"FalkorDB at {self.url} did not answer a read within {waited:g}s: it is busy with a long write "
                "(a large document's takes minutes, and holds every reader meanwhile), stuck, or out of reach"
            ) from error
        except redis.RedisError as error:
            raise self._unavailable(error) from error
        return rows_of(result)

    def _is_malformed(self, query: str, params: dict[str, Any] | None) -> bool:
        """Whether FalkorDB refuses to even plan the query (as opposed to failing while running it)."""
        try:
            self._db.execute_command("GRAPH.EXPLAIN", self.graph_name, encode_query(query, params))
        except redis.ResponseError:
            return True
        except redis.RedisError:
            return False
        return False

    def _unavailable(self, error: redis.RedisError) -> StoreUnavailableError:
        return StoreUnavailableError(f"FalkorDB at {self.url} is unavailable: {one_line(error)}")

    # ---- search ----------------------------------------------------------------------------

    def vector_top_k(
        self, label: str, prop: str, vector: list[float], k: int, doc_id: str | None = None
    ) -> list[ScoredNode]:
        if k <= 0:
            return []
        vector = [float(x) for x in vector]
        if doc_id is None:
            params = {"label": label, "property": prop, "k": k, "vector": vector}
            rows = self.read(load("vector_top_k", DIALECT), params)
        else:
            query = render("vector_top_k_in_document", DIALECT, label=label, property=prop)
            rows = self.read(query, {"doc_id": doc_id, "k": k, "vector": vector})
        return scored_nodes(rows, label)

    def fulltext_top_k(self, label: str, text: str, k: int, doc_id: str | None = None) -> list[ScoredNode]:
        if label not in FULLTEXT_PROPERTY:
            raise StoreError(f"no full-text index on {label}; there are {', '.join(FULLTEXT_PROPERTY)}")
        terms = fulltext_terms(text)
        if k <= 0 or not terms:
            return []
        # RediSearch: `a|b|c` matches any of the words (its default would require all of them).
        params = {"label": identifier(label), "query": "|".join(terms), "k": k, "doc_id": doc_id}
        return scored_nodes(self.read(load("fulltext_top_k", DIALECT), params), label)

    # ---- housekeeping ----------------------------------------------------------------------

    def counts(self) -> GraphCounts:
        return graph_counts(self.read, DIALECT)

    def ghost_nodes(self) -> dict[str, int]:
        """Per label, how many deleted nodes its label scan still lists (see
        :mod:`app.stores.falkordb_ghosts`; graphs written before docgraph's workaround may hold some)."""
        return {label: len(ids) for label, ids in ghost_ids(self).items()}

    def mend_after_start(self) -> None:
        """Rebuild the full-text indexes a start after a crash counted twice (docs/falkordb.md)."""
        self.refresh_fulltext(list(self.stale_fulltext_indexes()))

    def stale_fulltext_indexes(self) -> dict[str, tuple[int, int]]:
        """Per label whose full-text index counts more entries than it holds nodes (nodes updated in
        place or deleted since it was built, which lower its scores: see refresh_fulltext), the two
        numbers (entries, nodes)."""
        rows = self.read(load("fulltext_index_entries", DIALECT))
        counted = {str(row["label"]): (int(row["entries"] or 0), int(row["nodes"] or 0)) for row in rows}
        return {label: numbers for label, numbers in counted.items() if numbers[0] > numbers[1]}

    def snapshot(self, timeout_s: float) -> bool:
        """Save the whole dataset to disk now (an AOF rewrite, or an RDB save); whether it completed."""
        return falkordb_disk.snapshot_now(self._db.connection, timeout_s)

    def repair_ghost_nodes(self) -> dict[str, int]:
        """Clear the ghost nodes; returns how many there were per label."""
        repaired = repair_ghosts(self)
        if any(repaired.values()):  # placeholder nodes were created and deleted: see refresh_fulltext
            self.refresh_fulltext(FULLTEXT_PROPERTY)
        return repaired

    def delete_graph(self) -> None:
        """Drop the whole graph (all documents, indexes and constraints)."""
        try:
            self._graph.delete()
        except redis.ResponseError as error:
            if "empty key" not in str(error) and "Invalid graph operation" not in str(error):
                raise StoreError(one_line(error)) from error
        except redis.RedisError as error:
            raise self._unavailable(error) from error

    def close(self) -> None:
        """Close the connections; using the store after this raises (redis-py would quietly open
        a new connection for the next command)."""
        for client in (self._db, self._reader):
            if client is not None:
                client.connection.close()
                client.connection.connection_pool = ClosedPool(masked_url(self.url))

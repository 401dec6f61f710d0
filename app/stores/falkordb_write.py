"""Writing and deleting one document in FalkorDB as a single MULTI/EXEC transaction.

One FalkorDB query is atomic, but a document is many queries, and MULTI/EXEC does not roll back: a
failed command leaves the commands around it applied. So the transaction is built to decide its own
outcome, all inside MULTI/EXEC (no reader ever sees a half-written or half-replaced document):

1. a marker node ``(:DocgraphWrite {token, steps: 0})`` is created;
2. stored nodes whose ids the new version reuses are stashed: their ids get a unique suffix, which
   frees the ids under the unique constraints. That is always the Document (its id is ``doc_id``);
   other labels only if their ids collide (ingest puts the version in ids, so normally they do
   not). Nodes are not updated in place otherwise: we saw FalkorDB 4.16 drop re-indexed nodes
   from its vector index;
3. each node and relationship group is created by one query that adds 1 to ``steps`` only if every
   row of the group was created (a failing query is undone by FalkorDB and adds nothing);
4. if ``steps`` equals the number of groups, the stashed old version is deleted; otherwise the new
   version's nodes (``doc_sha256`` = the new version, ids without the stash suffix) are deleted and
   the old ids are restored. A forced rewrite of the stored version stashes every stored node of
   the document (all their ids collide), so the suffix alone tells old from new;
5. the marker is deleted, returning whether the new version was kept.

Every query that deletes nodes first scans each label of the graph, so that FalkorDB resizes its
label matrices (see cypher/falkordb/resize_label_matrix.cypher: without it, FalkorDB 4.16 leaves
attribute-less ghosts of the deleted nodes once the graph has grown past a capacity step).

The transaction WATCHes the graph key between reading the stored version and EXEC, so a concurrent
writer of the same graph makes it retry rather than interleave.
"""

from __future__ import annotations

import itertools
import random
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

import redis
from falkordb import Graph, QueryResult
from falkordb.helpers import stringify_param_value

from docgraph.app.stores.base import WriteResult
from docgraph.app.stores.cypher import identifier, load, render
from docgraph.app.stores.records import (
    DEFAULT_CHUNK_ROWS,
    DOCUMENT_LABELS,
    edge_groups,
    node_groups,
    render_edges,
    render_nodes,
)
from docgraph.errors import MissingEndpointError, StoreBusyError, StoreError, StoreUnavailableError
from docgraph.records import ID_PROPERTY, GraphBatch

DIALECT = "falkordb"
WATCH_RETRIES = 10  # tries at the least, however long they take
CONFLICT_BUDGET_S = 120.0  # and more while other writers keep the graph busy, up to this long
MAX_BACKOFF_S = 1.0
_EMPTY_GRAPH = "empty key"
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Command:
    query: str
    params: dict[str, Any]


def encode_query(query: str, params: dict[str, Any] | None) -> str:
    """The query text with its parameters in a ``CYPHER k=v ...`` prefix, as the falkordb client sends it."""
    if not params:
        return query
    header = " ".join(f"`{key}`={stringify_param_value(value)}" for key, value in params.items())
    return f"CYPHER {header} {query}"


def write_commands(
    batch: GraphBatch,
    token: str,
    stash: tuple[str, ...] = ("Document",),
    chunk_rows: int = DEFAULT_CHUNK_ROWS,
    stored_labels: tuple[str, ...] = (),
    rewrite: bool = False,
) -> Iterator[Command]:
    """Every query of one document write, in order (see the module docstring); ``stash`` names the
    labels whose stored nodes must give up their ids first, ``stored_labels`` the graph's labels.
    ``rewrite``: the same version is stored and is written again (forced), so the stored nodes
    are told from the new ones by the stash suffix, not by their version. The node and edge
    queries are made one at a time, as they are sent.
    """
    suffix = f"#replaced-{token}"
    scope = {"doc_id": batch.doc_id, "version": batch.version}
    yield Command(load("write_begin", DIALECT), {"token": token})
    yield from _per_label("write_stash_old", {**scope, "suffix": suffix, "rewrite": rewrite}, stash)
    steps = 0  # the node and edge groups, counted as they go: only the commands after them need it
    for group in node_groups(batch, split_vectors=True, chunk_rows=chunk_rows):
        steps += 1
        yield Command(render_nodes("write_nodes", DIALECT, group.labels), {"rows": group.rows, "token": token})
    for edges in edge_groups(batch, chunk_rows):
        steps += 1
        yield Command(render_edges("write_edges", DIALECT, edges), {"rows": edges.rows, "token": token})
    guard = {
        "doc_ids": [batch.doc_id, batch.doc_id + suffix],
        "version": batch.version,
        "token": token,
        "steps": steps,
        "suffix": suffix,
    }
    resize = (*stored_labels, *batch_labels(batch))
    yield from _per_label("write_drop_old", guard, resize=resize)
    yield from _per_label("write_drop_new", {**guard, **scope}, resize=resize)
    yield from _per_label("write_restore_old", guard, stash)
    yield Command(load("write_end", DIALECT), {"token": token, "steps": steps})


def batch_labels(batch: GraphBatch) -> tuple[str, ...]:
    labels = {node.label for node in batch.nodes}
    labels.update(extra for node in batch.nodes for extra in node.extra_labels)
    return tuple(sorted(labels))


def plain_labels(labels: Iterable[str]) -> list[str]:
    """``labels`` without repeats and without those that are not plain identifiers: a template cannot
    name those, and docgraph never makes one."""
    return [label for label in dict.fromkeys(labels) if label.isidentifier() and label.isascii()]


def with_resized_labels(query: str, labels: tuple[str, ...]) -> str:
    """``query`` behind one label scan per label (see resize_label_matrix.cypher)."""
    scan = load("resize_label_matrix", DIALECT)
    names = plain_labels(labels)
    clauses = [scan.replace("{var}", f"resized_{i}").replace("{label}", identifier(n)) for i, n in enumerate(names)]
    return "\n".join([*clauses, query])


def _per_label(
    name: str, params: dict[str, Any], labels: tuple[str, ...] = DOCUMENT_LABELS, resize: tuple[str, ...] = ()
) -> list[Command]:
    queries = [render(name, DIALECT, label=label, id=ID_PROPERTY[label]) for label in labels]
    return [Command(with_resized_labels(query, resize) if resize else query, params) for query in queries]


class DocumentWriter:
    """Runs document writes and deletes for one graph over a redis connection."""

    def __init__(self, connection: redis.Redis, graph: Graph, chunk_rows: int = DEFAULT_CHUNK_ROWS) -> None:
        self._connection = connection
        self._graph = graph
        self._chunk_rows = chunk_rows

    def write(self, batch: GraphBatch, force: bool = False) -> WriteResult:
        return self._retrying(lambda: self._try_write(batch, force), batch.doc_id, "writing", "written")

    def delete(self, doc_id: str) -> int:
        """Delete every node of the document (and its relationships) in one transaction."""
        return self._retrying(lambda: self._try_delete(doc_id), doc_id, "deleting", "deleted")

    def _retrying(self, attempt: Callable[[], T | None], doc_id: str, doing: str, done: str) -> T:
        """Run an optimistic ``attempt`` until no concurrent change to the graph aborts it: another
        writer got in first, so wait (longer each time, with jitter) for it to finish."""
        deadline = time.monotonic() + CONFLICT_BUDGET_S
        try:
            for tries in itertools.count():
                outcome = attempt()
                if outcome is not None:
                    return outcome
                if tries + 1 >= WATCH_RETRIES and time.monotonic() >= deadline:
                    break
                time.sleep(random.uniform(0.0, min(MAX_BACKOFF_S, 0.05 * 2**tries)))
        except redis.ConnectionError as error:
            raise StoreUnavailableError(f"FalkorDB connection lost while {doing} {doc_id}: {error}") from error
        raise StoreBusyError(f"document {doc_id} kept changing while it was {done}; try again")

    def _try_delete(self, doc_id: str) -> int | None:
        """One optimistic attempt (the label list is read under WATCH); None when it was aborted."""
        with self._connection.pipeline(transaction=True) as pipe:
            try:
                pipe.watch(self._graph.name)  # type: ignore[no-untyped-call]
                labels = self._stored_labels(pipe)
                # The Document last: if a label's delete fails, the document is still there to delete again.
                order = tuple(reversed(DOCUMENT_LABELS))
                replies = self._execute(pipe, _per_label("delete_document_nodes", {"doc_id": doc_id}, order, labels))
            except redis.WatchError:
                return None
        _raise_first_error(replies, f"deleting document {doc_id} failed")
        return sum(int(QueryResult(self._graph, reply).nodes_deleted) for reply in replies)

    def _try_write(self, batch: GraphBatch, force: bool) -> WriteResult | None:
        """One optimistic attempt; None when a concurrent change to the graph aborted it."""
        with self._connection.pipeline(transaction=True) as pipe:
            try:
                pipe.watch(self._graph.name)  # type: ignore[no-untyped-call]
                versions = self._stored_versions(pipe, batch.doc_id)
                same = versions == [batch.version]
                if same and not force:
                    return WriteResult(written=False, replaced=False, nodes=0, relationships=0)
                # A forced rewrite moves every stored node aside: a changed reader may give some
                # label entirely new ids, and its old nodes would then look like the new version's.
                stash = DOCUMENT_LABELS if same else self._taken_labels(pipe, batch)
                labels = self._stored_labels(pipe)
                commands = write_commands(batch, uuid.uuid4().hex, stash, self._chunk_rows, labels, rewrite=same)
                replies = self._execute(pipe, commands)
            except redis.WatchError:
                return None
        if not self._kept(replies[-1]):
            problem = _first_error(replies)
            if problem is None:
                raise MissingEndpointError(
                    f"writing document {batch.doc_id} failed, the graph is unchanged: a relationship endpoint "
                    "is not in the graph"
                )
            raise StoreError(f"writing document {batch.doc_id} failed, the graph is unchanged: {problem}")
        late = _first_error(replies)
        if late is not None:  # a step after the nodes were written (MULTI/EXEC does not roll back)
            raise StoreError(
                f"writing document {batch.doc_id} went wrong after its nodes were written ({late}): the "
                "store may hold parts of two versions; ingest the file again with --force (force=true in an upload)"
            )
        return WriteResult(
            written=True, replaced=bool(versions), nodes=len(batch.nodes), relationships=len(batch.edges)
        )

    def _execute(self, pipe: Any, commands: Iterable[Command]) -> list[Any]:
        """Run ``commands`` as one MULTI/EXEC on the watched ``pipe``; a reply per command.

        Each command is sent (and queued by the server) before the next is made, so the client
        holds one query's text at a time, not the whole document's. Raises WatchError when a
        concurrent change to the graph aborted the transaction."""
        connection = pipe.connection
        connection.send_command("MULTI")
        connection.read_response()
        try:
            for command in commands:
                connection.send_command(
                    "GRAPH.QUERY", self._graph.name, encode_query(command.query, command.params), "--compact"
                )
                connection.read_response()  # QUEUED; a refused command raises ResponseError
        except BaseException:
            connection.send_command("DISCARD")
            connection.read_response()
            raise
        connection.send_command("EXEC")
        replies: list[Any] | None = connection.read_response()
        if replies is None:
            raise redis.WatchError("the graph changed during the write")
        return replies

    def _stored_versions(self, pipe: Any, doc_id: str) -> list[str]:
        rows = self._read_now(pipe, load("document_versions", DIALECT), {"doc_id": doc_id})
        return [str(row[0]) for row in rows]

    def _stored_labels(self, pipe: Any) -> tuple[str, ...]:
        return tuple(str(row[0]) for row in self._read_now(pipe, load("list_labels", DIALECT), {}))

    def _taken_labels(self, pipe: Any, batch: GraphBatch) -> tuple[str, ...]:
        """Labels whose new ids the document's stored nodes already use (the Document's always are
        when a version is stored). Only those are stashed: in-place updates of indexed nodes are
        kept to the minimum.
        """
        keys: dict[str, list[str]] = {label: [] for label in DOCUMENT_LABELS}
        for node in batch.nodes:
            keys[node.label].append(node.key)
        taken = []
        for label, label_keys in keys.items():
            query = render("count_taken_ids", DIALECT, label=label, id=ID_PROPERTY[label])
            rows = self._read_now(pipe, query, {"keys": label_keys, "doc_id": batch.doc_id}) if label_keys else []
            if rows and int(rows[0][0]) > 0:
                taken.append(label)
        return tuple(taken)

    def _read_now(self, pipe: Any, query: str, params: dict[str, Any]) -> list[list[Any]]:
        """A read-only query on the watched connection, before MULTI."""
        try:
            reply = pipe.execute_command("GRAPH.RO_QUERY", self._graph.name, encode_query(query, params), "--compact")
        except redis.ResponseError as error:
            if _EMPTY_GRAPH in str(error):
                return []
            raise StoreError(f"cannot read the stored document: {error}") from error
        rows: list[list[Any]] = QueryResult(self._graph, reply).result_set
        return rows

    def _kept(self, end_reply: Any) -> bool:
        if isinstance(end_reply, Exception):
            raise StoreError(f"a document write could not be closed: {end_reply}")
        rows = QueryResult(self._graph, end_reply).result_set
        return bool(rows and rows[0][0] is True)


def _first_error(replies: list[Any]) -> str | None:
    for reply in replies:
        if isinstance(reply, Exception):
            return str(reply)
    return None


def _raise_first_error(replies: list[Any], what: str) -> None:
    problem = _first_error(replies)
    if problem is not None:
        raise StoreError(f"{what}: {problem}")

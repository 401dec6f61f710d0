"""Opens the graph store a store URL names."""

from __future__ import annotations

import contextlib
from functools import partial
from pathlib import Path

from docgraph.app.config import Settings
from docgraph.app.stores import falkordb_server
from docgraph.app.stores.base import GraphStore
from docgraph.app.stores.schema import DEFAULT_VECTOR_DIMENSION
from docgraph.app.stores.url import StoreURL, parse_store_url
from docgraph.errors import StorePermissionError


def open_store(
    settings: Settings, url: str | None = None, *, vector_dimension: int = DEFAULT_VECTOR_DIMENSION
) -> GraphStore:
    """Connect to the store of ``url`` (default: ``settings.store_url``), starting the local
    FalkorDB server if that is the store and it is not running. The schema is not applied here.
    """
    target = parse_store_url(url or settings.store_url, settings)
    if target.kind == "neo4j":
        return _open_neo4j(target, settings, vector_dimension)
    return _open_falkordb(target, settings, vector_dimension)


def apply_schema_if_allowed(store: GraphStore) -> GraphStore:
    """``store`` with its schema applied, unless its account may only read: a reader's servers,
    tools and commands leave the schema to the account that ingests (and fail on a write)."""
    with contextlib.suppress(StorePermissionError):
        store.apply_schema()
    return store


def _open_falkordb(target: StoreURL, settings: Settings, vector_dimension: int) -> GraphStore:
    from docgraph.app.stores.falkordb_client import connect_falkordb
    from docgraph.app.stores.falkordb_disk import COMPACT_AFTER_WRITES_BYTES
    from docgraph.app.stores.falkordb_store import REPLY_GRACE_S, FalkorDBStore

    socket, compact_aof_bytes, restart, started = None, None, None, False
    if target.kind == "falkordb-local":
        home = target.path
        assert home is not None  # parse_store_url always sets it for falkordb-local
        socket, started = falkordb_server.running_server(home)
        compact_aof_bytes = COMPACT_AFTER_WRITES_BYTES  # an external server's persistence is its owner's
        restart = partial(_restarted, home)  # `docgraph store stop` says so
    store = FalkorDBStore(
        connect_falkordb(target, socket),
        target.graph,
        target.redacted(),
        query_timeout_s=settings.query_timeout_s,
        vector_dimension=vector_dimension,
        compact_aof_bytes=compact_aof_bytes,
        reader=connect_falkordb(target, socket, reply_timeout_s=settings.query_timeout_s + REPLY_GRACE_S),
        restart=restart,
    )
    if started:
        store.mend_after_start()
    return store


def _restarted(home: Path) -> bool:
    return falkordb_server.running_server(home)[1]


def _open_neo4j(target: StoreURL, settings: Settings, vector_dimension: int) -> GraphStore:
    from docgraph.app.stores.neo4j_store import Neo4jStore

    return Neo4jStore.connect(target, query_timeout_s=settings.query_timeout_s, vector_dimension=vector_dimension)

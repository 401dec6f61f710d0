"""The MCP server through the official SDK's client: over stdio, and over streamable HTTP behind keys."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import httpx2
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.server.mcpserver.exceptions import ToolError

from docgraph.app.auth.keys import KeyStore
from docgraph.app.config import Settings
from docgraph.app.mcp.server import build_server
from docgraph.app.resources import docgraph_release
from tests.api_helpers import ROUTE_RETRIEVE
from tests.conftest import fresh_graph_name
from tests.llm_server import Reply, ScriptedLLMServer
from tests.ui_helpers import free_port, wait_for_json

SAMPLE = Path(__file__).resolve().parent.parent / "samples" / "docgraph-sample.pdf"
DOCGRAPH = Path(sys.executable).with_name("docgraph")
TOOLS = {"retrieve", "ask", "cypher", "schema", "documents"}


@pytest.fixture(scope="module")
def env(local_home: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """A data home of the module's own (its keys), the store a fresh graph holding the sample."""
    home = tmp_path_factory.mktemp("mcp-home")
    values = {
        **os.environ,
        "DOCGRAPH_HOME": str(home),
        "DOCGRAPH_STORE": f"falkordb-local://{local_home}?graph={fresh_graph_name()}",
        "OMP_THREAD_LIMIT": "1",
        "DOCGRAPH_ALLOWED_HOSTS": "mcp.example",  # the name a proxy in front of it serves
    }
    done = subprocess.run([str(DOCGRAPH), "ingest", str(SAMPLE)], env=values, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return values


async def use_tools(session: ClientSession) -> dict[str, Any]:
    server = (await session.initialize()).server_info
    seen: dict[str, Any] = {"tools": {tool.name for tool in (await session.list_tools()).tools}}
    seen["server"] = (server.name, server.version)
    for name, arguments in (
        ("documents", {}),
        ("retrieve", {"query": "When are the penguins fed?", "k": 3}),
        ("cypher", {"query": "MATCH (t:Table) RETURN count(t) AS tables"}),
        ("cypher", {"query": "MATCH (d:Document) DETACH DELETE d"}),
        ("schema", {}),
        # Arguments the HTTP API refuses: refused here too, as the tool's error
        ("retrieve", {"query": "penguins", "k": 100000}),
        ("retrieve", {"query": "  "}),
        ("retrieve", {"query": "penguins", "doc_id": "no-such-document"}),
        ("cypher", {"query": "RETURN $x AS x", "params": {"a`b": 1}}),
    ):
        result = await session.call_tool(name, arguments)
        seen.setdefault(name, []).append((result.is_error, "".join(getattr(c, "text", "") for c in result.content)))
    return seen


def check_tools(seen: dict[str, Any]) -> None:
    assert seen["tools"] == TOOLS
    assert seen["server"] == ("docgraph", docgraph_release())  # the version was empty
    ((error, documents),) = seen["documents"]
    assert not error and json.loads(documents)["doc_id"] == "docgraph-sample"
    (error, retrieved), too_many, blank, unknown = seen["retrieve"]
    assert unknown == (
        True,
        "Error executing tool retrieve: no document 'no-such-document' in the store (the documents tool lists them)",
    )
    assert not error and "10:30" in retrieved and "docgraph-sample" in retrieved
    # Refused arguments are named on one line, as the API names them (pydantic's report took four)
    assert too_many == (True, "invalid arguments for retrieve: k: Input should be less than or equal to 50")
    assert blank[0] and blank[1].startswith("invalid arguments for retrieve: query: ") and "\n" not in blank[1]
    (read_error, read), (write_error, refused), bad_name = seen["cypher"]
    assert bad_name[0] and "params" in bad_name[1], bad_name
    assert not read_error and json.loads(read)["rows"] == [{"tables": 1}]
    assert write_error and "not allowed" in refused  # the one-line reason reaches the agent
    ((error, schema),) = seen["schema"]
    assert not error and "Region" in schema and "HAS_NEXT" in schema


def over_stdio(env: dict[str, str]) -> dict[str, Any]:
    async def run() -> dict[str, Any]:
        params = StdioServerParameters(command=str(DOCGRAPH), args=["mcp"], env=env)
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            return await use_tools(session)

    return anyio.run(run)


def test_the_tools_over_stdio_read_and_never_write(env: dict[str, str]) -> None:
    check_tools(over_stdio(env))
    done = subprocess.run([str(DOCGRAPH), "documents", "--json"], env=env, capture_output=True, text=True)
    assert [d["doc_id"] for d in json.loads(done.stdout)] == ["docgraph-sample"]  # nothing was deleted


@pytest.fixture
def http_server(env: dict[str, str]) -> Iterator[str]:
    port = free_port()
    server = subprocess.Popen(
        [str(DOCGRAPH), "mcp", "--transport", "http", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        wait_for_json(url, server)  # a JSON-RPC error (no session) once it listens
        yield url
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_over_http_the_same_keys_guard_every_request(env: dict[str, str], http_server: str) -> None:
    keys = KeyStore(Path(env["DOCGRAPH_HOME"]))
    record, secret = keys.create("reader", "agent")
    try:
        initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}
        refused = httpx.post(http_server, json=initialize, headers={"Accept": "application/json, text/event-stream"})
        assert refused.status_code == 401
        rebinding = httpx.post(http_server, json=initialize, headers={"Host": "evil.example"})
        assert rebinding.status_code == 400
        accept = {"Accept": "application/json, text/event-stream", "Authorization": f"Bearer {secret}"}
        proxied = httpx.post(http_server, json=initialize, headers={**accept, "Host": "mcp.example"})
        assert proxied.status_code == 200, proxied.text  # an allowed name gets in (the SDK said 421)
        flood = {**initialize, "params": {"padding": "x" * 2_000_000}}  # read whole before: the reader's memory
        assert httpx.post(http_server, json=flood, headers=accept).status_code == 413
        chunked = httpx.post(http_server, content=iter([json.dumps(initialize).encode()]), headers=accept)
        assert chunked.status_code == 411  # cut off at the limit, a chunked one left a traceback in the log

        async def run() -> dict[str, Any]:
            client = httpx2.AsyncClient(headers={"Authorization": f"Bearer {secret}"}, timeout=120)
            async with (
                client,
                streamable_http_client(http_server, http_client=client) as (read, write, *_),
                ClientSession(read, write) as session,
            ):
                return await use_tools(session)

        check_tools(anyio.run(run))
        # Over stdio too, once a key exists the process must be given one.
        unkeyed = subprocess.run(
            [str(DOCGRAPH), "mcp"], env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL
        )
        assert unkeyed.returncode == 1 and "DOCGRAPH_API_KEY" in unkeyed.stderr
        check_tools(over_stdio({**env, "DOCGRAPH_API_KEY": secret}))
    finally:
        keys.revoke(record.key_id)
    # A revoked key is told so, as the HTTP API tells it ("set DOCGRAPH_API_KEY" said nothing of why).
    revoked = subprocess.run(
        [str(DOCGRAPH), "mcp"],
        env={**env, "DOCGRAPH_API_KEY": secret},
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    assert revoked.returncode == 1 and f"DOCGRAPH_API_KEY: key {record.key_id} was revoked at " in revoked.stderr


HEAVY_QUERY = "UNWIND range(1, 30000) AS a UNWIND range(1, 30000) AS b WITH a, b WHERE a * b = -1 RETURN count(*) AS n"


def test_written_queries_wait_for_the_servers_few_slots(env: dict[str, str], tmp_path: Path) -> None:
    """The API's /cypher ran DOCGRAPH_USER_QUERY_SLOTS queries at once; the cypher tool had no limit, so
    any agent could hold every database worker while retrieval waited."""
    limits = {"DOCGRAPH_USER_QUERY_SLOTS": "1", "DOCGRAPH_USER_QUERY_TIMEOUT_S": "5"}
    budget = {**env, **limits, "DOCGRAPH_HOME": str(tmp_path)}  # a home of its own: no keys in use

    async def run() -> dict[str, tuple[bool, str]]:
        params = StdioServerParameters(command=str(DOCGRAPH), args=["mcp"], env=budget)
        results: dict[str, tuple[bool, str]] = {}

        async def call(query: str, after_s: float) -> None:
            await anyio.sleep(after_s)
            result = await session.call_tool("cypher", {"query": query})
            results[query] = (result.is_error, "".join(getattr(c, "text", "") for c in result.content))

        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            await session.call_tool("cypher", {"query": "RETURN 1 AS warm"})  # the store opened before the race
            async with anyio.create_task_group() as group:
                group.start_soon(call, HEAVY_QUERY, 0.0)
                group.start_soon(call, "RETURN 1 AS one", 0.5)  # the heavy query holds the one slot now
        return results

    results = anyio.run(run)
    refused, heavy = results["RETURN 1 AS one"], results[HEAVY_QUERY]
    assert refused[0] and "1 written queries are running already" in refused[1], refused
    assert heavy[0] and "ran past its 5s limit" in heavy[1], heavy  # its own budget ran out


def test_an_answer_under_way_ends_when_the_http_server_stops(env: dict[str, str], tmp_path: Path) -> None:
    """`docgraph mcp --transport http` sets ``stopping`` as it begins to stop: the ask tool's model
    call under way ends at its next piece (the model writes a minute of text here), and an ask
    after that is refused without asking the model."""
    stopping = threading.Event()
    with ScriptedLLMServer() as llm:
        llm.add(ROUTE_RETRIEVE, Reply(tokens=[f" word{i}" for i in range(600)], pace_s=0.1))
        endpoint = {"llm_base_url": llm.base_url, "llm_api_key": "k", "llm_model": "m"}
        server = build_server(Settings(home=tmp_path, store=env["DOCGRAPH_STORE"], **endpoint), stopping)

        def stop_once_the_answer_is_asked() -> None:
            deadline = time.monotonic() + 60
            while len(llm.requests) < 2 and time.monotonic() < deadline:
                time.sleep(0.05)
            stopping.set()

        stopper = threading.Thread(target=stop_once_the_answer_is_asked)
        stopper.start()
        question = {"question": "When are the penguins fed?", "k": 3}
        with pytest.raises(ToolError, match="the server is stopping: ask again once it is back"):
            anyio.run(server.call_tool, "ask", question)
        stopper.join(60)
        with pytest.raises(ToolError, match="the server is stopping"):
            anyio.run(server.call_tool, "ask", question)
        assert len(llm.requests) == 2  # the router and the answer, nothing after the stop


def test_an_answer_the_agent_cancels_stops_asking_the_model(env: dict[str, str], tmp_path: Path) -> None:
    """A cancelled ask (a client's time-out, an ended session) went on in its thread: the whole reply,
    then the rereads, half a minute of the model for nobody."""
    words = [f" word{i}" for i in range(600)]
    with ScriptedLLMServer() as llm:
        llm.add(ROUTE_RETRIEVE, Reply(tokens=words, pace_s=0.1), "a reread must not be asked")
        endpoint = {"llm_base_url": llm.base_url, "llm_api_key": "k", "llm_model": "m"}
        server = build_server(Settings(home=tmp_path, store=env["DOCGRAPH_STORE"], **endpoint))

        async def cancel_once_the_answer_is_asked() -> None:
            async with anyio.create_task_group() as group:
                group.start_soon(server.call_tool, "ask", {"question": "When are the penguins fed?", "k": 3})
                with anyio.fail_after(60):
                    while len(llm.requests) < 2:
                        await anyio.sleep(0.05)
                await anyio.sleep(0.5)
                group.cancel_scope.cancel()

        anyio.run(cancel_once_the_answer_is_asked)
        deadline = time.monotonic() + 30
        while not llm.hung_up and time.monotonic() < deadline:  # its next write after the close fails
            time.sleep(0.1)
        # closed a few words after the cancel (it ran on to the 60 s time-out: some 590 words of 600)
        assert len(llm.hung_up) == 1 and llm.hung_up[0] < len(words) // 4, llm.hung_up
        assert len(llm.requests) == 2  # the router and the answer, no reread


def test_a_stop_while_the_model_reads_the_prompt_ends_the_answer(env: dict[str, str], tmp_path: Path) -> None:
    """Stopped while the model still read the prompt (no word yet, keep-alive comments only), the ask
    waited for its first word: over HTTP the server had ended by then, and the agent read "SSE
    stream ended without a response"."""
    stopping = threading.Event()
    with ScriptedLLMServer() as llm:
        llm.add(Reply(ROUTE_RETRIEVE, pings_s=30.0))
        endpoint = {"llm_base_url": llm.base_url, "llm_api_key": "k", "llm_model": "m"}
        server = build_server(Settings(home=tmp_path, store=env["DOCGRAPH_STORE"], **endpoint), stopping)

        def stop_once_the_router_is_asked() -> None:
            deadline = time.monotonic() + 60
            while not llm.requests and time.monotonic() < deadline:
                time.sleep(0.05)
            time.sleep(0.5)
            stopping.set()

        stopper = threading.Thread(target=stop_once_the_router_is_asked)
        stopper.start()

        async def ask_bounded() -> None:
            with anyio.fail_after(20):  # the prompt is "read" for 30 s
                await server.call_tool("ask", {"question": "When are the penguins fed?", "k": 3})

        with pytest.raises(ToolError, match="the server is stopping: ask again once it is back"):
            anyio.run(ask_bounded)
        stopper.join(60)

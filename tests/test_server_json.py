"""serve, mcp and ui with --json: where each listens as one JSON line on stdout, for a script that
starts it; the API's and MCP server's log as JSON lines on stderr, for a log collector."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.conftest import fresh_graph_name
from tests.ui_helpers import free_port

CLI = [sys.executable, "-m", "docgraph.app.cli.main"]


@contextmanager
def started(
    args: list[str], home: Path, extra_env: dict[str, str] | None = None
) -> Iterator[tuple[dict[str, Any], subprocess.Popen[str]]]:
    """The command running; its start record (the first line it prints) and its process."""
    env = {**os.environ, "DOCGRAPH_HOME": str(home), "DOCGRAPH_GRAPH": fresh_graph_name(), "DOCGRAPH_STORE": ""}
    env |= extra_env or {}
    process = subprocess.Popen(
        [*CLI, *args, "--json"],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # the UI's Streamlit stops with it
    )
    try:
        assert process.stdout is not None
        yield json.loads(process.stdout.readline()), process
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
            process.communicate(timeout=30)


def test_serve_prints_where_it_listens_and_logs_json_lines(local_home: Path) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with started(["serve", "--port", str(port)], local_home) as (record, process):
        health = httpx.get(f"{url}/health", timeout=10)  # printed once it answers: no waiting
        assert health.status_code == 200
        process.send_signal(signal.SIGTERM)
        out, err = process.communicate(timeout=30)
    assert record["service"] == "API" and record["url"] == url and record["docs"] == f"{url}/docs"
    assert record["store"] == f"falkordb-local://{local_home}"
    assert out == ""  # the access log goes to stderr with the rest
    lines = [json.loads(line) for line in err.splitlines()]
    assert {"level", "time", "logger", "message"} <= set(lines[0])
    health = [line for line in lines if line["logger"] == "uvicorn.access" and line.get("path") == "/health"]
    assert health and health[-1]["status"] == 200 and health[-1]["method"] == "GET", lines


def test_serve_stopped_with_ctrl_c_exits_0(local_home: Path) -> None:
    """Run on its own sockets, uvicorn re-raised the interrupt once it had shut down: exit 130."""
    with started(["serve", "--port", str(free_port())], local_home) as (record, process):
        assert httpx.get(f"{record['url']}/health", timeout=10).status_code == 200
        process.send_signal(signal.SIGINT)
        process.communicate(timeout=30)
    assert process.returncode == 0


def test_mcp_over_http_prints_where_it_listens(local_home: Path) -> None:
    port = free_port()
    with started(["mcp", "--transport", "http", "--port", str(port)], local_home) as (record, process):
        assert "jsonrpc" in httpx.get(record["url"], timeout=10).json()  # an error (no session), at once
        process.send_signal(signal.SIGTERM)
        out, err = process.communicate(timeout=30)
    assert record == {
        "service": "MCP server",
        "url": f"http://127.0.0.1:{port}/mcp",
        "store": f"falkordb-local://{local_home}",
    }
    lines = [json.loads(line) for line in out.splitlines() + err.splitlines()]
    assert out == "" and all(line["level"] for line in lines)
    served = [line for line in lines if line["logger"] == "uvicorn.access" and line.get("path") == "/mcp"]
    assert served and served[-1]["method"] == "GET", lines  # the operator sees what was asked (none before)


def test_ui_prints_where_it_listens_once_it_answers(local_home: Path) -> None:
    """The record came before Streamlit had started (seconds before it listened): a script that
    connected on reading it was refused. Streamlit's server prints it now, once it takes connections."""
    port = free_port()
    with started(["ui", "--port", str(port)], local_home) as (record, _):
        health = httpx.get(f"{record['url']}/_stcore/health", timeout=30)  # no waiting
    assert health.status_code == 200
    assert record == {"service": "UI", "url": f"http://127.0.0.1:{port}", "store": f"falkordb-local://{local_home}"}


def test_ui_under_a_base_path_prints_the_address_its_pages_are_at(local_home: Path) -> None:
    """Served under /docgraph, it printed the bare address, where a script found a 404."""
    port = free_port()
    with started(["ui", "--port", str(port)], local_home, {"STREAMLIT_SERVER_BASE_URL_PATH": "docgraph"}) as (
        record,
        _,
    ):
        health = httpx.get(f"{record['url']}/_stcore/health", timeout=30)
    assert record["url"] == f"http://127.0.0.1:{port}/docgraph" and health.status_code == 200


@pytest.mark.parametrize("command", [["serve"], ["mcp", "--transport", "http"], ["ui"]])
def test_a_server_whose_port_is_taken_says_so_in_one_line(local_home: Path, command: list[str]) -> None:
    """No start record: a script reading it would take the other server for this one."""
    holder = socket.socket()
    holder.bind(("127.0.0.1", 0))
    holder.listen()
    port = holder.getsockname()[1]
    env = {**os.environ, "DOCGRAPH_HOME": str(local_home), "DOCGRAPH_STORE": ""}
    try:
        done = subprocess.run(
            [*CLI, *command, "--port", str(port), "--json"], env=env, capture_output=True, text=True, timeout=120
        )
    finally:
        holder.close()
    said = f"cannot listen on 127.0.0.1:{port}: address already in use"
    assert done.returncode == 1 and done.stderr == f"error: {said}\n"
    assert json.loads(done.stdout) == {"error": said, "exit_code": 1}  # no start record with a url

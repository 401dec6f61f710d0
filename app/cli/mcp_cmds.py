"""``docgraph mcp``: the MCP server (see :mod:`app.mcp.server`) over stdio or streamable HTTP."""

from __future__ import annotations

import logging.config
import threading
from typing import Annotated

import typer

from docgraph.app.auth.exposure import check_exposure
from docgraph.app.auth.keys import KeyStore
from docgraph.app.cli.common import CliState, JsonOption, StoreOption, handles_errors, server_settings
from docgraph.app.cli.listening import SHUTDOWN_GRACE_S, http_url, listening_sockets, serve_then_announce
from docgraph.app.cli.server_log import announce, server_log_config
from docgraph.app.stores.url import masked_url
from docgraph.errors import ConfigError


@handles_errors
def mcp_command(
    transport: Annotated[str, typer.Option("--transport", help="stdio (a local agent) or http.")] = "stdio",
    host: Annotated[str, typer.Option("--host", help="Address to listen on (http).")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="Port to listen on (http).", min=1, max=65535)] = 8001,
    store: StoreOption = None,
    json_output: JsonOption = False,
) -> None:
    """Serve retrieve, ask, read-only Cypher, the schema and the document list to MCP agents.
    With --json: the log as JSON lines on stderr and, over http, where it listens as one JSON
    line on stdout (over stdio, stdout carries the protocol, so errors stay on stderr)."""
    if transport != "http":
        CliState.json_errors = False
    try:
        from docgraph.app.mcp import server  # loads the MCP SDK
    except ModuleNotFoundError as error:
        if (error.name or "").split(".")[0] != "mcp":
            raise
        raise ConfigError("the MCP server needs the MCP SDK: pip install 'docgraph[mcp]'") from error

    settings = server_settings(store)
    if transport not in ("stdio", "http"):
        raise ConfigError(f"unknown transport {transport!r}; choose stdio or http")
    # Over http the access log, as serve keeps it (who was refused, what was served); stdio has none.
    server_level = "INFO" if transport == "http" else "WARNING"
    log_config = server_log_config(json_output, server_level=server_level, stdout_taken=transport == "stdio")
    if transport == "stdio":
        server.check_stdio_key(settings)
        logging.config.dictConfig(log_config)
        server.build_server(settings).run("stdio")
        return
    check_exposure(host, KeyStore(settings.home))
    sockets = listening_sockets(host, port)  # a port in use fails here, in one line
    logging.config.dictConfig(log_config)  # before the server is built, as serve does
    url = f"{http_url(host, port)}/mcp"
    stopping = threading.Event()
    serve_then_announce(
        server.http_app(settings, host, stopping),
        sockets,
        lambda: announce("MCP server", url, json_output, store=masked_url(settings.store_url)),
        on_stop=stopping.set,  # answers under way end now
        grace_s=SHUTDOWN_GRACE_S,
    )

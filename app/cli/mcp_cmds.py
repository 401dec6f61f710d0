"""``docgraph mcp``: the MCP server (see :mod:`app.mcp.server`) over stdio or streamable HTTP."""

from __future__ import annotations

from typing import Annotated

import typer

from docgraph.app.auth.exposure import check_exposure
from docgraph.app.auth.keys import KeyStore
from docgraph.app.cli.common import StoreOption, err_console, handles_errors, server_settings
from docgraph.errors import ConfigError


@handles_errors
def mcp_command(
    transport: Annotated[str, typer.Option("--transport", help="stdio (a local agent) or http.")] = "stdio",
    host: Annotated[str, typer.Option("--host", help="Address to listen on (http).")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="Port to listen on (http).", min=1, max=65535)] = 8001,
    store: StoreOption = None,
) -> None:
    """Serve retrieve, ask, read-only Cypher, the schema and the document list to MCP agents."""
    try:
        from docgraph.app.mcp import server  # loads the MCP SDK
    except ModuleNotFoundError as error:
        if (error.name or "").split(".")[0] != "mcp":
            raise
        raise ConfigError("the MCP server needs the MCP SDK: pip install 'docgraph[mcp]'") from error

    settings = server_settings(store)
    if transport == "stdio":
        server.check_stdio_key(settings)
        server.build_server(settings).run("stdio")
        return
    if transport != "http":
        raise ConfigError(f"unknown transport {transport!r}; choose stdio or http")
    check_exposure(host, KeyStore(settings.home))
    import uvicorn

    err_console.print(f"docgraph MCP server on http://{host}:{port}/mcp", highlight=False)
    uvicorn.run(server.http_app(settings, host), host=host, port=port, log_level="warning")

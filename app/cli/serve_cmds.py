"""``docgraph serve``: the HTTP API (see :mod:`app.api`) under uvicorn."""

from __future__ import annotations

from typing import Annotated

import typer

from docgraph.app.auth.exposure import check_exposure
from docgraph.app.auth.keys import KeyStore
from docgraph.app.cli.common import StoreOption, console, handles_errors, server_settings
from docgraph.app.stores.url import masked_url


@handles_errors
def serve_command(
    host: Annotated[str, typer.Option("--host", help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="Port to listen on.", min=1, max=65535)] = 8000,
    store: StoreOption = None,
) -> None:
    """Serve the HTTP API (OpenAPI docs at /docs). Uploads are limited by DOCGRAPH_API_MAX_UPLOAD_MB."""
    import uvicorn

    from docgraph.app.api.app import create_app

    settings = server_settings(store)
    check_exposure(host, KeyStore(settings.home))
    where = f"http://{host}:{port} (docs at /docs), store {masked_url(settings.store_url)}"
    console.print(f"docgraph API on {where}", highlight=False)
    uvicorn.run(create_app(settings, listen_host=host), host=host, port=port, log_level="info")

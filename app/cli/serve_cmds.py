"""``docgraph serve``: the HTTP API (see :mod:`app.api`) under uvicorn."""

from __future__ import annotations

import logging.config
from typing import Annotated

import typer

from docgraph.app.auth.exposure import check_exposure
from docgraph.app.auth.keys import KeyStore
from docgraph.app.cli.common import JsonOption, StoreOption, handles_errors, server_settings
from docgraph.app.cli.listening import SHUTDOWN_GRACE_S, http_url, listening_sockets, serve_then_announce
from docgraph.app.cli.server_log import announce, server_log_config
from docgraph.app.stores.url import masked_url


@handles_errors
def serve_command(
    host: Annotated[str, typer.Option("--host", help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="Port to listen on.", min=1, max=65535)] = 8000,
    store: StoreOption = None,
    json_output: JsonOption = False,
) -> None:
    """Serve the HTTP API (OpenAPI docs at /docs). Uploads are limited by DOCGRAPH_API_MAX_UPLOAD_MB.
    With --json: where it listens as one JSON line on stdout, and the log as JSON lines on stderr."""
    from docgraph.app.api.app import create_app

    settings = server_settings(store)
    check_exposure(host, KeyStore(settings.home))
    sockets = listening_sockets(host, port)  # a port in use fails here, in one line
    url = http_url(host, port)
    logging.config.dictConfig(server_log_config(json_output))  # before the app resumes its jobs
    api = create_app(settings, listen_host=host)
    store_url = masked_url(settings.store_url)
    serve_then_announce(
        api,
        sockets,
        lambda: announce("API", url, json_output, docs=f"{url}/docs", store=store_url),
        on_stop=api.state.docgraph.stopping.set,  # answers under way end now, with a 503
        grace_s=SHUTDOWN_GRACE_S,  # a stalled upload does not hold the stop for ever
    )

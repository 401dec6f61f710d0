"""``docgraph ui``: the Streamlit app on the configured store."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from typing import Annotated

import typer

from docgraph.app.auth.exposure import check_exposure
from docgraph.app.auth.keys import KeyStore
from docgraph.app.cli.common import JsonOption, StoreOption, handles_errors, server_settings
from docgraph.app.cli.listening import UI_START_RECORD, check_port_free, http_url
from docgraph.app.cli.server_log import announcement
from docgraph.app.resources import IMPORT_ROOT, ROOT
from docgraph.app.stores.url import masked_url

UI_APP = ROOT / "ui" / "app.py"  # the pages
UI_SERVER = ROOT / "ui" / "asgi.py"  # the pages as an ASGI app whose page shell names its base URL


@handles_errors
def ui_command(
    host: Annotated[str, typer.Option("--host", help="Address to listen on (0.0.0.0 for all).")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="Port to listen on.", min=1, max=65535)] = 8501,
    store: StoreOption = None,
    json_output: JsonOption = False,
) -> None:
    """Start the web UI (Streamlit): ask, browse documents, run Cypher, explore the graph.
    With --json: where it listens as one JSON line on stdout (Streamlit's own log, on stderr, stays text)."""
    settings = server_settings(store)  # a bad setting fails here, in one line, not inside the app
    check_exposure(host, KeyStore(settings.home))
    check_port_free(host, port)  # Streamlit binds it itself: a port in use is refused here, in one line
    url = http_url(host, port) + streamlit_base_path()
    line = announcement("UI", url, json_output, store=masked_url(settings.store_url))
    command = streamlit_command(host, port)
    # Become the Streamlit server rather than wait on it: signals (Ctrl-C, `docker stop`) reach it
    # directly and no orphan is left behind when this process is killed. The server prints the
    # start record once it answers (ui/asgi.py): a script may connect on reading it.
    record = json.dumps({"host": connect_host(host), "port": port, "line": line})
    os.execve(command[0], command, {**ui_environment(os.environ, store), UI_START_RECORD: record})


def streamlit_base_path() -> str:
    """The path the pages are served under (``server.baseUrlPath``: STREAMLIT_SERVER_BASE_URL_PATH or
    a .streamlit/config.toml), as it follows the address: ``/docgraph``, or nothing."""
    from streamlit import config  # Streamlit's own reading of its files; its command reads the variable

    base = os.environ.get("STREAMLIT_SERVER_BASE_URL_PATH") or str(config.get_option("server.baseUrlPath") or "")
    return f"/{base.strip('/')}" if base.strip("/") else ""


def connect_host(host: str) -> str:
    """Where a client on this machine reaches a server listening on ``host``."""
    return {"0.0.0.0": "127.0.0.1", "::": "::1", "": "127.0.0.1"}.get(host, host)


def streamlit_command(host: str, port: int) -> list[str]:
    return [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        str(UI_SERVER),
        "--server.address",
        host,
        "--server.port",
        str(port),
        "--server.headless",
        "true",
        "--server.fileWatcherType",
        "none",
        "--browser.gatherUsageStats",
        "false",
        "--client.toolbarMode",
        "minimal",
        "--logger.hideWelcomeMessage",  # docgraph has said where it listens (stdout: one JSON line under --json)
        "true",
    ]


def ui_environment(base: Mapping[str, str], store: str | None) -> dict[str, str]:
    """The app's environment: ours, the ``--store`` flag as ``DOCGRAPH_STORE``, the repository importable."""
    env = dict(base)
    if store:
        env["DOCGRAPH_STORE"] = store
    # `streamlit run` puts only ui/ on sys.path; the app imports `docgraph.*`.
    env["PYTHONPATH"] = os.pathsep.join(part for part in (str(IMPORT_ROOT), base.get("PYTHONPATH", "")) if part)
    env.setdefault("HF_HUB_OFFLINE", "1")
    return env

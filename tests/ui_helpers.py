"""Helpers for the UI tests: a graph with the sample PDF ingested, the app as a subprocess, Chromium."""

from __future__ import annotations

import base64
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

from docgraph.app.config import Settings
from docgraph.app.pipeline.build import build_ingest_pipeline
from docgraph.app.resources import SAMPLES_DIR
from docgraph.app.stores.base import GraphStore
from docgraph.app.stores.factory import open_store
from tests.conftest import fresh_graph_name, local_settings

SAMPLE_PDF = SAMPLES_DIR / "docgraph-sample.pdf"
CHROMIUM = Path("/usr/bin/chromium")
# No sandbox (root in a container), no GPU, and nothing that reaches out to the network.
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SHOTS_COPY_DIR = Path("/tmp/ui-shots")
# Variables that would point the app at an LLM endpoint or another store: the tests set their own.
FOREIGN_ENV = ("OPENAI_BASE_URL", "OPENAI_API_KEY", "DOCGRAPH_LLM_BASE_URL", "DOCGRAPH_LLM_API_KEY", "DOCGRAPH_STORE")


@contextmanager
def sample_graph(home: Path) -> Iterator[tuple[GraphStore, Settings]]:
    """A fresh graph under ``home`` with the sample PDF ingested, and an open store on it; the
    graph is deleted afterwards."""
    settings = local_settings(home, fresh_graph_name())
    ingest_sample(settings)
    store = open_store(settings)
    try:
        yield store, settings
    finally:
        store.delete_graph()  # type: ignore[attr-defined]
        store.close()


def ingest_sample(settings: Settings, pdf: Path = SAMPLE_PDF) -> str:
    """Ingest ``pdf`` through the real pipeline into the settings' store; returns its doc id."""
    store = open_store(settings)
    try:
        store.apply_schema()
        store.wait_for_indexes()
        report = build_ingest_pipeline(store, settings).ingest(pdf)
    finally:
        store.close()
    assert report.status in {"ingested", "unchanged", "replaced"}, report.error
    return report.doc_id


def app_environment(home: Path, graph: str, extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key not in FOREIGN_ENV}
    env.update({"DOCGRAPH_HOME": str(home), "DOCGRAPH_GRAPH": graph, "OMP_THREAD_LIMIT": "1"})
    env.update(extra or {})
    return env


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def ui_command_line(port: int) -> list[str]:
    """``docgraph ui`` when the CLI has the command, else the same function through Typer."""
    from docgraph.app.cli.main import app as cli

    registered = {command.name for command in cli.registered_commands}
    if "ui" in registered:
        return [sys.executable, "-m", "docgraph.app.cli.main", "ui", "--host", "127.0.0.1", "--port", str(port)]
    runner = "import typer; from docgraph.app.cli.ui_cmds import ui_command; typer.run(ui_command)"
    return [sys.executable, "-c", runner, "--host", "127.0.0.1", "--port", str(port)]


@contextmanager
def running_app(
    home: Path,
    graph: str,
    log: Path,
    timeout_s: float = 90.0,
    extra_env: dict[str, str] | None = None,
    base_path: str = "",
) -> Iterator[str]:
    """Start the app on a free port of 127.0.0.1, under ``base_path`` (Streamlit's
    ``server.baseUrlPath``, e.g. ``/docgraph``) if given; yields its URL; stops it (and only it)
    afterwards."""
    port = free_port()
    if base_path:
        extra_env = {**(extra_env or {}), "STREAMLIT_SERVER_BASE_URL_PATH": base_path.strip("/")}
    with log.open("wb") as out:
        process = subprocess.Popen(
            ui_command_line(port),
            env=app_environment(home, graph, extra_env),
            cwd=Path(__file__).resolve().parent.parent,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own process group: the Streamlit child stops with it
        )
        url = f"http://127.0.0.1:{port}{base_path.rstrip('/')}"
        try:
            wait_healthy(url, process, log, timeout_s)
            yield url
        finally:
            os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()


def wait_healthy(url: str, process: subprocess.Popen[bytes], log: Path, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the app exited with {process.returncode}:\n{log.read_text(errors='replace')}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.5)
    raise RuntimeError(f"the app did not answer at {url} within {timeout_s:.0f}s:\n{log.read_text(errors='replace')}")


def keep_screenshot(path: Path) -> None:
    """Copy a screenshot to /tmp/ui-shots so people can look at it after the run."""
    SHOTS_COPY_DIR.mkdir(parents=True, exist_ok=True)
    shutil.copy(path, SHOTS_COPY_DIR / path.name)


def wait_for_json(url: str, server: subprocess.Popen[Any], timeout_s: float = 120) -> dict[str, Any]:
    """The JSON ``url`` answers once ``server`` is up; fails if the server exits first."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise AssertionError(f"the server exited with {server.returncode}: {server.communicate()[0] or ''}")
        try:
            reply: dict[str, Any] = httpx.get(url, timeout=10).json()
            return reply
        except httpx.TransportError:
            time.sleep(0.2)
    raise AssertionError(f"{url} did not answer within {timeout_s:.0f}s")


def shoot(page: Any, folder: Path, name: str) -> Path:
    """A screenshot of ``page`` in ``folder``, kept in /tmp/ui-shots too."""
    path = folder / name
    page.screenshot(path=str(path))
    keep_screenshot(path)
    return path


@contextmanager
def app_on(settings: Settings, tmp_path_factory: Any) -> Iterator[str]:
    """The app on the settings' graph, its log in a fresh temporary folder; yields its URL."""
    with running_app(settings.home, settings.graph, tmp_path_factory.mktemp("ui-app") / "app.log") as url:
        yield url


def collect_console_errors(target: Any) -> list[str]:
    """Console errors, uncaught page errors and HTTP errors (status 400 or more) of ``target`` (a
    page or a browser context), as they happen; the list is filled in place for the caller to
    assert empty at the end."""
    problems: list[str] = []

    def on_console(message: Any) -> None:
        if message.type == "error":
            problems.append(f"console: {message.text} ({message.location['url']})")

    def on_response(response: Any) -> None:
        if response.status >= 400:
            problems.append(f"HTTP {response.status}: {response.url}")

    target.on("console", on_console)
    target.on("response", on_response)
    target.on("weberror" if hasattr(target, "pages") else "pageerror", lambda error: problems.append(str(error)))
    return problems


def shown_image_bytes(image: Any) -> bytes:
    """The bytes of the ``<img>`` ``image`` shows. The page images travel inside the page as
    ``data:`` URIs (a URL that Streamlit serves would be dropped on the next run, a 404 if the
    browser still loads it); this fails if one does not."""
    source = str(image.get_attribute("src"))
    assert source.startswith("data:image/png;base64,"), source[:80]
    return base64.b64decode(source.split(",", 1)[1])

"""Store URLs: every supported form, and one clear error for each bad one."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from docgraph.app.config import Settings
from docgraph.app.stores.url import parse_store_url
from docgraph.errors import ConfigError
from tests.ui_helpers import free_port

DOCGRAPH = str(Path(sys.executable).parent / "docgraph")


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(home=tmp_path, graph="books", neo4j_user="reader", neo4j_password="s3cret", store="")


def test_default_store_is_the_local_server_under_home(settings: Settings) -> None:
    url = parse_store_url(settings.store_url, settings)
    assert (url.kind, url.path, url.graph) == ("falkordb-local", settings.home.resolve(), "books")


def test_local_paths_relative_home_and_graph_option(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(settings.home)
    assert parse_store_url("falkordb-local://data", settings).path == settings.home.resolve() / "data"
    assert parse_store_url("falkordb-local://~/dg", settings).path == (Path.home() / "dg").resolve()
    url = parse_store_url("falkordb-local:///srv/dg?graph=papers", settings)
    assert (url.path, url.graph) == (Path("/srv/dg"), "papers")


def test_external_falkordb(settings: Settings) -> None:
    url = parse_store_url("falkordb://db.example:6380", settings)
    assert (url.kind, url.host, url.port, url.graph, url.password) == ("falkordb", "db.example", 6380, "books", None)
    url = parse_store_url("falkordb://:p%40ss@localhost/papers", settings)
    assert (url.port, url.password, url.username, url.graph) == (6379, "p@ss", None, "papers")
    assert "p@ss" not in url.redacted()


@pytest.mark.parametrize("scheme", ["neo4j", "bolt", "neo4j+s", "bolt+s"])
def test_neo4j_credentials_from_settings(settings: Settings, scheme: str) -> None:
    url = parse_store_url(f"{scheme}://graph.example", settings)
    assert (url.kind, url.scheme, url.port) == ("neo4j", scheme, 7687)
    assert (url.username, url.password, url.graph) == ("reader", "s3cret", "books")
    assert url.driver_uri == f"{scheme}://graph.example:7687"


def test_neo4j_credentials_and_database_from_url(settings: Settings) -> None:
    url = parse_store_url("bolt://alice:pw@10.0.0.5:7688/library", settings)
    assert (url.username, url.password, url.host, url.port, url.graph) == ("alice", "pw", "10.0.0.5", 7688, "library")
    assert url.redacted() == "bolt://alice@10.0.0.5:7688/library"


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("localhost:6379", "has no scheme"),
        ("redis://localhost", "unknown store URL scheme 'redis'"),
        ("falkordb-local://", "names no data directory"),
        ("falkordb-local:///x?grph=a", "unknown option"),
        ("falkordb-local:///x?graph=", "empty graph"),
        ("falkordb://", "names no host"),
        ("falkordb://host:99999", "invalid port"),
        ("falkordb://host:abc", "invalid port"),
        ("neo4j://host/a/b", "single graph/database name"),
        ("falkordb://[::1", "is malformed"),  # urlsplit's ValueError went through as a traceback
        ("neo4j://[::1/x", "is malformed"),
        ("neo4j://host:0/neo4j", "invalid port 0"),  # it became 7687
        ("neo4j://host/neo4j?routing=x", "takes no options"),  # dropped without a word
    ],
)
def test_bad_urls_say_what_is_wrong(settings: Settings, url: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message) as caught:
        parse_store_url(url, settings)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize(
    "url",
    [
        "neo4j://neo4j:ab/cd@db:7687",  # a "/" in the password: urlsplit reads "ab" as the port
        "falkordb://:s3cr3t@host:abc",
        "bolt://neo4j:s3cr3t@db/a/b",
        "neo4j://neo4j:ab/cd@db:7687?x=1&y",
        "neo4j://alice:Sup3rSecret?x@db:7687/neo4j",  # its error quoted 'Sup3rSecret' as the port
        "neo4j://alice:Sup3rSecret/x@db:7687/neo4j",
        "neo4j://alice:12345#x@db:7687/neo4j",  # read as host alice, port 12345: the password shown
    ],
)
def test_errors_about_a_store_url_never_show_its_password(settings: Settings, url: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_store_url(url, settings)
    password = url.split("://")[1].rsplit("@", 1)[0].split(":", 1)[1]
    before_the_break = re.split(r"[/?#]", password)[0]  # what urlsplit took for a port or a path
    assert before_the_break not in str(caught.value) and ":***@" in str(caught.value)
    assert "percent-encoded" in str(caught.value) or "single graph" in str(caught.value)


def test_serve_names_the_store_without_its_password(tmp_path: Path) -> None:
    """The line the server prints at start (and docker logs keep) masks the password; the server
    is stopped once it has printed it."""
    env = {**os.environ, "DOCGRAPH_HOME": str(tmp_path), "DOCGRAPH_STORE": "neo4j://neo4j:s3cr3t@db:7687"}
    port = str(free_port())
    server = subprocess.Popen(
        [DOCGRAPH, "serve", "--port", port], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert server.stdout is not None
        started = server.stdout.readline()
    finally:
        server.terminate()
        out, err = server.communicate(timeout=60)
    assert "neo4j://neo4j:***@db:7687" in started and "s3cr3t" not in started + out + err
    # a URL it cannot read (a "/" in the password reads as a port) is refused at start, masked
    env["DOCGRAPH_STORE"] = "neo4j://neo4j:ab/cd@db:7687"
    bad = subprocess.run(
        [DOCGRAPH, "serve", "--port", port], env=env, capture_output=True, text=True, timeout=120, check=False
    )
    assert bad.returncode == 1 and "neo4j://neo4j:***@db:7687" in bad.stderr and "ab/cd" not in bad.stderr

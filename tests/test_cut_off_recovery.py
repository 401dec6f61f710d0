"""What a cut-off command leaves is mended: a delete cut off after the nodes went (its index rebuild
failed, the server went away, Ctrl-C) still removes the kept copy, a copy no document uses (an
ingest killed between its copy and its write) is found and removed, and a server started again
after a crash does not count its full-text entries twice. Real local stores, the sample PDF."""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from docgraph.app.cli.main import app
from docgraph.app.config import Settings
from docgraph.app.jobs.documents import delete_document
from docgraph.app.pipeline.build import build_ingest_pipeline
from docgraph.app.resources import SAMPLES_DIR
from docgraph.app.stores import falkordb_server
from docgraph.app.stores.factory import open_store
from docgraph.app.stores.falkordb_process import is_server_alive
from docgraph.app.stores.falkordb_store import FalkorDBStore
from docgraph.app.stores.kept_copies import kept_copies_dir
from docgraph.errors import DocumentNotFoundError, StoreUnavailableError
from docgraph.ingest.structure.ids import file_sha256

SAMPLE = SAMPLES_DIR / "docgraph-sample.pdf"


def test_a_delete_cut_off_after_its_nodes_went_still_removes_the_kept_copy(
    falkordb_store: FalkorDBStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The copy was removed only once the store's delete returned: cut off in the full-text rebuild
    that follows the committed delete, it said "failed", left the copy, and a second delete found
    no document to remove it with."""
    settings = Settings(home=tmp_path / "home", graph=falkordb_store.graph_name, store="")
    report = build_ingest_pipeline(falkordb_store, settings, embed=False).ingest(SAMPLE)
    files_dir = kept_copies_dir(settings.home, falkordb_store)
    assert [path.name for path in files_dir.glob("*.pdf")] == [f"{file_sha256(SAMPLE)}.pdf"]

    def server_gone(labels: object) -> None:
        raise StoreUnavailableError("FalkorDB connection lost (the server was killed)")

    monkeypatch.setattr(falkordb_store, "refresh_fulltext", server_gone)
    with pytest.raises(StoreUnavailableError):
        delete_document(falkordb_store, report.doc_id, files_dir)
    monkeypatch.undo()

    assert falkordb_store.read("MATCH (d:Document) RETURN count(d) AS n") == [{"n": 0}]
    assert list(files_dir.glob("*.pdf")) == []
    with pytest.raises(DocumentNotFoundError):
        delete_document(falkordb_store, report.doc_id, files_dir)


def test_store_check_finds_kept_copies_no_document_uses_and_repair_removes_them(
    falkordb_store: FalkorDBStore, local_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An ingest killed between making its copy and writing its document left a copy of a file no
    document was read from, and nothing ever removed it."""
    settings = Settings(home=local_home, graph=falkordb_store.graph_name, store="")
    assert build_ingest_pipeline(falkordb_store, settings, embed=False).ingest(SAMPLE).status == "ingested"
    files_dir = kept_copies_dir(local_home, falkordb_store)
    orphan, half_made = files_dir / f"{'ab' * 32}.pdf", files_dir / f"{'cd' * 32}.pdf.0f0f.part"
    for path in (orphan, half_made):
        path.write_bytes(SAMPLE.read_bytes())
    monkeypatch.setenv("DOCGRAPH_HOME", str(local_home))
    monkeypatch.setenv("DOCGRAPH_STORE", "")
    monkeypatch.setenv("DOCGRAPH_GRAPH", falkordb_store.graph_name)

    found = CliRunner().invoke(app, ["store", "check", "--json"])
    assert found.exit_code == 1
    assert json.loads(found.stdout)["unused_copies"] == sorted([orphan.name, half_made.name])
    assert "2 kept PDF copies no document uses" in found.stderr

    repaired = CliRunner().invoke(app, ["store", "check", "--repair", "--json"])
    assert repaired.exit_code == 0 and json.loads(repaired.stdout)["ok"] is True
    assert [path.name for path in files_dir.iterdir()] == [f"{file_sha256(SAMPLE)}.pdf"]  # the stored one stays


def _kill_server(home: Path) -> None:
    pid = int(falkordb_server.server_paths(home).pid_file.read_text())
    os.kill(pid, signal.SIGKILL)
    for _ in range(100):  # bounded: the killed server's pid goes within moments
        if not is_server_alive(pid):
            return
        time.sleep(0.05)


def test_a_server_started_again_counts_its_full_text_entries_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A start after a crash replays the writes the append-only file holds, and FalkorDB 4.16 then
    counts each full-text entry twice (Region: 52 entries for 26 nodes): scores fell, and only
    `store check` said so. A clean stop compacted the file only past 1 MB, so a young store's
    restart replayed its writes too."""
    home = tmp_path / "home"
    settings = Settings(home=home, graph="docgraph", store="")
    for name, value in (("DOCGRAPH_HOME", str(home)), ("DOCGRAPH_STORE", ""), ("DOCGRAPH_GRAPH", "docgraph")):
        monkeypatch.setenv(name, value)
    try:
        for stop in (_kill_server, falkordb_server.stop):
            copy = tmp_path / f"guide-{stop.__name__}.pdf"  # written since the last start: replayed
            copy.write_bytes(SAMPLE.read_bytes())
            assert CliRunner().invoke(app, ["ingest", str(copy), "--no-embed"]).exit_code == 0
            stop(home)
            if stop is falkordb_server.stop:  # a stop leaves no writes to replay, however few
                aof = falkordb_server.server_paths(home).data_dir / "appendonlydir"
                assert [path.stat().st_size for path in aof.glob("*.incr.aof")] == [0]
            store = open_store(settings)
            assert isinstance(store, FalkorDBStore)
            assert store.stale_fulltext_indexes() == {}, stop.__name__
            store.close()
    finally:
        falkordb_server.stop(home)

"""The UI's background ingests (app.ui_support.ingest_runs) on a real store with the sample PDF:
a batch goes on by itself, one per owner at a time, its uploads go when it ends, and its reports
are given to its owner, once."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from pathlib import Path

import pymupdf
import pytest

from docgraph.app.config import Settings
from docgraph.app.jobs.documents import list_documents
from docgraph.app.pipeline.execution.factory import SharedWorkers
from docgraph.app.pipeline.reports import IngestReport
from docgraph.app.resources import SAMPLES_DIR
from docgraph.app.stores.falkordb_store import FalkorDBStore
from docgraph.app.ui_support.ingest import OverallProgress, ingest_files, save_upload
from docgraph.app.ui_support.ingest_runs import IngestRun, IngestRuns, run_messages
from docgraph.errors import ConfigError, StoreError

SAMPLE = SAMPLES_DIR / "docgraph-sample.pdf"


def ended(runs: IngestRuns, owner: str) -> list[IngestRun]:
    for _ in range(600):  # at most a minute
        done = runs.collect(owner)
        if done:
            return done
        time.sleep(0.1)
    raise AssertionError("the batch did not end")


def test_a_batch_runs_on_its_own_and_reports_to_its_session(falkordb_store: FalkorDBStore, tmp_path: Path) -> None:
    settings = Settings(home=tmp_path / "home", graph=falkordb_store.graph_name, store="")
    upload = save_upload("zoo guide.pdf", SAMPLE.read_bytes(), tmp_path / "uploads")
    gate = threading.Event()
    seen: list[str] = []

    def work(progress: OverallProgress) -> list[IngestReport]:
        gate.wait(60)

        def heard(fraction: float, text: str) -> None:
            seen.append(text)
            progress(fraction, text)

        return ingest_files(falkordb_store, settings, [upload], progress=heard)

    runs = IngestRuns()
    run = runs.start("alice", [upload], work, uploads=[upload.parent])
    assert runs.running("alice") is run and runs.others_running("bob") == [run] and runs.others_running("alice") == []
    second = save_upload("other.pdf", SAMPLE.read_bytes(), tmp_path / "uploads")
    with pytest.raises(ConfigError, match="still running"):
        runs.start("alice", [second], work, uploads=[second.parent])
    assert not second.parent.exists()  # a refused batch leaves no upload behind
    gate.set()

    (done,) = ended(runs, "alice")
    assert done is run and runs.collect("alice") == [] and runs.running("alice") is None
    assert [report.status for report in run.reports] == ["ingested"] and any("read" in text for text in seen)
    level, line = run_messages(run)[0]
    assert level == "success" and line.startswith("zoo guide.pdf → zoo-guide: ingested")
    assert not upload.parent.exists()  # the store keeps its own copy
    rows = falkordb_store.read("MATCH (d:Document) RETURN d.doc_id AS doc_id")
    assert [row["doc_id"] for row in rows] == ["zoo-guide"]


def test_a_batch_that_fails_as_a_whole_says_why(tmp_path: Path) -> None:
    def store_gone(progress: OverallProgress) -> list[IngestReport]:
        raise StoreError("FalkorDB connection lost")

    runs = IngestRuns()
    runs.start("alice", [tmp_path / "a.pdf"], store_gone)
    (run,) = ended(runs, "alice")
    assert run_messages(run) == [("error", "Ingesting a.pdf failed: FalkorDB connection lost")]


def test_the_web_app_s_ingests_share_the_configured_workers(falkordb_store: FalkorDBStore, tmp_path: Path) -> None:
    """The web app read and embedded every upload in its own process, one file after another,
    whatever DOCGRAPH_INGEST_WORKERS said; its ingests now go through the workers the API uses."""
    settings = Settings(home=tmp_path / "home", graph=falkordb_store.graph_name, store="", ingest_workers=2)
    uploads = [
        save_upload(name, SAMPLE.read_bytes(), tmp_path / "uploads") for name in ("zoo guide.pdf", "zoo copy.pdf")
    ]
    workers = SharedWorkers(settings)
    try:
        assert workers.for_files(uploads[:1]) is None  # a lone short file: read here, no process started
        tasks = workers.for_files(uploads)
        assert tasks is not None and tasks.workers == 2 and workers.for_files(uploads) is tasks
        seen: list[float] = []
        reports = ingest_files(
            falkordb_store, settings, uploads, lambda fraction, _: seen.append(fraction), uploaded=uploads, tasks=tasks
        )
        assert [(r.doc_id, r.status) for r in reports] == [("zoo-guide", "ingested"), ("zoo-copy", "ingested")]
        assert sum(stats.tasks for stats in tasks.stats()) >= 4  # both files read and built on the workers
        assert seen == sorted(seen) and seen[-1] == 1.0  # one bar over files under way at once
    finally:
        workers.close()
    with pytest.raises(ConfigError, match="stopping"):
        workers.for_files(uploads)
    rows = falkordb_store.read("MATCH (d:Document) RETURN d.doc_id AS doc_id, d.source_path AS source ORDER BY doc_id")
    assert [row["doc_id"] for row in rows] == ["zoo-copy", "zoo-guide"]
    assert not any(str(tmp_path) in str(row["source"]) for row in rows)  # uploads: no temporary path recorded


def test_two_users_uploading_one_new_name_cannot_both_store_it(falkordb_store: FalkorDBStore, tmp_path: Path) -> None:
    """Each batch checked its names when it started, so two users' different files named twin.pdf
    both passed and the later one replaced the earlier one's document ("replaced"), unasked."""
    settings = Settings(home=tmp_path / "home", graph=falkordb_store.graph_name, store="")
    other = pymupdf.open()
    other.new_page().insert_text((72, 72), "A different document that happens to share a file name.")
    uploads = {
        "alice": save_upload("twin.pdf", SAMPLE.read_bytes(), tmp_path / "uploads"),
        "bob": save_upload("twin.pdf", other.tobytes(), tmp_path / "uploads"),
    }
    gate = threading.Event()

    def batch(path: Path) -> Callable[[OverallProgress], list[IngestReport]]:
        def work(progress: OverallProgress) -> list[IngestReport]:
            gate.wait(60)  # both started before either writes
            return ingest_files(falkordb_store, settings, [path], progress, uploaded=[path])

        return work

    runs = IngestRuns()
    started = {owner: runs.start(owner, [path], batch(path), uploads=[path.parent]) for owner, path in uploads.items()}
    assert runs.writing("twin") in started.values() and runs.writing("docgraph-sample") is None
    gate.set()
    reports = {owner: ended(runs, owner)[0].reports[0] for owner in uploads}
    statuses = sorted(report.status for report in reports.values())
    assert statuses == ["failed", "ingested"], reports
    (refused,) = [report for report in reports.values() if report.status == "failed"]
    assert "a different document is stored as 'twin'" in refused.error
    (stored,) = list_documents(falkordb_store)
    winner = next(owner for owner, report in reports.items() if report.status == "ingested")
    assert stored["doc_id"] == "twin" and stored["pages"] == reports[winner].pages
    assert runs.writing("twin") is None  # ended: a delete may go ahead

"""Ingests and deletes of one document in two processes: a delete while the document is ingested is
refused (the ingest's write would bring it back after the delete had reported it gone), and of two
different files ingested under one new name, the later write is refused."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

from docgraph.app.config import Settings
from docgraph.app.jobs.ingest_batch import ingest_batch
from docgraph.app.pipeline.build import build_ingest_pipeline
from docgraph.app.pipeline.reports import IngestReport
from docgraph.app.pipeline.stages import ProgressFn
from docgraph.app.resources import SAMPLES_DIR
from docgraph.app.stores.falkordb_store import FalkorDBStore
from docgraph.app.stores.ingest_claims import claims_dir
from docgraph.app.stores.kept_copies import kept_copies_dir
from docgraph.app.ui_support.ingest import ingest_files

SAMPLE = SAMPLES_DIR / "docgraph-sample.pdf"
OTHER_PDF = Path(__file__).parent / "data" / "pdfs" / "ctree-p7.pdf"
DOCGRAPH = Path(sys.executable).with_name("docgraph")
WAIT_S = 120


def stored_documents(store: FalkorDBStore) -> list[str]:
    return [str(row["doc_id"]) for row in store.read("MATCH (d:Document) RETURN d.doc_id AS doc_id")]


def delete_in_another_process(home: Path, graph: str, doc: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DOCGRAPH_HOME": str(home), "DOCGRAPH_GRAPH": graph, "DOCGRAPH_STORE": ""}
    return subprocess.run(
        [str(DOCGRAPH), "delete", doc, "--json"], env=env, capture_output=True, text=True, timeout=WAIT_S
    )


def test_a_delete_is_refused_while_another_process_ingests_the_document(
    falkordb_store: FalkorDBStore, local_home: Path, tmp_path: Path
) -> None:
    settings = Settings(home=local_home, graph=falkordb_store.graph_name, store="")
    pdf = tmp_path / "claimed.pdf"
    shutil.copyfile(SAMPLE, pdf)
    assert build_ingest_pipeline(falkordb_store, settings, embed=False).ingest(pdf).status == "ingested"

    rewriting = build_ingest_pipeline(falkordb_store, settings, embed=False, force=True)
    writing, release = threading.Event(), threading.Event()

    def hold_before_the_write(stage: str, done: int, total: int) -> None:
        if stage == "graph_write":
            writing.set()
            release.wait(WAIT_S)

    reports: list[IngestReport] = []
    ingest = threading.Thread(target=lambda: reports.append(rewriting.ingest(pdf, hold_before_the_write)))
    ingest.start()
    try:
        assert writing.wait(WAIT_S)
        refused = delete_in_another_process(local_home, falkordb_store.graph_name, "claimed")
        assert refused.returncode == 1, refused.stderr
        assert json.loads(refused.stdout)["error"] == (
            "'claimed' is being ingested (by a docgraph process on this data home): "
            "delete it once that ingest has ended"
        )
        assert stored_documents(falkordb_store) == ["claimed"]
    finally:
        release.set()
        ingest.join(WAIT_S)
    assert [report.status for report in reports] == ["replaced"]

    deleted = delete_in_another_process(local_home, falkordb_store.graph_name, "claimed")
    assert deleted.returncode == 0, deleted.stderr
    assert json.loads(deleted.stdout)["doc_id"] == "claimed" and stored_documents(falkordb_store) == []


def ingest_in_another_process(home: Path, graph: str, pdf: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DOCGRAPH_HOME": str(home), "DOCGRAPH_GRAPH": graph, "DOCGRAPH_STORE": ""}
    command = [str(DOCGRAPH), "ingest", str(pdf), "--no-embed", "--workers", "1", "--json"]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=WAIT_S)


def test_a_file_of_one_new_name_stored_by_another_process_meanwhile_is_not_replaced(
    falkordb_store: FalkorDBStore, local_home: Path, tmp_path: Path
) -> None:
    """Both ingests found the name free when they began: the later write replaced the other file's
    document, which no check of the name would let either of them do."""
    settings = Settings(home=local_home, graph=falkordb_store.graph_name, store="")
    mine, theirs = tmp_path / "mine" / "report.pdf", tmp_path / "theirs" / "report.pdf"
    for source, target in ((SAMPLE, mine), (OTHER_PDF, theirs)):
        target.parent.mkdir()
        shutil.copyfile(source, target)
    writing, release = threading.Event(), threading.Event()

    def hold_before_the_write(stage: str, done: int, total: int) -> None:
        if stage == "graph_write":
            writing.set()
            release.wait(WAIT_S)

    pipeline = build_ingest_pipeline(falkordb_store, settings, embed=False)
    reports: list[IngestReport] = []
    ingest = threading.Thread(target=lambda: reports.append(pipeline.ingest(mine, hold_before_the_write)))
    ingest.start()
    try:
        assert writing.wait(WAIT_S)
        stored = ingest_in_another_process(local_home, falkordb_store.graph_name, theirs)
        assert stored.returncode == 0, stored.stderr
        assert [report["status"] for report in json.loads(stored.stdout)] == ["ingested"]
    finally:
        release.set()
        ingest.join(WAIT_S)
    [report] = reports
    assert report.status == "failed"
    assert report.error == (
        f"report.pdf: another file is stored as 'report' ({theirs.resolve()}), stored since this one's name "
        "was checked; nothing was written: replace that document (--replace, replace=true) or rename this file"
    )
    [row] = falkordb_store.read("MATCH (d:Document) RETURN d.source_path AS source")
    assert row["source"] == str(theirs.resolve())

    replaced = build_ingest_pipeline(falkordb_store, settings, embed=False).ingest(mine, replace=True)
    assert replaced.status == "replaced"


def test_a_file_of_a_batch_whose_name_another_process_took_before_its_turn_is_not_written(
    falkordb_store: FalkorDBStore, local_home: Path, tmp_path: Path
) -> None:
    """The batch checked every name at its start; a file stored by another process under a later
    file's name before that file's turn was replaced by it without a word."""
    settings = Settings(home=local_home, graph=falkordb_store.graph_name, store="")
    first, mine, theirs = tmp_path / "first.pdf", tmp_path / "mine" / "report.pdf", tmp_path / "theirs" / "report.pdf"
    for source, target in ((SAMPLE, first), (SAMPLE, mine), (OTHER_PDF, theirs)):
        target.parent.mkdir(exist_ok=True)
        shutil.copyfile(source, target)
    stored_by_them: list[subprocess.CompletedProcess[str]] = []

    def progress(path: Path) -> ProgressFn:
        def heard(stage: str, done: int, total: int) -> None:
            if path == first and stage == "graph_write" and not stored_by_them:
                stored_by_them.append(ingest_in_another_process(local_home, falkordb_store.graph_name, theirs))

        return heard

    pipeline = build_ingest_pipeline(falkordb_store, settings, embed=False)
    reports = ingest_batch(pipeline, falkordb_store, [first, mine], progress=progress)
    assert stored_by_them[0].returncode == 0, stored_by_them[0].stderr
    assert [report.status for report in reports] == ["ingested", "failed"]
    assert "another file is stored as 'report'" in reports[1].error
    [row] = falkordb_store.read("MATCH (d:Document {doc_id: 'report'}) RETURN d.source_path AS source")
    assert row["source"] == str(theirs.resolve())


def test_an_upload_whose_name_another_process_took_before_its_turn_is_not_written(
    falkordb_store: FalkorDBStore, local_home: Path, tmp_path: Path
) -> None:
    """The web app's batch of uploads: the name was checked for all files first; a different file
    stored under a later upload's name before its turn was replaced by it."""
    settings = Settings(home=local_home, graph=falkordb_store.graph_name, store="")
    first, mine, theirs = (
        tmp_path / "up" / "first.pdf",
        tmp_path / "up" / "report.pdf",
        tmp_path / "theirs" / "report.pdf",
    )
    for source, target in ((SAMPLE, first), (SAMPLE, mine), (OTHER_PDF, theirs)):
        target.parent.mkdir(exist_ok=True)
        shutil.copyfile(source, target)
    stored_by_them: list[subprocess.CompletedProcess[str]] = []

    def progress(fraction: float, label: str) -> None:
        if label.startswith("first.pdf: graph_write") and not stored_by_them:
            stored_by_them.append(ingest_in_another_process(local_home, falkordb_store.graph_name, theirs))

    reports = ingest_files(falkordb_store, settings, [first, mine], progress=progress, uploaded=[first, mine])
    assert stored_by_them and stored_by_them[0].returncode == 0, stored_by_them
    assert [report.status for report in reports] == ["ingested", "failed"]
    [row] = falkordb_store.read("MATCH (d:Document {doc_id: 'report'}) RETURN d.source_path AS source")
    assert row["source"] == str(theirs.resolve())


def test_a_claim_that_cannot_be_taken_fails_that_file_not_the_batch(
    falkordb_store: FalkorDBStore, tmp_path: Path
) -> None:
    """An OSError of the claim's folder escaped the pipeline: the batch ended, its reports lost."""
    settings = Settings(home=tmp_path / "home", graph=falkordb_store.graph_name, store="")
    blocked = claims_dir(kept_copies_dir(settings.home, falkordb_store))
    blocked.parent.mkdir(parents=True)
    blocked.write_text("a file where the claims folder goes")
    pdf = tmp_path / "blocked.pdf"
    shutil.copyfile(SAMPLE, pdf)
    [report] = build_ingest_pipeline(falkordb_store, settings, embed=False).ingest_many([pdf])
    assert report.status == "failed" and report.error.startswith(f"cannot lock {blocked}/")
    assert stored_documents(falkordb_store) == []

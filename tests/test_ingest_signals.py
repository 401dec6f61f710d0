"""`docgraph ingest` stopped by SIGTERM (a service manager, `timeout`): as with Ctrl-C, the reports
of the documents that ended are printed and the others named, and --json lists every file."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import weakref
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from docgraph.app.cli.main import app
from docgraph.app.pipeline.ingest_pipeline import IngestPipeline
from docgraph.app.pipeline.reports import IngestReport
from docgraph.app.resources import SAMPLES_DIR
from docgraph.app.stores.falkordb_store import FalkorDBStore
from tests.long_pdfs import long_report

DOCGRAPH = Path(sys.executable).with_name("docgraph")
PDFS = Path(__file__).parent / "data" / "pdfs"
WAIT_S = 300


@pytest.fixture
def cli_env_for(local_home: Path, falkordb_store: FalkorDBStore, monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in {"DOCGRAPH_HOME": str(local_home), "DOCGRAPH_GRAPH": falkordb_store.graph_name}.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("DOCGRAPH_STORE", "")


def four_pdfs(folder: Path, names: list[str]) -> list[Path]:
    """The sample (3 pages, read first) and three larger PDFs, under ``names``."""
    files = [folder / f"{name}.pdf" for name in names]
    sources = [
        SAMPLES_DIR / "docgraph-sample.pdf",
        *(PDFS / n for n in ("acm-draft-p2.pdf", "apssamp.pdf", "gnutls-p119.pdf")),
    ]
    for source, target in zip(sources, files, strict=True):
        shutil.copyfile(source, target)
    return files


def started_ingest(files: list[Path], workers: str, home: Path, store: FalkorDBStore) -> subprocess.Popen[str]:
    """`docgraph ingest FILES --workers N --json` in a process group of its own (as a service runs)."""
    env = {**os.environ, "DOCGRAPH_HOME": str(home), "DOCGRAPH_GRAPH": store.graph_name, "DOCGRAPH_STORE": ""}
    command = [str(DOCGRAPH), "ingest", *map(str, files), "--workers", workers, "--json"]
    return subprocess.Popen(
        command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )


def stored(store: FalkorDBStore) -> list[str]:
    return [str(row["doc_id"]) for row in store.read("MATCH (d:Document) RETURN d.doc_id AS doc_id")]


def test_sigterm_reports_what_ended_and_lists_every_other_file_in_json(
    falkordb_store: FalkorDBStore, local_home: Path, tmp_path: Path
) -> None:
    """SIGTERM ended the command with nothing on stdout or stderr (exit 143): no JSON for a script."""
    files = four_pdfs(tmp_path, ["a-first", "b-second", "c-third", "d-fourth"])
    long_report(files[1], 150)  # read for seconds: the signal finds it under way (CI once had all four done)
    ingest = started_ingest(files, "1", local_home, falkordb_store)
    try:
        deadline = time.monotonic() + WAIT_S
        while "a-first" not in stored(falkordb_store) and ingest.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert ingest.poll() is None, "the ingest ended before the signal was sent"
        ingest.send_signal(signal.SIGTERM)  # the second file is being read, the last is not started
        out, err = ingest.communicate(timeout=WAIT_S)
    finally:
        ingest.kill()
    assert ingest.returncode == 128 + signal.SIGTERM, err
    reports = json.loads(out)
    # a-first is stored: reported as ingested, or (a signal just after its write) not ended
    assert Path(reports[0]["file"]).name == "a-first.pdf" and reports[0]["status"] in ("ingested", "not_ingested")
    assert sorted(Path(report["file"]).name for report in reports) == sorted(path.name for path in files)
    last = next(report for report in reports if report["file"] == str(files[-1]))
    assert last["status"] == "not_ingested" and last["doc_id"] == "d-fourth"
    assert last["error"] == "interrupted: run the command again for it (a file stored already is found unchanged)"
    assert "terminated: not ingested: " in err and "d-fourth.pdf" in err.splitlines()[-1]
    assert "d-fourth" not in stored(falkordb_store)


def test_sigterm_to_the_whole_group_lets_the_workers_finish_the_documents_under_way(
    falkordb_store: FalkorDBStore, local_home: Path, tmp_path: Path
) -> None:
    """A service manager signals every process of the group: the worker processes died with it, and
    the document the parent was finishing failed ("an ingest worker process died")."""
    files = four_pdfs(tmp_path, ["a-small", "b-large", "c-large", "d-large"])
    ingest = started_ingest(files, "2", local_home, falkordb_store)
    try:
        deadline = time.monotonic() + WAIT_S
        while not stored(falkordb_store) and ingest.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        os.killpg(ingest.pid, signal.SIGTERM)
        out, err = ingest.communicate(timeout=WAIT_S)
    finally:
        ingest.kill()
    assert ingest.returncode == 128 + signal.SIGTERM, err
    reports = json.loads(out)
    assert len(reports) == len(files) and not [r for r in reports if r["status"] == "failed"], reports
    landed = {r["doc_id"] for r in reports if r["status"] == "ingested"}
    assert landed and landed <= set(stored(falkordb_store))


def test_sigterm_before_the_documents_are_read_ends_in_one_json_line(
    cli_env_for: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Outside the documents' loop (opening the store, loading the models) it said "interrupted", 130."""
    import docgraph.app.pipeline.build as build

    def terminated_while_loading(*args: object, **kwargs: object) -> None:
        os.kill(os.getpid(), signal.SIGTERM)  # as a service manager would, while the models load
        time.sleep(5)  # the handler interrupts this

    monkeypatch.setattr(build, "build_ingest_pipeline", terminated_while_loading)
    pdf = tmp_path / "any.pdf"
    shutil.copyfile(SAMPLES_DIR / "docgraph-sample.pdf", pdf)
    result = CliRunner().invoke(app, ["ingest", str(pdf), "--no-embed", "--json"])
    assert result.exit_code == 128 + signal.SIGTERM
    assert json.loads(result.stdout) == {"error": "terminated", "exit_code": 143}
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL  # the handler is taken back


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")  # the swallowed one, as meant
def test_a_sigterm_swallowed_where_it_landed_still_stops_the_ingest(
    cli_env_for: None, falkordb_store: FalkorDBStore, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A signal that lands in a weakref callback raises its KeyboardInterrupt there, where Python
    prints it and goes on ("Exception ignored in ..."): CI saw the ingest run on to its end, exit 0.
    Here the signal lands in a finaliser as the second file starts."""
    files = four_pdfs(tmp_path, ["a-first", "b-second", "c-third", "d-fourth"])
    ingest = IngestPipeline.ingest

    def signalled_in_a_finaliser(self: IngestPipeline, path: Path, *args: Any, **kwargs: Any) -> IngestReport:
        if path.name == "b-second.pdf":
            weakref.finalize(Finalised(), os.kill, os.getpid(), signal.SIGTERM)  # called when it goes, at once
        return ingest(self, path, *args, **kwargs)

    monkeypatch.setattr(IngestPipeline, "ingest", signalled_in_a_finaliser)
    result = CliRunner().invoke(app, ["ingest", *map(str, files), "--no-embed", "--workers", "1", "--json"])
    assert result.exit_code == 128 + signal.SIGTERM, result.stderr
    reports = json.loads(result.stdout)
    assert [report["status"] for report in reports] == ["ingested", "not_ingested", "not_ingested", "not_ingested"]
    assert stored(falkordb_store) == ["a-first"]


class Finalised:
    """An object whose finaliser runs as soon as it is dropped."""

"""Ingest jobs outlive the API server: a job cut short by a kill runs again after a restart."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from functools import partial
from pathlib import Path
from typing import Any

import httpx
import pytest

from docgraph.app.api.job_store import JobStore
from docgraph.app.api.jobs import Job, JobManager
from docgraph.app.api.state import ApiState, jobs_key
from docgraph.app.config import Settings
from docgraph.app.jobs.documents import clashing_document, find_document
from docgraph.app.pipeline.build import build_ingest_pipeline
from docgraph.app.pipeline.ingest_pipeline import IngestPipeline
from docgraph.app.stores.falkordb_store import FalkorDBStore
from docgraph.errors import ConfigError
from docgraph.ingest.structure.ids import file_sha256
from tests.conftest import fresh_graph_name
from tests.ui_helpers import wait_for_json

PDFS = Path(__file__).parent / "data" / "pdfs"
PDF = PDFS / "water-report.pdf"
SERVE = "import typer; from docgraph.app.cli.serve_cmds import serve_command; typer.run(serve_command)"


def start_server(env: dict[str, str], port: int) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", SERVE, "--port", str(port)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def finished_job(base: str, job_id: str, timeout_s: float = 300) -> dict[str, Any]:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        job: dict[str, Any] = httpx.get(f"{base}/jobs/{job_id}", timeout=10).json()
        if job.get("status") in ("succeeded", "failed"):
            return job
        time.sleep(0.5)
    raise AssertionError(f"job {job_id} did not finish within {timeout_s:.0f}s")


def test_a_job_cut_short_by_a_killed_server_runs_again_after_a_restart(local_home: Path) -> None:
    env = {**os.environ, "DOCGRAPH_HOME": str(local_home), "DOCGRAPH_GRAPH": fresh_graph_name(), "DOCGRAPH_STORE": ""}
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    first = start_server(env, port)
    try:
        wait_for_json(f"{base}/health", first)
        with PDF.open("rb") as handle:
            upload = {"file": (PDF.name, handle, "application/pdf")}
            accepted = httpx.post(f"{base}/documents", files=upload, timeout=60)
        assert accepted.status_code == 202
        job_id = accepted.json()["job_id"]
    finally:
        first.send_signal(signal.SIGKILL)  # mid-job: no shutdown, no cleanup
        first.communicate(timeout=30)

    second = start_server(env, port)
    try:
        wait_for_json(f"{base}/health", second)
        job = finished_job(base, job_id)
        documents = httpx.get(f"{base}/documents", timeout=30).json()
    finally:
        second.terminate()
        log = second.communicate(timeout=60)[0]
    assert job["status"] == "succeeded", job["error"]
    assert f"INFO:     docgraph.api: ingest job {job_id} ({PDF.name}) runs again after a restart" in log, log
    assert job["file_name"] == PDF.name and job["report"]["pages"] == 9
    assert [d["file_name"] for d in documents] == [PDF.name]


def test_a_job_whose_upload_is_gone_fails_with_a_reason_after_a_restart(tmp_path: Path) -> None:
    store = JobStore(tmp_path / "jobs.sqlite", kept=10)
    upload = tmp_path / "uploads" / "gone" / "manual.pdf"
    record = {"job_id": "j1", "file_name": "manual.pdf", "status": "running", "stage": "embed"}
    store.save("j1", "2026-11-27T00:00:00+00:00", {**record, "path": str(upload), "embed": True, "force": False})
    store.save("j0", "2026-11-26T00:00:00+00:00", {**record, "job_id": "j0", "status": "succeeded", "path": "x"})

    def no_pipeline(embed: bool, force: bool, path: Path) -> IngestPipeline:
        raise AssertionError("a job without its upload must not run")

    manager = JobManager(no_pipeline, store)
    try:
        gone, done = manager.get("j1"), manager.get("j0")
    finally:
        manager.shutdown()
    assert gone.status == "failed" and "upload is gone" in gone.error
    assert done.status == "succeeded"
    assert [r["status"] for r in JobStore(tmp_path / "jobs.sqlite", kept=10).load()] == ["succeeded", "failed"]


def test_a_second_server_on_the_same_jobs_is_refused_until_the_first_lets_go(tmp_path: Path) -> None:
    """Another process claiming the jobs would run the first server's unfinished ones again beside it."""
    path = tmp_path / "jobs" / "store.sqlite"
    claim = (
        "import sys; from pathlib import Path; from docgraph.app.api.job_store import JobStore; "
        "from docgraph.errors import DocgraphError\n"
        "try:\n    JobStore(Path(sys.argv[1]), kept=10).claim()\n"
        "except DocgraphError as error:\n    sys.exit(str(error))"
    )
    first = JobStore(path, kept=10)
    first.claim()
    refused = subprocess.run([sys.executable, "-c", claim, str(path)], capture_output=True, text=True, timeout=60)
    with pytest.raises(ConfigError, match="another docgraph server runs the ingest jobs"):
        JobStore(path, kept=10).claim()  # a second app in this process (the lock was the process's)
    first.release()
    allowed = subprocess.run([sys.executable, "-c", claim, str(path)], capture_output=True, text=True, timeout=60)
    assert refused.returncode == 1 and "another docgraph server runs the ingest jobs" in refused.stderr
    assert allowed.returncode == 0, allowed.stderr


def test_jobs_of_one_second_run_again_in_the_order_they_came(tmp_path: Path) -> None:
    """Saving a job again (its stage changed) gave it a new rowid, the tie-break of jobs queued in the
    same second: after a kill, an older upload of a name ran after a newer one and replaced it."""
    store = JobStore(tmp_path / "jobs.sqlite", kept=10)
    second = "2026-11-28T21:14:47+00:00"
    first = {"job_id": "a", "file_name": "same.pdf", "status": "queued", "path": "/uploads/a/same.pdf"}
    store.save("a", second, first)
    store.save("b", second, {**first, "job_id": "b", "path": "/uploads/b/same.pdf"})
    store.save("a", second, {**first, "status": "running", "stage": "read"})  # a started; then the kill
    assert [record["job_id"] for record in store.load()] == ["a", "b"]


def resumed_not_run(tmp_path: Path, file_name: str, **record: Any) -> tuple[Job, JobManager, JobStore]:
    """A job saved as running when its server stopped, read back by a new server that must not run it."""
    store = JobStore(tmp_path / "jobs.sqlite", kept=10)
    upload = tmp_path / "uploads" / "j1" / file_name
    upload.parent.mkdir(parents=True)
    upload.write_bytes(b"%PDF-1.4")
    saved = {"job_id": "j1", "file_name": file_name, "status": "running", "path": str(upload), **record}
    store.save("j1", "2026-11-28T00:00:00+00:00", saved)

    def no_pipeline(embed: bool, force: bool, path: Path) -> IngestPipeline:
        raise AssertionError("the job must not run again")

    manager = JobManager(no_pipeline, store)
    try:
        return manager.get("j1"), manager, store
    finally:
        manager.shutdown()


def test_an_ended_job_saved_as_cancelling_is_read_back_without_it(tmp_path: Path) -> None:
    """A failed job saved by an earlier release with a cancel pending kept "cancelling": true."""
    job, _, _ = resumed_not_run(tmp_path, "failed.pdf", status="failed", error="page 2", cancelling=True)
    assert (job.status, job.cancelling) == ("failed", False)


def test_a_job_the_server_keeps_dying_on_is_not_run_again(tmp_path: Path) -> None:
    """A file that crashes the server (or runs it out of memory) was run again at every start."""
    job, manager, _ = resumed_not_run(tmp_path, "killer.pdf", stage="read", restarts=2)  # its third stop
    assert job.status == "failed" and "stopped during this ingest 3 times" in job.error
    assert manager.unfinished_uploads() == set()  # its upload goes with the next sweep


def test_a_job_cancelled_while_the_server_stopped_is_not_run_again(tmp_path: Path) -> None:
    """A cancel asked of a running job, then a stop before the job saw it: it stays cancelled."""
    job, manager, store = resumed_not_run(tmp_path, "unwanted.pdf", stage="embed", cancelling=True)
    assert job.status == "cancelled" and "nothing was written" in job.error and job.restarts == 0
    assert manager.unfinished_uploads() == set()  # its upload goes with the next sweep
    assert [(saved["status"], saved["cancelling"]) for saved in store.load()] == [("cancelled", False)]


def test_a_job_run_again_starts_its_progress_afresh_and_counts_the_restart(tmp_path: Path) -> None:
    """After a restart the job read "prepare" at the killed run's stage 3 of 6, 10 of 100 done."""
    store = JobStore(tmp_path / "jobs.sqlite", kept=10)
    upload = tmp_path / "uploads" / "j1" / "manual.pdf"
    upload.parent.mkdir(parents=True)
    upload.write_bytes(b"%PDF-1.4")
    position = {"stage": "embed", "stage_index": 3, "stages": 6, "done": 10, "total": 100}
    record = {"job_id": "j1", "file_name": "manual.pdf", "status": "running", "path": str(upload), **position}
    store.save("j1", "2026-11-29T00:00:00+00:00", record)
    running, release = threading.Event(), threading.Event()

    def held(embed: bool, force: bool, path: Path) -> IngestPipeline:
        running.set()
        release.wait(30)
        raise RuntimeError("released")

    manager = JobManager(held, store)
    try:
        assert running.wait(30)
        job = manager.get("j1").to_json()
    finally:
        release.set()
        manager.shutdown()
    assert (job["status"], job["stage"], job["restarts"]) == ("running", "prepare", 1)
    assert (job["stage_index"], job["stages"], job["done"], job["total"]) == (0, 0, 0, 0)


@pytest.mark.parametrize("kept", [True, False])
def test_a_stop_names_the_running_job_it_waits_for(
    kept: bool, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A stop waited for the running ingest without a word: minutes of silence after Ctrl-C; it says
    what becomes of the queued ones, with a job store and without."""
    started, release = threading.Event(), threading.Event()

    def held(embed: bool, force: bool, path: Path) -> IngestPipeline:
        started.set()
        release.wait(30)
        raise RuntimeError("released")

    manager = JobManager(held, JobStore(tmp_path / "jobs.sqlite", kept=10) if kept else None)
    running = manager.submit("long.pdf", tmp_path / "long.pdf")
    manager.submit("next.pdf", tmp_path / "next.pdf")
    assert started.wait(30)
    stopping = threading.Thread(target=manager.shutdown)
    with caplog.at_level("WARNING", logger="docgraph.api"):
        stopping.start()
        stopping.join(1)
        assert stopping.is_alive()  # the running job finishes first
        release.set()
        stopping.join(30)
    assert not stopping.is_alive()
    waiting = f"waiting for ingest job {running.job_id} (long.pdf, at prepare) to finish before stopping"
    fate = "will run after a restart" if kept else "will be dropped (no job store)"
    assert f"{waiting}; 1 queued job {fate}" in caplog.messages


def test_unfinished_jobs_are_never_evicted_and_leftover_uploads_are_swept(tmp_path: Path) -> None:
    store = JobStore(tmp_path / "jobs.sqlite", kept=2)
    uploads = tmp_path / "uploads"
    records = [("a", "succeeded"), ("b", "succeeded"), ("c", "running"), ("d", "queued"), ("e", "failed")]
    for day, (job_id, status) in enumerate(records, start=10):
        (uploads / job_id).mkdir(parents=True)
        (uploads / job_id / "x.pdf").write_bytes(b"%PDF-1.4")
        record = {"job_id": job_id, "file_name": "x.pdf", "status": status, "path": str(uploads / job_id / "x.pdf")}
        store.save(job_id, f"2026-11-{day}T00:00:00+00:00", record)
    assert [r["job_id"] for r in store.load()] == ["c", "d", "e"]  # finished beyond the newest two go

    never_started = threading.Event()

    def held(embed: bool, force: bool, path: Path) -> IngestPipeline:
        never_started.wait(30)
        raise AssertionError("the test ends before any job runs")

    manager = JobManager(held, store, kept=1)
    try:
        # c and d run again, in order; both stay listed although only one job is to be kept
        assert {manager.get("c").status, manager.get("d").status} <= {"queued", "running"}
        assert manager.unfinished_uploads() == {uploads / "c", uploads / "d"}
    finally:
        never_started.set()
        manager.shutdown()


def test_a_starting_server_sweeps_only_its_own_leftover_uploads(tmp_path: Path) -> None:
    settings = Settings(home=tmp_path, graph=fresh_graph_name(), store="")
    other = Settings(home=tmp_path, graph=fresh_graph_name(), store="")
    mine, theirs = tmp_path / "uploads" / jobs_key(settings), tmp_path / "uploads" / jobs_key(other)
    leftover, in_flight = mine / "leftover", theirs / "in-flight"
    for folder in (leftover, in_flight):
        folder.mkdir(parents=True)
        (folder / "x.pdf").write_bytes(b"%PDF-1.4")
    state = ApiState(settings)
    state.close()
    assert state.uploads_dir == mine
    assert not leftover.exists()  # no job of this store will run it
    assert (in_flight / "x.pdf").is_file()  # another graph's server's: not this one's to take


def test_an_upload_queued_under_a_name_taken_meanwhile_fails_when_its_turn_comes(
    falkordb_store: FalkorDBStore, local_home: Path, tmp_path: Path
) -> None:
    """Both uploads passed the check on arrival (nothing was stored as "queued.pdf"); the second,
    another file, must not replace the first when its turn comes, since it was sent without replace."""
    settings = Settings(home=local_home, graph=falkordb_store.graph_name, store="")
    both_queued = threading.Event()

    def pipeline_after_both_queued(embed: bool, force: bool, path: Path) -> IngestPipeline:
        both_queued.wait(30)
        return build_ingest_pipeline(falkordb_store, settings, embed=embed, force=force)

    files = []
    for folder, source in (("first", "xts-p6.pdf"), ("second", "glpk-toc.pdf")):
        (tmp_path / folder).mkdir()
        files.append(shutil.copy(PDFS / source, tmp_path / folder / "queued.pdf"))
    clash_of = partial(clashing_document, falkordb_store)
    manager = JobManager(pipeline_after_both_queued, clash_of=clash_of)
    try:
        first, second = (manager.submit("queued.pdf", Path(path), embed=False) for path in files)
        both_queued.set()
        deadline = time.monotonic() + 300
        while second.status in ("queued", "running") and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        manager.shutdown()
    assert first.status == "succeeded", first.error
    assert second.status == "failed" and "a different document is stored as 'queued'" in second.error
    assert find_document(falkordb_store, "queued")["sha256"] == file_sha256(PDFS / "xts-p6.pdf")


def test_a_job_whose_end_cannot_be_recorded_still_ends(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The end's record failed to save (a report the store could not write): the job stayed "running"
    for ever, its upload kept. It ends as it would have, the log says the record was not saved."""
    store = JobStore(tmp_path / "jobs.sqlite", kept=10)
    save = store.save

    def refuse_ends(job_id: str, created_at: str, record: dict[str, Any]) -> None:
        if record["status"] not in ("queued", "running"):
            raise TypeError("Object of type bytes is not JSON serializable")
        save(job_id, created_at, record)

    monkeypatch.setattr(store, "save", refuse_ends)

    def broken(embed: bool, force: bool, path: Path) -> IngestPipeline:
        raise RuntimeError("no pipeline today")

    upload = tmp_path / "uploads" / "u1" / "x.pdf"
    upload.parent.mkdir(parents=True)
    upload.write_bytes(b"%PDF-1.4")
    manager = JobManager(broken, store)
    try:
        job = manager.submit("x.pdf", upload)
        deadline = time.monotonic() + 30
        while manager.get(job.job_id).status == "queued" or manager.get(job.job_id).status == "running":
            assert time.monotonic() < deadline, "the job never ended"
            time.sleep(0.05)
    finally:
        manager.shutdown()
    ended = manager.get(job.job_id)
    assert (ended.status, ended.error) == ("failed", "RuntimeError: no pipeline today")
    assert not upload.parent.exists()

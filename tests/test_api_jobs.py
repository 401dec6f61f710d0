"""Listing and cancelling the API's ingest jobs, through the ASGI test client, over a real FalkorDB
store and the real pipeline (a stage is held at a chosen point to cancel it there)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from docgraph.app.api import jobs as jobs_module
from docgraph.app.api.jobs import UNFINISHED, Job, JobManager
from docgraph.app.auth.keys import KeyStore
from docgraph.app.config import Settings
from docgraph.app.jobs.documents import files_replacing_others, find_document
from docgraph.app.pipeline.build import build_ingest_pipeline
from docgraph.app.pipeline.ingest_pipeline import IngestPipeline
from docgraph.app.pipeline.stages import IngestContext, WriteStage
from docgraph.app.resources import SAMPLES_DIR
from docgraph.errors import BadDocumentError, StoreUnavailableError
from tests.api_helpers import assert_error, follow_job, served, upload
from tests.conftest import fresh_graph_name

SAMPLE = (SAMPLES_DIR / "docgraph-sample.pdf").read_bytes()
WAIT_S = 120


@pytest.fixture(scope="module")
def client(local_home: Path) -> Iterator[TestClient]:
    with served(Settings(home=local_home, graph=fresh_graph_name(), store="")) as test_client:
        yield test_client


def manager(client: TestClient) -> JobManager:
    jobs: JobManager = client.app.state.docgraph.jobs  # type: ignore[attr-defined]
    return jobs


def stored(client: TestClient) -> set[str]:
    return {document["doc_id"] for document in client.get("/documents").json()}


def hold_pipeline(monkeypatch: pytest.MonkeyPatch, client: TestClient, hold: Callable[[IngestPipeline], None]) -> None:
    """Jobs from now on get the real pipeline, changed by ``hold`` (which holds one of its stages)."""
    jobs = manager(client)
    pipeline_for = jobs._pipeline_for

    def held(embed: bool, force: bool, path: Path) -> IngestPipeline:
        pipeline = pipeline_for(embed, force, path)
        hold(pipeline)
        return pipeline

    monkeypatch.setattr(jobs, "_pipeline_for", held)


def ended_with_their_upload(monkeypatch: pytest.MonkeyPatch, client: TestClient) -> list[str]:
    """Jobs from now on whose upload was removed in the wrong order: after the job showed its end (a
    client polling it saw it ended with the upload still there), or before its record on disk said
    it ended (a crash then brings the job back as running, its upload gone). Filled as uploads go."""
    jobs = manager(client)
    save, remove = jobs._save, jobs_module.shutil.rmtree
    saved: dict[str, str] = {}  # job id -> the status its record on disk has
    wrong: list[str] = []

    def saving(job: Job) -> None:
        save(job)
        saved[job.job_id] = job.status

    def removing(path: Path, *args: Any, **kwargs: Any) -> None:
        for job in jobs.listed():
            shown_ended, recorded_ended = job.status not in UNFINISHED, saved.get(job.job_id) not in UNFINISHED
            if job.path.parent == path and (shown_ended or not recorded_ended):
                wrong.append(job.job_id)
        remove(path, *args, **kwargs)

    monkeypatch.setattr(jobs, "_save", saving)
    monkeypatch.setattr(jobs_module.shutil, "rmtree", removing)
    return wrong


def hold_each_start(monkeypatch: pytest.MonkeyPatch, client: TestClient) -> tuple[threading.Event, threading.Event]:
    """Jobs from now on wait in their "prepare" stage until released: (one is waiting, release)."""
    waiting, release = threading.Event(), threading.Event()

    def hold_its_start(pipeline: IngestPipeline) -> None:
        waiting.set()
        release.wait(WAIT_S)

    hold_pipeline(monkeypatch, client, hold_its_start)
    return waiting, release


def cancelled_while_held(
    client: TestClient, job_id: str, held: threading.Event, release: threading.Event
) -> dict[str, Any]:
    """Cancel ``job_id`` once it is ``held`` (a 202), let it go on; the job as it ended."""
    try:
        assert held.wait(WAIT_S)
        assert client.delete(f"/jobs/{job_id}").status_code == 202
    finally:
        release.set()
    return follow_job(client, job_id)[-1]


def test_jobs_are_listed_newest_first_and_by_status(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    left_behind = ended_with_their_upload(monkeypatch, client)
    first = upload(client, SAMPLE, "listed-one.pdf", embed="false").json()["job_id"]
    second = upload(client, b"%PDF-1.4 not really", "listed-two.pdf").json()["job_id"]
    assert follow_job(client, first)[-1]["status"] == "succeeded"
    assert follow_job(client, second)[-1]["status"] == "failed"
    assert left_behind == []

    listed = client.get("/jobs").json()
    assert [job["job_id"] for job in listed][:2] == [second, first]
    assert [job["job_id"] for job in client.get("/jobs", params={"limit": 1}).json()] == [second]
    succeeded = client.get("/jobs", params={"status": "succeeded"}).json()
    assert first in {job["job_id"] for job in succeeded} and {job["status"] for job in succeeded} == {"succeeded"}
    assert_error(client.get("/jobs", params={"status": "done"}), 422, "invalid_request")
    assert_error(client.get("/jobs", params={"limit": 0}), 422, "invalid_request")


def test_a_queued_job_is_cancelled_at_once_and_never_runs(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    running, release = hold_each_start(monkeypatch, client)
    left_behind = ended_with_their_upload(monkeypatch, client)
    ahead = upload(client, SAMPLE, "ahead.pdf", embed="false").json()["job_id"]
    try:
        assert running.wait(WAIT_S)
        waiting = upload(client, SAMPLE, "waiting.pdf", embed="false").json()
        assert waiting["status"] == "queued"
        upload_dir = manager(client).get(waiting["job_id"]).path.parent
        assert upload_dir.is_dir()
        cancelled = client.delete(f"/jobs/{waiting['job_id']}")
        assert cancelled.status_code == 200, cancelled.text
        assert cancelled.json()["status"] == "cancelled" and cancelled.json()["finished_at"]
        assert not upload_dir.exists() and left_behind == []  # its upload went first
    finally:
        release.set()
    assert follow_job(client, ahead)[-1]["status"] == "succeeded"
    after = client.get(f"/jobs/{waiting['job_id']}").json()
    assert (after["status"], after["started_at"]) == ("cancelled", None)
    assert "waiting" not in stored(client) and "ahead" in stored(client)
    again = assert_error(client.delete(f"/jobs/{waiting['job_id']}"), 409, "conflict")
    assert "has ended (cancelled)" in again["message"]


def test_a_running_job_stops_before_its_write_and_the_store_is_unchanged(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cancel arrives while the pages are read; the read stage's next progress step stops it."""
    reading, release = threading.Event(), threading.Event()

    def hold_the_read(pipeline: IngestPipeline) -> None:
        read = pipeline.stages[0]
        assert read.name == "read"
        read_pages = read.run

        def run(ctx: IngestContext) -> None:
            told = ctx.progress
            assert told is not None

            def progress(stage: str, done: int, total: int) -> None:
                reading.set()
                release.wait(WAIT_S)
                told(stage, done, total)

            ctx.progress = progress
            read_pages(ctx)

        read.run = run  # type: ignore[method-assign]

    hold_pipeline(monkeypatch, client, hold_the_read)
    left_behind = ended_with_their_upload(monkeypatch, client)
    before = stored(client)
    job_id = upload(client, SAMPLE, "stopped.pdf").json()["job_id"]
    try:
        assert reading.wait(WAIT_S)
        cancelling = client.delete(f"/jobs/{job_id}")
        assert cancelling.status_code == 202, cancelling.text
        assert (cancelling.json()["status"], cancelling.json()["cancelling"]) == ("running", True)
        busy = assert_error(client.delete("/documents/stopped"), 409, "conflict")
        assert f"(job {job_id}, cancelling)" in busy["message"]
    finally:
        release.set()
    last = follow_job(client, job_id)[-1]
    assert last["status"] == "cancelled" and last["report"] is None and last["cancelling"] is False
    assert last["error"] == "cancelled at read: nothing was written" and last["stage"] == "read"
    assert (last["done"], last["total"]) == (0, 0)  # not the pipeline's closing 1 of 1
    assert stored(client) == before
    assert not manager(client).get(job_id).path.parent.exists() and left_behind == []


def test_a_job_that_fails_on_its_own_while_cancelling_says_it_failed(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The cancel is asked, then the read fails for a reason of its own before the cancel is seen:
    the job failed, with that reason, and is not reported as cancelled."""
    reading, release = threading.Event(), threading.Event()

    def fail_the_read(pipeline: IngestPipeline) -> None:
        read = pipeline.stages[0]

        def run(ctx: IngestContext) -> None:
            reading.set()
            release.wait(WAIT_S)
            raise BadDocumentError("page 2 cannot be read")

        read.run = run  # type: ignore[method-assign]

    hold_pipeline(monkeypatch, client, fail_the_read)
    job_id = upload(client, SAMPLE, "failing.pdf").json()["job_id"]
    last = cancelled_while_held(client, job_id, reading, release)
    assert (last["status"], last["error"]) == ("failed", "page 2 cannot be read")
    assert last["cancelling"] is False  # the cancel never took effect, and will not now
    assert last["report"]["status"] == "failed" and "failing" not in stored(client)


def test_a_job_writing_its_document_is_not_cancelled(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    writing, release = threading.Event(), threading.Event()

    def hold_the_write(pipeline: IngestPipeline) -> None:
        write = pipeline.stages[-1]
        assert isinstance(write, WriteStage)
        write_document = write.run

        def run(ctx: IngestContext) -> None:
            writing.set()
            release.wait(WAIT_S)
            write_document(ctx)

        write.run = run  # type: ignore[method-assign]

    hold_pipeline(monkeypatch, client, hold_the_write)
    job_id = upload(client, SAMPLE, "written.pdf", embed="false").json()["job_id"]
    try:
        assert writing.wait(WAIT_S)
        refused = assert_error(client.delete(f"/jobs/{job_id}"), 409, "conflict")
        assert refused["message"] == f"job {job_id} is writing its document (written.pdf): too late to cancel"
    finally:
        release.set()
    assert follow_job(client, job_id)[-1]["status"] == "succeeded"
    assert "written" in stored(client)


def test_a_file_found_stored_already_while_cancelling_ends_cancelled(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stored file is found unchanged before any stage runs: the job ended "succeeded" after a 202."""
    stored_first = upload(client, SAMPLE, "twice.pdf", embed="false").json()["job_id"]
    assert follow_job(client, stored_first)[-1]["status"] == "succeeded"
    preparing, release = hold_each_start(monkeypatch, client)
    job_id = upload(client, SAMPLE, "twice.pdf", embed="false").json()["job_id"]
    last = cancelled_while_held(client, job_id, preparing, release)
    assert (last["status"], last["report"]) == ("cancelled", None)
    assert last["error"] == "cancelled: the file was stored already as this server builds it"


def test_cancelling_an_unknown_job_is_a_404(client: TestClient) -> None:
    assert_error(client.delete("/jobs/no-such-job"), 404, "not_found")


def test_a_job_names_the_keys_that_sent_and_cancelled_it(
    local_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With API keys, a job keeps the id of the writer's key that uploaded its file and of the one
    that cancelled it, for every reader of the job list to see."""
    keys = KeyStore(tmp_path)
    alice, alice_secret = keys.create("writer", "alice")
    bob, bob_secret = keys.create("writer", "bob")
    reader = {"Authorization": f"Bearer {keys.create('reader', 'carol')[1]}"}
    settings = Settings(home=tmp_path, store=f"falkordb-local://{local_home}?graph={fresh_graph_name()}")
    with served(settings) as keyed:
        keyed.headers["Authorization"] = f"Bearer {alice_secret}"
        running, release = hold_each_start(monkeypatch, keyed)
        ahead = upload(keyed, SAMPLE, "ahead.pdf", embed="false").json()["job_id"]
        try:
            assert running.wait(WAIT_S)
            waiting = upload(keyed, SAMPLE, "waiting.pdf", embed="false").json()["job_id"]
            cancelled = keyed.delete(f"/jobs/{waiting}", headers={"Authorization": f"Bearer {bob_secret}"})
            assert cancelled.status_code == 200, cancelled.text
        finally:
            release.set()
        assert follow_job(keyed, ahead)[-1]["status"] == "succeeded"
        listed = {job["job_id"]: job for job in keyed.get("/jobs", headers=reader).json()}
    assert (listed[ahead]["sent_by"], listed[ahead]["cancelled_by"]) == (alice.key_id, "")
    assert (listed[waiting]["sent_by"], listed[waiting]["cancelled_by"]) == (alice.key_id, bob.key_id)
    assert listed[waiting]["status"] == "cancelled"


def test_an_upload_records_its_name_not_its_temporary_path(client: TestClient, tmp_path: Path) -> None:
    """The stored source_path was the upload's temporary file, gone once the job ended: a local file
    of that name was then refused as replacing "another file" nobody could find, and an unchanged
    upload moved a document's real source to a temporary path."""
    job_id = upload(client, SAMPLE, "team-manual.pdf", embed="false").json()["job_id"]
    assert follow_job(client, job_id)[-1]["status"] == "succeeded"
    store = client.app.state.docgraph.store()  # type: ignore[attr-defined]
    assert find_document(store, "team-manual")["source_path"] == "uploaded as team-manual.pdf"

    local = tmp_path / "team-manual.pdf"
    local.write_bytes(SAMPLE)
    (tmp_path / "changed").mkdir()
    changed = tmp_path / "changed" / "team-manual.pdf"
    changed.write_bytes(SAMPLE + b"\n% changed\n")
    refusal = files_replacing_others(store, [changed])[changed]
    assert "read from another file (uploaded as team-manual.pdf): pass --replace" in refusal
    assert local not in files_replacing_others(store, [local])  # the same content: no clash

    taken = build_ingest_pipeline(store, client.app.state.docgraph.settings, embed=False).ingest(local)  # type: ignore[attr-defined]
    assert taken.status == "unchanged"  # found stored: the local file is its source from now on
    assert find_document(store, "team-manual")["source_path"] == str(local.resolve())
    again = upload(client, SAMPLE, "team-manual.pdf", embed="false").json()["job_id"]
    assert follow_job(client, again)[-1]["report"]["status"] == "unchanged"
    assert find_document(store, "team-manual")["source_path"] == str(local.resolve())  # not the upload's


def test_a_job_failed_by_the_store_does_not_name_its_address(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A job's error, which any key's holder reads, quoted the store's URL and folder (as /health
    and the 503s did): it names the store's kind and graph only; the server's log keeps the rest."""
    settings: Settings = client.app.state.docgraph.settings  # type: ignore[attr-defined]
    url = client.app.state.docgraph.store().url  # type: ignore[attr-defined]

    def store_gone(pipeline: IngestPipeline) -> None:
        def run(ctx: IngestContext) -> None:
            raise StoreUnavailableError(f"FalkorDB at {url} is unavailable: no socket at {settings.home}/falkordb")

        pipeline.stages[-1].run = run  # type: ignore[method-assign]

    hold_pipeline(monkeypatch, client, store_gone)
    job_id = upload(client, SAMPLE, "unlucky.pdf").json()["job_id"]
    last = follow_job(client, job_id)[-1]
    assert last["status"] == "failed" and "is unavailable" in last["error"]
    for said in (last["error"], last["report"]["error"]):
        assert str(settings.home) not in said and url not in said and "falkordb-local (graph " in said, said

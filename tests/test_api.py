"""The HTTP API's documents and jobs through the ASGI test client, over a real FalkorDB store and
the real pipeline: uploads, limits, deletes, replacements, and ingest jobs to their end.

One module-wide app ingests the bundled sample PDF (the Harbour Zoo manual) through ``POST
/documents`` (:mod:`tests.api_helpers`)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from docgraph.app.api.models import DocumentModel
from docgraph.app.config import Settings
from docgraph.app.stores.base import GraphStore
from docgraph.app.stores.ingest_claims import ingest_claim
from docgraph.app.stores.kept_copies import kept_copies_dir
from docgraph.ingest.structure.ids import file_sha256
from tests.api_helpers import (
    PDFS,
    SAMPLE_DOC,
    SAMPLE_PDF,
    UPLOAD_LIMIT_MB,
    assert_error,
    client,
    follow_job,
    graph_snapshot,
    job_states,
    settings,
    store,
    upload,
)

__all__ = ["client", "job_states", "settings", "store"]  # the fixtures


# ---- documents and jobs --------------------------------------------------------------------------


def test_upload_runs_an_ingest_job_to_completion(client: TestClient, job_states: list[dict[str, Any]]) -> None:
    first, last = job_states[0], job_states[-1]
    assert first["status"] in ("queued", "running") and first["report"] is None
    assert last["status"] == "succeeded", last
    assert last["stage"] == "graph_write" and last["stage_index"] == last["stages"] == 6
    stages_seen = [state["stage"] for state in job_states if state["stage"]]
    assert stages_seen == sorted(
        stages_seen, key=["prepare", "read", "graph", "embed", "similarity", "gnn", "graph_write"].index
    )
    report = last["report"]
    assert (report["doc_id"], report["status"], report["pages"], report["file"]) == (
        SAMPLE_DOC,
        "ingested",
        3,
        "docgraph-sample.pdf",
    )
    assert report["edges"]["CAPTION_OF"] == 2
    assert set(report["stages"]) == {"read", "graph", "embed", "similarity", "gnn", "graph_write"}
    assert report["notes"] == []  # nothing was left out
    assert last["finished_at"] >= last["started_at"] >= last["created_at"]

    listed = client.get("/documents").json()
    assert set(listed[0]) == set(DocumentModel.model_fields)
    assert [(d["doc_id"], d["title"], d["pages"], d["regions"]) for d in listed] == [
        (SAMPLE_DOC, "Harbour Zoo Operations Manual", 3, report["regions"])
    ]
    # The upload itself is gone; the store keeps its own copy of the PDF for rendering.
    uploads: Path = client.app.state.docgraph.uploads_dir  # type: ignore[attr-defined]
    assert uploads.is_dir() and not any(uploads.rglob("*.pdf"))


def test_health_reports_the_store_and_its_documents(client: TestClient, job_states: list[dict[str, Any]]) -> None:
    health = client.get("/health")
    assert health.status_code == 200
    body = health.json()
    assert (body["status"], body["dialect"], body["documents"], body["llm"]) == ("ok", "falkordb", 1, False)
    settings: Settings = client.app.state.docgraph.settings  # type: ignore[attr-defined]
    assert body["store"] == f"falkordb-local (graph {settings.graph})"
    assert str(settings.home) not in health.text  # no server paths


def test_uploads_that_are_not_pdfs_are_refused(client: TestClient) -> None:
    refused = assert_error(upload(client, b"hello, not a pdf", "notes.pdf"), 415, "unsupported_media_type")
    assert refused["message"] == "the file is not a PDF (no %PDF- header)"
    empty = assert_error(upload(client, b"", "empty.pdf"), 415, "unsupported_media_type")
    assert empty["message"] == "the file is empty"  # as the CLI says; it said "not a PDF"
    assert_error(upload(client, b"\x89PNG\r\n\x1a\n" + b"0" * 100, "image.pdf"), 415, "unsupported_media_type")
    missing = client.post("/documents", data={"embed": "true"})
    assert_error(missing, 422, "invalid_request")


def test_a_long_name_in_another_script_is_saved_within_the_file_system_s_limit(client: TestClient) -> None:
    """150 Japanese characters are 450 bytes: saving the upload under its name failed (500)."""
    accepted = upload(client, SAMPLE_PDF.read_bytes(), "報" * 150 + ".pdf", embed="false")
    assert accepted.status_code == 202, accepted.text
    last = follow_job(client, accepted.json()["job_id"])[-1]
    assert last["status"] == "succeeded", last
    assert last["file_name"].startswith("報") and len(last["file_name"].encode()) <= 255
    assert client.delete(f"/documents/{last['report']['doc_id']}").status_code == 200  # the module's store as it was


def test_uploads_over_the_size_limit_are_refused(client: TestClient) -> None:
    limit = int(UPLOAD_LIMIT_MB * 1024 * 1024)
    just_over = b"%PDF-1.7\n" + b"0" * limit  # within the multipart slack: refused after parsing
    assert_error(upload(client, just_over, "big.pdf"), 413, "too_large")
    far_over = b"%PDF-1.7\n" + b"0" * (3 * limit)  # refused on its Content-Length
    assert_error(upload(client, far_over, "bigger.pdf"), 413, "too_large")

    def chunked_body() -> Iterator[bytes]:  # no Content-Length: counted as it arrives
        yield b'--b\r\nContent-Disposition: form-data; name="file"; filename="x.pdf"\r\n\r\n%PDF-1.7\n'
        for _ in range(3):
            yield b"0" * limit
        yield b"\r\n--b--\r\n"

    chunked = client.post(
        "/documents", content=chunked_body(), headers={"content-type": "multipart/form-data; boundary=b"}
    )
    assert_error(chunked, 413, "too_large")


def test_question_and_query_bodies_over_a_mebibyte_are_refused_unread(client: TestClient) -> None:
    """Only uploads were capped: a reader's 300 MB question was read whole (the server's memory
    rose by 0.9 GB) before the 4,000-character limit refused it."""
    too_long = {"question": "penguins " * 120_000}  # 1.08 MB of JSON
    assert_error(client.post("/ask", json=too_long), 413, "too_large")

    def chunked_body() -> Iterator[bytes]:  # no Content-Length: counted as it arrives
        yield b'{"query": "'
        for _ in range(64):
            yield b"x" * 65_536
        yield b'"}'

    chunked = client.post("/retrieve", content=chunked_body(), headers={"content-type": "application/json"})
    assert_error(chunked, 413, "too_large")
    assert "questions and queries are short" in chunked.json()["error"]["message"]
    cypher = client.post("/cypher", json={"query": "RETURN $x AS x", "params": {"x": "y" * 2_000_000}})
    assert_error(cypher, 413, "too_large")
    assert client.post("/retrieve", json={"query": "penguins"}).status_code == 200  # a question as usual


def test_a_broken_pdf_fails_in_its_job_and_leaves_the_graph_alone(client: TestClient, store: GraphStore) -> None:
    before = graph_snapshot(store)
    response = upload(client, b"%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\n%%EOF", "broken.pdf", embed="false")
    assert response.status_code == 202
    last = follow_job(client, response.json()["job_id"])[-1]
    assert last["status"] == "failed"
    assert last["error"] and last["report"]["status"] == "failed" and last["report"]["doc_id"] == "broken"
    assert "Traceback" not in json.dumps(last)
    settings: Settings = client.app.state.docgraph.settings  # type: ignore[attr-defined]
    assert str(settings.home) not in json.dumps(last)  # the server's upload path stays on the server
    assert graph_snapshot(store) == before


def test_delete_removes_a_document_and_then_it_is_not_found(client: TestClient, store: GraphStore) -> None:
    response = upload(client, SAMPLE_PDF.read_bytes(), "zoo copy.pdf", embed="false")
    last = follow_job(client, response.json()["job_id"])[-1]
    assert last["status"] == "succeeded" and last["report"]["doc_id"] == "zoo-copy"
    assert last["report"]["stats"]["same_content_as"] == [SAMPLE_DOC]  # as `docgraph ingest` says of a copy
    # The job says what it ran without.
    assert [note.split(":")[0] for note in last["report"]["notes"]] == ["embeddings off (as asked)"]
    assert "zoo-copy" in [d["doc_id"] for d in client.get("/documents").json()]

    deleted = client.delete("/documents/zoo-copy")
    assert deleted.status_code == 200
    assert deleted.json() == {
        "doc_id": "zoo-copy",
        "deleted_nodes": sum(last["report"]["nodes"].values()),
        "same_content": [SAMPLE_DOC],  # the same file is still stored: a delete to be rid of it says so
        "text_on_disk": False,
    }
    # the job that stored it named it (its file name, its report) after the delete: gone too
    assert "zoo copy.pdf" not in [job["file_name"] for job in client.get("/jobs").json()]
    assert [d["doc_id"] for d in client.get("/documents").json()] == [SAMPLE_DOC]
    gone = assert_error(client.delete("/documents/zoo-copy"), 404, "not_found")
    assert gone["message"] == "no document 'zoo-copy' in the store (GET /documents lists them)"


def test_a_file_name_two_documents_have_is_a_conflict_not_a_missing_document(
    client: TestClient, store: GraphStore
) -> None:
    """A name an older release gave another id (Straße.pdf: strae and strae-58a377) answered 404
    "not_found", which a client reads as "no such document"."""
    response = upload(client, SAMPLE_PDF.read_bytes(), "twin.pdf", embed="false")
    assert follow_job(client, response.json()["job_id"])[-1]["status"] == "succeeded"
    store.write("MATCH (d:Document {doc_id: 'twin'}) SET d.file_name = $name", {"name": f"{SAMPLE_DOC}.pdf"})
    try:
        for answer in (
            client.delete(f"/documents/{SAMPLE_DOC}.pdf"),
            client.post("/ask", json={"question": "Lions?", "doc_id": f"{SAMPLE_DOC}.pdf"}),
        ):
            error = assert_error(answer, 409, "ambiguous")
            assert error["message"].startswith(f"'{SAMPLE_DOC}.pdf' is the file name of 2 documents (")
        assert {d["doc_id"] for d in client.get("/documents").json()} == {SAMPLE_DOC, "twin"}  # none deleted
    finally:
        assert client.delete("/documents/twin").status_code == 200


def test_a_document_an_unfinished_job_writes_is_not_deleted_under_it(
    client: TestClient, store: GraphStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A delete sent while the upload's job ran answered 404, and the document landed after it."""
    jobs = client.app.state.docgraph.jobs  # type: ignore[attr-defined]
    running, held = threading.Event(), threading.Event()
    pipeline_for = jobs._pipeline_for

    def after_the_deletes(embed: bool, force: bool, path: Path) -> Any:
        running.set()
        held.wait(60)
        return pipeline_for(embed, force, path)

    stored = upload(client, SAMPLE_PDF.read_bytes(), "late arrival.pdf", embed="false").json()["job_id"]
    assert follow_job(client, stored)[-1]["status"] == "succeeded"
    monkeypatch.setattr(jobs, "_pipeline_for", after_the_deletes)
    again = upload(client, SAMPLE_PDF.read_bytes(), "Late-Arrival.pdf", embed="false", replace="true")
    job_id = again.json()["job_id"]
    try:
        assert running.wait(60)
        # by id, by the upload's name, by another spelling of it, by the stored document's file name
        for name in ("late-arrival", "Late-Arrival.pdf", "Late_Arrival.pdf", "late arrival.pdf"):
            refused = assert_error(client.delete(f"/documents/{name}"), 409, "conflict")
            assert f"is being ingested (job {job_id}, running)" in refused["message"]
    finally:
        held.set()
    assert follow_job(client, job_id)[-1]["status"] == "succeeded"
    assert client.delete("/documents/late-arrival").status_code == 200  # once the job has ended
    assert_error(client.delete("/documents/late-arrival"), 404, "not_found")


def test_a_document_another_process_ingests_is_not_deleted_under_it(client: TestClient, store: GraphStore) -> None:
    """The CLI or the web app ingests it (their claim on the data home, held here as they hold it)."""
    settings: Settings = client.app.state.docgraph.settings  # type: ignore[attr-defined]
    with ingest_claim(kept_copies_dir(settings.home, store), SAMPLE_DOC):
        refused = assert_error(client.delete(f"/documents/{SAMPLE_DOC}"), 409, "conflict")
    assert refused["message"] == (
        f"{SAMPLE_DOC!r} is being ingested (by a docgraph process on this data home): "
        "delete it once that ingest has ended"
    )
    assert SAMPLE_DOC in [d["doc_id"] for d in client.get("/documents").json()]


def test_a_name_alone_never_replaces_a_stored_document(client: TestClient, store: GraphStore) -> None:
    settings: Settings = client.app.state.docgraph.settings  # type: ignore[attr-defined]
    kept = kept_copies_dir(settings.home, store)
    first, second = (PDFS / "xts-p6.pdf").read_bytes(), (PDFS / "glpk-toc.pdf").read_bytes()
    try:
        ingested = follow_job(client, upload(client, first, "mine.pdf", embed="false").json()["job_id"])[-1]
        assert ingested["status"] == "succeeded", ingested
        before = graph_snapshot(store)
        for name in ("mine.pdf", "..\\..\\..\\etc\\mine.pdf", "../../mine.pdf"):
            assert_error(upload(client, second, name, embed="false"), 409, "conflict")
        assert_error(upload(client, second, SAMPLE_PDF.name, embed="false"), 409, "conflict")
        assert graph_snapshot(store) == before
        uploads: Path = client.app.state.docgraph.uploads_dir  # type: ignore[attr-defined]
        assert not any(uploads.rglob("*.pdf"))  # refused uploads are not kept
        replaced = follow_job(
            client, upload(client, second, "mine.pdf", embed="false", replace="true").json()["job_id"]
        )
        assert replaced[-1]["status"] == "succeeded" and replaced[-1]["report"]["status"] == "replaced"
    finally:
        client.delete("/documents/mine")
    # The deleted document's kept copies are gone; the sample's stays, shared with "zoo copy".
    assert sorted(p.name for p in kept.glob("*.pdf")) == [f"{file_sha256(SAMPLE_PDF)}.pdf"]


def test_a_stored_file_uploaded_again_is_rebuilt_only_when_forced(client: TestClient, store: GraphStore) -> None:
    def ingest(**form: str) -> dict[str, Any]:
        response = upload(client, SAMPLE_PDF.read_bytes(), "zoo again.pdf", embed="false", **form)
        last = follow_job(client, response.json()["job_id"])[-1]
        assert last["status"] == "succeeded", last
        report: dict[str, Any] = last["report"]
        return report

    try:
        first = ingest()
        stored = graph_snapshot(store)
        again, forced = ingest(), ingest(force="true")
        assert [r["status"] for r in (first, again, forced)] == ["ingested", "unchanged", "replaced"]
        assert again["stages"] == {} and forced["stages"]["read"] > 0  # not read again unless forced
        assert forced["doc_id"] == first["doc_id"] == "zoo-again" and forced["nodes"] == first["nodes"]
        assert graph_snapshot(store) == stored
    finally:
        client.delete("/documents/zoo-again")


def test_unknown_jobs_routes_and_methods_are_json_errors(client: TestClient) -> None:
    assert_error(client.get("/jobs/0123456789abcdef"), 404, "not_found")
    assert_error(client.get("/no/such/route"), 404, "not_found")
    assert_error(client.put("/documents"), 405, "method_not_allowed")

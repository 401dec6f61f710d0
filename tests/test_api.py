"""The HTTP API through the ASGI test client, over a real FalkorDB store and the real pipeline.

One module-wide app ingests the bundled sample PDF (the Harbour Zoo manual) through ``POST
/documents`` and the tests read it back through every route. LLM-backed routes talk to the scripted
OpenAI-compatible server of :mod:`tests.llm_server`.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from docgraph.app.api.app import create_app
from docgraph.app.api.models import DocumentModel
from docgraph.app.config import Settings
from docgraph.app.resources import SAMPLES_DIR
from docgraph.app.stores.base import GraphStore
from docgraph.app.stores.factory import open_store
from docgraph.app.stores.falkordb_store import FalkorDBStore
from docgraph.app.stores.ingest_claims import ingest_claim
from docgraph.app.stores.kept_copies import kept_copies_dir
from docgraph.ingest.structure.ids import file_sha256
from tests.conftest import fresh_graph_name
from tests.llm_server import Reply, ScriptedLLMServer

SAMPLE_PDF = SAMPLES_DIR / "docgraph-sample.pdf"
PDFS = Path(__file__).parent / "data" / "pdfs"
SAMPLE_DOC = "docgraph-sample"
UPLOAD_LIMIT_MB = 0.5  # the sample is ~130 KiB
JOB_TIMEOUT_S = 300
ROUTE_RETRIEVE = json.dumps({"route": "retrieve", "reason": "one fact", "sub_questions": []})


def upload(client: TestClient, content: bytes, name: str = "upload.pdf", **form: str) -> Any:
    return client.post("/documents", files={"file": (name, content, "application/pdf")}, data=form)


def follow_job(client: TestClient, job_id: str) -> list[dict[str, Any]]:
    """Every distinct state of a job, polled until it ends."""
    seen: list[dict[str, Any]] = []
    deadline = time.monotonic() + JOB_TIMEOUT_S
    while time.monotonic() < deadline:
        response = client.get(f"/jobs/{job_id}")
        assert response.status_code == 200, response.text
        state = response.json()
        if not seen or state != seen[-1]:
            seen.append(state)
        if state["status"] in ("succeeded", "failed", "cancelled"):
            return seen
        time.sleep(0.05)
    raise AssertionError(f"job {job_id} did not finish in {JOB_TIMEOUT_S}s: {seen[-1]}")


def graph_snapshot(store: GraphStore) -> tuple[dict[str, int], dict[str, int]]:
    counts = store.counts()
    return counts.labels, counts.relationship_types


@pytest.fixture(scope="module")
def settings(local_home: Path) -> Settings:
    return Settings(home=local_home, graph=fresh_graph_name(), store="", api_max_upload_mb=UPLOAD_LIMIT_MB)


@contextlib.contextmanager
def served(settings: Settings) -> Iterator[TestClient]:
    """A client of the app on ``settings``; the app's graph is deleted afterwards."""
    with TestClient(create_app(settings), base_url="http://localhost") as test_client:
        yield test_client
    store = open_store(settings)
    assert isinstance(store, FalkorDBStore)
    store.delete_graph()
    store.close()


@pytest.fixture(scope="module")
def client(settings: Settings) -> Iterator[TestClient]:
    with served(settings) as test_client:
        yield test_client


@pytest.fixture(scope="module")
def job_states(client: TestClient) -> list[dict[str, Any]]:
    """The sample PDF uploaded and ingested; the job's states as the client saw them."""
    response = upload(client, SAMPLE_PDF.read_bytes(), "docgraph-sample.pdf")
    assert response.status_code == 202, response.text
    assert response.headers["location"] == f"/jobs/{response.json()['job_id']}"
    return [response.json(), *follow_job(client, response.json()["job_id"])]


@pytest.fixture(scope="module")
def store(client: TestClient, job_states: list[dict[str, Any]]) -> GraphStore:
    graph_store: GraphStore = client.app.state.docgraph.store()  # type: ignore[attr-defined]
    return graph_store


def assert_error(response: Any, status: int, kind: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    error: dict[str, Any] = response.json()["error"]
    assert (error["status"], error["type"]) == (status, kind)
    assert error["message"]
    assert "Traceback" not in response.text
    return error


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


# ---- retrieval and answers -----------------------------------------------------------------------


def test_retrieve_returns_regions_with_section_path_and_graph_context(client: TestClient, store: GraphStore) -> None:
    response = client.post("/retrieve", json={"query": "How many animals live in the otter stream enclosure?", "k": 5})
    assert response.status_code == 200, response.text
    body = response.json()
    assert (body["query"], body["retriever"], body["doc_id"]) == (
        "How many animals live in the otter stream enclosure?",
        "hybrid",
        None,
    )
    regions = body["regions"]
    assert 0 < len(regions) <= 5
    table = next(r for r in regions if r["kind"] == "table")
    assert "Seal pool" in table["text"] and table["page"] == 2 and len(table["bbox"]) == 4
    assert table["section_path"] == ["3 Enclosures"]
    captions = [c["text"] for c in table["context"] if c["relation"] == "caption"]
    assert captions == ["Table 1: Enclosure sizes and number of animals."]
    assert [r["score"] for r in regions] == sorted((r["score"] for r in regions), reverse=True)


def test_retrieve_takes_variant_k_and_document(client: TestClient, store: GraphStore) -> None:
    query = {"query": "penguins are fed herring", "k": 2, "variant": "bm25-region"}
    body = client.post("/retrieve", json=query).json()
    assert len(body["regions"]) == 2 and body["retriever"] == "bm25-region"
    assert "herring" in body["regions"][0]["text"] and set(body["regions"][0]["signals"]) == {"bm25"}
    assert body["regions"][0]["section_path"] == ["2 Feeding schedule"]
    by_file = client.post("/retrieve", json={**query, "doc_id": "docgraph-sample.pdf"}).json()
    assert by_file["doc_id"] == SAMPLE_DOC and [r["text"] for r in by_file["regions"]] == [
        r["text"] for r in body["regions"]
    ]
    assert_error(client.post("/retrieve", json={**query, "doc_id": "no-such-document"}), 404, "not_found")
    assert_error(client.post("/ask", json={"question": "penguins?", "doc_id": "no-such-document"}), 404, "not_found")
    assert_error(client.post("/retrieve", json={**query, "variant": "magic"}), 422, "invalid_request")
    assert_error(client.post("/retrieve", json={**query, "k": 0}), 422, "invalid_request")
    assert_error(client.post("/retrieve", json={"query": "   "}), 422, "invalid_request")
    assert_error(
        client.post("/retrieve", content=b"{not json", headers={"content-type": "application/json"}),
        422,
        "invalid_request",
    )


def test_ask_without_an_llm_answers_extractively_with_citations(client: TestClient, store: GraphStore) -> None:
    response = client.post("/ask", json={"question": "When are the penguins fed?", "k": 4})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["mode"] == "extractive" and "10:30" in body["answer"]
    assert body["citations"] and all(c["doc_id"] == SAMPLE_DOC for c in body["citations"])
    assert any(c["page"] == 1 for c in body["citations"])
    assert body["trace"][0]["step"] == "llm"


def test_a_question_for_text_to_cypher_needs_an_llm(client: TestClient, store: GraphStore) -> None:
    assert_error(client.post("/cypher", json={"question": "How many tables are there?"}), 503, "llm_unavailable")
    assert_error(
        client.post("/ask", json={"question": "How many tables?", "force_cypher": True}), 503, "llm_unavailable"
    )


# ---- graph queries -------------------------------------------------------------------------------


def test_cypher_runs_read_only_queries_with_parameters_and_a_row_limit(client: TestClient, store: GraphStore) -> None:
    query = "MATCH (r:Region {kind: $kind}) RETURN r.page AS page, r.text AS text"
    body = client.post("/cypher", json={"query": query, "params": {"kind": "caption"}}).json()
    assert body["ran"] and not body["truncated"] and body["attempts"] == []
    assert sorted(row["text"] for row in body["rows"]) == [
        "Figure 1: Layout of the seal pool with its two islands.",
        "Table 1: Enclosure sizes and number of animals.",
    ]
    many = client.post("/cypher", json={"query": "UNWIND range(1, 1000) AS i RETURN i"}).json()
    assert len(many["rows"]) == 200 and many["truncated"] and many["cypher"].endswith("LIMIT 201")
    checked = client.post("/cypher", json={"query": "MATCH (d:Document) RETURN d.title AS title", "run": False})
    assert checked.json()["ran"] is False and checked.json()["rows"] == []
    not_a_number = client.post("/cypher", json={"query": "RETURN 0.0 / 0.0 AS nan, 1.0 / 0.0 AS inf"})
    assert not_a_number.status_code == 200 and not_a_number.json()["rows"] == [{"nan": None, "inf": None}]


@pytest.mark.parametrize(
    "query",
    [
        "MATCH (r:Region) DETACH DELETE r",
        "CREATE (:Region {region_id: 'evil'})",
        "MATCH (r:Region) SET r.text = 'overwritten' RETURN count(r)",
        "LOAD CSV FROM 'file:///etc/passwd' AS row RETURN row",
        "CALL dbms.security.listUsers()",
    ],
)
def test_cypher_refuses_writes_and_the_graph_is_unchanged(client: TestClient, store: GraphStore, query: str) -> None:
    before = graph_snapshot(store)
    assert_error(client.post("/cypher", json={"query": query}), 403, "read_only")
    assert graph_snapshot(store) == before


def test_cypher_errors_are_client_errors(client: TestClient, store: GraphStore) -> None:
    assert_error(client.post("/cypher", json={"query": "MATCH (r:Region RETURN r"}), 400, "query_syntax")
    missing = assert_error(client.post("/cypher", json={"query": "RETURN $missing AS x"}), 400, "query_failed")
    assert missing["message"] == 'the query uses $missing, which the parameters do not give (e.g. {"missing": ...})'
    # the error is placed in the query as written, not in the LIMIT line the server adds to it
    cut_short = assert_error(client.post("/cypher", json={"query": "MATCH (n) RETURN n LIMIT"}), 400, "query_syntax")
    assert cut_short["message"].startswith("Syntax error at line 1, column 25: ")
    both = {"query": "RETURN 1 AS one", "question": "one?"}
    assert_error(client.post("/cypher", json=both), 422, "invalid_request")
    assert_error(client.post("/cypher", json={}), 422, "invalid_request")
    nested = {"query": "RETURN $p AS p", "params": {"p": {"deep": [1]}}}
    assert_error(client.post("/cypher", json=nested), 422, "invalid_request")
    for name in ("", "1st", "a b", "x$"):  # not a Cypher parameter name (the drivers raise on "")
        unnamed = {"query": "RETURN 1 AS one", "params": {name: 1}}
        assert_error(client.post("/cypher", json=unnamed), 422, "invalid_request")


def test_text_to_cypher_and_llm_answers_through_an_llm_endpoint(
    client: TestClient, store: GraphStore, settings: Settings, tmp_path: Path
) -> None:
    with ScriptedLLMServer() as server:
        llm = settings.model_copy(  # a home of its own: one app of the process holds the store's ingest jobs
            update={"llm_base_url": server.base_url, "llm_api_key": "test-key", "llm_model": "test-model"}
            | {"home": tmp_path}
        )
        with TestClient(create_app(llm, store=store), base_url="http://localhost") as llm_client:
            server.add("```cypher\nMATCH (r:Region {kind: 'table'}) RETURN count(r) AS tables\n```")
            counted = llm_client.post("/cypher", json={"question": "How many tables are there?"})
            write = "```cypher\nMATCH (r:Region) DETACH DELETE r\n```"
            server.add(*[write] * llm.text2cypher_max_tries)
            refused = llm_client.post("/cypher", json={"question": "Delete all regions"})
            server.add(ROUTE_RETRIEVE, "The penguins are fed herring at 10:30 and at 15:00.")
            answered = llm_client.post("/ask", json={"question": "When are the penguins fed?", "k": 3})

    assert counted.status_code == 200, counted.text
    assert counted.json()["rows"] == [{"tables": 1}] and counted.json()["question"] == "How many tables are there?"
    error = assert_error(refused, 422, "no_valid_query")
    assert "not allowed" in error["message"]
    assert answered.status_code == 200, answered.text
    assert answered.json()["mode"] == "llm" and "10:30" in answered.json()["answer"]
    assert client.get("/health").json()["documents"] == 1  # nothing was deleted


def test_a_broken_or_hung_llm_endpoint_is_a_502_or_an_extractive_answer(
    client: TestClient, store: GraphStore, settings: Settings, tmp_path: Path
) -> None:
    question = {"question": "When are the penguins fed?", "k": 3}
    with ScriptedLLMServer() as server:
        llm = settings.model_copy(  # a home of its own: one app of the process holds the store's ingest jobs
            update={"llm_base_url": server.base_url, "llm_api_key": "k", "llm_model": "m", "llm_timeout_s": 1.0}
            | {"home": tmp_path, "llm_max_tokens": 200}
        )
        with TestClient(create_app(llm, store=store), base_url="http://localhost") as llm_client:
            html = Reply(raw=b"<html>502 Bad Gateway</html>", content_type="text/html")
            server.add(html, Reply(raw=b'data: {"choices": 7}\n\n'))
            garbage = llm_client.post("/ask", json=question)
            assert_error(garbage, 502, "llm_error")
            assert "not a chat completion" in garbage.json()["error"]["message"]

            server.requests.clear()
            server.add(*[Reply(ROUTE_RETRIEVE, delay_s=3.0)] * 2)
            started = time.monotonic()
            hung = llm_client.post("/ask", json=question)
            waited = time.monotonic() - started

            server.requests.clear()
            server.add(ROUTE_RETRIEVE, "The penguins are fed at 10:30 and 15:00.")
            assert llm_client.post("/ask", json=question).status_code == 200
    assert hung.status_code == 200, hung.text
    answer = hung.json()
    assert answer["mode"] == "extractive" and "10:30" in answer["answer"]
    assert any("did not answer within 1s" in str(step) and "extractive" in str(step) for step in answer["trace"])
    assert answer["timings"]["route"] >= 1.0  # the router's time-out counts: it said 0.0
    assert answer["llm_fallback"] and "did not answer within 1s" in answer["llm_fallback"]
    assert waited < 30  # one retry of a one-second limit, not minutes
    # Every call bounds its reply by the setting: the router's own limit (300) is lowered to it.
    assert [body.get("max_tokens") for body in server.requests] == [200, 200]

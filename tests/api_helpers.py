"""What the HTTP API tests share: a module-wide app over a fresh graph that ingests the bundled
sample through ``POST /documents``, job polling, and the error body's shape."""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from docgraph.app.api.app import create_app
from docgraph.app.config import Settings
from docgraph.app.resources import SAMPLES_DIR
from docgraph.app.stores.base import GraphStore
from docgraph.app.stores.factory import open_store
from docgraph.app.stores.falkordb_store import FalkorDBStore
from tests.conftest import fresh_graph_name

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

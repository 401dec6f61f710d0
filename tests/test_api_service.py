"""The HTTP API's service side: failures, the serve command, the OpenAPI schema and the JSON models.

The routes over a store with documents are in :mod:`tests.test_api`.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from docgraph.app.api.app import create_app
from docgraph.app.api.errors import CUT_OFF_MESSAGE
from docgraph.app.api.jobs import Job
from docgraph.app.api.models import (
    RETRIEVER_VARIANTS,
    AnswerModel,
    CitationModel,
    ContextRegionModel,
    CypherResultModel,
    IngestReportModel,
    JobModel,
    PassageModel,
    RegionHitModel,
)
from docgraph.app.config import Settings
from docgraph.app.llm.answer import AnswerResult
from docgraph.app.llm.citations import Citation
from docgraph.app.llm.context import Passage
from docgraph.app.llm.text2cypher import Text2CypherResult
from docgraph.app.pipeline.reports import IngestReport
from docgraph.app.retrieval.base import ContextRegion, ScoredRegion
from docgraph.app.retrieval.registry import RETRIEVER_NAMES
from tests.api_helpers import assert_error
from tests.conftest import fresh_graph_name
from tests.ui_helpers import wait_for_json

# ---- failures ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("store", "named"),
    [
        ("falkordb://127.0.0.1:1", "falkordb (graph nowhere)"),
        ("neo4j://alice@127.0.0.1:1/nowhere", "neo4j (graph nowhere)"),
    ],
)
def test_an_unreachable_store_is_503_without_its_address(local_home: Path, store: str, named: str) -> None:
    """/health and the 503s quoted the store's URL, user, host and port to any key's holder."""
    settings = Settings(home=local_home, store=store, graph="nowhere")
    with TestClient(create_app(settings), base_url="http://localhost") as unreachable:
        health = unreachable.get("/health")
        assert health.status_code == 503
        assert health.json()["status"] == "unavailable" and health.json()["documents"] is None
        documents = unreachable.get("/documents")
        assert_error(documents, 503, "store_unavailable")
        assert_error(unreachable.post("/retrieve", json={"query": "penguins"}), 503, "store_unavailable")
    for said in (health.json()["error"], documents.json()["error"]["message"]):
        assert named in said and "127.0.0.1" not in said and "alice" not in said, said
    if store.startswith("falkordb"):
        assert "Connection refused" in health.json()["error"]  # why, still


def test_unexpected_errors_are_a_json_500_without_details(tmp_path: Path) -> None:
    app: FastAPI = create_app(Settings(home=tmp_path))

    def explode() -> None:
        raise RuntimeError("secret internals at /srv/docgraph/app.py line 12")

    app.add_api_route("/explode", explode)
    with TestClient(app, base_url="http://localhost") as failing:
        response = failing.get("/explode")
    assert_error(response, 500, "internal_error")
    assert "secret" not in response.text and "/srv" not in response.text


def test_the_serve_command_serves_the_api_over_http(local_home: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    serve = "import typer; from docgraph.app.cli.serve_cmds import serve_command; typer.run(serve_command)"
    env = {**os.environ, "DOCGRAPH_HOME": str(local_home), "DOCGRAPH_GRAPH": fresh_graph_name(), "DOCGRAPH_STORE": ""}
    server = subprocess.Popen(
        [sys.executable, "-c", serve, "--port", str(port)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    output = ""
    try:
        health = wait_for_json(f"http://127.0.0.1:{port}/health", server)
        assert health["status"] == "ok" and health["documents"] == 0
        missing = httpx.get(f"http://127.0.0.1:{port}/jobs/none", timeout=10)
        assert missing.status_code == 404 and missing.json()["error"]["type"] == "not_found"
        with socket.create_connection(("127.0.0.1", port)) as stalled:  # an upload that never finishes
            head = f"POST /documents HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: 100000\r\n"
            stalled.sendall((head + "Content-Type: multipart/form-data; boundary=b\r\n\r\n--b\r\n").encode())
            time.sleep(0.5)
            server.terminate()
            output = server.communicate(timeout=120)[0]  # cut off after the grace: it waited for ever
            stalled.settimeout(10)
            cut_off = stalled.recv(65536).decode()  # was uvicorn's plain-text 500
    finally:
        if server.poll() is None:
            server.kill()
            output = server.communicate(timeout=30)[0]
    assert f"http://127.0.0.1:{port}" in output
    assert "Cancel 1 running task(s), timeout graceful shutdown exceeded" in output, output
    assert cut_off.startswith("HTTP/1.1 503 "), cut_off
    error = json.loads(cut_off.split("\r\n\r\n", 1)[1])["error"]
    assert (error["type"], error["message"]) == ("server_stopping", CUT_OFF_MESSAGE)
    assert "POST /documents was cut off: the server is stopping" in output and "Traceback" not in output


# ---- schema --------------------------------------------------------------------------------------


EVENT_NAMES = {"text": "Text", "answer": "End", "error": "Error"}


def test_the_openapi_schema_names_every_route(tmp_path: Path) -> None:
    with TestClient(
        create_app(Settings(home=tmp_path)), base_url="http://localhost"
    ) as client:  # the schema needs no store
        schema = client.get("/openapi.json").json()
    routes = {(path, method) for path, item in schema["paths"].items() for method in item}
    assert routes == {
        ("/health", "get"),
        ("/documents", "get"),
        ("/documents", "post"),
        ("/documents/{doc_id}", "delete"),
        ("/jobs", "get"),
        ("/jobs/{job_id}", "get"),
        ("/jobs/{job_id}", "delete"),
        ("/retrieve", "post"),
        ("/ask", "post"),
        ("/ask/stream", "post"),
        ("/cypher", "post"),
    }
    streamed = schema["paths"]["/ask/stream"]["post"]["responses"]["200"]["content"]
    assert streamed == {"application/x-ndjson": {"schema": {"$ref": "#/components/schemas/AnswerStreamEvent"}}}
    events = schema["components"]["schemas"]["AnswerStreamEvent"]["discriminator"]["mapping"]
    assert events == {kind: f"#/components/schemas/Answer{name}Event" for kind, name in EVENT_NAMES.items()}
    cancel_conflict = schema["paths"]["/jobs/{job_id}"]["delete"]["responses"]["409"]["description"]
    assert cancel_conflict == "The job has ended, or is writing its document: too late"
    assert schema["paths"]["/documents"]["post"]["responses"]["413"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/ErrorResponse"
    }
    variants = schema["components"]["schemas"]["RetrieveRequest"]["properties"]["variant"]
    assert set(json.dumps(variants).split('"')) >= set(RETRIEVER_NAMES)


def test_variants_in_the_schema_are_the_registered_ones() -> None:
    assert set(RETRIEVER_VARIANTS) == set(RETRIEVER_NAMES)


@pytest.mark.parametrize(
    ("model", "payload"),
    [
        (AnswerModel, AnswerResult(question="q").to_json()),
        (CypherResultModel, Text2CypherResult(question="q", cypher="RETURN 1").to_json()),
        (IngestReportModel, IngestReport(path=Path("x.pdf")).to_json()),
        (JobModel, Job(job_id="j", file_name="x.pdf", path=Path("x.pdf")).to_json()),
        (CitationModel, Citation("r", "d", 1, (0.0, 0.0, 1.0, 1.0), "table", "d p.1 #r").to_json()),
        (PassageModel, Passage("r", "d", 1, 0, "table", (0.0, 0.0, 1.0, 1.0), "t").to_json()),
        (ContextRegionModel, ContextRegion("r", 1, "caption", "t", "caption").to_json()),
        (
            RegionHitModel,
            {**ScoredRegion("r", "d", 1, (0.0, 0.0, 1.0, 1.0), "table", "t", 1.0).to_json(), "section_path": []},
        ),
    ],
)
def test_json_models_name_the_same_fields_as_to_json(model: type[Any], payload: dict[str, Any]) -> None:
    """The API and the CLI's --json print to_json(); the schema must describe exactly those fields."""
    assert set(model.model_fields) == set(payload)
    assert model.model_validate(payload).model_dump(mode="json") == json.loads(json.dumps(payload))

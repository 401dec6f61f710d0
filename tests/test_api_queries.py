"""The HTTP API's retrieval, answers and graph queries through the ASGI test client, over a real
FalkorDB store holding the bundled sample ingested through ``POST /documents``. LLM-backed routes
talk to the scripted OpenAI-compatible server of :mod:`tests.llm_server`."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from docgraph.app.api.app import create_app
from docgraph.app.config import Settings
from docgraph.app.stores.base import GraphStore
from tests.api_helpers import (
    ROUTE_RETRIEVE,
    SAMPLE_DOC,
    assert_error,
    client,
    graph_snapshot,
    job_states,
    settings,
    store,
)
from tests.llm_server import Reply, ScriptedLLMServer

__all__ = ["client", "job_states", "settings", "store"]  # the fixtures


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

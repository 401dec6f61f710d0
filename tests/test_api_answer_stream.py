"""``POST /ask/stream``: an answer's text as the model writes it, over a real FalkorDB store holding
the sample PDF and the scripted OpenAI-compatible server; through the ASGI test client, and through
a real uvicorn server for a client that hangs up."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from fastapi.testclient import TestClient

from docgraph.app.api import answer_stream
from docgraph.app.api.app import create_app
from docgraph.app.api.models import AnswerStreamEvent
from docgraph.app.config import Settings
from docgraph.app.llm.router import ROUTER_MAX_TOKENS
from docgraph.app.pipeline.build import build_ingest_pipeline
from docgraph.app.resources import SAMPLES_DIR
from docgraph.app.stores.base import GraphStore
from docgraph.app.stores.factory import open_store
from docgraph.app.stores.falkordb_store import FalkorDBStore
from tests.api_helpers import ROUTE_RETRIEVE, assert_error
from tests.conftest import fresh_graph_name, local_settings
from tests.llm_server import Reply, ScriptedLLMServer
from tests.ui_helpers import free_port, wait_for_json

QUESTION = {"question": "When are the penguins fed?", "k": 3}
ANSWER = "The penguins are fed herring at 10:30 and at 15:00."
FIRST_PIECE = b'data: {"id": "c", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": '


@pytest.fixture(scope="module")
def stored(local_home: Path) -> Iterator[tuple[Settings, GraphStore]]:
    """The sample PDF ingested into a graph of its own."""
    settings = local_settings(local_home, fresh_graph_name())
    store = open_store(settings)
    assert isinstance(store, FalkorDBStore)
    store.apply_schema()
    store.wait_for_indexes()
    report = build_ingest_pipeline(store, settings).ingest(SAMPLES_DIR / "docgraph-sample.pdf")
    assert report.status == "ingested", report.error
    yield settings, store
    store.delete_graph()
    store.close()


@pytest.fixture
def llm() -> Iterator[ScriptedLLMServer]:
    with ScriptedLLMServer() as server:
        yield server


@pytest.fixture
def api(stored: tuple[Settings, GraphStore], llm: ScriptedLLMServer, tmp_path: Path) -> Iterator[TestClient]:
    settings, store = stored
    with TestClient(create_app(with_llm(settings, llm, tmp_path), store=store), base_url="http://localhost") as client:
        yield client


def with_llm(settings: Settings, llm: ScriptedLLMServer, home: Path, timeout_s: float = 10.0) -> Settings:
    """``settings`` answering through the scripted server, in a home of their own (one app of the
    process holds a store's ingest jobs)."""
    endpoint = {"llm_base_url": llm.base_url, "llm_api_key": "k", "llm_model": "m", "llm_timeout_s": timeout_s}
    return settings.model_copy(update={**endpoint, "home": home})


def events(client: TestClient, body: dict[str, Any]) -> list[dict[str, Any]]:
    with client.stream("POST", "/ask/stream", json=body) as response:
        assert response.status_code == 200, response.read()
        assert response.headers["content-type"] == "application/x-ndjson"
        assert response.headers["x-accel-buffering"] == "no"  # a proxy in front passes each event on
        streamed = [json.loads(line) for line in response.iter_lines() if line]
    for event in streamed:  # each as the OpenAPI schema describes it
        assert AnswerStreamEvent.model_validate(event).root.event == event["event"]
    return streamed


def test_the_text_comes_in_pieces_and_the_whole_answer_last(api: TestClient, llm: ScriptedLLMServer) -> None:
    llm.add(ROUTE_RETRIEVE, ANSWER)
    streamed = events(api, QUESTION)
    texts, last = streamed[:-1], streamed[-1]
    assert len(texts) > 1 and {event["event"] for event in texts} == {"text"}
    assert "".join(event["text"] for event in texts) == ANSWER
    assert last["event"] == "answer"
    answer = last["answer"]
    assert (answer["mode"], answer["answer"], answer["question"]) == ("llm", ANSWER, QUESTION["question"])
    assert answer["evidence"] and answer["trace"]
    assert llm.requests[-1]["stream"] is True


def test_an_answer_without_the_model_streams_its_quotes(stored: tuple[Settings, GraphStore]) -> None:
    settings, store = stored
    with TestClient(create_app(settings, store=store), base_url="http://localhost") as client:
        streamed = events(client, QUESTION)
    assert [event["event"] for event in streamed] == ["text", "answer"]
    assert streamed[1]["answer"]["mode"] == "extractive" and streamed[0]["text"] == streamed[1]["answer"]["answer"]


def test_a_failure_before_any_text_is_an_error_response(api: TestClient, llm: ScriptedLLMServer) -> None:
    llm.add(ROUTE_RETRIEVE, Reply(raw=b""))  # the answer's stream ends with nothing in it
    error = assert_error(api.post("/ask/stream", json=QUESTION), 502, "llm_error")
    assert error["message"].startswith("the LLM endpoint ended the stream without sending a completion")
    assert_error(api.post("/ask/stream", json={**QUESTION, "doc_id": "no-such-document"}), 404, "not_found")
    assert_error(api.post("/ask/stream", json={"question": " "}), 422, "invalid_request")


def test_a_failure_after_the_first_text_is_the_last_event(api: TestClient, llm: ScriptedLLMServer) -> None:
    broken = FIRST_PIECE + b'{"content": "The penguins"}, "finish_reason": null}]}\n\n'
    broken += b'data: {"error": {"message": "the model crashed", "type": "server_error"}}\n\n'
    llm.add(ROUTE_RETRIEVE, Reply(raw=broken))
    streamed = events(api, QUESTION)
    assert streamed[0] == {"event": "text", "text": "The penguins"}
    assert streamed[-1]["event"] == "error" and len(streamed) == 2
    assert (streamed[-1]["error"]["status"], streamed[-1]["error"]["type"]) == (502, "llm_error")
    assert "the model crashed" in streamed[-1]["error"]["message"]


def test_a_time_out_mid_answer_says_so_and_quotes_the_documents(
    stored: tuple[Settings, GraphStore], llm: ScriptedLLMServer, tmp_path: Path
) -> None:
    settings, store = stored
    llm.add(ROUTE_RETRIEVE, Reply(ANSWER, stall_after=3, stall_s=4.0))
    app = create_app(with_llm(settings, llm, tmp_path, timeout_s=1.0), store=store)
    with TestClient(app, base_url="http://localhost") as client:
        streamed = events(client, QUESTION)
    text = "".join(event["text"] for event in streamed if event["event"] == "text")
    assert "within 1s" in text and "the answer below quotes the documents" in text
    assert streamed[-1]["event"] == "answer" and streamed[-1]["answer"]["mode"] == "extractive"


@pytest.fixture
def served(stored: tuple[Settings, GraphStore], llm: ScriptedLLMServer, tmp_path: Path) -> Iterator[str]:
    """The app under a real uvicorn on 127.0.0.1, in a thread of this process; its URL."""
    settings, store = stored
    port = free_port()
    config = uvicorn.Config(create_app(with_llm(settings, llm, tmp_path), store=store), port=port, log_level="error")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server.started, "uvicorn did not start"
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(30)


def answer_threads() -> list[threading.Thread]:
    return [thread for thread in threading.enumerate() if thread.name == "docgraph-answer"]


def test_a_client_that_hangs_up_stops_the_answer(served: str, llm: ScriptedLLMServer) -> None:
    """The model's reply is given up (its stream closed) at its next piece, and nothing is asked after it."""
    words = [f" word{i}" for i in range(40)]
    llm.add(ROUTE_RETRIEVE, Reply(tokens=words, pace_s=0.1), "a reread must not be asked")
    with httpx.stream("POST", f"{served}/ask/stream", json=QUESTION, timeout=60) as response:
        assert response.status_code == 200
        first = json.loads(next(response.iter_lines()))
        assert first == {"event": "text", "text": " word0"}
    deadline = time.monotonic() + 30
    while answer_threads() and time.monotonic() < deadline:  # the next piece finds no client
        time.sleep(0.1)
    assert not answer_threads()
    while not llm.hung_up and time.monotonic() < deadline:  # its next write after the close fails
        time.sleep(0.1)
    assert len(llm.requests) == 2 and len(llm.replies) == 1  # the router and the answer, no reread
    assert len(llm.hung_up) == 1 and llm.hung_up[0] < len(words)  # the answer's reply was closed before its end


def test_streamed_answers_wait_for_a_slot(served: str, llm: ScriptedLLMServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each stream answered in a thread of its own, with no bound on how many at once."""
    monkeypatch.setattr(answer_stream, "ANSWER_SLOTS", threading.BoundedSemaphore(1))
    slow = Reply(tokens=[f" word{i}" for i in range(20)], pace_s=0.05)
    llm.add(ROUTE_RETRIEVE, slow, ROUTE_RETRIEVE, ANSWER)

    def streamed() -> str:
        with httpx.stream("POST", f"{served}/ask/stream", json=QUESTION, timeout=60) as response:
            return json.loads(list(response.iter_lines())[-1])["event"]

    with ThreadPoolExecutor(2) as pool:
        ends = list(pool.map(lambda _: streamed(), range(2)))
    assert ends == ["answer", "answer"]
    routed = [body["max_tokens"] == ROUTER_MAX_TOKENS for body in llm.requests]
    assert routed == [True, False, True, False]  # the second answer began once the first had ended


@pytest.mark.parametrize("route", ["/ask/stream", "/ask"])
def test_a_client_gone_before_any_text_asks_the_model_nothing_more(
    served: str, llm: ScriptedLLMServer, route: str
) -> None:
    """Gone while the question was routed, the answer was still asked of the model, then dropped
    (POST /ask: the whole answer, rereads too)."""
    llm.add(Reply(ROUTE_RETRIEVE, delay_s=2.0), "an answer must not be asked")
    with pytest.raises(httpx.ReadTimeout):
        httpx.post(f"{served}{route}", json=QUESTION, timeout=0.5)  # hangs up while the router thinks
    deadline = time.monotonic() + 30
    while answer_threads() and time.monotonic() < deadline:  # the router's reply finds nobody waiting
        time.sleep(0.1)
    time.sleep(3.0)  # the router's 2 s, then the answer: were it asked, it would be by now
    assert not answer_threads()
    # the router only (or nothing, when the client left before the question reached it: models loading)
    assert len(llm.requests) <= 1 and len(llm.requests) + len(llm.replies) == 2


def test_a_stopping_server_ends_the_answers_under_way(
    stored: tuple[Settings, GraphStore], llm: ScriptedLLMServer, local_home: Path, tmp_path: Path
) -> None:
    """SIGTERM to `docgraph serve` while a streamed answer and a whole one are being written: each
    ends at the model's next piece with a 503 ``server_stopping`` (not a minute later, once the
    model is done), and the server shuts down."""
    settings, _ = stored
    minute = Reply(tokens=[f" word{i}" for i in range(600)], pace_s=0.1)
    llm.add(ROUTE_RETRIEVE, minute, ROUTE_RETRIEVE, minute)
    port = free_port()
    env = {
        **os.environ,
        "DOCGRAPH_HOME": str(tmp_path),
        "DOCGRAPH_STORE": f"falkordb-local://{local_home}?graph={settings.graph}",
        "DOCGRAPH_LLM_BASE_URL": llm.base_url,
        "DOCGRAPH_LLM_API_KEY": "k",
        "DOCGRAPH_LLM_MODEL": "m",
    }
    command = [sys.executable, "-m", "docgraph.app.cli.main", "serve", "--port", str(port)]
    server = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    url = f"http://127.0.0.1:{port}"
    try:
        wait_for_json(f"{url}/health", server)
        with (
            httpx.stream("POST", f"{url}/ask/stream", json=QUESTION, timeout=120) as response,
            ThreadPoolExecutor(1) as pool,
        ):
            lines = response.iter_lines()
            assert json.loads(next(lines)) == {"event": "text", "text": " word0"}
            whole = pool.submit(httpx.post, f"{url}/ask", json=QUESTION, timeout=120)
            deadline = time.monotonic() + 60
            while len(llm.requests) < 4 and time.monotonic() < deadline:  # the whole answer's model call began
                time.sleep(0.1)
            assert len(llm.requests) == 4
            server.send_signal(signal.SIGTERM)
            last = [json.loads(line) for line in lines if line][-1]
            stopped = whole.result()
        assert last["event"] == "error" and last["error"]["type"] == "server_stopping", last
        assert_error(stopped, 503, "server_stopping")
        assert server.wait(60) == -signal.SIGTERM  # shut down, then ended by the signal, as uvicorn re-raises it
    finally:
        server.kill()
        output = server.communicate(timeout=30)[0]
    assert "Shutting down" in output and "Finished server process" in output, output


def test_a_stopping_server_takes_no_new_answer_or_query(
    stored: tuple[Settings, GraphStore], llm: ScriptedLLMServer, tmp_path: Path
) -> None:
    """Asked once the server has begun to stop (an answer that waited for a slot, say): refused with
    503 ``server_stopping`` before any retrieval or model call, with or without an LLM, and a
    question for text-to-Cypher too."""
    settings, store = stored
    for answering in (with_llm(settings, llm, tmp_path / "llm"), settings.model_copy(update={"home": tmp_path})):
        app = create_app(answering, store=store)
        with TestClient(app, base_url="http://localhost") as client:
            app.state.docgraph.stopping.set()
            assert_error(client.post("/ask", json=QUESTION), 503, "server_stopping")
            assert_error(client.post("/ask/stream", json=QUESTION), 503, "server_stopping")
            assert_error(client.post("/cypher", json={"question": "How many pages?"}), 503, "server_stopping")
    assert llm.requests == []

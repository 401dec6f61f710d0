"""``GET /health?check_llm=true``: whether the configured LLM answers, asked of the scripted
OpenAI-compatible server (its model list), of a port where nothing listens, and of local: files."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from docgraph.app.api.app import create_app
from docgraph.app.config import Settings
from tests.conftest import fresh_graph_name
from tests.llm_server import ScriptedLLMServer
from tests.ui_helpers import free_port


@pytest.fixture(autouse=True)
def session_store(local_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The apps' store: a graph of the session's local FalkorDB (a data home of its own would start one)."""
    monkeypatch.setenv("DOCGRAPH_STORE", f"falkordb-local://{local_home}?graph={fresh_graph_name()}")


OPENAI_V1 = "OpenAI-compatible /v1 address?"


def health(settings: Settings, **params: str) -> dict[str, Any]:
    with TestClient(create_app(settings), base_url="http://localhost") as client:
        response = client.get("/health", params=params)
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def endpoint(tmp_path: Path, url: str, model: str = "m") -> Settings:
    return Settings(home=tmp_path, llm_base_url=url, llm_api_key="k", llm_model=model)


def test_without_the_check_or_an_llm_nothing_is_asked(tmp_path: Path) -> None:
    with ScriptedLLMServer() as server:
        unasked = health(endpoint(tmp_path / "a", server.base_url))
        assert (unasked["llm"], unasked["llm_reachable"], unasked["llm_error"]) == (True, None, "")
        assert server.model_lists == 0
    nothing = health(Settings(home=tmp_path / "b", llm_base_url="", llm_api_key=""), check_llm="true")
    assert (nothing["llm"], nothing["llm_reachable"]) == (False, None)


def test_an_endpoint_that_lists_its_models_answers(tmp_path: Path) -> None:
    with ScriptedLLMServer() as server:
        checked = health(endpoint(tmp_path, server.base_url), check_llm="true")
    assert (checked["status"], checked["llm_reachable"], checked["llm_error"]) == ("ok", True, "")


@pytest.mark.parametrize(
    ("models", "status", "problem"),
    [
        (["gpt-a", "gpt-b"], 200, "the LLM endpoint does not serve the model 'm' (it serves: gpt-a, gpt-b)"),
        (["m"], 401, "the LLM endpoint refused the API key (HTTP 401)"),
        (["m"], 500, "the LLM endpoint answered HTTP 500 to a request for its models"),
        (["m"], 404, "the LLM endpoint has no model list (HTTP 404): is its URL the server's " + OPENAI_V1),
    ],
)
def test_an_endpoint_that_cannot_answer_says_why(tmp_path: Path, models: list[str], status: int, problem: str) -> None:
    with ScriptedLLMServer(models=models, models_status=status) as server:
        checked = health(endpoint(tmp_path, server.base_url), check_llm="true")
    assert (checked["status"], checked["llm_reachable"], checked["llm_error"]) == ("ok", False, problem)


def test_a_server_of_one_model_answers_for_any_name(tmp_path: Path) -> None:
    """llama.cpp's server lists its one model by file path and answers whatever name is asked."""
    with ScriptedLLMServer(models=["/models/smollm2.gguf"]) as server:
        checked = health(endpoint(tmp_path, server.base_url, model="another-name"), check_llm="true")
    assert (checked["llm_reachable"], checked["llm_error"]) == (True, "")


def test_an_endpoint_where_nothing_listens_cannot_be_reached(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    checked = health(endpoint(tmp_path, url), check_llm="true")
    assert checked["llm_reachable"] is False
    assert checked["llm_error"] == "the LLM endpoint cannot be reached: connection refused"  # no host named


def test_a_local_model_must_be_a_readable_gguf_file(tmp_path: Path) -> None:
    text = tmp_path / "notes.gguf"
    text.write_text("not a model")
    gguf = tmp_path / "tiny.gguf"
    gguf.write_bytes(b"GGUF" + bytes(60))
    cases = {
        tmp_path / "missing.gguf": "the local model's file cannot be read: No such file or directory",
        text: "the local model's file is not a GGUF file",
        gguf: "",
    }
    for index, (path, problem) in enumerate(cases.items()):
        settings = Settings(home=tmp_path / f"home{index}", llm_model=f"local:{path}")
        checked = health(settings, check_llm="true")
        assert (checked["llm_reachable"], checked["llm_error"]) == (not problem, problem), path

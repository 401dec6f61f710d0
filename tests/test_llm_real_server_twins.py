"""Twins of the scripted-server LLM tests, run against the real model server (issue 51): llama.cpp's
OpenAI-compatible server with SmolLM2-135M-Instruct (tests/llama_server.py), over a real store
holding the sample PDF and the hand-built zoo document (tests/llm_data.py) that two shipped
eval-cypher questions ask about.

The scripted tests pin what the code does with a given reply; these check the integration with a
model that writes what it likes: the HTTP API's /ask and /cypher, the LangChain tool and example
chain, the router, sub-questions, abstention, the uncertainty loop on real log-probabilities, the
Streamlit ask page and ``docgraph eval-cypher``. The 135M model writes poor answers and poor Cypher,
so only what must hold whatever it says is asserted: modes, routes, fallbacks by the code's rules,
JSON shapes, rows as the accepted query gives them, an unchanged graph, and tokens counted and
bounded (llama.cpp sends no usage chunk: prompts are unreported, replies are counted from the
stream). Replies are 48 tokens; text-to-Cypher's tests run one after another, so the server
reuses its evaluation of their ~3,100-token system prompt.
"""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from openai.resources.chat.completions import Completions
from typer.testing import CliRunner

from docgraph.app.api.app import create_app
from docgraph.app.cli.main import app
from docgraph.app.config import Settings
from docgraph.app.evaluation.cypher_bench import same_rows
from docgraph.app.integrations.langchain import DocgraphCypherTool
from docgraph.app.llm.client import Completion, LLMClient, Message, TokenUsage
from docgraph.app.llm.cypher_guard import check_read_only
from docgraph.app.llm.router import ROUTER_MAX_TOKENS, ROUTES, classify_by_rules, parse_decision, route_question
from docgraph.app.llm.service import NOT_ANSWERED, ask
from docgraph.app.pipeline.build import build_ingest_pipeline
from docgraph.app.resources import ROOT
from docgraph.app.retrieval.registry import make_retriever
from docgraph.app.stores.base import GraphStore
from docgraph.app.stores.factory import open_store
from docgraph.models.encoder_loader import load_encoder
from docgraph.models.encoders import TextEncoder
from tests.api_helpers import assert_error
from tests.conftest import fresh_graph_name
from tests.llama_server import llama_server, missing_reason, smollm2_model
from tests.llm_data import zoo_batch
from tests.test_ui_apptest import no_failure, page, texts
from tests.ui_helpers import FOREIGN_ENV

pytestmark = [pytest.mark.skipif(missing_reason() is not None, reason=str(missing_reason())), pytest.mark.timeout(900)]

SAMPLE = ROOT / "samples" / "docgraph-sample.pdf"
QUESTION = "When are the penguins fed?"
TWO_PART = "When are the penguins fed, and when are the seals fed?"  # split by the rules, or by the model
NONSENSE = "xqzv blorft wibble"
STRUCTURAL = "How many tables are there?"
OVERFLOW = "9 " * 1999 + "?"  # ~2,000 tokens: with text-to-Cypher's prompt, past the 4,096-token context
MAX_TOKENS = 48
MAX_TRIES = 2
ROW_LIMIT = 5
EVAL_QUESTIONS = ("cy-15", "cy-21")  # about the zoo document: a count and a caption listing
ANSWER_KEYS = {"answer", "mode", "route", "citations", "invented_tags", "evidence", "tokens", "entropy", "trace"}


@pytest.fixture(scope="module")
def base(local_home: Path) -> Settings:
    return Settings(home=local_home, graph=fresh_graph_name(), store="")


@pytest.fixture(scope="module")
def store(base: Settings) -> Iterator[GraphStore]:
    graph_store = open_store(base)
    graph_store.apply_schema()
    report = build_ingest_pipeline(graph_store, base).ingest(SAMPLE)
    assert report.status == "ingested", report.error
    graph_store.write_document(zoo_batch())
    graph_store.wait_for_indexes()
    yield graph_store
    graph_store.delete_graph()  # type: ignore[attr-defined]
    graph_store.close()


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with llama_server() as url:
        yield url


@pytest.fixture(scope="module")
def encoder() -> TextEncoder:
    return load_encoder()


@pytest.fixture(scope="module")
def api(base: Settings, store: GraphStore, server: str) -> Iterator[TestClient]:
    with TestClient(create_app(with_llm(base, server), store=store), base_url="http://localhost") as client:
        yield client


def with_llm(settings: Settings, url: str, **overrides: Any) -> Settings:
    """``settings`` with the real server as the LLM endpoint, 48-token replies, no re-reads."""
    values: dict[str, Any] = {"llm_base_url": url, "llm_api_key": "none", "llm_model": str(smollm2_model())}
    values |= {"llm_max_tokens": MAX_TOKENS, "llm_max_rereads": 0, "llm_timeout_s": 300.0}
    values |= {"text2cypher_max_tries": MAX_TRIES, "text2cypher_row_limit": ROW_LIMIT}
    return settings.model_copy(update={**values, **overrides})


@dataclass
class RecordingClient(LLMClient):
    """A client that keeps every completion it got, so a test can read what the model said."""

    replies: list[Completion] = field(default_factory=list)

    def chat(self, messages: list[Message], **options: Any) -> Completion:
        completion = super().chat(messages, **options)
        self.replies.append(completion)
        return completion


def steps(trace: list[dict[str, Any]], name: str) -> list[dict[str, Any]]:
    return [step for step in trace if step["step"] == name]


def cypher_tries(trace: list[dict[str, Any]]) -> int:
    """How many queries text-to-Cypher asked for in an answer (its trace says so, or its error)."""
    for step in steps(trace, "cypher"):
        return int(step.get("tries") or re.findall(r"after (\d+) tries", step["error"])[0])
    return 0


def check_tokens(tokens: dict[str, int], trace: list[dict[str, Any]], routed: bool = True) -> None:
    """One call per router reply, query try and answer round; each unreported by llama.cpp, its reply
    counted from the stream and bounded by its max_tokens."""
    bounded = cypher_tries(trace) + len(steps(trace, "generate"))
    calls = int(routed) + bounded
    assert (tokens["calls"], tokens["unreported"], tokens["prompt"]) == (calls, calls, 0), tokens
    assert 0 < tokens["completion"] <= ROUTER_MAX_TOKENS * routed + MAX_TOKENS * bounded, tokens


def check_cited(answer: dict[str, Any]) -> None:
    """Citations name evidence regions; invented tags were taken out of the answer and counted."""
    evidence = {passage["region_id"] for passage in answer["evidence"]}
    assert {citation["region_id"] for citation in answer["citations"]} <= evidence
    assert answer["removed_citations"] == len(answer["invented_tags"])
    assert not any(f"[{tag}]" in answer["answer"] for tag in answer["invented_tags"])


def check_rows(cypher: str, rows: list[dict[str, Any]], store: GraphStore) -> bool:
    """The accepted query is read-only and its rows are what it gives, cut at the row limit; whether
    they were cut."""
    check_read_only(cypher)
    every = store.read(cypher)
    assert len(rows) == min(len(every), ROW_LIMIT), (cypher, rows, every)
    return len(every) > ROW_LIMIT


def graph_counts(store: GraphStore) -> tuple[dict[str, int], dict[str, int]]:
    counts = store.counts()
    return counts.labels, counts.relationship_types


# ---- the router, sub-questions, abstention, the uncertainty loop -------------------------------


def test_the_router_takes_the_models_decision_only_when_it_is_valid(server: str) -> None:
    client = RecordingClient(server, "none", str(smollm2_model()), timeout_s=300.0)
    for question in (QUESTION, STRUCTURAL):
        usage = TokenUsage()
        decision = route_question(question, client, usage)
        reply = client.replies[-1].text
        expected = parse_decision(reply, question) or classify_by_rules(question)
        assert decision.route in ROUTES and decision.by == expected.by, (reply, decision)
        assert (decision.route, decision.sub_questions) == (expected.route, expected.sub_questions)
        if decision.by == "rules":
            assert decision.reason.endswith("(LLM router reply was not a valid decision)")
        assert (usage.calls, usage.unreported, usage.prompt) == (1, 1, 0)
        assert (usage.completion > 0) == bool(reply) and usage.completion <= ROUTER_MAX_TOKENS
    refused = route_question("9 " * 4500, client)  # past the context: llama.cpp's empty stream
    assert refused.by == "rules" and "LLM router failed: the LLM endpoint ended the stream" in refused.reason


def test_an_abstained_question_asks_the_model_only_for_its_route(
    store: GraphStore, base: Settings, server: str, encoder: TextEncoder
) -> None:
    streamed: list[str] = []
    retriever = make_retriever("hybrid", store, encoder)
    result = ask(NONSENSE, store, with_llm(base, server), retriever, stream_callback=streamed.append)
    if result.cypher is None:  # no generated query answered it: the evidence was judged, below the bar
        assert result.abstained and result.mode == "extractive" and result.answer.startswith(NOT_ANSWERED)
        assert "".join(streamed) == result.answer and not steps(result.trace, "generate")
    check_tokens(result.tokens.to_json(), result.trace)


def test_sub_questions_and_rereads_on_real_logprobs(
    store: GraphStore, base: Settings, server: str, encoder: TextEncoder
) -> None:
    chunks: list[str] = []
    settings = with_llm(base, server, llm_max_rereads=1, llm_entropy_threshold=0.0)  # always unsure
    retriever = make_retriever("bm25-region", store, encoder)
    result = ask(TWO_PART, store, settings, retriever, k=2, stream_callback=chunks.append)
    route = steps(result.trace, "route")[0]
    queries = [step["query"] for step in steps(result.trace, "retrieve")]
    if result.cypher is None:  # retrieved: once per sub-question when the question was split
        assert queries == (route["sub_questions"] if route["route"] == "decompose" else [TWO_PART])
    rounds = steps(result.trace, "generate")
    entropies = [step["entropy"] for step in rounds]
    assert all(isinstance(entropy, float) and entropy > 0 for entropy in entropies), rounds
    outcomes = [step["outcome"] for step in rounds]
    assert outcomes[:-1] == ["reread"] * result.rereads and outcomes[-1] in ("reread limit", "no more evidence")
    assert result.rereads == 1 or result.cypher is not None  # retrieved evidence always has more to read
    kept = min(range(len(entropies)), key=lambda i: (entropies[i], -i))  # the latest of equals
    assert [step["round"] for step in steps(result.trace, "kept")] == ([kept] if result.rereads else [])
    assert result.entropy == pytest.approx(entropies[kept], abs=1e-4)
    streamed = "".join(chunks)
    assert streamed.count("re-reading with more evidence") == result.rereads
    assert ("was the most certain" in streamed) == (kept < result.rereads)
    if kept < result.rereads:  # the stream showed the last round, then says which one stands
        assert streamed.endswith(result.answer)
    check_tokens(result.tokens.to_json(), result.trace)


# ---- LangChain's example chain, the Streamlit ask page, the HTTP API's /ask ---------------------


def test_the_langchain_example_chain_answers_with_sources(
    base: Settings, server: str, store: GraphStore, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    spec = importlib.util.spec_from_file_location("langchain_chain", ROOT / "examples" / "langchain_chain.py")
    assert spec is not None and spec.loader is not None
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    env = {"DOCGRAPH_HOME": str(base.home), "DOCGRAPH_GRAPH": base.graph, "DOCGRAPH_STORE": ""}
    env |= {"OPENAI_BASE_URL": server, "OPENAI_API_KEY": "none", "DOCGRAPH_LLM_MODEL": str(smollm2_model())}
    env |= {"DOCGRAPH_LLM_MAX_TOKENS": str(MAX_TOKENS)}
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    sent: list[dict[str, Any]] = []
    monkeypatch.setattr(Completions, "create", recorded_create(Completions.create, sent))
    monkeypatch.setattr(sys, "argv", ["langchain_chain.py", QUESTION, "--k", "3"])
    example.main()
    answer, _, sources = capsys.readouterr().out.partition("\nSources:\n")
    assert answer.strip() and len(sent) == 1 and not sent[0].get("stream")  # one whole, non-streamed reply
    assert sent[0]["max_tokens"] == MAX_TOKENS  # the example bounds its reply by DOCGRAPH_LLM_MAX_TOKENS
    assert "Question: When are the penguins fed?" in str(sent[0]["messages"][-1]["content"])
    lines = sources.splitlines()
    assert 1 <= len(lines) <= 3 and all(re.match(r"  (docgraph-sample|zoo) p\.\d+ \w+ \(", ln) for ln in lines)


def recorded_create(create: Any, sent: list[dict[str, Any]]) -> Any:
    """The SDK's ``create``, recording each request it is asked to send."""

    def create_recorded(self: Completions, **options: Any) -> Any:
        sent.append(options)
        return create(self, **options)

    return create_recorded


def test_the_ask_page_shows_the_models_answer_and_its_route(
    base: Settings, server: str, store: GraphStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in FOREIGN_ENV:
        monkeypatch.delenv(name, raising=False)
    env = {"DOCGRAPH_HOME": str(base.home), "DOCGRAPH_GRAPH": base.graph, "DOCGRAPH_LLM_MAX_REREADS": "0"}
    env |= {"OPENAI_BASE_URL": server, "OPENAI_API_KEY": "none", "DOCGRAPH_LLM_MODEL": str(smollm2_model())}
    env |= {"DOCGRAPH_LLM_MAX_TOKENS": str(MAX_TOKENS)}
    env |= {"DOCGRAPH_LLM_MAX_TOKENS": str(MAX_TOKENS), "DOCGRAPH_LLM_TIMEOUT_S": "300"}
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    at = page("ask").run()
    at.slider[0].set_value(2)  # passages: a short prompt
    at.chat_input[0].set_value(QUESTION).run()
    no_failure(at)
    result = at.session_state["ask_history"][0]
    assert result.mode == "llm" and result.answer.strip()
    assert f"route: {result.route} · answer: llm" in texts(at.caption)
    if result.cypher:
        assert at.code[0].value == result.cypher
    check_tokens(result.tokens.to_json(), result.trace)


def test_api_ask_answers_from_the_model(api: TestClient) -> None:
    reply = api.post("/ask", json={"question": QUESTION, "k": 2})
    assert reply.status_code == 200, reply.text
    answer = reply.json()
    assert set(answer) >= ANSWER_KEYS and answer["route"] in ROUTES
    assert answer["mode"] == "llm" and answer["answer"].strip() and not answer["abstained"]
    rounds = steps(answer["trace"], "generate")
    assert len(rounds) == 1 and isinstance(rounds[0]["entropy"], float) and answer["entropy"] == rounds[0]["entropy"]
    check_cited(answer)
    check_tokens(answer["tokens"], answer["trace"])


def test_health_finds_the_real_server_answering(api: TestClient) -> None:
    checked = api.get("/health", params={"check_llm": "true"}).json()
    assert (checked["status"], checked["llm"], checked["llm_reachable"], checked["llm_error"]) == ("ok", True, True, "")


def test_api_ask_stream_sends_the_models_text_then_the_answer(api: TestClient) -> None:
    with api.stream("POST", "/ask/stream", json={"question": QUESTION, "k": 2}) as reply:
        assert reply.status_code == 200 and reply.headers["content-type"] == "application/x-ndjson"
        events = [json.loads(line) for line in reply.iter_lines() if line]
    texts, last = events[:-1], events[-1]
    assert texts and {event["event"] for event in texts} == {"text"}, events
    assert last["event"] == "answer" and set(last["answer"]) >= ANSWER_KEYS
    answer = last["answer"]
    assert answer["mode"] == "llm" and answer["answer"].strip() and not answer["abstained"]
    streamed = "".join(event["text"] for event in texts)
    assert streamed.strip() == answer["answer"].strip() or answer["removed_citations"]  # as the CLI shows it
    check_tokens(answer["tokens"], answer["trace"])


# ---- text-to-Cypher: /cypher, the LangChain tool, eval-cypher, a forced /ask (one after another) --


def post_through_cypher(api: TestClient, store: GraphStore, path: str, body: dict[str, Any]) -> Any:
    """POST a request answered by text-to-Cypher; the graph stays as it was. Its JSON, or None when
    the model wrote no valid query in MAX_TRIES tries (a 422 that says so)."""
    before = graph_counts(store)
    reply = api.post(path, json=body)
    assert graph_counts(store) == before
    if reply.status_code == 200:
        return reply.json()
    assert f"no valid read-only query after {MAX_TRIES} tries" in assert_error(reply, 422, "no_valid_query")["message"]
    return None


def test_api_cypher_runs_the_models_query_or_says_why_not(api: TestClient, store: GraphStore) -> None:
    result = post_through_cypher(api, store, "/cypher", {"question": STRUCTURAL})
    if result is None:
        return
    assert result["question"] == STRUCTURAL and result["ran"] is True
    attempts = result["attempts"]
    assert 1 <= len(attempts) <= MAX_TRIES and attempts[-1]["error"] == "" and all(a["error"] for a in attempts[:-1])
    assert check_rows(result["cypher"], result["rows"], store) == result["truncated"]
    check_tokens(result["tokens"], [{"step": "cypher", "tries": len(attempts)}], routed=False)


def test_api_cypher_past_the_context_is_a_502_with_llamas_reason(api: TestClient) -> None:
    error = assert_error(api.post("/cypher", json={"question": OVERFLOW}), 502, "llm_error")
    assert error["message"].startswith("the LLM endpoint ended the stream without sending a completion")


def test_the_cypher_tool_returns_rows_or_the_refusal(store: GraphStore, base: Settings, server: str) -> None:
    before = graph_counts(store)
    tool = DocgraphCypherTool(store=store, settings=with_llm(base, server))
    output = tool.invoke({"question": "How many captions are there?"})
    assert graph_counts(store) == before
    if output.startswith("{"):
        result = json.loads(output)
        assert set(result) == {"cypher", "rows", "truncated"}
        assert check_rows(result["cypher"], result["rows"], store) == result["truncated"]
    else:  # the failure is the tool's answer, for an agent to act on
        assert f"no valid read-only query after {MAX_TRIES} tries" in output


def test_eval_cypher_scores_the_models_queries(base: Settings, server: str, store: GraphStore, tmp_path: Path) -> None:
    shipped = (ROOT / "tests" / "data" / "cypher_questions.jsonl").read_text().splitlines()
    chosen = [json.loads(line) for line in shipped if line and json.loads(line)["id"] in EVAL_QUESTIONS]
    questions = tmp_path / "questions.jsonl"
    questions.write_text("".join(json.dumps(q) + "\n" for q in chosen))
    env = {
        "DOCGRAPH_HOME": str(tmp_path),
        "DOCGRAPH_LLM_BASE_URL": server,
        "DOCGRAPH_LLM_API_KEY": "none",
        "DOCGRAPH_LLM_MODEL": str(smollm2_model()),
    }
    env |= {"DOCGRAPH_LLM_MAX_TOKENS": str(MAX_TOKENS), "DOCGRAPH_LLM_TIMEOUT_S": "300"}
    env |= {"DOCGRAPH_TEXT2CYPHER_MAX_TRIES": str(MAX_TRIES), "DOCGRAPH_TEXT2CYPHER_ROW_LIMIT": str(ROW_LIMIT)}
    store_url = f"falkordb-local://{base.home}?graph={base.graph}"  # the store the other tests ask
    done = CliRunner().invoke(app, ["eval-cypher", str(questions), "--store", store_url, "--json"], env=env)
    assert done.exit_code == 0, done.output
    report = json.loads(done.stdout)
    outcomes = {outcome["id"]: outcome for outcome in report["questions"]}
    assert len(chosen) == 2 and set(outcomes) == set(EVAL_QUESTIONS) and report["model"] == str(smollm2_model())
    for question in chosen:
        check_outcome(outcomes[question["id"]], question, store)
    overall = report["summary"]["all"]
    assert overall["n"] == 2 and {"count", "caption"} <= set(report["summary"])
    assert overall["execution_accuracy"] == sum(o["correct"] for o in outcomes.values()) / 2
    assert overall["tokens"] == sum(o["tokens"] for o in outcomes.values())


def check_outcome(outcome: dict[str, Any], question: dict[str, Any], store: GraphStore) -> None:
    """Tries and tokens bounded; a valid query's rows compared with the gold rows as the bench says."""
    assert 1 <= outcome["tries"] <= MAX_TRIES and 0 < outcome["tokens"] <= MAX_TOKENS * outcome["tries"]
    assert outcome["first_try_valid"] == (outcome["valid"] and outcome["tries"] == 1)
    if not outcome["valid"]:
        assert not outcome["correct"] and outcome["tries"] == MAX_TRIES and "no valid read-only" in outcome["error"]
        return
    rows, gold = store.read(outcome["query"]), store.read(question["gold"])
    assert gold  # the zoo document holds what the question asks about
    assert outcome["correct"] == (same_rows(rows, gold, question["ordered"]) and len(rows) <= ROW_LIMIT)


def test_api_ask_forced_through_cypher(api: TestClient, store: GraphStore) -> None:
    answer = post_through_cypher(api, store, "/ask", {"question": STRUCTURAL, "force_cypher": True})
    if answer is None:
        return
    assert answer["route"] == "cypher" and answer["mode"] == "llm" and answer["cypher"]
    assert steps(answer["trace"], "route")[0]["by"] == "forced" and not steps(answer["trace"], "retrieve")
    check_rows(answer["cypher"], answer["rows"], store)
    check_cited(answer)
    check_tokens(answer["tokens"], answer["trace"], routed=False)

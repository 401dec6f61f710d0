"""Per-model entropy thresholds: `docgraph calibrate-uncertainty` against the scripted server (real
HTTP, real log-probabilities in the replies, a real store), then the loop using what it saved."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from docgraph.app.cli.main import app
from docgraph.app.jobs.calibrate_uncertainty import upper_quantile
from docgraph.app.llm.calibration import calibration_path
from docgraph.app.llm.client import TokenLogprob
from docgraph.app.llm.service import ask
from docgraph.app.llm.uncertainty import mean_token_entropy
from docgraph.app.retrieval.registry import make_retriever
from docgraph.app.stores.base import GraphStore
from docgraph.models.encoder_loader import load_encoder
from tests.llm_data import llm_settings, zoo_batch
from tests.llm_server import Reply, ScriptedLLMServer, confident, hesitant, uncertain

QUESTION = "When are the penguins fed?"
ROUTE_RETRIEVE = json.dumps({"route": "retrieve", "reason": "one fact", "sub_questions": []})
ANSWER = "At 10:00 [zoo p.1 #r1]."


def entropy_of(reply: Reply) -> float:
    assert reply.logprobs is not None
    entries = [TokenLogprob("t", chosen, tuple(lp for _, lp in top)) for chosen, top in reply.logprobs]
    value = mean_token_entropy(entries)
    assert value is not None
    return value


def cli_env(server: ScriptedLLMServer, store: GraphStore, local_home: Path, home: Path) -> dict[str, str]:
    graph = store.graph_name  # type: ignore[attr-defined]
    return {
        "DOCGRAPH_HOME": str(home),
        "DOCGRAPH_STORE": f"falkordb-local://{local_home}?graph={graph}",
        "DOCGRAPH_LLM_BASE_URL": server.base_url,
        "DOCGRAPH_LLM_API_KEY": "test-key",
        "DOCGRAPH_LLM_MODEL": "test-model",
    }


def calibration_questions(folder: Path, count: int) -> Path:
    questions = folder / "questions.jsonl"
    questions.write_text("".join(json.dumps({"question": QUESTION}) + "\n" for _ in range(count)))
    return questions


CALIBRATE = ["calibrate-uncertainty", "--retriever", "bm25-region"]


def test_a_calibrated_model_rereads_only_its_least_certain_answers(
    falkordb_store: GraphStore, local_home: Path, tmp_path: Path
) -> None:
    falkordb_store.write_document(zoo_batch())
    questions = calibration_questions(tmp_path, 6)
    answers = [confident(ANSWER)] * 3 + [hesitant(ANSWER)] * 2 + [uncertain(ANSWER)]
    home = tmp_path / "home"
    with ScriptedLLMServer() as server:
        for answer in answers:
            server.add(ROUTE_RETRIEVE, answer)
        done = CliRunner().invoke(
            app, [*CALIBRATE, str(questions), "--json"], env=cli_env(server, falkordb_store, local_home, home)
        )
        assert done.exit_code == 0, done.output
        report = json.loads(done.stdout)
        first_rounds = [body for body in server.requests if body.get("logprobs")]

        retriever = make_retriever("bm25-region", falkordb_store, load_encoder())
        server.add(ROUTE_RETRIEVE, hesitant(ANSWER))
        calibrated = ask(QUESTION, falkordb_store, llm_settings(server.base_url, home), retriever, k=1)
        server.add(ROUTE_RETRIEVE, hesitant(ANSWER), confident(ANSWER))
        explicit = llm_settings(server.base_url, home, llm_entropy_threshold=0.6)
        set_by_hand = ask(QUESTION, falkordb_store, explicit, retriever, k=1)

    hesitant_entropy = entropy_of(hesitant(ANSWER))
    expected = upper_quantile([entropy_of(answer) for answer in answers], 0.25)
    assert len(first_rounds) == 6  # one answer per question: no re-reads while calibrating
    assert report["threshold"] == pytest.approx(expected, abs=1e-4) and report["answers_with_entropy"] == 6
    saved = json.loads(calibration_path(home).read_text())
    assert saved["test-model"]["threshold"] == report["threshold"] and saved["test-model"]["share"] == 0.25
    # The default 0.6 nats would re-read a hesitant answer; the model's own threshold does not.
    assert hesitant_entropy > 0.6 and hesitant_entropy <= float(str(report["threshold"]))
    assert {"step": "uncertainty", "threshold": report["threshold"], "threshold_from": "calibrated"} in calibrated.trace
    assert calibrated.rereads == 0
    assert {"step": "uncertainty", "threshold": 0.6, "threshold_from": "setting"} in set_by_hand.trace
    assert set_by_hand.rereads == 1


def test_calibrating_without_log_probabilities_is_a_clear_error(
    falkordb_store: GraphStore, local_home: Path, tmp_path: Path
) -> None:
    """Answers that timed out (and fell back to quotes) were counted as "no log-probabilities": a
    review's model did give them, and needed a longer DOCGRAPH_LLM_TIMEOUT_S."""
    falkordb_store.write_document(zoo_batch())
    questions = calibration_questions(tmp_path, 5)
    home = tmp_path / "home"
    with ScriptedLLMServer() as server:
        for _ in range(2):  # past the 1 s limit, and once more as the client tries again: no answer
            server.add(ROUTE_RETRIEVE, Reply(ANSWER, delay_s=3.0), Reply(ANSWER, delay_s=3.0))
        for _ in range(3):
            server.add(ROUTE_RETRIEVE, ANSWER)  # plain replies: no log-probabilities
        env = {**cli_env(server, falkordb_store, local_home, home), "DOCGRAPH_LLM_TIMEOUT_S": "1"}
        done = CliRunner().invoke(app, [*CALIBRATE, str(questions), "--json"], env=env)
    assert done.exit_code == 1
    said = json.loads(done.stdout)["error"]
    assert said.startswith("only 0 of 5 answers of test-model could be measured (at least 5 are needed): 2 got no ")
    assert "raise DOCGRAPH_LLM_TIMEOUT_S" in said
    assert said.endswith("; 3 came without log-probabilities (the endpoint gave none)")
    assert not calibration_path(home).exists()  # nothing half-calibrated is saved


def test_too_few_questions_are_refused_before_the_model_is_asked(
    falkordb_store: GraphStore, local_home: Path, tmp_path: Path
) -> None:
    """Two questions were asked of the model first (21 s on a CPU model), then refused as "only 2 of 2
    answers came with log-probabilities", which they all had."""
    falkordb_store.write_document(zoo_batch())
    questions = calibration_questions(tmp_path, 2)
    with ScriptedLLMServer() as server:
        env = cli_env(server, falkordb_store, local_home, tmp_path / "home")
        done = CliRunner().invoke(app, [*CALIBRATE, str(questions)], env=env)
        asked = len(server.requests)
    assert done.exit_code == 1 and asked == 0
    assert done.output == "error: 2 questions make no threshold: give at least 5\n"


def test_a_share_out_of_range_is_refused_before_the_endpoint_is_looked_for(tmp_path: Path) -> None:
    """Without an endpoint it said "no LLM endpoint configured" about a --share of 1.5."""
    questions = calibration_questions(tmp_path, 5)
    env = {"DOCGRAPH_HOME": str(tmp_path / "home"), "DOCGRAPH_LLM_BASE_URL": "", "OPENAI_BASE_URL": ""}
    done = CliRunner().invoke(app, [*CALIBRATE, str(questions), "--share", "1.5", "--json"], env=env)
    assert (done.exit_code, json.loads(done.stdout)["error"]) == (1, "--share must lie between 0 and 1, not 1.5")

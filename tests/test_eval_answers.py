"""``docgraph eval --answers``: the answer measures, and the whole ask path per question on the sample
PDF in a real store (extractive answers: no LLM endpoint)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from docgraph.app.cli.main import app
from docgraph.app.config import Settings
from docgraph.app.evaluation.answers import AnswerOutcome, normalised, summary, token_f1
from docgraph.app.evaluation.runner import run_eval_scopes
from docgraph.app.resources import ROOT
from docgraph.app.stores.falkordb_store import FalkorDBStore
from docgraph.models.encoder_loader import load_encoder
from tests.llm_data import sample_eval_inputs
from tests.llm_server import Reply, ScriptedLLMServer, confident

SAMPLE = ROOT / "samples" / "docgraph-sample.pdf"
QUESTIONS = [
    {"id": "s1", "doc": SAMPLE.name, "question": "When are the penguins fed?", "pages": [1], "answer": "10:30"},
    {"id": "s2", "doc": SAMPLE.name, "question": "How large is the seal pool?", "pages": [2], "answer": "1,150"},
    {"id": "s3", "doc": SAMPLE.name, "question": "Which extension reaches the duty manager?", "pages": [2]},
]


def outcome(**changes: object) -> AnswerOutcome:
    values: dict[str, object] = {
        "id": "q",
        "type": "local",
        "gold_answer": "10:30",
        "cited_gold": 1,
        "cited": 2,
        "gold_at_word": 150,
        "words_before_gold_page": 40,
        "answer": "At 10:30 and 15:00.",
        "abstained": False,
    }
    values.update(changes)
    return AnswerOutcome(**values)  # type: ignore[arg-type]


def test_answers_are_compared_on_normalised_words() -> None:
    assert normalised("At 10:30, Daily!") == "at 10 30 daily"
    assert token_f1("twice a day at 10:30", "10:30") == 2 * (2 / 6) * 1 / (2 / 6 + 1)
    assert token_f1("", "10:30") == 0.0 and token_f1("at noon", "10:30") == 0.0


def test_summary_names_each_measure_and_counts_only_questions_with_a_gold_answer() -> None:
    rows = [outcome(), outcome(gold_at_word=None, cited_gold=0, words_before_gold_page=None), outcome(gold_answer="")]
    row = summary(rows)
    assert row["n"] == 3 and row["with_gold_answer"] == 2
    assert row["context_recall@100"] == 0.0 and row["context_recall@200"] == 0.5 and row["context_recall@400"] == 0.5
    assert row["evidence_recall"] == round(2 / 3, 4) and row["citation_precision"] == round(2 / 6, 4)
    assert row["context_words_before_gold"] == 40 and row["answer_contains_gold"] == 1.0
    # Whole words: the gold "8" is not in "1998"; a gold of punctuation alone is no gold answer.
    partial = summary([outcome(gold_answer="8", answer="Founded in 1998."), outcome(gold_answer="—", answer="x")])
    assert partial["with_gold_answer"] == 1 and partial["answer_contains_gold"] == 0.0
    # "10:30" is two words ("10 30"): begun at word 199 it ends past the first 200
    straddling = summary([outcome(gold_at_word=198), outcome(gold_at_word=199)])
    assert straddling["context_recall@200"] == 0.5 and straddling["context_recall@400"] == 1.0


def test_eval_answers_runs_the_ask_path_on_a_real_store(tmp_path: Path) -> None:
    docs, questions = sample_eval_inputs(tmp_path, QUESTIONS)
    args = ["eval", str(questions), "--docs", str(docs), "--variant", "hybrid", "--variant", "bm25-page"]
    env = {"DOCGRAPH_HOME": str(tmp_path / "home"), "DOCGRAPH_LLM_BASE_URL": ""}
    done = CliRunner().invoke(app, [*args, "--answers", "--scope", "both", "--misses", "--json"], env=env)
    assert done.exit_code == 0, done.output
    scopes = json.loads(done.stdout)["scopes"]
    for scope in ("document", "corpus"):
        answers = scopes[scope]["answers"]
        assert set(answers) == {"hybrid", "bm25-page"}
        hybrid = answers["hybrid"]
        assert hybrid["n"] == 3 and hybrid["with_gold_answer"] == 2
        # The penguin and seal-pool answers are on their pages and in the first words read.
        assert hybrid["evidence_recall"] >= 2 / 3 and hybrid["context_recall@400"] == 1.0
        assert hybrid["gold_page_in_context"] == 1.0 and hybrid["abstained"] == 0.0
        # --misses: the questions whose gold answer was not within the first 200 words.
        missed = {m["id"] for m in hybrid["misses"]}
        assert len(missed) == round((1 - hybrid["context_recall@200"]) * hybrid["with_gold_answer"])
    plain = CliRunner().invoke(app, [*args, "--answers"], env=env)
    assert plain.exit_code == 0 and "context_recall@200" in plain.stdout and "answers (document)" in plain.stdout
    # A temporary store: "not stored, changed since, or stored by another reader" gave no reason that fit.
    assert plain.stdout.startswith("ingested into a temporary store before scoring, removed afterwards (1; ")


def test_a_question_the_endpoint_fails_is_counted_and_the_run_goes_on(tmp_path: Path) -> None:
    docs, questions = sample_eval_inputs(tmp_path, QUESTIONS)
    route = json.dumps({"route": "retrieve", "reason": "one fact", "sub_questions": []})
    broken = Reply(raw=b"<html>502 Bad Gateway</html>", content_type="text/html")
    with ScriptedLLMServer() as server:
        server.add(route, confident("At 10:30."), route, broken, route, confident("Extension 2."))
        env = {"DOCGRAPH_HOME": str(tmp_path / "home"), "DOCGRAPH_LLM_BASE_URL": server.base_url}
        args = ["eval", str(questions), "--docs", str(docs), "--variant", "bm25-page", "--answers", "--json"]
        done = CliRunner().invoke(app, args, env={**env, "DOCGRAPH_LLM_API_KEY": "k", "DOCGRAPH_LLM_MODEL": "m"})
    assert done.exit_code == 0, done.output
    answers = json.loads(done.stdout)["answers"]["bm25-page"]
    assert answers["n"] == 3 and answers["errors"] == 1
    assert answers["answer_contains_gold"] == 0.5  # the penguin answer holds its gold; the failed one counts as a miss
    said = "warning: 1 of 3 questions of bm25-page got no answer from the LLM endpoint and count as misses (first: "
    assert done.stderr.count(said) == 1  # nothing said it, under --json or not

    # Every request refused: all measures 0.0 and exit 0 before; nothing was measured
    with ScriptedLLMServer() as server:
        server.add(*[Reply(status=400, error="the prompt is too long")] * 12)
        env["DOCGRAPH_LLM_BASE_URL"] = server.base_url
        refused = CliRunner().invoke(app, args, env={**env, "DOCGRAPH_LLM_API_KEY": "k", "DOCGRAPH_LLM_MODEL": "m"})
    assert refused.exit_code == 1 and json.loads(refused.stdout)["exit_code"] == 1  # no scores: the error
    assert refused.stderr.startswith("error: nothing measured: the LLM endpoint answered no question (first: ")


def test_answers_a_timed_out_llm_left_to_the_documents_are_counted_and_named(tmp_path: Path) -> None:
    """They were scored as the model's answers, and nothing said the model had given none."""
    docs, questions = sample_eval_inputs(tmp_path, QUESTIONS)
    route = json.dumps({"route": "retrieve", "reason": "one fact", "sub_questions": []})
    hung = Reply("too late", delay_s=3.0)
    script = [route, confident("At 10:30."), route, hung, hung, route, confident("Extension 2.")]
    env = {
        "DOCGRAPH_HOME": str(tmp_path / "home"),
        "DOCGRAPH_LLM_API_KEY": "k",
        "DOCGRAPH_LLM_MODEL": "m",
        "DOCGRAPH_LLM_TIMEOUT_S": "1",
    }
    args = ["eval", str(questions), "--docs", str(docs), "--variant", "bm25-page", "--answers"]
    with ScriptedLLMServer() as server:
        server.add(*script, *script)
        env["DOCGRAPH_LLM_BASE_URL"] = server.base_url
        done = CliRunner().invoke(app, [*args, "--json"], env=env)
        plain = CliRunner().invoke(app, args, env=env)
    assert done.exit_code == 0, done.output
    answers = json.loads(done.stdout)["answers"]["bm25-page"]
    assert answers["llm_fallbacks"] == 1 and answers["errors"] == 0
    assert plain.exit_code == 0, plain.output
    warning = "warning: 1 of 3 answers of bm25-page quote the documents, the LLM having given none (first: "
    assert plain.stderr.count(warning) == 1 and "did not answer within 1s" in plain.stderr
    table = plain.stdout[plain.stdout.index("answers (document)") :].splitlines()[:2]
    assert table[1].split()[-1] == "1" and len(table[0]) == len(table[1])  # the row stands under its header


def test_eval_answers_reports_progress_question_by_question(falkordb_store: FalkorDBStore, tmp_path: Path) -> None:
    """With an LLM each ask takes seconds; the bar stood at 'eval hybrid 0/N' for all of them."""
    docs, questions = sample_eval_inputs(tmp_path, QUESTIONS)
    told: list[tuple[str, int, int]] = []
    settings = Settings(home=tmp_path / "home", graph=falkordb_store.graph_name, store="", llm_base_url="")
    run_eval_scopes(
        questions,
        docs,
        ["bm25-page"],
        falkordb_store,
        load_encoder(),
        lambda *step: told.append(step),
        settings,
        answers=True,
    )
    assert [step for step in told if step[0] == "answers bm25-page (document)"] == [
        ("answers bm25-page (document)", done, 3)
        for done in range(1, 4)  # after each: the bar ends full
    ]

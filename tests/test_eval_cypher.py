"""``docgraph eval-cypher``: rows compared with the gold query's, the repair loop's tries and tokens
counted, on a real store (the sample PDF) with the scripted model server."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from docgraph.app.cli.main import app
from docgraph.app.evaluation.cypher_bench import load_cypher_questions, same_rows
from docgraph.app.resources import ROOT
from docgraph.errors import QuestionsError
from tests.llm_data import sample_eval_inputs
from tests.llm_server import Reply, ScriptedLLMServer

SAMPLE = ROOT / "samples" / "docgraph-sample.pdf"
QUESTIONS = [
    {
        "id": "s-01",
        "question": "How many pages does the zoo manual have?",
        "gold": "MATCH (p:Page {doc_id: 'docgraph-sample'}) RETURN count(p) AS pages",
        "type": "count",
    },
    {
        "id": "s-02",
        "question": "List the section titles of the zoo manual in order.",
        "gold": "MATCH (s:Section {doc_id: 'docgraph-sample'}) RETURN s.title ORDER BY s.title",
        "type": "list",
        "ordered": True,
    },
]


def eval_cypher(questions: Path, docs: Path, server: ScriptedLLMServer, tmp_path: Path) -> Result:
    """``docgraph eval-cypher QUESTIONS --docs DOCS --json`` with ``server`` as the model."""
    env = {
        "DOCGRAPH_HOME": str(tmp_path / "home"),
        "DOCGRAPH_LLM_BASE_URL": server.base_url,
        "DOCGRAPH_LLM_API_KEY": "test-key",
        "DOCGRAPH_LLM_MODEL": "test-model",
    }
    return CliRunner().invoke(app, ["eval-cypher", str(questions), "--docs", str(docs), "--json"], env=env)


def test_rows_are_compared_by_value_and_order_only_when_asked() -> None:
    assert same_rows([{"a": 1, "b": "x"}], [{"n": 1.0, "t": "x"}], ordered=False)
    assert same_rows([{"a": 2}, {"a": 1}], [{"b": 1}, {"b": 2}], ordered=False)
    assert not same_rows([{"a": 2}, {"a": 1}], [{"b": 1}, {"b": 2}], ordered=True)
    assert not same_rows([{"a": 1}], [{"a": 1}, {"a": 1}], ordered=False)


def test_the_shipped_benchmark_file_loads() -> None:
    questions = load_cypher_questions(ROOT / "tests" / "data" / "cypher_questions.jsonl")
    assert len(questions) >= 40 and len({q.id for q in questions}) == len(questions)
    assert {"count", "list", "section", "caption", "reference", "continuation", "page"} <= {q.type for q in questions}


@pytest.mark.parametrize(
    ("fields", "refusal"),
    [
        ({"ordered": "false"}, "'ordered' must be true or false"),  # was taken as true
        ({"gold": None}, "'gold' must be a non-empty string"),  # was the query "None", run after the ingest
        ({"type": "all"}, "'all' names the whole set"),  # was merged into the overall row
    ],
)
def test_a_cypher_question_of_the_wrong_kind_is_refused(
    tmp_path: Path, fields: dict[str, object], refusal: str
) -> None:
    record = {"id": "c1", "question": "How many tables?", "gold": "MATCH (t:Table) RETURN count(t)"}
    path = tmp_path / "q.jsonl"
    path.write_text(json.dumps({**record, **fields}) + "\n")
    with pytest.raises(QuestionsError, match=re.escape(refusal)):
        load_cypher_questions(path)
    path.write_text((json.dumps(record) + "\n") * 2)
    with pytest.raises(QuestionsError, match="duplicate question id 'c1'"):
        load_cypher_questions(path)
    path.write_bytes(b"\xef\xbb\xbf" + (json.dumps(record) + "\r\n").encode())  # saved by a Windows editor
    assert [q.id for q in load_cypher_questions(path)] == ["c1"]


def test_eval_cypher_scores_the_models_queries_against_the_gold_rows(tmp_path: Path) -> None:
    docs, questions = sample_eval_inputs(tmp_path, QUESTIONS)
    with ScriptedLLMServer() as server:
        server.add(
            "```c\nMATCH (p:Page {doc_id: 'docgraph-sample'}) RETURN count(p)\n```",  # right, first try
            "MATCH (s:Section {doc_id: 'docgraph-sample'} RETURN s.title",  # a syntax error, fed back
            "MATCH (s:Section {doc_id: 'docgraph-sample'}) RETURN s.title ORDER BY s.title DESC",  # wrong order
        )
        done = eval_cypher(questions, docs, server, tmp_path)
        repair_prompt = server.prompts()[2]
    assert done.exit_code == 0, done.output
    report = json.loads(done.stdout)
    outcomes = {q["id"]: q for q in report["questions"]}
    assert outcomes["s-01"]["correct"] and outcomes["s-01"]["first_try_valid"] and outcomes["s-01"]["tries"] == 1
    assert (
        not outcomes["s-02"]["correct"] and not outcomes["s-02"]["first_try_valid"] and outcomes["s-02"]["tries"] == 2
    )
    assert "Invalid input" in repair_prompt or "errMsg" in repair_prompt or "line" in repair_prompt
    overall = report["summary"]["all"]
    assert overall["n"] == 2 and overall["execution_accuracy"] == 0.5 and overall["first_try_valid"] == 0.5
    assert report["summary"]["count"]["execution_accuracy"] == 1.0 and overall["tokens"] > 0


def test_a_refused_request_fails_its_question_and_whole_nodes_compare_by_value(tmp_path: Path) -> None:
    """A request the server refuses is that question's failure, not a broken gold query ending the
    run; rows that hold whole nodes (maps) are compared by their properties."""
    node_question = {
        "id": "s-03",
        "question": "Show the zoo manual's Document node.",
        "gold": "MATCH (d:Document {doc_id: 'docgraph-sample'}) RETURN d",
        "type": "list",
    }
    docs, questions = sample_eval_inputs(tmp_path, [QUESTIONS[0], node_question])
    with ScriptedLLMServer() as server:
        server.add(Reply(status=400, error="the prompt is too long"), "MATCH (d:Document) RETURN d AS document")
        done = eval_cypher(questions, docs, server, tmp_path)
    assert done.exit_code == 0, done.output
    outcomes = {q["id"]: q for q in json.loads(done.stdout)["questions"]}
    assert not outcomes["s-01"]["correct"] and "the prompt is too long" in outcomes["s-01"]["error"]
    assert outcomes["s-01"]["unanswered"] and not outcomes["s-03"]["unanswered"]
    assert outcomes["s-03"]["correct"] and outcomes["s-03"]["valid"]
    assert json.loads(done.stdout)["summary"]["all"]["unanswered"] == 1


def test_a_run_the_model_answered_no_question_of_is_an_error(tmp_path: Path) -> None:
    """A wrong model name scored "0 % execution accuracy" with exit 0: the setup, not the model."""
    docs, questions = sample_eval_inputs(tmp_path, QUESTIONS)
    with ScriptedLLMServer() as server:
        server.add(*[Reply(status=404, error="The model `wrong` does not exist")] * 4)
        done = eval_cypher(questions, docs, server, tmp_path)
    assert done.exit_code == 1 and json.loads(done.stdout)["error"].startswith("nothing measured")  # no scores
    assert done.stderr.startswith("error: nothing measured: 2 of 2 questions got no reply from the model (first: ")
    assert "does not exist" in done.stderr and len(done.stderr.splitlines()) == 1


def test_a_repair_try_refused_after_an_answered_one_is_not_a_question_left_unanswered(tmp_path: Path) -> None:
    """The model answered (a broken query); the longer repair prompt was refused: counted as "no reply"."""
    docs, questions = sample_eval_inputs(tmp_path, QUESTIONS[:1])
    with ScriptedLLMServer() as server:
        server.add("MATCH (p:Page {doc_id: 'docgraph-sample'} RETURN count(p)", Reply(status=400, error="too long"))
        done = eval_cypher(questions, docs, server, tmp_path)
    assert done.exit_code == 0, done.output  # something was measured
    (outcome,) = json.loads(done.stdout)["questions"]
    assert not outcome["unanswered"] and outcome["tries"] == 2 and "too long" in outcome["error"]


def test_eval_cypher_needs_an_endpoint(tmp_path: Path) -> None:
    questions = tmp_path / "questions.jsonl"
    questions.write_text(json.dumps(QUESTIONS[0]) + "\n")
    env = {"DOCGRAPH_HOME": str(tmp_path / "home"), "DOCGRAPH_LLM_BASE_URL": "", "DOCGRAPH_LLM_API_KEY": ""}
    done = CliRunner().invoke(app, ["eval-cypher", str(questions), "--docs", str(tmp_path)], env=env)
    assert done.exit_code == 1 and done.stderr.strip().startswith("error: no LLM endpoint configured (set ")
    assert "answers are extractive" not in done.stderr  # what ask says, not a benchmark
    storeless = CliRunner().invoke(app, ["eval-cypher", str(questions)], env=env)
    assert storeless.exit_code == 1 and "needs --docs" in storeless.output  # not a run on an empty store


def test_a_gold_answer_of_more_rows_than_the_row_limit_can_be_matched(tmp_path: Path) -> None:
    """The written-query row limit (200) would cut the model's rows short of a longer gold answer:
    the eval reads as many rows as the gold query holds, and one row more is still a wrong answer."""
    long_answer = {
        "id": "s-04",
        "question": "Count to 250.",
        "gold": "UNWIND range(1, 250) AS n RETURN n",
        "type": "list",
    }
    too_long = {**long_answer, "id": "s-05"}
    docs, questions = sample_eval_inputs(tmp_path, [long_answer, too_long])
    with ScriptedLLMServer() as server:
        server.add("UNWIND range(1, 250) AS n RETURN n", "UNWIND range(1, 251) AS n RETURN n")
        done = eval_cypher(questions, docs, server, tmp_path)
    assert done.exit_code == 0, done.output
    outcomes = {q["id"]: q for q in json.loads(done.stdout)["questions"]}
    assert outcomes["s-04"]["correct"] and not outcomes["s-05"]["correct"]


def test_gold_queries_that_find_nothing_in_the_store_are_said(tmp_path: Path) -> None:
    """A store without the questions' documents scored 66.7 % (a wrong query matched the gold's empty
    rows), exit 0: now an error when no gold query finds anything, a warning when some find nothing."""
    import fitz

    missing = {
        "id": "s-09",
        "question": "How many pages does the harbour report have?",
        "gold": "MATCH (p:Page {doc_id: 'harbour-report'}) RETURN count(p) AS pages",
        "type": "count",
    }
    docs, questions = sample_eval_inputs(tmp_path, [missing])
    (docs / SAMPLE.name).unlink()
    with fitz.open() as pdf:
        pdf.new_page().insert_text((72, 72), "A page about something else.")
        pdf.save(docs / "other.pdf")
    with ScriptedLLMServer() as server:
        done = eval_cypher(questions, docs, server, tmp_path)
        assert server.requests == []  # refused before the model is asked
    assert done.exit_code == 1 and json.loads(done.stdout)["error"].startswith("the gold queries")
    assert done.stderr.startswith("error: the gold queries find nothing in this store (no rows, or only zeros")

    (tmp_path / "partial").mkdir()
    docs, questions = sample_eval_inputs(tmp_path / "partial", [QUESTIONS[0], missing])
    with ScriptedLLMServer() as server:
        server.add("MATCH (p:Page {doc_id: 'docgraph-sample'}) RETURN count(p)", "RETURN 0 AS pages")
        done = eval_cypher(questions, docs, server, tmp_path / "partial")
    assert done.exit_code == 0, done.output
    assert "warning: 1 of 2 gold queries find nothing in this store (s-09): are their documents stored?" in done.stderr
    assert json.loads(done.stdout)["summary"]["all"]["execution_accuracy"] == 1.0  # counted, and said

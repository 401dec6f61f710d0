"""Page Recall@K against a tiny case computed by hand, and the questions-file loader."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from docgraph.app.evaluation.metrics import (
    QuestionOutcome,
    hit_at,
    recall,
    recall_by_type,
)
from docgraph.app.evaluation.paired import compare, compare_by_type, mcnemar_exact
from docgraph.app.evaluation.questions import QuestionsError, load_questions
from docgraph.app.evaluation.runner import EvalReport, VariantResult, format_table
from docgraph.app.retrieval.base import ScoredRegion
from docgraph.app.retrieval.pages import rank_pages


def outcome(question: str, kind: str, gold: set[int], pages: tuple[int, ...], doc: str = "doc") -> QuestionOutcome:
    """A question about ``doc`` whose ranked pages are all in ``doc``."""
    return QuestionOutcome(question, kind, doc, frozenset(gold), tuple((doc, page) for page in pages))


# Four questions, ranked pages best first. By hand:
#   q1 gold {3}:    ranked 3,...       -> hit @1, @3, @5
#   q2 gold {7, 8}: ranked 1,2,8,...   -> miss @1, hit @3, @5
#   q3 gold {9}:    ranked 1,2,3,4,9   -> miss @1, @3, hit @5
#   q4 gold {5}:    ranked 1,2,3,4,6   -> miss everywhere
# Recall@1 = 1/4, Recall@3 = 2/4, Recall@5 = 3/4.
# By type: table (q1, q2) -> @1 1/2, @3 2/2, @5 2/2; local (q3, q4) -> @1 0, @3 0, @5 1/2.
OUTCOMES = [
    outcome("q1", "table", {3}, (3, 1, 2, 4, 5)),
    outcome("q2", "table", {7, 8}, (1, 2, 8, 4, 5)),
    outcome("q3", "local", {9}, (1, 2, 3, 4, 9)),
    outcome("q4", "local", {5}, (1, 2, 3, 4, 6)),
]


def test_recall_matches_hand_computed_values() -> None:
    summary = recall(OUTCOMES)
    assert summary.n == 4
    assert summary.recall == {1: 0.25, 3: 0.5, 5: 0.75}


def test_recall_by_type_matches_hand_computed_values() -> None:
    by_type = recall_by_type(OUTCOMES)
    assert set(by_type) == {"table", "local"}
    assert by_type["table"].n == 2 and by_type["table"].recall == {1: 0.5, 3: 1.0, 5: 1.0}
    assert by_type["local"].n == 2 and by_type["local"].recall == {1: 0.0, 3: 0.0, 5: 0.5}


def test_repeated_pages_count_once_towards_k() -> None:
    # Page 1 three times is one page: page 4 is the second distinct page, so within K=2.
    assert hit_at([1, 1, 1, 4], {4}, 2)
    assert not hit_at([1, 2, 4], {4}, 2)


def test_a_page_of_another_document_is_a_miss_whatever_its_number() -> None:
    # Asked of the whole store: gold page 3 of "a"; page 3 of "b" ranked first is a miss at 1.
    asked = QuestionOutcome("q", "local", "a", frozenset({3}), (("b", 3), ("a", 3), ("b", 1)))
    assert not asked.hit(1) and asked.hit(3) and asked.first_hit_rank() == 2
    assert not asked.right_document(1) and asked.right_document(2)
    assert asked.to_json()["ranked"] == ["b p.3", 3, "b p.1"]


def test_eval_report_json_has_the_agreed_schema() -> None:
    report = EvalReport(n=4, variants={"hybrid": VariantResult("hybrid", list(OUTCOMES))})
    data = report.to_json()
    assert data == {
        "n": 4,
        "scope": "document",
        "documents": 0,
        "ingested": [],
        "variants": {
            "hybrid": {
                "recall@1": 0.25,
                "recall@3": 0.5,
                "recall@5": 0.75,
                "by_type": {
                    "local": {"n": 2, "recall@1": 0.0, "recall@3": 0.0, "recall@5": 0.5},
                    "table": {"n": 2, "recall@1": 0.5, "recall@3": 1.0, "recall@5": 1.0},
                },
            }
        },
    }
    json.dumps(data)  # serialisable as is


# The same questions ranked by another variant. By hand:
#   q1 ranked 1,3,... -> miss @1, hit @3      q2 ranked 8,...  -> hit @1
#   q3 ranked 9,...   -> hit @1               q4 ranked 1..6   -> miss everywhere
# Against it, OUTCOMES win q1 and lose q2, q3 at @1 (1/2); lose q3 at @3 (0/1); tie at @5 (0/0).
OTHER = [
    outcome("q1", "table", {3}, (1, 3, 2, 4, 5)),
    outcome("q2", "table", {7, 8}, (8, 1, 2, 4, 5)),
    outcome("q3", "local", {9}, (9, 1, 2, 3, 4)),
    outcome("q4", "local", {5}, (1, 2, 3, 4, 6)),
]


def test_exact_mcnemar_by_hand() -> None:
    assert mcnemar_exact(0, 0) == 1.0  # no disagreement: no evidence either way
    assert mcnemar_exact(5, 0) == mcnemar_exact(0, 5) == pytest.approx(2 / 32)
    assert mcnemar_exact(6, 1) == pytest.approx(2 * (1 + 7) / 128)
    assert mcnemar_exact(10, 0) == pytest.approx(2 / 1024)
    assert mcnemar_exact(1, 2) == 1.0  # the two-sided tail is capped at 1


def test_paired_comparison_lists_the_questions_won_and_lost_by_hand() -> None:
    at_1 = compare(OUTCOMES, OTHER, 1)
    assert (at_1.wins, at_1.losses, at_1.n) == (("q1",), ("q2", "q3"), 4)
    assert at_1.delta == pytest.approx(recall(OUTCOMES).recall[1] - recall(OTHER).recall[1]) == -0.25
    assert compare(OUTCOMES, OTHER, 3).losses == ("q3",) and compare(OUTCOMES, OTHER, 3).wins == ()
    assert compare(OUTCOMES, OTHER, 5).delta == 0.0 and compare(OUTCOMES, OTHER, 5).p_value == 1.0
    by_type = compare_by_type(OUTCOMES, OTHER, 1)
    assert list(by_type) == ["local", "table"]
    assert (by_type["table"].wins, by_type["table"].losses) == (("q1",), ("q2",))
    assert (by_type["local"].wins, by_type["local"].losses, by_type["local"].n) == ((), ("q3",), 2)
    with pytest.raises(ValueError, match="same questions"):
        compare(OUTCOMES, OTHER[:3], 1)


def test_a_report_with_a_baseline_compares_every_other_variant_with_it() -> None:
    report = EvalReport(
        n=4,
        variants={"hybrid": VariantResult("hybrid", list(OUTCOMES)), "other": VariantResult("other", list(OTHER))},
        baseline="other",
    )
    paired = report.to_json()["paired"]
    assert paired["baseline"] == "other" and list(paired["variants"]) == ["hybrid"]
    hybrid = paired["variants"]["hybrid"]
    assert hybrid["all"]["recall@1"] == {"delta": -0.25, "wins": ["q1"], "losses": ["q2", "q3"], "p_value": 1.0}
    assert hybrid["by_type"]["local"]["recall@3"]["losses"] == ["q3"]
    assert set(hybrid["by_type"]) == {"local", "table"}
    table = format_table(report)
    assert "against other" in table
    rows = [line for line in table.splitlines() if line.split()[:3] == ["hybrid", "all", "4"]]
    assert len(rows) == 2 and "-25.0 1/2 p=1.00" in rows[1]  # the recall row, then the paired row
    assert "paired" not in EvalReport(n=4, variants=report.variants).to_json()


def _hit(region_id: str, page: int, score: float) -> ScoredRegion:
    return ScoredRegion(region_id, "doc", page, (0.0, 0.0, 1.0, 1.0), "paragraph", "", score)


def test_page_score_is_best_region_plus_small_bonus_for_the_rest() -> None:
    hits = [_hit("a", 1, 1.0), _hit("b", 2, 0.95), _hit("c", 2, 0.9), _hit("d", 3, 0.5)]
    pages = rank_pages(hits, k=3, bonus=0.1)
    assert [p.page for p in pages] == [2, 1, 3]  # 0.95 + 0.1 x 0.9 beats 1.0 + 0
    assert pages[0].score == pytest.approx(1.04)
    assert pages[0].regions == ("b", "c")


def test_load_questions_reads_the_dev_file() -> None:
    questions = load_questions(Path("/work/shared/bench/dev/questions.jsonl"))
    assert len(questions) == 60
    first = questions[0]
    assert first.id == "rl-01" and first.doc == "reportlab-userguide.pdf" and first.pages == frozenset({8})
    assert {q.type for q in questions} == {"local", "table", "figure", "context", "cross_page", "reference"}


def test_load_questions_rejects_bad_records(tmp_path: Path) -> None:
    bad = tmp_path / "q.jsonl"
    bad.write_text('{"id": "a", "doc": "x.pdf", "question": "q?", "pages": []}\n')
    with pytest.raises(QuestionsError, match="pages"):
        load_questions(bad)
    bad.write_text(
        '{"id": "a", "doc": "x.pdf", "question": "q?", "pages": [1]}\n{"id": "a", "doc": "x.pdf", '
        '"question": "q?", "pages": [2]}\n'
    )
    with pytest.raises(QuestionsError, match="duplicate"):
        load_questions(bad)
    bad.write_text("not json\n")
    with pytest.raises(QuestionsError, match="invalid JSON"):
        load_questions(bad)

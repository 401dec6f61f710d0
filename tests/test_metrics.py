"""Page Recall@K against a tiny case computed by hand, and the questions-file loader."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.evaluation.metrics import (
    QuestionOutcome,
    hit_at,
    mean_reciprocal_rank,
    recall,
    recall_by_type,
)
from app.evaluation.questions import QuestionsError, load_questions
from app.evaluation.runner import EvalReport, VariantResult
from app.retrieval.base import ScoredRegion
from app.retrieval.fusion import reciprocal_rank_fusion
from app.retrieval.pages import rank_pages

# Four questions, ranked pages best first. By hand:
#   q1 gold {3}:    ranked 3,...       -> hit @1, @3, @5
#   q2 gold {7, 8}: ranked 1,2,8,...   -> miss @1, hit @3, @5
#   q3 gold {9}:    ranked 1,2,3,4,9   -> miss @1, @3, hit @5
#   q4 gold {5}:    ranked 1,2,3,4,6   -> miss everywhere
# Recall@1 = 1/4, Recall@3 = 2/4, Recall@5 = 3/4.
# By type: table (q1, q2) -> @1 1/2, @3 2/2, @5 2/2; local (q3, q4) -> @1 0, @3 0, @5 1/2.
OUTCOMES = [
    QuestionOutcome("q1", "table", frozenset({3}), (3, 1, 2, 4, 5)),
    QuestionOutcome("q2", "table", frozenset({7, 8}), (1, 2, 8, 4, 5)),
    QuestionOutcome("q3", "local", frozenset({9}), (1, 2, 3, 4, 9)),
    QuestionOutcome("q4", "local", frozenset({5}), (1, 2, 3, 4, 6)),
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


def test_mean_reciprocal_rank_by_hand() -> None:
    # 1/1 + 1/3 + 1/5 + 0, over 4 questions.
    assert mean_reciprocal_rank(OUTCOMES) == pytest.approx((1 + 1 / 3 + 1 / 5) / 4)


def test_repeated_pages_count_once_towards_k() -> None:
    # Page 1 three times is one page: page 4 is the second distinct page, so within K=2.
    assert hit_at([1, 1, 1, 4], {4}, 2)
    assert not hit_at([1, 2, 4], {4}, 2)


def test_eval_report_json_has_the_agreed_schema() -> None:
    report = EvalReport(n=4, variants={"hybrid": VariantResult("hybrid", list(OUTCOMES))})
    data = report.to_json()
    assert data == {
        "n": 4,
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


def _hit(region_id: str, page: int, score: float) -> ScoredRegion:
    return ScoredRegion(region_id, "doc", page, (0.0, 0.0, 1.0, 1.0), "paragraph", "", score)


def test_page_score_is_best_region_plus_small_bonus_for_the_rest() -> None:
    hits = [_hit("a", 1, 1.0), _hit("b", 2, 0.95), _hit("c", 2, 0.9), _hit("d", 3, 0.5)]
    pages = rank_pages(hits, k=3, bonus=0.1)
    assert [p.page for p in pages] == [2, 1, 3]  # 0.95 + 0.1 x 0.9 beats 1.0 + 0
    assert pages[0].score == pytest.approx(1.04)
    assert pages[0].regions == ("b", "c")


def test_reciprocal_rank_fusion_by_hand() -> None:
    fused = reciprocal_rank_fusion({"a": ["x", "y"], "b": ["y", "z"]}, weights={"a": 1.0, "b": 2.0}, k=1.0)
    scores = {f.key: f.score for f in fused}
    # x: 1/(1+1); y: 1/(1+2) + 2/(1+1); z: 2/(1+2)
    assert scores == pytest.approx({"x": 0.5, "y": 1 / 3 + 1.0, "z": 2 / 3})
    assert [f.key for f in fused] == ["y", "z", "x"]


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

"""Golden retrieval results: what the retriever variants rank for the hand-written train questions
about two real documents (R-data, shared-mime-info-spec), against tests/data/golden/retrieval.json.

A change to the reader, the graph, the embeddings, the GNN or the retrievers that moves answers
fails here, naming the questions that moved. One question per variant and cutoff may move each way:
onnxruntime picks its kernels by CPU instruction set, and the last bits of a cosine can reorder a
near tie on another machine. A deliberate change is recorded with

    .venv/bin/pytest tests/test_golden_retrieval.py --update-golden

and the new file committed with it, so that its diff shows which questions moved.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from docgraph.app.evaluation.metrics import CUTOFFS, QuestionOutcome, recall
from docgraph.app.evaluation.runner import EvalReport, run_eval
from docgraph.app.retrieval.registry import RETRIEVER_NAMES
from docgraph.app.stores.factory import open_store
from docgraph.models.encoder_loader import load_encoder
from docgraph.models.encoders import DEFAULT_MODEL
from tests.conftest import TRAIN_DIR, TRAIN_QUESTIONS, fresh_graph_name, local_settings, train_questions_about

GOLDEN = Path(__file__).parent / "data" / "golden" / "retrieval.json"
DOCUMENTS = ("R-data.pdf", "shared-mime-info-spec.pdf")
TOLERANCE = 1  # questions per variant and cutoff that may move each way (see the module docstring)
# Every variant. fulltext-region used to move between two runs on the same machine: the ablations'
# vectors written into the regions skewed FalkorDB's full-text scores, until the stores rebuilt the
# index after in-place writes (``GraphStore.refresh_fulltext``).
VARIANTS = list(RETRIEVER_NAMES)
UPDATE_HINT = "if the change is meant, record it: .venv/bin/pytest tests/test_golden_retrieval.py --update-golden"

Ranks = dict[str, int | None]  # question id -> 1-based rank of its first gold page, None past the cutoffs


def golden_of(report: EvalReport) -> dict[str, Any]:
    variants = {}
    for name, result in report.variants.items():
        variants[name] = {
            **{f"recall@{k}": round(value, 4) for k, value in recall(result.outcomes).recall.items()},
            "ranks": ranks_of(result.outcomes),
        }
    return {
        "questions": f"tests/data/{TRAIN_QUESTIONS.name}, those about {' and '.join(DOCUMENTS)}",
        "ranks": f"1-based rank of a question's first gold page among the first {max(CUTOFFS)} pages, null past them",
        "variants": variants,
    }


def ranks_of(outcomes: list[QuestionOutcome]) -> Ranks:
    return {outcome.question_id: outcome.first_hit_rank() for outcome in outcomes}


def moved(golden: Ranks, now: Ranks, k: int) -> tuple[list[str], list[str]]:
    """(lost, gained): questions found within ``k`` pages by one run and not by the other."""

    def within(rank: int | None) -> bool:
        return rank is not None and rank <= k

    lost = sorted(q for q in golden if within(golden[q]) and not within(now[q]))
    gained = sorted(q for q in golden if not within(golden[q]) and within(now[q]))
    return lost, gained


def differences(golden: dict[str, Any], now: dict[str, Any], tolerance: int = TOLERANCE) -> list[str]:
    """One line per variant and cutoff where more than ``tolerance`` questions moved one way."""
    problems = []
    for name in sorted(set(golden["variants"]) ^ set(now["variants"])):
        problems.append(f"{name}: in only one of the golden file and this run")
    for name in sorted(set(golden["variants"]) & set(now["variants"])):
        before, after = golden["variants"][name]["ranks"], now["variants"][name]["ranks"]
        if set(before) != set(after):
            problems.append(f"{name}: the questions differ from the golden file's")
            continue
        for k in CUTOFFS:
            for way, questions in zip(("lost", "gained"), moved(before, after, k), strict=True):
                if len(questions) > tolerance:
                    detail = ", ".join(f"{q} ({before[q]} -> {after[q]})" for q in questions)
                    problems.append(f"{name} {way} {len(questions)} questions at R@{k}: {detail}")
    return problems


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory, local_home: Path) -> EvalReport:
    questions = train_questions_about(DOCUMENTS, tmp_path_factory.mktemp("golden") / "questions.jsonl")
    settings = local_settings(local_home, fresh_graph_name())
    store = open_store(settings)
    store.apply_schema()
    try:
        encoder = load_encoder(DEFAULT_MODEL)
        return run_eval(questions, TRAIN_DIR, VARIANTS, store, encoder, settings=settings)
    finally:
        store.delete_graph()
        store.close()


def test_retrieval_matches_the_golden_results(report: EvalReport, request: pytest.FixtureRequest) -> None:
    now = golden_of(report)
    if request.config.getoption("--update-golden"):
        GOLDEN.parent.mkdir(parents=True, exist_ok=True)
        GOLDEN.write_text(json.dumps(now, indent=1, sort_keys=True) + "\n")
    golden = json.loads(GOLDEN.read_text())
    problems = differences(golden, now)
    assert not problems, "retrieval moved from the golden results:\n" + "\n".join(problems) + "\n" + UPDATE_HINT


def test_moves_beyond_the_tolerance_are_reported(report: EvalReport) -> None:
    before, after = golden_of(report), golden_of(report)
    assert differences(before, after) == []
    hybrid = after["variants"]["hybrid"]["ranks"]
    first = [q for q, rank in hybrid.items() if rank == 1][: TOLERANCE + 1]
    for question in first:  # as if the hybrid had lost them from its first five pages
        hybrid[question] = None
    assert differences(before, after, TOLERANCE + 1) == []
    problems = differences(before, after)
    expected = [f"hybrid lost {TOLERANCE + 1} questions at R@{k}" for k in CUTOFFS]
    assert [line.split(":")[0] for line in problems] == expected
    assert all(f"{first[0]} (1 -> None)" in line for line in problems)
    del after["variants"]["gnn"]
    assert "gnn: in only one of the golden file and this run" in differences(before, after)

"""``run_eval`` and ``run_bench`` end to end on a real PDF: real pipeline, store and encoder.

The questions are hand-written ones about a train-set document (tests/data/train_questions.jsonl),
so nothing here looks at the dev questions' documents.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from docgraph.app.evaluation.bench import bench_queries, run_bench
from docgraph.app.evaluation.inputs import check_models_usable, distractor_files
from docgraph.app.evaluation.metrics import SCOPES, recall
from docgraph.app.evaluation.questions import QuestionsError, load_questions
from docgraph.app.evaluation.runner import (
    format_ingested,
    format_misses,
    format_scopes,
    format_table,
    run_eval,
    run_eval_scopes,
)
from docgraph.app.retrieval.rerank import DEFAULT_RERANKER
from docgraph.app.stores.falkordb_store import FalkorDBStore
from docgraph.errors import ConfigError, ModelError
from docgraph.models.encoder_loader import load_encoder
from docgraph.models.encoders import DEFAULT_MODEL, TextEncoder
from tests.conftest import TRAIN_DIR, local_settings, train_questions_about

SPEC = "shared-mime-info-spec.pdf"
DEV_DIR = Path("/work/shared/bench/dev")
SAMPLE = Path(__file__).resolve().parent.parent / "samples" / "docgraph-sample.pdf"
VARIANTS = ["bm25-page", "dense-region", "bm25-region", "hybrid"]


@pytest.fixture(scope="module")
def encoder() -> TextEncoder:
    return load_encoder(DEFAULT_MODEL)


@pytest.fixture
def spec_questions(tmp_path: Path) -> Path:
    """The train questions about the shared-mime-info spec (17 pages)."""
    return train_questions_about([SPEC], tmp_path / "questions.jsonl")


def test_eval_report_has_the_agreed_shape_and_finds_the_pages(
    falkordb_store: FalkorDBStore, encoder: TextEncoder, spec_questions: Path, local_home: Path
) -> None:
    questions = load_questions(spec_questions)
    stages: list[str] = []
    report = run_eval(
        spec_questions,
        TRAIN_DIR,
        VARIANTS,
        falkordb_store,
        encoder,
        progress=lambda what, done, total: stages.append(what),
        settings=local_settings(local_home, "unused"),
    )
    data = json.loads(json.dumps(report.to_json()))
    assert set(data) == {"n", "scope", "documents", "ingested", "variants"} and data["n"] == len(questions)
    assert data["scope"] == "document" and data["documents"] == 1
    assert data["ingested"] == [SPEC] and format_ingested(report).endswith(f"configured ones): {SPEC}")
    assert list(data["variants"]) == VARIANTS
    types = {q.type for q in questions}
    for result in data["variants"].values():
        assert set(result) == {"recall@1", "recall@3", "recall@5", "by_type"}
        assert 0.0 <= result["recall@1"] <= result["recall@3"] <= result["recall@5"] <= 1.0
        assert set(result["by_type"]) == types
        assert sum(t["n"] for t in result["by_type"].values()) == len(questions)
        for by_type in result["by_type"].values():
            assert set(by_type) == {"n", "recall@1", "recall@3", "recall@5"}
    # A 17-page spec with specific questions: the default retriever must find most pages in 5.
    assert data["variants"]["hybrid"]["recall@5"] >= 0.7
    assert any(s.startswith("ingest") for s in stages) and any(s.startswith("eval") for s in stages)
    assert "hybrid" in format_table(report)


def test_eval_refuses_questions_about_missing_documents(
    falkordb_store: FalkorDBStore, encoder: TextEncoder, tmp_path: Path
) -> None:
    path = tmp_path / "q.jsonl"
    path.write_text('{"id": "x", "doc": "not-here.pdf", "question": "q?", "pages": [1], "type": "local"}\n')
    with pytest.raises(QuestionsError, match=r"not-here\.pdf"):
        run_eval(path, TRAIN_DIR, ["hybrid"], falkordb_store, encoder)
    with pytest.raises(QuestionsError, match=r"^--docs .*/no-such-folder: no such folder"):  # was "not in" it
        run_eval(path, tmp_path / "no-such-folder", ["hybrid"], falkordb_store, encoder)


@pytest.mark.parametrize(
    ("fields", "refusal"),
    [
        ({"pages": "12"}, "'pages' must be a list of 1-based page numbers, got '12'"),  # was pages 1 and 2
        ({"pages": [1.9]}, "'pages' must be a list"),  # was page 1
        ({"pages": [True]}, "'pages' must be a list"),
        ({"pages": ["x"]}, "'pages' must be a list"),
        ({"answer": ["10:30"]}, "'answer' must be a string"),
        ({"doc": "sub/docgraph-sample.pdf"}, "'doc' must be a file name"),  # failed after the ingest
        ({"question": ["When", "is", "feeding"]}, "'question' must be a string"),  # was asked as "['When', ...]"
        ({"type": {"a": 1}}, "'type' must be a string"),  # was a row of the per-type table
        ({"doc": 5}, "'doc' must be a string"),
        ({"id": ["x"]}, "'id' must be a string or a number"),
        ({"id": None}, "'id' must be a string or a number"),  # was the id ""
        ({"type": {}}, "'type' must be a string"),  # was "local"
    ],
)
def test_a_question_field_of_the_wrong_kind_is_refused(tmp_path: Path, fields: dict[str, object], refusal: str) -> None:
    record = {"id": "x", "doc": "docgraph-sample.pdf", "question": "q?", "pages": [1]}
    path = tmp_path / "q.jsonl"
    path.write_text(json.dumps({**record, **fields}) + "\n")
    with pytest.raises(QuestionsError, match=re.escape(refusal)):
        load_questions(path)
    path.write_text("\n")
    with pytest.raises(QuestionsError, match="holds no questions"):  # was scored, all zeros
        load_questions(path)
    path.write_text(json.dumps({**record, "answer": None}) + "\n")
    assert load_questions(path)[0].answer == ""  # was the gold answer "None"
    path.write_text(json.dumps({**record, "pages": ["8", 9.0], "answer": 6}) + "\n")  # unambiguous: taken
    assert (load_questions(path)[0].pages, load_questions(path)[0].answer) == (frozenset({8, 9}), "6")


def test_eval_refuses_gold_pages_past_the_end_and_files_of_one_id_before_ingesting(
    falkordb_store: FalkorDBStore, encoder: TextEncoder, tmp_path: Path
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    shutil.copy(SAMPLE, docs / "zoo manual.pdf")
    shutil.copy(TRAIN_DIR / SPEC, docs / "zoo_manual.pdf")
    questions = tmp_path / "q.jsonl"
    asked = [{"id": "z1", "doc": "zoo manual.pdf", "question": "When are the penguins fed?", "pages": [1]}]
    questions.write_text(json.dumps({**asked[0], "pages": [9]}) + "\n")
    with pytest.raises(QuestionsError, match=r"page 9 is past the last page of zoo manual\.pdf \(3\)"):
        run_eval(questions, docs, ["hybrid"], falkordb_store, encoder)
    asked.append({"id": "z2", "doc": "zoo_manual.pdf", "question": "What is a glob?", "pages": [3]})
    questions.write_text("".join(json.dumps(q) + "\n" for q in asked))
    with pytest.raises(ConfigError, match="would all be stored as 'zoo-manual'"):  # one replaced the other
        run_eval(questions, docs, ["hybrid"], falkordb_store, encoder)
    assert falkordb_store.read("MATCH (d:Document) RETURN count(d) AS n")[0]["n"] == 0


def test_bench_asks_only_the_questions_about_the_documents_it_benchmarks(
    falkordb_store: FalkorDBStore, tmp_path: Path
) -> None:
    """45 of 60 queries of `bench --docs dev/zoo.pdf` were about the other dev documents: filtered to
    a document not in the store, they made the in-document timing look fast."""
    docs = tmp_path / "dev"
    docs.mkdir()
    (docs / "zoo.pdf").symlink_to(DEV_DIR / "zoo.pdf")
    (docs / "questions.jsonl").symlink_to(DEV_DIR / "questions.jsonl")
    queries = bench_queries([docs / "zoo.pdf"], falkordb_store, 10)
    assert len(queries) == 10 and {query.doc_id for query in queries} == {"zoo"}


def test_eval_compares_variants_with_a_baseline_question_by_question(
    falkordb_store: FalkorDBStore, encoder: TextEncoder, spec_questions: Path, local_home: Path
) -> None:
    settings = local_settings(local_home, "unused")
    report = run_eval(
        spec_questions, TRAIN_DIR, ["hybrid"], falkordb_store, encoder, settings=settings, baseline="bm25-page"
    )
    assert list(report.variants) == ["hybrid", "bm25-page"]  # the baseline is scored too
    hybrid, page = report.variants["hybrid"].outcomes, report.variants["bm25-page"].outcomes
    hits_page_1 = {o.question_id for o in page if o.hit(1)}
    for k in (1, 3, 5):
        paired = report.paired("hybrid")["all"][k]
        assert paired.delta == pytest.approx(recall(hybrid).recall[k] - recall(page).recall[k])
    at_1 = report.paired("hybrid")["all"][1]
    assert set(at_1.wins) == {o.question_id for o in hybrid if o.hit(1)} - hits_page_1
    assert set(at_1.losses) == hits_page_1 - {o.question_id for o in hybrid if o.hit(1)}
    # On this spec the hybrid finds at rank 1 questions whose page the page BM25 ranks lower.
    assert at_1.wins
    assert set(report.to_json()["paired"]["variants"]) == {"hybrid"}
    # --misses: the questions a variant did not rank a gold page first for, with what it ranked.
    assert "misses" not in report.to_json()["variants"]["bm25-page"]
    misses = report.to_json(misses=True)["variants"]["bm25-page"]["misses"]
    missed = [o for o in page if not o.hit(1)]
    assert [miss["id"] for miss in misses] == [o.question_id for o in missed]
    for miss, outcome in zip(misses, missed, strict=True):
        assert miss["gold"] == sorted(outcome.gold) and miss["ranked"][0] not in outcome.gold
        assert miss["ranked"] == [page for _, page in dict.fromkeys(outcome.ranked)][:5]
        rank = miss["gold_rank"]
        assert rank != 1
        if rank is not None and rank <= 5:
            assert miss["ranked"][rank - 1] in outcome.gold
    table = format_misses(report)
    assert all(f" {miss['id']} " in table for miss in misses)
    # A missed page's margin: the first page and the best-ranked gold page with their best hits'
    # weighted signal terms, whose sum is a hybrid page's score.
    ranked_gold = [m for m in report.to_json(misses=True)["variants"]["hybrid"]["misses"] if "gold_hit" in m]
    assert ranked_gold  # on this spec the hybrid ranks the page before the gold page first, at least once
    for miss in ranked_gold:
        first, gold = miss["first"], miss["gold_hit"]
        assert first["page"] == miss["ranked"][0] and gold["page"] == miss["ranked"][miss["gold_rank"] - 1]
        assert gold["score"] <= first["score"]
        for hit in (first, gold):
            assert {"dense", "page"} <= set(hit["signals"])
            assert sum(hit["signals"].values()) == pytest.approx(hit["score"], abs=1e-4)
    margin = ranked_gold[0]["gold_hit"]["score"] - ranked_gold[0]["first"]["score"]
    assert f" {ranked_gold[0]['id']} " in table and f"{margin:+.3f} (dense " in table


def test_corpus_scope_asks_the_whole_store_and_needs_the_right_document(
    falkordb_store: FalkorDBStore, encoder: TextEncoder, spec_questions: Path, local_home: Path, tmp_path: Path
) -> None:
    # A distractor with the spec's very text under another name: inside its own document a question
    # never sees it; asked of the whole store, the copy's pages rank beside the spec's and are misses.
    distractors = tmp_path / "distractors"
    distractors.mkdir()
    shutil.copyfile(TRAIN_DIR / SPEC, distractors / "spec-copy.pdf")
    shutil.copyfile(TRAIN_DIR / SPEC, distractors / SPEC)  # a question's own document: not a distractor
    settings = local_settings(local_home, "unused")
    reports = run_eval_scopes(
        spec_questions, TRAIN_DIR, ["hybrid"], falkordb_store, encoder, None, settings, None, SCOPES, [distractors]
    )
    document, corpus = reports["document"], reports["corpus"]
    assert document.documents == corpus.documents == 2 and sorted(corpus.ingested) == sorted([SPEC, "spec-copy.pdf"])
    inside = document.variants["hybrid"].outcomes
    across = corpus.variants["hybrid"].outcomes
    assert all(doc == "shared-mime-info-spec" for o in inside for doc, _ in o.ranked)
    copies = [o for o in across if any(doc == "spec-copy" for doc, _ in o.ranked)]
    assert len(copies) == len(across)  # the copy's equal pages rank among every question's five
    for outcome in across:  # a copy's page is never a hit, even where its number is a gold page's
        if outcome.distinct_pages(1)[0][0] == "spec-copy":
            assert not outcome.hit(1)
    assert recall(across).recall[1] <= recall(inside).recall[1]
    data = corpus.to_json(misses=True)
    assert data["scope"] == "corpus" and 0.0 <= data["variants"]["hybrid"]["document@1"] <= 1.0
    assert any(
        isinstance(p, str) and p.startswith("spec-copy p.")
        for m in data["variants"]["hybrid"]["misses"]
        for p in m["ranked"]
    )
    side_by_side = format_scopes(reports)
    assert "document R@1/3/5" in side_by_side and "corpus R@1/3/5" in side_by_side and "2 documents" in side_by_side


def test_a_distractor_named_like_a_questioned_document_is_refused_unless_it_is_that_document(tmp_path: Path) -> None:
    same, other = tmp_path / "same", tmp_path / "other"
    same.mkdir()
    other.mkdir()
    shutil.copyfile(TRAIN_DIR / SPEC, same / SPEC)
    shutil.copyfile(TRAIN_DIR / "R-data.pdf", other / SPEC)
    assert distractor_files([same], [TRAIN_DIR / SPEC]) == []
    with pytest.raises(QuestionsError, match="one document id"):
        distractor_files([other], [TRAIN_DIR / SPEC])
    with pytest.raises(QuestionsError, match="no such distractor"):
        distractor_files([tmp_path / "missing"], [TRAIN_DIR / SPEC])


def test_eval_refuses_an_unknown_baseline_before_ingesting(
    falkordb_store: FalkorDBStore, encoder: TextEncoder, spec_questions: Path
) -> None:
    with pytest.raises(ConfigError, match="unknown retriever 'no-such'"):
        run_eval(spec_questions, TRAIN_DIR, ["hybrid"], falkordb_store, encoder, baseline="no-such")
    assert falkordb_store.read("MATCH (d:Document) RETURN count(d) AS n")[0]["n"] == 0


def test_eval_refuses_gnn_variants_when_the_checkpoint_gives_no_vectors(
    falkordb_store: FalkorDBStore, encoder: TextEncoder, spec_questions: Path, local_home: Path, tmp_path: Path
) -> None:
    """A mistyped DOCGRAPH_GNN_CHECKPOINT went unsaid: ingest ran without the GNN, "gnn" scored 0
    and the hybrid as no-gnn, with exit 0."""
    missing = tmp_path / "typo.pt"
    settings = local_settings(local_home, falkordb_store.graph_name).model_copy(update={"gnn_checkpoint": missing})
    with pytest.raises(ModelError) as refused:
        run_eval(spec_questions, TRAIN_DIR, ["bm25-page", "hybrid", "gnn"], falkordb_store, encoder, settings=settings)
    said = str(refused.value)
    assert said.startswith("hybrid, gnn read GNN vectors, which the configured checkpoint cannot give (")
    assert str(missing) in said and said.endswith("(e.g. --variant no-gnn)")
    assert falkordb_store.read("MATCH (d:Document) RETURN count(d) AS n")[0]["n"] == 0  # refused before ingesting
    scored = run_eval(spec_questions, TRAIN_DIR, ["bm25-page", "no-gnn"], falkordb_store, encoder, settings=settings)
    assert set(scored.variants) == {"bm25-page", "no-gnn"}
    # the ablations read their own checkpoints' vectors: the configured one's trouble is not theirs
    check_models_usable(["no-sim", "no-cross-page", "bm25-page"], settings)


def test_eval_refuses_a_damaged_reranker_before_ingesting(
    falkordb_store: FalkorDBStore, encoder: TextEncoder, spec_questions: Path, local_home: Path, tmp_path: Path
) -> None:
    """hybrid-rerank with a checkpoint cut short failed only after every document was ingested."""
    cut = tmp_path / "rerank.pt"
    cut.write_bytes(DEFAULT_RERANKER.read_bytes()[:3000])
    settings = local_settings(local_home, falkordb_store.graph_name).model_copy(update={"reranker_checkpoint": cut})
    with pytest.raises(ModelError, match="is not a docgraph reranker checkpoint"):
        run_eval(spec_questions, TRAIN_DIR, ["hybrid-rerank"], falkordb_store, encoder, settings=settings)
    assert falkordb_store.read("MATCH (d:Document) RETURN count(d) AS n")[0]["n"] == 0


def test_bench_report_has_the_agreed_shape(
    falkordb_store: FalkorDBStore, encoder: TextEncoder, local_home: Path
) -> None:
    report = run_bench(
        [TRAIN_DIR / SPEC],
        falkordb_store,
        encoder,
        variants=["bm25-page", "hybrid"],
        n_queries=12,
        settings=local_settings(local_home, "unused"),
    )
    data = json.loads(json.dumps(report.to_json()))
    assert set(data) == {"ingest", "stored_pages", "query", "query_in_document", "peak_rss_mb"}
    assert data["stored_pages"] == 17
    ingest = data["ingest"]
    assert set(ingest) == {"pages", "seconds", "pages_per_second", "stages"}
    assert ingest["pages"] == 17 and ingest["seconds"] > 0
    assert ingest["pages_per_second"] == pytest.approx(17 / ingest["seconds"], rel=0.01)
    assert set(ingest["stages"]) == {"read", "graph_write", "embed"}
    assert all(value > 0 for value in ingest["stages"].values())
    for scope in ("query", "query_in_document"):
        assert set(data[scope]) == {"bm25-page", "hybrid"}
        for timing in data[scope].values():
            assert set(timing) == {"n", "p50_ms", "p95_ms"}
            assert timing["n"] == 12 and 0 < timing["p50_ms"] <= timing["p95_ms"]
    # The store as it is, without ingesting: the same store, no ingest timing.
    again = run_bench([TRAIN_DIR / SPEC], falkordb_store, encoder, ["hybrid"], 5, ingest=False).to_json()
    assert again["ingest"] is None and again["stored_pages"] == 17 and again["query"]["hybrid"]["n"] == 5
    assert isinstance(data["peak_rss_mb"], int) and data["peak_rss_mb"] > 100  # torch + MiniLM alone

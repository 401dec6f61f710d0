"""The cross-encoder reranker: its checkpoint format, its training command on a real PDF, and the
``hybrid-rerank`` retriever on a real store with the shipped checkpoint."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
import torch
from typer.testing import CliRunner

import docgraph
from docgraph.app.cli.main import app
from docgraph.app.config import Settings
from docgraph.app.pipeline.build import build_ingest_pipeline
from docgraph.app.resources import ROOT
from docgraph.app.retrieval.corpus import Corpus
from docgraph.app.retrieval.registry import make_retriever
from docgraph.app.retrieval.rerank import (
    DEFAULT_RERANKER,
    RerankingRetriever,
    configured_reranker,
    load_reranker,
    rerank_terms,
)
from docgraph.app.stores.base import GraphStore
from docgraph.app.stores.factory import open_store
from docgraph.errors import ModelError
from docgraph.models.cross_encoder import CrossEncoder, CrossEncoderConfig, load_cross_encoder, save_cross_encoder
from docgraph.models.encoder_loader import load_encoder
from docgraph.models.encoders import DEFAULT_MODEL
from tests.conftest import fresh_graph_name, local_settings

SAMPLE = ROOT / "samples" / "docgraph-sample.pdf"


def test_rerank_terms_scale_the_scores_between_zero_and_the_weight() -> None:
    assert rerank_terms(np.asarray([2.0, -1.0, 0.5]), 0.5) == pytest.approx([0.5, 0.0, 0.25])
    assert rerank_terms(np.asarray([1.0, 1.0]), 2.0) == [0.0, 0.0]  # no preference: the hybrid's order stays
    assert rerank_terms(np.zeros(0), 1.0) == []


def test_a_checkpoint_holds_only_the_trained_part_and_scores_the_same_after_loading(tmp_path: Path) -> None:
    torch.manual_seed(0)
    model = CrossEncoder(CrossEncoderConfig(trained_layers=1)).eval()
    passages = ["Penguins are fed at 10:00 and 15:00.", "The seal pool holds 400 cubic metres of water."]
    before = model.score("When are the penguins fed?", passages)
    path = tmp_path / "reranker.pt"
    save_cross_encoder(model, path, {"note": "test"})
    saved = torch.load(path, weights_only=True)
    assert saved["meta"] == {"note": "test"} and saved["config"]["trained_layers"] == 1
    assert {name.split(".")[0] for name in saved["weights"]} == {"bert", "head"}
    assert all(name.startswith(("bert.encoder.layer.5.", "head.")) for name in saved["weights"])
    after = load_cross_encoder(path).score("When are the penguins fed?", passages)
    assert after == pytest.approx(before, abs=2e-2)  # float16 weights


def test_a_reranker_file_written_again_is_loaded_again(tmp_path: Path) -> None:
    """A server kept scoring with the checkpoint it had loaded after `train-reranker --out` replaced
    the file under the same name."""
    path = tmp_path / "live.pt"
    path.write_bytes(DEFAULT_RERANKER.read_bytes())
    first = load_reranker(path)
    assert load_reranker(path) is first  # loaded once while the file stays
    changed = load_cross_encoder(DEFAULT_RERANKER)
    with torch.no_grad():
        changed.head.bias.add_(1.0)
    written = tmp_path / "live.pt.part"
    save_cross_encoder(changed, written, {})
    written.replace(path)
    again = load_reranker(path)
    passage = ["Penguins are fed twice a day."]
    assert again is not first and float(again.score("penguins", passage)[0]) != float(
        first.score("penguins", passage)[0]
    )


def test_a_file_that_is_no_reranker_checkpoint_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "other.pt"
    torch.save({"weights": {}}, path)
    with pytest.raises(ModelError, match="not a docgraph reranker checkpoint"):
        load_cross_encoder(path)
    with pytest.raises(ModelError, match="not found"):
        load_cross_encoder(tmp_path / "missing.pt")


def test_train_reranker_trains_on_a_real_pdf_and_saves_a_checkpoint_it_can_load(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without --out, into a new file under the data home (it replaced the shipped checkpoint), which
    DOCGRAPH_RERANKER_CHECKPOINT gives hybrid-rerank."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / SAMPLE.name).write_bytes(SAMPLE.read_bytes())
    shipped = DEFAULT_RERANKER.read_bytes()
    result = CliRunner().invoke(
        app,
        ["train-reranker", "--docs", str(docs), "--queries", "8", "--epochs", "1", "--json"],
        env={"DOCGRAPH_HOME": str(tmp_path / "home")},
    )
    assert result.exit_code == 0, result.output
    [out] = (tmp_path / "home" / "checkpoints").glob("rerank-*.pt")
    assert DEFAULT_RERANKER.read_bytes() == shipped
    monkeypatch.setenv("DOCGRAPH_RERANKER_CHECKPOINT", str(out))
    assert configured_reranker() is load_reranker(out)
    report = json.loads(result.stdout)
    assert report["documents"] == [SAMPLE.name] and report["groups"]["train"] > 0 and report["groups"]["held_out"] > 0
    assert [epoch["epoch"] for epoch in report["history"]] == [1]
    assert 0 <= report["baseline"]["first"] <= 100
    assert report["best_epoch"] == 1  # an epoch beat the untrained head (else nothing is saved)
    assert load_cross_encoder(out).score("penguins", ["Penguins are fed twice a day."]).shape == (1,)

    # the same seed trains the same model (its scoring head was drawn before the seed was set)
    again = tmp_path / "again.pt"
    repeated = CliRunner().invoke(
        app,
        ["train-reranker", "--docs", str(docs), "--queries", "8", "--epochs", "1", "--out", str(again), "--json"],
        env={"DOCGRAPH_HOME": str(tmp_path / "home")},
    )
    assert repeated.exit_code == 0, repeated.output
    assert json.loads(repeated.stdout)["baseline"] == report["baseline"]
    first, second = load_cross_encoder(out).state_dict(), load_cross_encoder(again).state_dict()
    assert first.keys() == second.keys() and all(torch.equal(first[key], second[key]) for key in first)


def test_train_reranker_refuses_a_folder_without_pdfs(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["train-reranker", "--docs", str(tmp_path), "--out", str(tmp_path / "r.pt")])
    assert result.exit_code == 1 and "no PDF files" in result.output
    assert not (tmp_path / "r.pt").exists()


def test_train_reranker_refuses_a_gnn_checkpoint_that_gives_no_vectors(tmp_path: Path) -> None:
    """Its hard negatives came, silently, from a hybrid without its GNN term."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / SAMPLE.name).write_bytes(SAMPLE.read_bytes())
    missing = tmp_path / "typo.pt"
    result = CliRunner().invoke(
        app,
        ["train-reranker", "--docs", str(docs), "--out", str(tmp_path / "r.pt"), "--json"],
        env={"DOCGRAPH_HOME": str(tmp_path / "home"), "DOCGRAPH_GNN_CHECKPOINT": str(missing)},
    )
    assert result.exit_code == 1
    said = json.loads(result.stdout)["error"]
    assert (
        said.startswith("the hybrid whose hits the reranker learns to reorder reads GNN vectors")
        and str(missing) in said
    )
    assert not (tmp_path / "r.pt").exists()


@pytest.fixture(scope="module")
def sample_store(local_home: Path) -> Iterator[GraphStore]:
    settings = local_settings(local_home, fresh_graph_name())
    store = open_store(settings)
    store.apply_schema()
    report = build_ingest_pipeline(store, settings).ingest(SAMPLE)
    assert report.status == "ingested", report.error
    store.wait_for_indexes()
    yield store
    store.delete_graph()  # type: ignore[attr-defined]
    store.close()


def test_the_shipped_reranker_prefers_the_passage_that_answers() -> None:
    model = load_reranker(DEFAULT_RERANKER)
    scores = model.score(
        "How often are the penguins fed?",
        [
            "Feeding times\nThe penguins are fed twice a day, at 10:30 and at 15:00, by the keepers.",
            "Seal pool\nThe seal pool holds 400 cubic metres of salt water and is cleaned every week.",
        ],
    )
    assert scores[0] > scores[1]


def test_hybrid_rerank_reorders_the_hybrids_best_hits_with_the_cross_encoder(sample_store: GraphStore) -> None:
    encoder = load_encoder(DEFAULT_MODEL)
    corpus = Corpus(sample_store)
    reranked = make_retriever("hybrid-rerank", sample_store, encoder, corpus)
    hybrid = make_retriever("hybrid", sample_store, encoder, corpus)
    assert isinstance(reranked, RerankingRetriever)
    question = "When are the penguins fed?"
    hits = reranked.retrieve(question, 5)
    assert hits and all("rerank" in hit.signals for hit in hits)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert all(hit.score == pytest.approx(sum(hit.signals.values())) for hit in hits)
    head = reranked.retrieve(question, reranked.weights.depth)  # every reranked hit: the terms span [0, weight]
    terms = sorted(hit.signals["rerank"] for hit in head)
    assert terms[0] == 0.0 and terms[-1] == pytest.approx(reranked.weights.weight)
    # the same candidates as the hybrid's, with the hybrid's own signals underneath
    plain = {hit.region_id: hit for hit in hybrid.retrieve(question, reranked.weights.depth)}
    for hit in hits:
        assert hit.region_id in plain
        assert hit.score - hit.signals["rerank"] == pytest.approx(plain[hit.region_id].score)
    assert reranked.rank_pages(question, 3)[0].page == hybrid.rank_pages(question, 3)[0].page


def test_settings_passed_as_an_object_name_the_reranker(
    sample_store: GraphStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reranker's checkpoint was read from the environment, whatever settings the caller passed."""
    monkeypatch.delenv("DOCGRAPH_RERANKER_CHECKPOINT", raising=False)
    other = tmp_path / "rerank-other.pt"
    other.write_bytes(DEFAULT_RERANKER.read_bytes())
    settings = Settings(reranker_checkpoint=other)
    chosen = docgraph.retriever(sample_store, "hybrid-rerank", settings)
    assert isinstance(chosen, RerankingRetriever) and chosen.reranker() is load_reranker(other)
    assert chosen.retrieve("When are the penguins fed?", k=3)  # it reranks with that checkpoint
    unset = docgraph.retriever(sample_store, "hybrid-rerank")  # the environment's: the shipped one
    assert isinstance(unset, RerankingRetriever) and unset.reranker() is load_reranker(DEFAULT_RERANKER)

"""Pseudo-queries and GNN training on a real document (shared-mime-info-spec.pdf, 17 pages)."""

from __future__ import annotations

import json
import subprocess
from collections import Counter
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch
from typer.testing import CliRunner

from docgraph.app.cli.main import app
from docgraph.app.cli.model_cmds import format_unseen
from docgraph.app.pipeline.embedding import embed_batch
from docgraph.app.pipeline.gnn import DEFAULT_CHECKPOINT
from docgraph.app.resources import ROOT
from docgraph.errors import ModelError
from docgraph.ingest.graph import build_graph
from docgraph.ingest.links.similarity import similarity_edges
from docgraph.ingest.readers.native import NativeReader
from docgraph.models.encoder_loader import load_encoder
from docgraph.models.gnn import GnnConfig, load_checkpoint
from docgraph.models.pseudo_queries import DocumentView, make_queries, split_held_out
from docgraph.models.training import (
    DocumentData,
    TrainConfig,
    compare_by_kind,
    evaluate,
    info_nce,
    prepare_document,
    train_model,
    unseen_document,
)
from docgraph.records import GraphBatch

PDF = Path("/work/shared/bench/train/shared-mime-info-spec.pdf")
SAMPLE = Path(__file__).resolve().parent.parent / "samples" / "docgraph-sample.pdf"


@pytest.fixture(scope="module")
def embedded_batch() -> GraphBatch:
    batch = build_graph(NativeReader().read(PDF), ingested_at="1970-01-01T00:00:00+00:00")
    embed_batch(batch, load_encoder("all-MiniLM-L6-v2"))
    batch.edges += similarity_edges(batch)
    return batch


@pytest.fixture(scope="module")
def document(embedded_batch: GraphBatch) -> DocumentData:
    encoder = load_encoder("all-MiniLM-L6-v2")
    train, held = split_held_out(make_queries(embedded_batch, seed=0), seed=0)
    return prepare_document(
        embedded_batch,
        train,
        encoder.encode([q.text for q in train]),
        held,
        encoder.encode([q.text for q in held]),
    )


def test_pseudo_queries_use_neighbour_context(embedded_batch: GraphBatch) -> None:
    queries = make_queries(embedded_batch, seed=0)
    kinds = Counter(q.kind for q in queries)
    assert {"local", "context", "adjacent", "cross_page"} <= set(kinds)
    view = DocumentView.of(embedded_batch)
    for query in queries:
        assert query.positives and all(key in view.regions for key in query.positives)
        if query.kind == "context":
            titles = view.section_titles(query.anchor)
            assert any(title in query.text for title in titles)
    crossing = {(a, b) for a, b, crosses in view.reading if crosses}
    for query in (q for q in queries if q.kind == "cross_page"):
        assert (query.positives[0], query.positives[1]) in crossing or (
            query.positives[1],
            query.positives[0],
        ) in crossing


def test_pseudo_queries_are_seeded_and_the_held_out_split_separates_targets(embedded_batch: GraphBatch) -> None:
    assert make_queries(embedded_batch, seed=3) == make_queries(embedded_batch, seed=3)
    assert make_queries(embedded_batch, seed=3) != make_queries(embedded_batch, seed=4)
    train, held = split_held_out(make_queries(embedded_batch, seed=0), share=0.2, seed=0)
    assert held and train
    assert not {q.anchor for q in train} & {q.anchor for q in held}


def test_info_nce_prefers_the_target() -> None:
    candidates = torch.eye(3)
    queries = torch.tensor([[1.0, 0.0, 0.0]])
    right = info_nce(queries, candidates, torch.tensor([[0]]), 0.1)
    wrong = info_nce(queries, candidates, torch.tensor([[2]]), 0.1)
    either = info_nce(queries, candidates, torch.tensor([[2, 0]]), 0.1)
    # A second, wrong target only adds probability mass: "either" is easiest, "wrong" hardest.
    assert float(either) < float(right) < float(wrong)
    with_pages = info_nce(queries, candidates, torch.tensor([[2]]), 0.1, pages=torch.tensor([1, 1, 1]))
    assert float(with_pages) == pytest.approx(0.0, abs=1e-6)  # every candidate shares the target's page


def quick_config(epochs: int) -> TrainConfig:
    return TrainConfig(epochs=epochs, batch_queries=64, patience=epochs, seed=11, gnn=GnnConfig(num_bases=2))


def test_training_with_nothing_to_choose_an_epoch_by_saves_nothing(document: DocumentData) -> None:
    """Without held-out queries (a short document: one in ten is held out) every epoch's held-out
    loss was NaN, no epoch was kept, and the untrained weights were saved over the checkpoint."""
    no_held_out = replace(document, held_out=document.train.subset(torch.arange(0)))
    with pytest.raises(ModelError, match="no held-out queries"):
        train_model([no_held_out], quick_config(2))
    with pytest.raises(ModelError, match="epochs must be at least 1"):
        train_model([document], quick_config(0))


def test_training_reduces_the_loss(document: DocumentData) -> None:
    result = train_model([document], quick_config(4))
    losses = [log.train_loss for log in result.history]
    assert len(losses) == 4
    assert losses[-1] < losses[0]
    assert min(log.held_out_loss for log in result.history) < result.baseline["loss"]
    vectors = result.model.embed(document.graph)
    np.testing.assert_allclose(vectors.norm(dim=1).numpy(), 1.0, atol=1e-5)


def test_training_is_deterministic_given_a_seed(document: DocumentData) -> None:
    config = quick_config(1)
    first = train_model([document], config)
    second = train_model([document], config)
    assert [log.train_loss for log in first.history] == [log.train_loss for log in second.history]
    torch.testing.assert_close(
        first.model.embed(document.graph), second.model.embed(document.graph), atol=0.0, rtol=0.0
    )
    other = train_model([document], replace(config, seed=12))
    assert [log.train_loss for log in other.history] != [log.train_loss for log in first.history]


def queries_by_kind(rows: dict[str, dict[str, float]]) -> float:
    return sum(row["queries"] for kind, row in rows.items() if kind != "all")


def test_an_unseen_document_is_scored_on_all_its_pseudo_queries(
    embedded_batch: GraphBatch, document: DocumentData
) -> None:
    queries = make_queries(embedded_batch, seed=5)
    vectors = load_encoder("all-MiniLM-L6-v2").encode([q.text for q in queries])
    unseen = unseen_document(embedded_batch, queries, vectors)
    assert (unseen.train.size, unseen.held_out.size) == (0, len(queries))
    config = quick_config(1)
    model = train_model([document], config).model
    report = compare_by_kind(model, [unseen])
    assert next(iter(report)) == "all"
    assert report["all"]["queries"] == len(queries) == queries_by_kind(report)
    assert report["all"]["input_page_r1"] == pytest.approx(evaluate(None, [unseen], config)["page_r1"], abs=1e-4)
    assert report["all"]["gnn_page_r1"] == pytest.approx(evaluate(model, [unseen], config)["page_r1"], abs=1e-4)


def folder_of(tmp_path: Path, name: str, pdf: Path) -> Path:
    folder = tmp_path / name
    folder.mkdir()
    (folder / pdf.name).symlink_to(pdf)
    return folder


def test_train_gnn_scores_unseen_documents_and_refuses_a_training_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without --out, the checkpoint is a new file under the data home: it replaced the shipped one,
    which every store of the install was built with."""
    monkeypatch.setenv("DOCGRAPH_HOME", str(tmp_path / "home"))
    train, other = folder_of(tmp_path, "train", PDF), folder_of(tmp_path, "other", SAMPLE)
    command = ["train-gnn", "--docs", str(train), "--epochs", "1", "--json"]
    shipped = DEFAULT_CHECKPOINT.read_bytes()

    refused = CliRunner().invoke(app, [*command, "--unseen-docs", str(train)])
    assert refused.exit_code == 1
    assert refused.stderr.count("\n") == 1 and "is also a training document" in refused.stderr
    assert not (tmp_path / "home" / "checkpoints").exists()

    trained = CliRunner().invoke(app, [*command, "--unseen-docs", str(other)])
    assert trained.exit_code == 0, trained.stderr
    [out] = (tmp_path / "home" / "checkpoints").glob("rgcn-*.pt")
    assert json.loads(trained.stdout)["checkpoint"] == str(out)
    assert DEFAULT_CHECKPOINT.read_bytes() == shipped
    unseen = json.loads(trained.stdout)["unseen"]
    assert unseen["documents"] == [SAMPLE.name]
    rows = unseen["by_kind"]
    assert next(iter(rows)) == "all" and rows["all"]["queries"] > 0
    assert rows["all"]["queries"] == queries_by_kind(rows)
    meta = load_checkpoint(out).meta
    assert meta["unseen"] == unseen
    head = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, cwd=ROOT).stdout.strip()
    commit = meta["source"]["commit"]  # the code that made the training data
    assert (commit.removesuffix("+dirty") if commit else "") == head
    lines = format_unseen(unseen).splitlines()
    assert SAMPLE.name in lines[0] and [line.split()[0] for line in lines[1:]] == list(rows)


def test_training_progress_goes_to_stderr_and_leaves_stdout_to_the_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The epoch lines went to stdout (tqdm.write's default), before the report: with --json on a
    terminal that broke the JSON."""
    from docgraph.app.config import Settings
    from docgraph.app.jobs.train_gnn import train_gnn

    train = folder_of(tmp_path, "train", PDF)
    settings = Settings(home=tmp_path / "home", store="")
    train_gnn(settings, train, epochs=1, out=tmp_path / "gnn.pt", progress=True)
    shown = capsys.readouterr()
    assert shown.out == "" and "epoch 1/1: train " in shown.err and "read and embed" in shown.err

"""Pseudo-queries and GNN training on a real document (shared-mime-info-spec.pdf, 17 pages)."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch

from app.embedding import embed_batch
from ingest.graph import build_graph
from ingest.native import NativeReader
from ingest.similarity import similarity_edges
from ingest.types import GraphBatch
from models.encoders import load_encoder
from models.gnn import GnnConfig
from models.pseudo_queries import DocumentView, make_queries, split_held_out
from models.training import DocumentData, TrainConfig, info_nce, prepare_document, train_model

PDF = Path("/work/shared/bench/train/shared-mime-info-spec.pdf")


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

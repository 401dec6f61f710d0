"""A long region is found by any of its passages: stored passage vectors and best-passage scoring,
on both stores, with the real encoder."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from docgraph.app.config import Settings
from docgraph.app.pipeline.embedding import EMBEDDING_PROPERTY, PASSAGES_PROPERTY, embed_batch
from docgraph.app.pipeline.gnn import apply_gnn, gnn_for
from docgraph.app.pipeline.similarity import add_similarity_edges
from docgraph.app.retrieval.corpus import Corpus
from docgraph.app.retrieval.hits import QueryVectors
from docgraph.app.retrieval.hybrid import HybridRetriever
from docgraph.app.retrieval.registry import make_retriever
from docgraph.app.retrieval.vector import DenseRetriever
from docgraph.app.stores.base import GraphStore
from docgraph.app.stores.schema import GNN_PROPERTY
from docgraph.ingest.graph import build_graph
from docgraph.ingest.types import BBox, DocumentLayout, PageLayout, Region
from docgraph.models.encoder_loader import load_encoder
from docgraph.models.encoders import DEFAULT_MODEL, TextEncoder

FILLER = [
    "The penguins are fed twice a day, at ten in the morning and at three in the afternoon.",
    "Visitors may not bring glass bottles into the aquarium hall.",
    "The seal pool enclosure covers four hundred square metres of salt water.",
    "Guided tours of the reptile house start every hour from the main gate.",
    "The cafe near the giraffe paddock serves lunch until half past two.",
    "Keepers weigh each otter once a week and record the result in the log.",
    "Lost children are taken to the information desk beside the gift shop.",
    "The night safari runs on Fridays and Saturdays during the summer.",
] * 3
ANSWER = "BIT STRING values are bytes and LEN counts bits: 0xCF with six bits stores 110011."
QUERY = "If I store a BIT STRING from the byte 0xCF with a length of 6 bits, which bits are kept?"


@pytest.fixture(scope="module")
def encoder() -> TextEncoder:
    return load_encoder(DEFAULT_MODEL)


def _layout() -> DocumentLayout:
    long_text = " ".join([*FILLER, ANSWER])  # the answer is one sentence at the very end
    short = "Write values with asn1_write_value; the forms accepted for each type follow."
    regions = [
        Region("paragraph", BBox(72, 72, 540, 110), short, 0),
        Region("paragraph", BBox(72, 120, 540, 700), long_text, 1),
    ]
    return DocumentLayout(Path("values.pdf"), "values.pdf", "ef" * 32, "Values", 1, [PageLayout(1, 612, 792, regions)])


def test_long_region_is_scored_by_its_best_passage(store: GraphStore, encoder: TextEncoder) -> None:
    batch = build_graph(_layout(), ingested_at="2024-01-01T00:00:00+00:00")
    embed_batch(batch, encoder)
    add_similarity_edges(batch)
    apply_gnn(batch, gnn_for(Settings()))
    long_node, short_node = (
        next(n for n in batch.nodes if n.label == "Region" and n.props.get("order") == order) for order in (1, 0)
    )
    passages = np.asarray(long_node.props[PASSAGES_PROPERTY], dtype=np.float32).reshape(-1, encoder.dim)
    assert len(passages) >= 2 and PASSAGES_PROPERTY not in short_node.props
    store.write_document(batch)
    store.wait_for_indexes()

    query = encoder.encode([QUERY])[0]
    mean_cosine = float(np.asarray(long_node.props[EMBEDDING_PROPERTY], dtype=np.float32) @ query)
    best_passage = float((passages @ query).max())
    assert best_passage > mean_cosine + 0.05  # the mean dilutes the one passage that answers

    dense = DenseRetriever(store, Corpus(store), QueryVectors(encoder))
    scores = dense.candidates(query, 5, [], batch.doc_id)
    assert scores[long_node.key] == pytest.approx(best_passage, abs=1e-3)
    assert scores[short_node.key] == pytest.approx(
        float(np.asarray(short_node.props[EMBEDDING_PROPERTY]) @ query), abs=1e-3
    )
    assert dense.exact_cosines(query, [long_node.key])[long_node.key] == pytest.approx(best_passage, abs=1e-3)
    hybrid = make_retriever("hybrid", store, encoder)
    assert isinstance(hybrid, HybridRetriever)
    raw = {c.info.region_id: c.raw for c in hybrid.gather(QUERY, batch.doc_id)}
    assert raw[long_node.key]["dense"] == pytest.approx(best_passage, abs=1e-3)
    # The GNN was fed the mean vector: its cosine gets the same best-passage lift.
    gnn_cosine = float(np.asarray(long_node.props[GNN_PROPERTY], dtype=np.float32) @ query)
    assert raw[long_node.key]["gnn"] == pytest.approx(gnn_cosine + best_passage - mean_cosine, abs=1e-3)
    short_gnn = float(np.asarray(short_node.props[GNN_PROPERTY], dtype=np.float32) @ query)
    assert raw[short_node.key]["gnn"] == pytest.approx(max(0.0, short_gnn), abs=1e-3)
    hits = hybrid.retrieve(QUERY, 2, batch.doc_id)
    assert hits[0].region_id == long_node.key

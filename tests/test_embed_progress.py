"""The embed stage counts regions as the encoder's batches finish, with the real MiniLM encoder on
the sample PDF, and the vectors stay those of one uncounted call (retrieval does not move)."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from docgraph.app.config import Settings
from docgraph.app.pipeline import embedding
from docgraph.app.pipeline.build import build_ingest_pipeline
from docgraph.app.pipeline.embedding import EMBEDDING_PROPERTY, PASSAGES_PROPERTY, clear_memory_cache, embed_batch
from docgraph.app.pipeline.readers import make_reader
from docgraph.app.resources import SAMPLES_DIR
from docgraph.app.stores.factory import open_store
from docgraph.ingest.graph import build_graph
from docgraph.models.encoder_loader import load_encoder
from docgraph.models.encoders import DEFAULT_MODEL
from docgraph.records import GraphBatch
from tests.conftest import fresh_graph_name, local_settings

SAMPLE_PDF = SAMPLES_DIR / "docgraph-sample.pdf"  # 3 pages, 26 regions, 6 sections: 27 distinct texts
BATCH = 8  # texts per encoder batch (32 by default): the sample's texts in four batches


@pytest.fixture
def settings(local_home: Path) -> Iterator[Settings]:
    """A fresh graph on the session's local FalkorDB; deleted afterwards."""
    settings = local_settings(local_home, fresh_graph_name())
    yield settings
    store = open_store(settings)
    store.delete_graph()  # type: ignore[attr-defined]
    store.close()


def test_the_embed_stage_counts_regions_as_the_encoder_batches_finish(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(embedding, "ENCODE_BATCH", BATCH)
    clear_memory_cache()  # nothing of the sample comes from an earlier test's vectors
    heard: list[tuple[str, int, int]] = []
    store = open_store(settings)
    try:
        store.apply_schema()
        report = build_ingest_pipeline(store, settings).ingest(SAMPLE_PDF, progress=lambda *a: heard.append(a))
    finally:
        store.close()
    assert report.status == "ingested", report.error
    embed = [(done, total) for stage, done, total in heard if stage == "embed"]
    assert embed[0] == (0, 0)  # the stage is named as it starts
    counts = embed[1:]
    assert len(counts) == 1 + 4  # what the (empty) cache had, then one report per encoder batch
    assert {total for _, total in counts} == {report.regions} == {26}
    done = [d for d, _ in counts]
    assert done == sorted(done) and done[0] == 0 and done[-1] == 26
    assert len({d for d in done if 0 < d < 26}) >= 2  # the count moves as the batches finish
    stages = [stage for stage, _, _ in heard]
    assert stages.index("read") < stages.index("embed") < stages.index("graph_write")


def _sample_batch() -> GraphBatch:
    settings = Settings()
    layout = make_reader(settings.reader, settings).read(SAMPLE_PDF)
    return build_graph(layout, ingested_at="2024-01-01T00:00:00+00:00")


def test_counting_leaves_every_vector_as_it_was(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(embedding, "ENCODE_BATCH", BATCH)
    encoder = load_encoder(DEFAULT_MODEL)
    plain = _sample_batch()
    counted = copy.deepcopy(plain)
    clear_memory_cache()
    embed_batch(plain, encoder)
    clear_memory_cache()  # encoded again, not read back from the cache
    heard: list[tuple[int, int]] = []
    embed_batch(counted, encoder, progress=lambda done, total: heard.append((done, total)))
    assert len(heard) == 1 + 4 and heard[-1] == (26, 26)
    for before, after in zip(plain.nodes, counted.nodes, strict=True):
        for name in (EMBEDDING_PROPERTY, PASSAGES_PROPERTY):
            if name in before.props:
                assert np.array_equal(before.props[name], after.props[name]), (before.key, name)
    assert sum(EMBEDDING_PROPERTY in node.props for node in counted.nodes) == 26 + 6

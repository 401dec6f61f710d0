"""`docgraph reembed` over a store where one document fails: the others are re-embedded, the
full-text index is rebuilt (vectors were written in place), and the failure is named at the end."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from docgraph.app.config import Settings
from docgraph.app.jobs import reembed as reembed_job
from docgraph.app.pipeline.build import build_ingest_pipeline
from docgraph.app.resources import SAMPLES_DIR
from docgraph.app.stores.falkordb_store import FalkorDBStore
from docgraph.errors import CorpusChangedError, ReembedError, StoreError


def test_one_failing_document_does_not_stop_the_others(
    falkordb_store: FalkorDBStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = Settings(home=tmp_path / "home", graph=falkordb_store.graph_name, store="")
    pipeline = build_ingest_pipeline(falkordb_store, settings)
    for name in ("busy.pdf", "zoo.pdf"):
        (tmp_path / name).write_bytes((SAMPLES_DIR / "docgraph-sample.pdf").read_bytes())
        assert pipeline.ingest(tmp_path / name).status == "ingested"
    one_document = reembed_job._reembed_document

    def busy_fails(*args: Any) -> int:
        if args[3] == "busy":
            raise CorpusChangedError("busy was stored again during each of 3 re-embeddings")
        return one_document(*args)

    monkeypatch.setattr(reembed_job, "_reembed_document", busy_fails)
    heard: list[tuple[str, int, int]] = []
    with pytest.raises(ReembedError, match=r"re-embedded [1-9]\d* nodes, but 1 document\(s\) failed: busy: busy was"):
        reembed_job.reembed(falkordb_store, settings, progress=lambda *p: heard.append(p))
    assert ("reembed", 2, 2) in heard and ("full-text index", 1, 1) in heard


def test_an_interrupted_reembed_leaves_the_full_text_scores_as_they_were(
    falkordb_store: FalkorDBStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C after the first document left the vectors written so far, and the full-text index
    they made stale (a penguin question's score fell from 4.5 to 3.0), until a whole reembed."""
    settings = Settings(home=tmp_path / "home", graph=falkordb_store.graph_name, store="")
    pipeline = build_ingest_pipeline(falkordb_store, settings)
    for name in ("first.pdf", "second.pdf"):
        (tmp_path / name).write_bytes((SAMPLES_DIR / "docgraph-sample.pdf").read_bytes())
        assert pipeline.ingest(tmp_path / name).status == "ingested"

    def scores() -> list[float]:
        return [round(hit.score, 4) for hit in falkordb_store.fulltext_top_k("Region", "When are the penguins fed?", 4)]

    before = scores()

    def stopped_after_one(stage: str, done: int, total: int) -> None:
        if stage == "reembed" and done == 1:
            raise KeyboardInterrupt

    for _ in range(3):  # each round writes the first document's vectors in place again
        with pytest.raises(KeyboardInterrupt):
            reembed_job.reembed(falkordb_store, settings, progress=stopped_after_one)
    assert scores() == before

    def store_gone(labels: object) -> None:
        raise StoreError("the store went away")

    with monkeypatch.context() as patched:  # the interrupt is what is reported, not the rebuild's failure
        patched.setattr(falkordb_store, "refresh_fulltext", store_gone)
        with pytest.raises(KeyboardInterrupt):
            reembed_job.reembed(falkordb_store, settings, progress=stopped_after_one)

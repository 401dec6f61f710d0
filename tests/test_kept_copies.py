"""The PDF a stored document renders from: kept before the write, never left without its document."""

from __future__ import annotations

from pathlib import Path

import pytest

from docgraph.app.config import Settings
from docgraph.app.pipeline.build import build_ingest_pipeline
from docgraph.app.pipeline.stages import kept_copies_dir
from docgraph.app.resources import SAMPLES_DIR
from docgraph.app.stores.falkordb_store import FalkorDBStore
from docgraph.errors import StoreError
from docgraph.ingest.structure.ids import file_sha256

SAMPLE = SAMPLES_DIR / "docgraph-sample.pdf"


def stored_documents(store: FalkorDBStore) -> list[str]:
    return [str(row["doc_id"]) for row in store.read("MATCH (d:Document) RETURN d.doc_id AS doc_id")]


def test_a_failed_write_keeps_no_copy_and_a_failed_copy_writes_nothing(
    falkordb_store: FalkorDBStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = Settings(home=tmp_path, graph=falkordb_store.graph_name, store="")
    files = kept_copies_dir(settings.home, falkordb_store)
    pipeline = build_ingest_pipeline(falkordb_store, settings, embed=False)

    def store_gone(*args: object, **kwargs: object) -> None:
        raise StoreError("the store went away mid-write")

    with monkeypatch.context() as patched:
        patched.setattr(falkordb_store, "write_document", store_gone)
        failed_write = pipeline.ingest(SAMPLE)
    assert failed_write.status == "failed" and "went away" in failed_write.error
    assert not any(files.glob("*")) and stored_documents(falkordb_store) == []

    files.rmdir()
    files.write_text("a file where the folder of copies should be")
    failed_copy = pipeline.ingest(SAMPLE)
    assert failed_copy.status == "failed" and stored_documents(falkordb_store) == []  # nothing written
    files.unlink()

    landed = pipeline.ingest(SAMPLE)
    assert landed.status == "ingested" and stored_documents(falkordb_store) == ["docgraph-sample"]
    assert [p.name for p in files.iterdir()] == [f"{file_sha256(SAMPLE)}.pdf"]  # no part file left

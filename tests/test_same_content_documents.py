"""A file stored again under a new name (renamed, then ingested) is a second document of the same
content until the first is deleted: its passages are found and cited once, not twice."""

from __future__ import annotations

import shutil
from pathlib import Path

from docgraph.app.config import Settings
from docgraph.app.integrations.regions import retrieve_regions
from docgraph.app.llm.service import ask
from docgraph.app.pipeline.build import build_ingest_pipeline
from docgraph.app.pipeline.embedding import configured_encoder
from docgraph.app.resources import SAMPLES_DIR
from docgraph.app.retrieval.hits import copy_key
from docgraph.app.retrieval.registry import make_retriever
from docgraph.app.stores.falkordb_store import FalkorDBStore

QUESTION = "When are the penguins fed?"


def test_a_renamed_file_stored_again_is_found_and_cited_once(falkordb_store: FalkorDBStore, tmp_path: Path) -> None:
    """Both copies of every passage scored alike, so the best hits came in pairs: half of a
    search's results and of an answer's reading were the same text again."""
    settings = Settings(home=tmp_path / "home", graph=falkordb_store.graph_name, store="")
    pipeline = build_ingest_pipeline(falkordb_store, settings)
    first = tmp_path / "zoo-guide.pdf"
    shutil.copyfile(SAMPLES_DIR / "docgraph-sample.pdf", first)
    assert pipeline.ingest(first).status == "ingested"
    renamed = first.rename(tmp_path / "zoo-guide-2026.pdf")
    assert pipeline.ingest(renamed).status == "ingested"
    assert {row["doc"] for row in falkordb_store.read("MATCH (d:Document) RETURN d.doc_id AS doc")} == {
        "zoo-guide",
        "zoo-guide-2026",
    }
    falkordb_store.wait_for_indexes()
    retriever = make_retriever("hybrid", falkordb_store, configured_encoder(settings), settings=settings)

    found = retrieve_regions(falkordb_store, retriever, QUESTION, k=6)
    keys = [copy_key(result.hit) for result in found]
    assert len(found) == 6 and len(set(keys)) == 6, [(r.hit.region_id, r.hit.text[:40]) for r in found]

    result = ask(QUESTION, falkordb_store, settings, retriever)
    places = [(c.page, c.region_id.split("@", 1)[1]) for c in result.citations]
    assert result.citations and len(places) == len(set(places)), places
    assert "10:30" in result.answer

"""Retrieval kept in step with the store and refusing what it cannot answer, on the sample PDF
ingested by the standard pipeline (GNN included) into a real store: a document replaced while a
question is gathered, descriptions written after the retriever was made, a document named by its
file name, k below one, and a section ranking with no section to rank."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import docgraph
from docgraph.app.config import Settings
from docgraph.app.integrations.regions import retrieve_regions
from docgraph.app.pipeline.build import build_ingest_pipeline
from docgraph.app.resources import ROOT
from docgraph.app.retrieval.corpus import Corpus
from docgraph.app.retrieval.registry import make_retriever
from docgraph.app.stores import cypher
from docgraph.app.stores.base import GraphStore
from docgraph.app.stores.factory import open_store
from docgraph.errors import DocumentNotFoundError, QuestionError
from docgraph.models.encoder_loader import load_encoder
from docgraph.models.encoders import DEFAULT_MODEL, TextEncoder
from tests.conftest import fresh_graph_name, local_settings

SAMPLE = ROOT / "samples" / "docgraph-sample.pdf"
QUESTION = "When are the penguins fed?"


@pytest.fixture(scope="module")
def encoder() -> TextEncoder:
    return load_encoder(DEFAULT_MODEL)


@pytest.fixture(scope="module")
def settings(local_home: Path) -> Settings:
    return local_settings(local_home, fresh_graph_name())


@pytest.fixture(scope="module")
def store(settings: Settings) -> Iterator[GraphStore]:
    graph_store = open_store(settings)
    graph_store.apply_schema()
    assert build_ingest_pipeline(graph_store, settings).ingest(SAMPLE).status == "ingested"
    graph_store.wait_for_indexes()
    yield graph_store
    graph_store.delete_graph()  # type: ignore[attr-defined]
    graph_store.close()


def region_ids(store: GraphStore) -> set[str]:
    return {str(row["r"]) for row in store.read("MATCH (r:Region) RETURN r.region_id AS r")}


def test_a_document_replaced_while_a_question_is_gathered_gives_regions_of_one_version(
    store: GraphStore, settings: Settings, encoder: TextEncoder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The gathering's first look at the documents sees the old version; a later step (the GNN's
    search) reloads the new one, whose regions have other ids: none of them may break the fusion."""
    corpus = Corpus(store)
    retriever = make_retriever("hybrid", store, encoder, corpus)
    before = corpus.documents()
    changed = tmp_path / SAMPLE.name
    changed.write_bytes(SAMPLE.read_bytes() + b"\n% saved again\n")
    try:
        assert build_ingest_pipeline(store, settings).ingest(changed, replace=True).status == "replaced"
        stale = iter([before])
        fresh = corpus.documents
        monkeypatch.setattr(corpus, "documents", lambda doc_id=None: next(stale, None) or fresh(doc_id))
        hits = retriever.retrieve(QUESTION, 5)
        assert hits and {hit.region_id for hit in hits} <= region_ids(store) | set(before[0].region_row)
    finally:
        assert build_ingest_pipeline(store, settings).ingest(SAMPLE, replace=True).status == "replaced"


def test_a_description_written_later_is_found_by_a_retriever_made_before(
    store: GraphStore, encoder: TextEncoder
) -> None:
    retriever = make_retriever("hybrid", store, encoder, Corpus(store))
    assert not any("zanzibarquux" in hit.text for hit in retriever.retrieve("zanzibarquux", 5))
    (figure,) = store.read("MATCH (r:Region) WHERE r.kind = 'figure' RETURN r.region_id AS r LIMIT 1")
    vector = [float(v) for v in encoder.encode(["a zanzibarquux"])[0]]
    params = {"region_id": figure["r"], "description": "A zanzibarquux feeding chart.", "embedding": vector}
    store.write(cypher.load("set_region_description", store.dialect), params)
    hits = retriever.retrieve("zanzibarquux", 5)
    assert hits[0].region_id == figure["r"] and "zanzibarquux" in hits[0].text


def test_a_document_may_be_named_by_its_file_and_an_unknown_one_is_refused(
    store: GraphStore, settings: Settings
) -> None:
    answer = docgraph.ask(QUESTION, store, settings, doc_id=SAMPLE.name)
    assert answer.citations and {c.doc_id for c in answer.citations} == {"docgraph-sample"}
    with pytest.raises(DocumentNotFoundError, match="no document 'docgraph-sampel'"):
        docgraph.ask(QUESTION, store, settings, doc_id="docgraph-sampel")


def test_fewer_than_one_region_is_refused(store: GraphStore, settings: Settings, encoder: TextEncoder) -> None:
    retriever = make_retriever("hybrid", store, encoder)
    for k in (0, -3):
        with pytest.raises(QuestionError, match="at least 1"):
            retrieve_regions(store, retriever, QUESTION, k)
        with pytest.raises(QuestionError, match="at least 1"):
            docgraph.ask(QUESTION, store, settings, k=k, using=retriever)


def test_the_section_ranking_gives_nothing_without_section_scores(local_home: Path, encoder: TextEncoder) -> None:
    """Ingested without embeddings, no section has a score: no regions, rather than the first
    sections' regions at score 0."""
    settings = local_settings(local_home, fresh_graph_name())
    graph_store = open_store(settings)
    try:
        graph_store.apply_schema()
        assert build_ingest_pipeline(graph_store, settings, embed=False).ingest(SAMPLE).status == "ingested"
        assert make_retriever("section", graph_store, encoder).retrieve(QUESTION, 8) == []
    finally:
        graph_store.delete_graph()  # type: ignore[attr-defined]
        graph_store.close()

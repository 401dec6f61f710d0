"""The LangChain retriever and tool over a real FalkorDB store holding the sample PDF, ingested by the
real pipeline. No network: the model behind the tool and the example chain is the scripted server."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from langchain_core.documents import Document
from langchain_core.runnables import RunnableLambda, RunnablePassthrough

from docgraph.app.config import Settings
from docgraph.app.integrations.langchain import DocgraphCypherTool, DocgraphRetriever
from docgraph.app.pipeline.build import build_ingest_pipeline
from docgraph.app.resources import SAMPLES_DIR
from docgraph.app.stores.base import GraphStore
from docgraph.app.stores.falkordb_store import FalkorDBStore
from docgraph.errors import ConfigError, DocumentNotFoundError, QuestionError, StoreError
from docgraph.models.encoder_loader import load_encoder
from tests.conftest import local_settings
from tests.llm_server import ScriptedLLMServer

SAMPLE_DOC = "docgraph-sample"
REPO = Path(__file__).resolve().parent.parent


@pytest.fixture
def settings(local_home: Path, falkordb_store: FalkorDBStore) -> Settings:
    return local_settings(local_home, falkordb_store.graph_name)


@pytest.fixture
def zoo_store(falkordb_store: FalkorDBStore, settings: Settings) -> FalkorDBStore:
    report = build_ingest_pipeline(falkordb_store, settings).ingest(SAMPLES_DIR / "docgraph-sample.pdf")
    assert report.status == "ingested", report.error
    return falkordb_store


@pytest.fixture
def retriever(zoo_store: FalkorDBStore, settings: Settings) -> DocgraphRetriever:
    return DocgraphRetriever(store=zoo_store, encoder=load_encoder(settings.encoder_model))


def test_the_retriever_returns_regions_as_documents_with_their_place_and_context(retriever: DocgraphRetriever) -> None:
    docs = retriever.invoke("What is the area of the seal pool enclosure?")

    assert 0 < len(docs) <= 8 and all(isinstance(doc, Document) for doc in docs)
    table = next(doc for doc in docs if doc.metadata["kind"] == "table")
    meta = table.metadata
    assert (meta["doc_id"], meta["page"], meta["section_path"], meta["retriever"]) == (
        SAMPLE_DOC,
        2,
        ["3 Enclosures"],
        "hybrid",
    )
    assert table.id == meta["region_id"] and meta["region_id"].startswith(f"{SAMPLE_DOC}@")
    assert len(meta["bbox"]) == 4 and meta["bbox"][0] < meta["bbox"][2] and meta["bbox"][1] < meta["bbox"][3]
    assert meta["score"] > 0 and meta["scores"]
    captions = [c for c in meta["context"] if c["relation"] == "caption"]
    assert [(c["kind"], c["page"]) for c in captions] == [("caption", 2)]
    # The text an LLM reads: section path, the table, its caption from the graph.
    lines = table.page_content.splitlines()
    assert lines[0] == "Section: 3 Enclosures"
    assert "Seal pool" in table.page_content
    assert "Caption (caption, p.2): Table 1: Enclosure sizes and number of animals." in lines[2:]
    assert any(line.startswith("Referred to by (paragraph, p.2): ") and "Table 1" in line for line in lines)
    json.dumps([doc.metadata for doc in docs])  # metadata is plain JSON, as vector stores and tracers expect
    assert [doc.metadata["score"] for doc in docs] == sorted((d.metadata["score"] for d in docs), reverse=True)


def test_variant_k_and_document_are_configurable(retriever: DocgraphRetriever) -> None:
    lexical = retriever.model_copy(update={"variant": "bm25-region", "k": 2})
    docs = lexical.invoke("penguins are fed herring")
    assert len(docs) == 2
    assert docs[0].metadata["retriever"] == "bm25-region" and set(docs[0].metadata["scores"]) == {"bm25"}
    assert "herring" in docs[0].page_content and docs[0].metadata["section_path"] == ["2 Feeding schedule"]

    bare = retriever.model_copy(update={"k": 3, "with_context": False, "with_section": False})
    found = bare.invoke("What is the area of the seal pool enclosure?")
    assert len(found) == 3
    for doc in found:
        assert doc.metadata["context"] == [] and not doc.page_content.startswith("Section:")

    by_file = retriever.model_copy(update={"doc_id": "docgraph-sample.pdf"}).invoke("seal pool")  # as --doc takes it
    assert by_file and {doc.metadata["doc_id"] for doc in by_file} == {"docgraph-sample"}
    with pytest.raises(DocumentNotFoundError, match="no document 'another-document'"):  # a typo is not "no hits"
        retriever.model_copy(update={"doc_id": "another-document"}).invoke("seal pool")
    for blank in ("", "   "):  # it returned k regions of full score, as if each matched
        with pytest.raises(QuestionError, match="the question is empty"):
            retriever.invoke(blank)


def test_k_and_document_can_be_given_for_one_call(retriever: DocgraphRetriever) -> None:
    """``invoke(query, k=2)`` returned the field's 8 regions: LangChain passed k on and it was dropped."""
    assert len(retriever.invoke("seal pool", k=2)) == 2
    assert len(asyncio.run(retriever.ainvoke("seal pool", k=3))) == 3  # LangChain's async default drops it
    assert len(retriever.invoke("seal pool")) == 8  # the field again: one call changed nothing
    found = retriever.invoke("seal pool", doc_id="docgraph-sample.pdf")
    assert found and {doc.metadata["doc_id"] for doc in found} == {"docgraph-sample"}
    with pytest.raises(DocumentNotFoundError, match="no document 'another-document'"):
        retriever.invoke("seal pool", doc_id="another-document")
    with pytest.raises(TypeError, match="kk"):  # a misspelt argument is not a silent default
        retriever.invoke("seal pool", kk=2)
    with pytest.raises(QuestionError):
        retriever.invoke("seal pool", k=0)


def test_the_retriever_composes_in_a_chain(retriever: DocgraphRetriever) -> None:
    def prompt(inputs: dict[str, object]) -> str:
        docs = inputs["context"]
        assert isinstance(docs, list)
        cited = "\n".join(f"[{d.metadata['doc_id']} p.{d.metadata['page']}] {d.page_content}" for d in docs)
        return f"Context:\n{cited}\n\nQuestion: {inputs['question']}"

    chain = {"context": retriever, "question": RunnablePassthrough()} | RunnableLambda(prompt)
    text = chain.invoke("When are the penguins fed?")
    assert "Question: When are the penguins fed?" in text
    assert "10:30" in text and "[docgraph-sample p.1]" in text


def test_the_cypher_tool_answers_with_rows_of_a_read_only_query(zoo_store: FalkorDBStore, tmp_path: Path) -> None:
    with ScriptedLLMServer() as server:
        server.add("```cypher\nMATCH (r:Region {kind: 'caption'}) RETURN count(r) AS captions\n```")
        tool = DocgraphCypherTool(store=zoo_store, settings=_llm_settings(server.base_url, tmp_path))
        output = tool.invoke({"question": "How many captions are there?"})

    result = json.loads(output)
    assert result["rows"] == [{"captions": 2}] and result["truncated"] is False
    assert result["cypher"].startswith("MATCH (r:Region {kind: 'caption'})")
    assert list(tool.args) == ["question"] and tool.args["question"]["type"] == "string"


def test_the_cypher_tool_refuses_writes(zoo_store: FalkorDBStore, tmp_path: Path) -> None:
    before = zoo_store.counts()
    with ScriptedLLMServer() as server:
        settings = _llm_settings(server.base_url, tmp_path)
        server.add(*["```cypher\nMATCH (r:Region) DETACH DELETE r\n```"] * settings.text2cypher_max_tries)
        tool = DocgraphCypherTool(store=zoo_store, settings=settings)
        output = tool.invoke({"question": "Remove every region"})

    assert "not allowed" in output and "no valid read-only query" in output
    after = zoo_store.counts()
    assert (after.labels, after.relationship_types) == (before.labels, before.relationship_types)


def test_the_example_chain_runs_against_an_openai_compatible_endpoint(
    zoo_store: FalkorDBStore, settings: Settings
) -> None:
    with ScriptedLLMServer() as server:
        server.add("The penguins are fed herring at 10:30 and at 15:00 [docgraph-sample p.1].")
        env = {
            **os.environ,
            "DOCGRAPH_HOME": str(settings.home),
            "DOCGRAPH_GRAPH": settings.graph,
            "DOCGRAPH_STORE": "",
            "OPENAI_BASE_URL": server.base_url,
            "OPENAI_API_KEY": "test-key",
            "DOCGRAPH_LLM_MODEL": "test-model",
        }
        run = subprocess.run(
            [sys.executable, str(REPO / "examples" / "langchain_chain.py"), "When are the penguins fed?", "--k", "3"],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        prompt = server.prompts()[0] if server.requests else ""

    assert run.returncode == 0, run.stderr
    assert "10:30 and at 15:00" in run.stdout
    assert "When are the penguins fed?" in prompt and "herring" in prompt  # the retrieved regions reached the model

    # A URL without a key: docgraph's own answers are extractive, so the example calls no model either
    keyless = {name: value for name, value in env.items() if name not in {"OPENAI_API_KEY", "DOCGRAPH_LLM_API_KEY"}}
    command = [sys.executable, str(REPO / "examples" / "langchain_chain.py"), "When are the penguins fed?"]
    run = subprocess.run(command, cwd=REPO, env=keyless, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("No LLM endpoint configured") and "When are the penguins fed?" in run.stdout


def _llm_settings(base_url: str, home: Path) -> Settings:
    return Settings(home=home, llm_base_url=base_url, llm_api_key="test-key", llm_model="test-model")


def test_from_settings_refuses_a_misspelt_field_and_closes_what_it_opened(
    zoo_store: FalkorDBStore, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``top_k=1`` (for ``k``) was ignored and 8 documents came back; a refused field left the store
    open, and the tool had no way to close its own."""
    import docgraph.app.integrations.langchain as integration

    opened: list[GraphStore] = []
    original = integration.open_configured_store

    def recorded(given: Settings) -> GraphStore:
        opened.append(original(given))
        return opened[-1]

    monkeypatch.setattr(integration, "open_configured_store", recorded)
    with pytest.raises(ConfigError, match=r"^bad field: top_k: no such field$"):
        DocgraphRetriever.from_settings(settings, top_k=1)
    with pytest.raises(StoreError, match="is closed"):
        opened[-1].read("RETURN 1 AS one")
    tool = DocgraphCypherTool.from_settings(settings)
    tool.close()
    with pytest.raises(StoreError, match="is closed"):
        opened[-1].read("RETURN 1 AS one")

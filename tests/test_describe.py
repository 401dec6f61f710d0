"""Visual descriptions: real page renders sent over HTTP, replies stored on a real FalkorDB store."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import numpy as np
import pymupdf
import pytest
from typer.testing import CliRunner

from docgraph.app.cli.main import app
from docgraph.app.config import Settings
from docgraph.app.llm.service import describe_document
from docgraph.app.pipeline.build import build_ingest_pipeline
from docgraph.app.pipeline.embedding import embed_batch
from docgraph.app.resources import SAMPLES_DIR
from docgraph.app.stores.base import GraphStore
from docgraph.app.stores.cypher import load
from docgraph.app.stores.falkordb_store import FalkorDBStore
from docgraph.errors import LLMUnavailableError
from docgraph.models.encoder_loader import load_encoder
from tests.llm_data import llm_settings, region_id, zoo_batch
from tests.llm_server import Reply, ScriptedLLMServer

SAMPLE = SAMPLES_DIR / "docgraph-sample.pdf"
TABLE = region_id(1, 3)
FIGURE = region_id(2, 1)
TABLE_REPLY = {"type": "table", "summary": "Daily food per animal.", "details": ["Penguin: fish 0.5 kg"], "text": ""}
FIGURE_REPLY = {
    "type": "bar chart",
    "summary": "A bar chart of yearly visitor numbers.",
    "details": ["2019: 1.2 million visitors", "2023: 2.1 million visitors"],
    "text": "Penguins, Lions",
}


def stored(store: GraphStore, region: str, prop: str) -> object:
    rows = store.read("MATCH (r:Region {region_id: $id}) RETURN r[$prop] AS value", {"id": region, "prop": prop})
    return rows[0]["value"]


def figure_score(store: GraphStore, query: list[float]) -> float:
    hits = store.vector_top_k("Region", "embedding", query, k=len(zoo_batch().nodes), doc_id="zoo")
    return next(hit.score for hit in hits if hit.key == FIGURE)


def test_descriptions_are_stored_and_the_region_reembedded(falkordb_store: GraphStore, tmp_path: Path) -> None:
    encoder = load_encoder()
    batch = zoo_batch()
    embed_batch(batch, encoder)
    falkordb_store.write_document(batch)
    query = encoder.encode(["How many people visited the zoo each year?"])[0].tolist()
    before = figure_score(falkordb_store, query)
    with ScriptedLLMServer() as server:
        server.add(json.dumps(TABLE_REPLY), "Here you go:\n" + json.dumps(FIGURE_REPLY))
        settings = llm_settings(server.base_url, tmp_path, vlm_model="test-vision")
        report = describe_document(falkordb_store, settings, "zoo", encoder=encoder)
        requests = server.requests

    assert report.described == [TABLE, FIGURE] and report.failed == {}
    # The two regions were written in place, and the full-text index rebuilt after: rebuilding it
    # again changes no score.
    scores = [(hit.key, hit.score) for hit in falkordb_store.fulltext_top_k("Region", "penguins fish zoo", k=10)]
    falkordb_store.refresh_fulltext(["Region"])
    assert (
        scores
        and [(hit.key, hit.score) for hit in falkordb_store.fulltext_top_k("Region", "penguins fish zoo", k=10)]
        == scores
    )
    description = stored(falkordb_store, FIGURE, "description")
    assert description == (
        "type: bar chart\n"
        "summary: A bar chart of yearly visitor numbers.\n"
        "details: 2019: 1.2 million visitors; 2023: 2.1 million visitors\n"
        "text: Penguins, Lions"
    )
    # What went to the vision model: its name, the caption in the prompt, a real PNG of the region.
    figure_request = requests[1]
    assert figure_request["model"] == "test-vision"
    text_part, image_part = figure_request["messages"][0]["content"]
    assert "Figure 1: Map of the zoo" in text_part["text"] and "figure" in text_part["text"]
    url = image_part["image_url"]["url"]
    assert url.startswith("data:image/png;base64,")
    assert base64.b64decode(url.split(",", 1)[1]).startswith(b"\x89PNG\r\n\x1a\n")
    # The new embedding carries the description: the vector index now finds the figure by what it shows.
    hits = falkordb_store.vector_top_k("Region", "embedding", query, k=1, doc_id="zoo")
    assert [hit.key for hit in hits] == [FIGURE]
    assert figure_score(falkordb_store, query) > before + 0.1


def test_described_regions_are_skipped_unless_redone(falkordb_store: GraphStore, tmp_path: Path) -> None:
    falkordb_store.write_document(zoo_batch())
    with ScriptedLLMServer() as server:
        server.add(json.dumps(TABLE_REPLY), json.dumps(FIGURE_REPLY))
        settings = llm_settings(server.base_url, tmp_path, vlm_model="test-vision")
        describe_document(falkordb_store, settings, "zoo")
        again = describe_document(falkordb_store, settings, "zoo")
        server.add(json.dumps(TABLE_REPLY), json.dumps({**FIGURE_REPLY, "summary": "Redrawn map."}))
        redone = describe_document(falkordb_store, settings, "zoo", redo=True)

    assert again.described == [] and len(server.requests) == 4
    assert redone.described == [TABLE, FIGURE]
    assert "summary: Redrawn map." in str(stored(falkordb_store, FIGURE, "description"))


def test_a_failed_region_is_reported_and_the_others_described(falkordb_store: GraphStore, tmp_path: Path) -> None:
    falkordb_store.write_document(zoo_batch())
    with ScriptedLLMServer() as server:
        server.add(Reply(status=400, error="image too small"), json.dumps(FIGURE_REPLY))
        settings = llm_settings(server.base_url, tmp_path, vlm_model="test-vision")
        report = describe_document(falkordb_store, settings, "zoo")

    assert report.described == [FIGURE]
    assert "image too small" in report.failed[TABLE]
    assert stored(falkordb_store, TABLE, "description") is None


def test_describing_needs_a_vision_model(falkordb_store: GraphStore, tmp_path: Path) -> None:
    falkordb_store.write_document(zoo_batch())
    with ScriptedLLMServer() as server, pytest.raises(LLMUnavailableError, match="DOCGRAPH_VLM_MODEL"):
        describe_document(falkordb_store, llm_settings(server.base_url, tmp_path, vlm_model=""), "zoo")


def test_a_rebuild_keeps_the_descriptions_of_the_regions_it_reads_again(
    falkordb_store: GraphStore, tmp_path: Path
) -> None:
    """`ingest --force` (or another release) wrote the document anew and every description paid for
    with a vision-model call was gone without a word."""
    settings = Settings(home=tmp_path / "home", graph=falkordb_store.graph_name, store="")
    assert build_ingest_pipeline(falkordb_store, settings).ingest(SAMPLE).status == "ingested"
    [table] = falkordb_store.read(
        "MATCH (r:Region {kind: 'table'}) RETURN r.region_id AS id ORDER BY r.page, r.order LIMIT 1"
    )
    vector = load_encoder().encode(["Table: daily food per animal, penguins get fish"])[0]
    params = {"region_id": table["id"], "description": "summary: Daily food.", "embedding": vector.tolist()}
    falkordb_store.write(load("set_region_description", falkordb_store.dialect), params)

    forced = build_ingest_pipeline(falkordb_store, settings, force=True).ingest(SAMPLE)
    assert forced.status == "replaced", forced.error
    [row] = falkordb_store.read(
        "MATCH (r:Region) WHERE r.description IS NOT NULL MATCH (d:Document {doc_id: r.doc_id}) "
        "RETURN r.region_id AS id, r.description AS description, r.embedding AS embedding, d.described AS described"
    )
    assert (row["id"], row["description"], row["described"]) == (table["id"], "summary: Daily food.", 1)
    assert np.allclose(row["embedding"], vector, atol=1e-6)

    # Another file under the name (a new edition) takes none: its table may show something else.
    edition = pymupdf.open(SAMPLE)
    edition[0].insert_text((72, 40), "Second edition", fontsize=9)
    edition.save(tmp_path / SAMPLE.name)
    again = build_ingest_pipeline(falkordb_store, settings).ingest(tmp_path / SAMPLE.name, replace=True)
    assert again.status == "replaced", again.error
    assert falkordb_store.read("MATCH (r:Region) WHERE r.description IS NOT NULL RETURN count(r) AS n") == [{"n": 0}]


def test_the_describe_command_exits_1_when_a_region_failed(
    falkordb_store: FalkorDBStore, local_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """It exited 0 on "0 described, 2 failed", where an ingest with a failed file exits 1."""
    falkordb_store.write_document(zoo_batch())
    with ScriptedLLMServer() as server:
        server.add(Reply(status=400, error="image too small"), json.dumps(FIGURE_REPLY))
        env = {
            "DOCGRAPH_HOME": str(local_home),
            "DOCGRAPH_STORE": "",
            "DOCGRAPH_GRAPH": falkordb_store.graph_name,
            "OPENAI_BASE_URL": server.base_url,
            "OPENAI_API_KEY": "test-key",
            "DOCGRAPH_LLM_MODEL": "test-model",
            "DOCGRAPH_VLM_MODEL": "test-vision",
        }
        for key, value in env.items():
            monkeypatch.setenv(key, value)
        result = CliRunner().invoke(app, ["describe", "--doc", "zoo", "--json"])
    assert result.exit_code == 1, result.stderr
    [report] = json.loads(result.stdout)
    assert report["regions"] == [FIGURE] and list(report["failed"]) == [TABLE]
    assert stored(falkordb_store, FIGURE, "description")  # what was described is kept

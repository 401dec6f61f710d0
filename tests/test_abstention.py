"""Abstention: a question the stored documents do not answer is told so, with the nearest passages,
on a real store holding the sample PDF (real MiniLM vectors), through ``ask``, the CLI and the API."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pymupdf
import pytest
from typer.testing import CliRunner

from docgraph.app.cli.main import app
from docgraph.app.config import Settings
from docgraph.app.llm.service import NOT_ANSWERED, ask
from docgraph.app.pipeline.build import build_ingest_pipeline
from docgraph.app.resources import ROOT
from docgraph.app.retrieval.base import ScoredRegion
from docgraph.app.retrieval.registry import make_retriever
from docgraph.app.retrieval.relevance import AbstentionBar, Evidence, coverage
from docgraph.app.stores.base import GraphStore
from docgraph.app.stores.factory import open_store
from docgraph.models.encoder_loader import load_encoder
from tests.conftest import fresh_graph_name
from tests.llm_data import llm_settings, no_llm_settings
from tests.llm_server import ScriptedLLMServer, confident
from tests.test_api_access import running_api
from tests.test_book_index import _book as index_book

SAMPLE = ROOT / "samples" / "docgraph-sample.pdf"
WATER_REPORT = ROOT / "tests" / "data" / "pdfs" / "water-report.pdf"
NONSENSE = "xqzv blorft wibble"
REAL = "When are the penguins fed?"
ROUTE_RETRIEVE = json.dumps({"route": "retrieve", "reason": "one fact", "sub_questions": []})


def test_the_bar_needs_coverage_or_similarity_from_known_words() -> None:
    bar = AbstentionBar(similarity=0.5, coverage=0.7, known=0.8)
    assert bar.cleared_by(Evidence(similarity=0.1, coverage=0.7, known=0.0))
    assert bar.cleared_by(Evidence(similarity=0.5, coverage=0.0, known=0.8))
    assert not bar.cleared_by(Evidence(similarity=0.9, coverage=0.2, known=0.5))  # gibberish near some region
    assert not bar.cleared_by(Evidence(similarity=0.49, coverage=0.69, known=1.0))
    assert coverage("?? !! ~~", []) == 0.0  # names nothing: nothing can be found for it


@pytest.fixture(scope="module")
def store_url(local_home: Path) -> Iterator[str]:
    graph = fresh_graph_name()
    store = open_store(Settings(home=local_home, graph=graph, store=""))
    store.apply_schema()
    report = build_ingest_pipeline(store, Settings(home=local_home, graph=graph, store="")).ingest(SAMPLE)
    assert report.status == "ingested", report.error
    store.wait_for_indexes()
    yield f"falkordb-local://{local_home}?graph={graph}"
    store.delete_graph()  # type: ignore[attr-defined]
    store.close()


@pytest.fixture(scope="module")
def store(store_url: str, local_home: Path) -> Iterator[GraphStore]:
    opened = open_store(Settings(home=local_home, store=store_url))
    yield opened
    opened.close()


def test_nonsense_is_not_answered_and_the_nearest_passages_are_listed(store: GraphStore, tmp_path: Path) -> None:
    retriever = make_retriever("hybrid", store, load_encoder())
    result = ask(NONSENSE, store, no_llm_settings(tmp_path), retriever)
    assert result.abstained and result.answer.startswith(f"{NOT_ANSWERED} The nearest passages:\n\n")
    assert result.citations and result.relevance is not None
    assert result.relevance["coverage"] == 0.0 and result.relevance["known"] == 0.0
    assert any(step["step"] == "relevance" and step["abstain"] for step in result.trace)
    answered = ask(REAL, store, no_llm_settings(tmp_path), retriever)
    assert not answered.abstained and not answered.answer.startswith(NOT_ANSWERED)
    assert answered.relevance is not None and answered.relevance["coverage"] == 1.0
    kept = ask(NONSENSE, store, no_llm_settings(tmp_path, abstain=False), retriever)
    assert not kept.abstained and not kept.answer.startswith(NOT_ANSWERED) and kept.relevance is not None


def test_a_document_with_no_passage_is_not_said_to_have_nearest_ones(local_home: Path, tmp_path: Path) -> None:
    """A blank document: the answer announced "The nearest passages:", then said no passage matched."""
    blank = tmp_path / "blank.pdf"
    with pymupdf.open() as document:
        document.new_page()
        document.save(blank)
    settings = Settings(home=local_home, graph=fresh_graph_name(), store="")
    store = open_store(settings)
    try:
        store.apply_schema()
        report = build_ingest_pipeline(store, settings).ingest(blank)
        assert report.status == "ingested", report.error
        retriever = make_retriever("hybrid", store, load_encoder())
        result = ask(REAL, store, no_llm_settings(tmp_path), retriever, doc_id="blank")
        assert result.abstained and result.answer == NOT_ANSWERED and not result.citations
    finally:
        store.delete_graph()  # type: ignore[attr-defined]
        store.close()


def test_a_question_in_another_inflection_than_the_text_is_answered(local_home: Path, tmp_path: Path) -> None:
    """ "How often should the door filter be cleaned?" was said not to be answered while its first
    quote was "Clean the door filter | 3 months": "cleaned" did not count as found in "Clean"."""
    pdf = tmp_path / "service.pdf"
    rows = [("Task", "Interval"), ("Clean the door filter", "3 months"), ("Check the cable glands", "12 months")]
    rows += [("Replace the door seal", "24 months"), ("Lubricate the hinges", "6 months")]
    with pymupdf.open() as document:
        page = document.new_page()
        page.insert_text((72, 72), "Table 2: Maintenance intervals", fontsize=10)
        for row, cells in enumerate(rows):
            y = 84 + 16 * row
            page.draw_rect(pymupdf.Rect(72, y, 372, y + 16), color=(0, 0, 0), width=0.5)
            page.draw_line((252, y), (252, y + 16), color=(0, 0, 0), width=0.5)
            for x, cell in zip((75, 255), cells, strict=True):
                page.insert_text((x, y + 12), cell, fontsize=9)
        document.save(pdf)
    with _store_holding(pdf, local_home) as store:
        retriever = make_retriever("hybrid", store, load_encoder())
        for question in ("How often should the door filter be cleaned?", "How often are the cable glands checked?"):
            result = ask(question, store, no_llm_settings(tmp_path), retriever, doc_id="service")
            assert not result.abstained, (question, result.relevance)


def test_a_question_asking_which_pages_is_answered_from_a_books_index(local_home: Path, tmp_path: Path) -> None:
    """ "Which pages discuss Luther?" was said not to be answered while its first quote was the
    index entry "Luther, Martin, 12, 45-47, 103": no passage holds "pages"."""
    pdf = tmp_path / "reformation.pdf"
    index_book(pdf)
    with _store_holding(pdf, local_home) as store:
        retriever = make_retriever("hybrid", store, load_encoder())
        result = ask("Which pages discuss Luther?", store, no_llm_settings(tmp_path), retriever)
        assert not result.abstained, result.relevance
        assert "Luther, Martin, 12, 45-47, 103" in result.answer


@contextmanager
def _store_holding(pdf: Path, home: Path) -> Iterator[GraphStore]:
    """A fresh graph in the local store with ``pdf`` ingested; deleted afterwards."""
    settings = Settings(home=home, graph=fresh_graph_name(), store="")
    store = open_store(settings)
    try:
        store.apply_schema()
        assert build_ingest_pipeline(store, settings).ingest(pdf).status == "ingested"
        store.wait_for_indexes()
        yield store
    finally:
        store.delete_graph()  # type: ignore[attr-defined]
        store.close()


def _review_with_a_running_head(pdf: Path) -> None:
    """Four pages under the running head "Corvane Logistics Oy | Confidential", which alone names the
    company; the answer on page 3, far from the title."""
    paragraphs = [
        "Warehouse safety audits were completed at all sites; no major findings were raised.",
        "Training hours per employee rose to 14 in the quarter, and two apprentices joined.",
        "We handled 12,400 shipments in Q3, up from 10,900 in Q2. Average delivery time fell to 1.8 days.",
        "Fuel costs rose by 6 per cent, offset by the route planning changes introduced in July.",
    ]
    with pymupdf.open() as document:
        for number, text in enumerate(paragraphs, start=1):
            page = document.new_page(width=595, height=842)
            page.insert_text((72, 40), "Corvane Logistics Oy  |  Confidential", fontsize=8)
            page.insert_text((480, 820), str(number), fontsize=8)
            if number == 1:
                page.insert_text((72, 90), "Operations Review, Third Quarter", fontname="hebo", fontsize=16)
            page.insert_textbox(pymupdf.Rect(72, 130, 523, 210), text, fontsize=10)
        document.save(pdf)


def test_a_name_the_running_head_gives_the_document_counts_as_found(local_home: Path, tmp_path: Path) -> None:
    """ "How many shipments did Corvane Logistics handle?" was not answered: the company is named in
    the running head only, which is no passage."""
    pdf = tmp_path / "review.pdf"
    _review_with_a_running_head(pdf)
    with _store_holding(pdf, local_home) as store:
        retriever = make_retriever("hybrid", store, load_encoder())
        result = ask("How many shipments did Corvane Logistics handle?", store, no_llm_settings(tmp_path), retriever)
        assert not result.abstained and "12,400 shipments" in result.answer, result.relevance


def test_coverage_meets_a_words_inflections_but_no_other_word() -> None:
    """Taking a final e off every word made "care" meet "car" and "plane" "plan", so off-topic
    questions cleared the bar on passages about something else."""
    hit = ScoredRegion(
        "r", "d", 1, (), "paragraph", "Plan each service of the car ahead; stored parts are checked.", 1.0
    )
    assert coverage("How should I care for a plane?", [hit]) == 0.0
    assert coverage("Where is the store that checks the car?", [hit]) == 1.0


def test_coverage_meets_an_irregular_past_and_leaves_out_the_words_that_frame_a_question() -> None:
    """A paper's reader asked "How long did training take ...?" of "Training took 14 hours", and
    "What do the authors say about limitations ...?" of the limitations' own text: "take", and
    "authors" and "say", were counted missing, and ask abstained while quoting the answer."""
    hit = ScoredRegion("r", "d", 1, (), "paragraph", "Training took 14 hours. A limitation of RGNR is speed.", 1.0)
    assert coverage("How long did training take?", [hit]) == pytest.approx(2 / 3)  # "long" is not there
    assert coverage("What do the authors say about limitations of RGNR?", [hit]) == 1.0
    assert coverage("What do the authors say?", [hit]) == 0.0  # asks for the authors, not in this passage
    credits = ScoredRegion("r", "d", 1, (), "paragraph", "Author: Jane Doe, Acme Labs.", 1.0)
    assert coverage("Who is the author?", [credits]) == 1.0  # a question of frame words only asks them
    assert coverage("How long does the drive shaft take to cool?", [hit]) == 0.2  # "take" only


def test_what_happened_asks_for_events_no_passage_names_so() -> None:
    """A newsletter's reader asked "What happened at the AGM?" of the AGM report: "happened" was
    counted missing (no passage words its events so) and ask abstained while quoting the report."""
    report = ScoredRegion("r", "d", 1, (), "paragraph", "At the AGM members voted to buy a defibrillator.", 1.0)
    assert coverage("What happened at the AGM?", [report]) == 1.0
    assert coverage("What happens if the AGM is not quorate?", [report]) == 0.5  # "quorate" is not there


def test_an_abstained_question_asks_the_model_nothing_more(store: GraphStore, tmp_path: Path) -> None:
    retriever = make_retriever("hybrid", store, load_encoder())
    streamed: list[str] = []
    with ScriptedLLMServer() as server:
        server.add(ROUTE_RETRIEVE, confident("Penguins fly at dawn [docgraph-sample p.1 #r1]."))
        result = ask(
            NONSENSE, store, llm_settings(server.base_url, tmp_path), retriever, stream_callback=streamed.append
        )
        requests = len(server.requests)
    assert requests == 1  # the router's; no answer was generated from unrelated passages
    assert result.abstained and result.mode == "extractive" and "".join(streamed) == result.answer


def test_ask_json_and_the_api_carry_abstained(store_url: str, local_home: Path, tmp_path: Path) -> None:
    env = {"DOCGRAPH_HOME": str(tmp_path / "home"), "DOCGRAPH_STORE": store_url, "DOCGRAPH_LLM_BASE_URL": ""}
    done = CliRunner().invoke(app, ["ask", NONSENSE, "--json"], env=env)
    assert done.exit_code == 0, done.output
    answer = json.loads(done.stdout)
    assert (
        answer["abstained"] is True
        and answer["citations"]
        and set(answer["relevance"])
        == {
            "similarity",
            "coverage",
            "known",
        }
    )
    with running_api(local_home, tmp_path / "api-home", DOCGRAPH_STORE=store_url, DOCGRAPH_LLM_BASE_URL="") as url:
        for question, abstained in ((NONSENSE, True), (REAL, False)):
            reply = httpx.post(f"{url}/ask", json={"question": question}, timeout=120)
            assert reply.status_code == 200, reply.text
            assert reply.json()["abstained"] is abstained


def test_a_decomposed_question_is_measured_on_every_sub_question_s_hits(
    falkordb_store: GraphStore, local_home: Path, tmp_path: Path
) -> None:
    """Two questions about two documents: the first sub-question's hits hold a third of the words
    asked; both sub-questions' hits, which the answer reads, hold them all."""
    settings = Settings(home=local_home, graph=falkordb_store.graph_name, store="")
    pipeline = build_ingest_pipeline(falkordb_store, settings)
    for pdf in (SAMPLE, WATER_REPORT):
        assert pipeline.ingest(pdf).status == "ingested"
    falkordb_store.wait_for_indexes()
    subs = ["When are the penguins fed?", "Which districts have shallow groundwater wells?"]
    route = json.dumps({"route": "decompose", "reason": "two questions", "sub_questions": subs})
    with ScriptedLLMServer() as server:
        server.add(route, confident("The penguins are fed at 10:30 and at 15:00."))
        result = ask(
            "When are the penguins fed, and which districts have shallow groundwater wells?",
            falkordb_store,
            llm_settings(server.base_url, tmp_path),
            make_retriever("hybrid", falkordb_store, load_encoder()),
        )
    assert result.route == "decompose" and result.relevance is not None
    assert result.relevance["coverage"] == 1.0 and not result.abstained


def test_a_question_with_no_hits_at_all_is_not_answered(store: GraphStore, tmp_path: Path) -> None:
    """Asked about a document that is not stored, nothing is retrieved: no model is asked to answer."""
    with ScriptedLLMServer() as server:
        server.add(ROUTE_RETRIEVE, confident("Penguins fly at dawn."))
        settings = llm_settings(server.base_url, tmp_path)
        result = ask(REAL, store, settings, make_retriever("hybrid", store, load_encoder()), doc_id="no-such-doc")
        requests = len(server.requests)
    assert result.abstained and result.answer.startswith(NOT_ANSWERED) and not result.citations
    assert requests == 1  # the router's
    assert result.relevance is not None and result.relevance["similarity"] == result.relevance["coverage"] == 0.0


def test_a_streamed_answer_is_followed_by_the_checked_one_when_citations_went(store_url: str, tmp_path: Path) -> None:
    """The terminal showed the model's text as it came, invented citation included, and never the
    answer as checked (the one --json, the API and the UI give)."""
    env = {"DOCGRAPH_HOME": str(tmp_path / "home"), "DOCGRAPH_STORE": store_url, "DOCGRAPH_LLM_API_KEY": "k"}
    with ScriptedLLMServer() as server:
        server.add(ROUTE_RETRIEVE, confident("Penguins are fed at 10:30 [docgraph-sample p.9 #r99]."))
        env.update(DOCGRAPH_LLM_BASE_URL=server.base_url, DOCGRAPH_LLM_MODEL="m", DOCGRAPH_LLM_MAX_REREADS="0")
        done = CliRunner().invoke(app, ["ask", REAL], env=env)
    assert done.exit_code == 0, done.output
    streamed, checked = done.stdout.split("the answer as checked:)")
    assert "[docgraph-sample p.9 #r99]" in streamed and "removed citations" in streamed
    assert checked.strip().startswith("Penguins are fed at 10:30") and "#r99" not in checked

"""Answers across page breaks: a sentence cut by a break is quoted whole from both parts, a hit is
never demoted to another hit's context, a figure found without text speaks through its caption, and
a page turn the text does not run on over is not called a continuation. PDFs made here, a real store
and the real encoder; the extractive answer (no LLM)."""

from __future__ import annotations

from pathlib import Path

import pymupdf

from docgraph.app.config import Settings
from docgraph.app.integrations.regions import retrieve_regions
from docgraph.app.llm.context import Passage, build_context
from docgraph.app.llm.extractive import extractive_answer
from docgraph.app.llm.service import ask
from docgraph.app.pipeline.build import build_ingest_pipeline
from docgraph.app.pipeline.embedding import configured_encoder
from docgraph.app.retrieval.registry import make_retriever
from docgraph.app.stores.falkordb_store import FalkorDBStore
from tests.test_cross_page_reading import wrapped

FILLER = (
    "The plant keeps a written record of every inspection so that the auditors can trace what was done and "
    "when. Each record names the person who did the work and the parts that were replaced during the visit."
)
CUT = (
    "The backup generator is installed in the basement next to the main switchboard. To keep the warranty "
    "valid, the backup generator must be tested every ninety days by running it under a resistive load bank "
    "for at least forty minutes while the coolant stays below ninety-five degrees."
)
WHOLE_SENTENCE = "must be tested every ninety days by running it under a resistive load bank for at least forty minutes"


def _write(page: pymupdf.Page, lines: list[str], y: float) -> float:
    for line in lines:
        page.insert_text((72, y), line, fontname="helv", fontsize=10)
        y += 13.5
    return y + 8


def generator_guide(folder: Path) -> Path:
    """Page 1: filler, then a paragraph whose last sentence the page break cuts after its second
    line; page 2: the rest of it, a paragraph, a drawing captioned "Figure 1: ..."; page 3: a
    paragraph after a page turn that cuts nothing."""
    pdf = folder / "generator.pdf"
    cut = wrapped(CUT, 460)
    with pymupdf.open() as doc:
        first = doc.new_page()
        first.insert_text((72, 72), "Generator Maintenance Guide", fontname="hebo", fontsize=16)
        y = 110.0
        for _ in range(7):
            y = _write(first, wrapped(FILLER, 460), y)
        _write(first, cut[:2], 720 - 13.5)
        second = doc.new_page()
        y = _write(second, cut[2:], 72)
        _write(second, ["Fuel is delivered by the contractor named on the notice board in the plant office."], y)
        second.draw_rect(pymupdf.Rect(150, 200, 450, 400), color=(0, 0, 0), fill=(0.85, 0.85, 0.9))
        second.draw_line((160, 220), (440, 380))
        second.draw_line((160, 380), (440, 220))
        second.insert_text((150, 420), "Figure 1: Wiring of the automatic transfer switch", fontname="helv", fontsize=9)
        third = doc.new_page()
        _write(third, ["The transfer switch is inspected by the electrician once a year."], 72)
        doc.save(pdf)
    return pdf


def test_a_sentence_cut_by_a_page_break_is_quoted_whole_from_both_parts(
    falkordb_store: FalkorDBStore, tmp_path: Path
) -> None:
    """Each part was quoted alone ("... by running it under a resistive load bank" / "for at least
    forty minutes ..."), whichever the question matched: half a sentence, citing one page."""
    settings = Settings(home=tmp_path / "home", graph=falkordb_store.graph_name, store="")
    assert build_ingest_pipeline(falkordb_store, settings).ingest(generator_guide(tmp_path)).status == "ingested"
    falkordb_store.wait_for_indexes()
    retriever = make_retriever("hybrid", falkordb_store, configured_encoder(settings), settings=settings)
    for question in ("How long must the generator run under the load bank?", "How often is the generator tested?"):
        result = ask(question, falkordb_store, settings, retriever)
        first_line = result.answer.splitlines()[0]
        assert WHOLE_SENTENCE in first_line, result.answer
        assert {c.page for c in result.citations} >= {1, 2}
        assert "[generator p.1 #r8] [generator p.2 #r0]" in first_line
        assert sum("forty minutes" in line for line in result.answer.splitlines()) == 1  # not quoted twice


def test_a_page_turn_that_cuts_no_sentence_is_not_called_a_continuation(
    falkordb_store: FalkorDBStore, tmp_path: Path
) -> None:
    """Every step of the reading order over a page break reached answers as ``continues``: an
    unrelated paragraph at the top of the next page read as the end of the hit's text."""
    settings = Settings(home=tmp_path / "home", graph=falkordb_store.graph_name, store="")
    assert build_ingest_pipeline(falkordb_store, settings).ingest(generator_guide(tmp_path)).status == "ingested"
    falkordb_store.wait_for_indexes()
    retriever = make_retriever("bm25-region", falkordb_store, configured_encoder(settings), settings=settings)
    relations = {
        (result.hit.text[:20], context.text[:20], context.relation)
        for result in retrieve_regions(falkordb_store, retriever, "electrician inspects once a year", k=1)
        + retrieve_regions(falkordb_store, retriever, "coolant ninety-five degrees", k=1)
        for context in result.hit.context
    }
    assert ("The transfer switch ", "Figure 1: Wiring of ", "previous_page") in relations, relations
    assert ("for at least forty m", "The backup generator", "continued_from") in relations, relations


def _passage(region: str, kind: str, text: str, score: float, via: str = "retrieved", of_hit: str = "") -> Passage:
    page = int(region.split(":")[0][1:])
    return Passage(f"d@v:{region}", "d", page, 1, kind, (), text, score, via, of_hit=of_hit)


def test_a_hit_first_met_as_another_hits_context_is_quoted_as_a_hit() -> None:
    """The table was the paragraph's REF target before it was a hit of its own: it stayed context,
    and the extractive answer, which quotes hits, quoted an unrelated paragraph instead of it. (It
    keeps its place in the context, beside the hit that refers to it.)"""
    table = "| Sensor | Interval (days) |\n| --- | --- |\n| S-221 | 45 |"
    paragraph = _passage("p2:r1", "paragraph", "The intervals in Table 1 were agreed in 2022.", 3.0)
    as_context = _passage("p1:r17", "table", table, 0.0, via="refers_to", of_hit=paragraph.region_id)
    as_hit = _passage("p1:r17", "table", table, 2.5)
    filler = _passage("p1:r3", "paragraph", "The pumps are painted blue.", 1.6)
    context = build_context([paragraph, as_context, as_hit, filler])
    assert [(p.region_id.split(":", 1)[1], p.via) for p in context.passages] == [
        ("p1:r17", "refers_to"),  # the hit's group in reading order
        ("p2:r1", "retrieved"),
        ("p1:r3", "retrieved"),
    ]
    assert all(context.is_hit(p) for p in context.passages)
    answer = extractive_answer("What is the calibration interval of sensor S-221?", context, max_passages=2)
    assert "S-221 | 45" in answer.text and "painted" not in answer.text


def test_a_figure_found_without_text_is_quoted_by_its_caption() -> None:
    """A chart drawn without words has no text: the extractive answer left it out and quoted other
    passages, never the caption that says what the figure shows."""
    figure = _passage("p5:r2", "figure", "", 2.0)
    label = "Figure 3: Pressure drop across the filter bed"
    caption = _passage("p5:r3", "caption", label, 0.0, "caption", figure.region_id)
    filler = _passage("p2:r4", "paragraph", "Spare parts are kept in the store room.", 1.0)
    answer = extractive_answer("What does Figure 3 show?", build_context([figure, caption, filler]), max_passages=1)
    assert answer.text == f"1. “{label}” [d p.5 #r3]"
    assert [c.region_id for c in answer.citations] == [caption.region_id]


def test_a_part_quoted_twice_is_one_piece_of_evidence_and_the_part_before_keeps_its_end() -> None:
    """A hit quoted alone and again as the part before another hit's break was listed twice in the
    evidence; and a long part before a break was cut at its end, the words next to the join lost."""
    long_start = "The generator manual says that " + "the operator shall check the panel and " * 12
    first = _passage("p1:r1", "paragraph", "The battery is a sealed lead acid unit. " + long_start + "the", 2.0)
    second = _passage("p2:r0", "paragraph", "battery must be replaced every ninety days.", 1.5)
    tie = _passage("p1:r1", "paragraph", first.text, 0.0, "continued_from", second.region_id)
    context = build_context([first, second, tie])
    answer = extractive_answer("When must the battery be replaced?", context, max_passages=3)
    assert [p.region_id for p in answer.passages] == [first.region_id, second.region_id], answer.text
    assert "panel and the battery must be replaced every ninety days." in answer.text

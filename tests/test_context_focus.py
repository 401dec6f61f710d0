"""Long passages cut to the question before the generator reads them (app.llm.focus)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from openai.resources.chat.completions import Completions

from docgraph.app.config import Settings
from docgraph.app.evaluation.answers import answer_misses, outcome_of
from docgraph.app.evaluation.questions import Question
from docgraph.app.llm.answer import AnswerResult
from docgraph.app.llm.context import Passage, build_context
from docgraph.app.llm.focus import ELISION, FOCUS_MIN_WORDS, LEAD_WORDS, focus_passages
from docgraph.app.llm.service import ask
from docgraph.app.retrieval.registry import make_retriever
from docgraph.app.stores.base import GraphStore
from docgraph.models.encoder_loader import load_encoder
from docgraph.records import GraphBatch, NodeRecord
from tests.llama_server import llama_server, missing_reason, smollm2_model
from tests.llm_data import llm_settings, region_id, zoo_batch
from tests.llm_server import ScriptedLLMServer, confident

FILLER = [f"The visitor centre shows film number {n} about the history of the old harbour." for n in range(8)]
FEEDING = "Penguins are fed at 10:30 and at 15:00 by the keepers."
QUESTION = "When are the penguins fed?"


def passage(text: str, kind: str = "paragraph", via: str = "retrieved", rid: str = "d@1:p1:r1") -> Passage:
    return Passage(rid, "d", 1, 1, kind, (0.0, 0.0, 1.0, 1.0), text, via=via)


def test_a_long_paragraph_keeps_the_sentence_that_answers_and_marks_what_it_left_out() -> None:
    text = " ".join([*FILLER[:4], FEEDING, *FILLER[4:]])
    (focused,) = focus_passages([passage(text)], QUESTION)

    assert focused.text == text  # the region itself stays whole
    assert focused.shown == f"{ELISION} {FEEDING} {ELISION}"
    assert build_context([focused]).render().endswith(focused.shown)


def test_short_passages_and_a_switched_off_focus_leave_the_text_whole() -> None:
    short = passage(" ".join(["word"] * (FOCUS_MIN_WORDS - 5) + [FEEDING]))
    long = passage(" ".join([*FILLER, FEEDING]))
    assert focus_passages([short], QUESTION)[0].excerpt == ""
    assert focus_passages([long], QUESTION, enabled=False)[0].excerpt == ""
    assert focus_passages([long], "??")[0].excerpt == ""  # a question naming nothing cuts nothing


def test_a_table_keeps_its_header_and_the_rows_that_match() -> None:
    rows = [f"| lion {n} | meat at {n}:00 on weekdays in the main enclosure |" for n in range(10)]
    table = "\n".join(["| Animal | Feeding |", "| --- | --- |", *rows[:6], "| penguin | fish at 10:30 |", *rows[6:]])
    (focused,) = focus_passages([passage(table, kind="table")], QUESTION)

    assert focused.shown.splitlines() == [
        "| Animal | Feeding |",
        "| --- | --- |",
        ELISION,
        "| penguin | fish at 10:30 |",
        ELISION,
    ]


def test_a_word_every_sentence_shares_selects_less_than_a_rare_one() -> None:
    """ "penguins" is in every sentence here; "fed" only in one: that one is kept first."""
    others = [f"Penguins of colony {n} nest on the rocks near the visitor path every spring." for n in range(9)]
    text = " ".join([*others[:5], "Penguins are fed at 10:30 by the keepers.", *others[5:]])
    (focused,) = focus_passages([passage(text)], QUESTION)

    kept = [unit for unit in focused.shown.split(f" {ELISION} ") if unit != ELISION]
    assert "Penguins are fed at 10:30 by the keepers." in focused.shown
    assert len(kept) < len(others)


def test_graph_context_without_a_match_keeps_its_lead_and_a_continuation_its_first_sentence() -> None:
    text = " ".join(FILLER)
    next_region, retrieved = focus_passages([passage(text, via="next"), passage(text, rid="d@1:p1:r2")], QUESTION)
    assert next_region.shown == " ".join(text.split()[:LEAD_WORDS]) + f" {ELISION}"
    assert retrieved.excerpt == ""  # the retriever ranked it by meaning: it is read whole

    continuation = "and at 15:00 on Sundays. " + " ".join([*FILLER[:4], FEEDING, *FILLER[4:]])
    (focused,) = focus_passages([passage(continuation, via="continues")], QUESTION)
    assert focused.shown.startswith("and at 15:00 on Sundays. ")


def test_the_eval_counts_the_words_the_generator_was_shown() -> None:
    text = " ".join(FILLER * 3 + [FEEDING])
    question = Question(id="q", doc="d.pdf", question=QUESTION, pages=frozenset({1}), answer="10:30 and at 15:00")
    result = AnswerResult(question=QUESTION)
    result.context = build_context(focus_passages([passage(text)], QUESTION))
    shown = outcome_of(question, "d", result)
    result.context = build_context([passage(text)])
    whole = outcome_of(question, "d", result)

    assert shown.gold_at_word is not None and whole.gold_at_word is not None
    assert shown.gold_at_word < 200 <= whole.gold_at_word
    assert [o.id for o in answer_misses([shown, whole])] == ["q"] and answer_misses([shown]) == []


def test_ask_shows_the_model_the_excerpt_and_cites_the_whole_region(falkordb_store: GraphStore, tmp_path: Path) -> None:
    falkordb_store.write_document(long_zoo_batch())
    retriever = make_retriever("bm25-region", falkordb_store, load_encoder())
    with ScriptedLLMServer() as server:
        server.add('{"route": "retrieve", "reason": "one fact", "sub_questions": []}')
        server.add(confident("At 10:30 and at 15:00 [zoo p.1 #r1]."))
        result = ask(QUESTION, falkordb_store, llm_settings(server.base_url, tmp_path), retriever, k=3)
        prompt = server.prompts()[1]

    assert FEEDING in prompt and FILLER[0] not in prompt and ELISION in prompt
    assert [c.region_id for c in result.citations] == [region_id(1, 1)]
    assert result.evidence[0].text == LONG_TEXT  # what the user is shown as evidence is the region
    shown = result.to_json()["evidence"][0]  # and --json and the API say what the model read of it
    assert shown["text"] == LONG_TEXT and shown["excerpt"] == f"{ELISION} {FEEDING} {ELISION}"


@pytest.mark.skipif(missing_reason() is not None, reason=str(missing_reason()))
@pytest.mark.timeout(900)
def test_the_real_model_reads_the_excerpt_in_every_round(
    falkordb_store: GraphStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Against llama.cpp's server, with a re-read forced: each answer round's prompt holds the cut
    passage, and what the model cites resolves to the whole region."""
    falkordb_store.write_document(long_zoo_batch())
    retriever = make_retriever("bm25-region", falkordb_store, load_encoder())
    sent: list[dict[str, Any]] = []
    create = Completions.create

    def recorded(self: Completions, **options: Any) -> Any:
        sent.append(options)
        return create(self, **options)

    monkeypatch.setattr(Completions, "create", recorded)
    with llama_server() as url:
        model = {"llm_base_url": url, "llm_api_key": "none", "llm_model": str(smollm2_model())}
        rounds = {"llm_max_tokens": 48, "llm_max_rereads": 1, "llm_entropy_threshold": 0.0, "llm_timeout_s": 300.0}
        result = ask(QUESTION, falkordb_store, Settings(home=tmp_path, **model, **rounds), retriever, k=3)

    prompts = [
        json.dumps(options["messages"], ensure_ascii=False)
        for options in sent
        if "Evidence:" in json.dumps(options["messages"], ensure_ascii=False)
    ]
    assert result.mode == "llm" and len(prompts) == 1 + result.rereads == 2
    assert all(FEEDING in prompt and FILLER[0] not in prompt and ELISION in prompt for prompt in prompts)
    assert result.context is not None
    read = {p.region_id: p for p in result.context.passages}[region_id(1, 1)]
    assert read.text == LONG_TEXT and read.shown != LONG_TEXT and FEEDING in read.shown


LONG_TEXT = " ".join([*FILLER[:2], FEEDING, *FILLER[2:4]])


def long_zoo_batch() -> GraphBatch:
    """The zoo document with its penguin paragraph grown past what is read whole."""
    batch = zoo_batch()
    batch.nodes = [_with_text(node, LONG_TEXT) if node.key == region_id(1, 1) else node for node in batch.nodes]
    return batch


def _with_text(node: NodeRecord, text: str) -> NodeRecord:
    return replace(node, props={**node.props, "text": text})

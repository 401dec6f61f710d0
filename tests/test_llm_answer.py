"""Cited answers through a real OpenAI-compatible HTTP server, over a real FalkorDB store."""

from __future__ import annotations

import json
import socket
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from docgraph.app.llm.citations import check_citations
from docgraph.app.llm.client import NOT_CONFIGURED, llm_status, make_client
from docgraph.app.llm.context import Passage, build_context, regions_by_id
from docgraph.app.llm.extractive import best_quote, content_words, quote_passage
from docgraph.app.llm.service import ask
from docgraph.app.llm.text_units import sentences
from docgraph.app.retrieval.base import Retriever
from docgraph.app.retrieval.registry import make_retriever
from docgraph.app.stores.base import GraphStore
from docgraph.errors import LLMUnavailableError
from docgraph.models.encoder_loader import load_encoder
from docgraph.records import EdgeRecord, GraphBatch, NodeRecord
from tests.llm_data import PREFIX, llm_settings, no_llm_settings, region_id, zoo_batch
from tests.llm_server import Reply, ScriptedLLMServer, confident

QUESTION = "When are the penguins fed?"
ROUTE_RETRIEVE = json.dumps({"route": "retrieve", "reason": "one fact", "sub_questions": []})


@pytest.fixture
def zoo_store(falkordb_store: GraphStore) -> GraphStore:
    falkordb_store.write_document(zoo_batch())
    return falkordb_store


def retriever_for(store: GraphStore) -> Retriever:
    return make_retriever("bm25-region", store, load_encoder())


def test_cited_answer_keeps_real_tags_and_removes_invented_ones(zoo_store: GraphStore, tmp_path: Path) -> None:
    answer = "Penguins are fed at 10:00 and 15:30 [zoo p.1 #r1]. They also get squid [zoo p.9 #r7]."
    with ScriptedLLMServer() as server:
        server.add(ROUTE_RETRIEVE, confident(answer))
        result = ask(QUESTION, zoo_store, llm_settings(server.base_url, tmp_path), retriever_for(zoo_store), k=3)
        answer_prompt = server.prompts()[1]

    assert result.mode == "llm"
    assert result.route == "retrieve"
    assert "[zoo p.1 #r1]" in result.answer
    assert "p.9" not in result.answer and "squid" in result.answer
    assert result.removed_citations == ["zoo p.9 #r7"]
    assert [c.region_id for c in result.citations] == [region_id(1, 1)]
    citation = result.citations[0]
    assert (citation.doc_id, citation.page, citation.bbox) == ("zoo", 1, (72.0, 100.0, 520.0, 130.0))
    # The model was shown the passage under the tag it cited.
    assert "[zoo p.1 #r1]" in answer_prompt and "Penguins are fed twice a day" in answer_prompt
    # The evidence is pruned to what the answer cites.
    assert [p.region_id for p in result.evidence] == [region_id(1, 1)]
    as_json = result.to_json()
    assert as_json["removed_citations"] == 1
    assert as_json["citations"][0]["bbox"] == [72.0, 100.0, 520.0, 130.0]
    assert as_json["trace"][0]["step"] == "route" and as_json["trace"][0]["by"] == "llm"
    json.dumps(as_json)  # serialisable as it is


def test_answer_streams_to_the_callback_and_counts_tokens(zoo_store: GraphStore, tmp_path: Path) -> None:
    answer = "Twice a day, at 10:00 and 15:30 [zoo p.1 #r1]."
    chunks: list[str] = []
    with ScriptedLLMServer() as server:
        server.add(ROUTE_RETRIEVE, confident(answer))
        result = ask(
            QUESTION,
            zoo_store,
            llm_settings(server.base_url, tmp_path),
            retriever_for(zoo_store),
            k=3,
            stream_callback=chunks.append,
        )
        answer_request = server.requests[1]

    assert answer_request["stream"] is True
    assert len(chunks) > 1 and "".join(chunks) == answer
    assert result.answer == answer
    assert result.tokens.completion == len(answer.split(" ")) + len(ROUTE_RETRIEVE.split(" "))
    assert result.tokens.prompt > 0 and result.tokens.calls == 2 and result.tokens.unreported == 0
    assert {"route", "retrieve", "generate", "total"} <= set(result.timings)


def test_an_empty_store_is_said_to_be_empty_asking_no_model(falkordb_store: GraphStore, tmp_path: Path) -> None:
    """The router was asked first (24 s with a local model) before "The store holds no documents"."""
    with ScriptedLLMServer() as server:
        server.add(ROUTE_RETRIEVE, confident("Nothing."))
        settings = llm_settings(server.base_url, tmp_path)
        result = ask(QUESTION, falkordb_store, settings, retriever_for(falkordb_store), k=3)
        asked = server.requests
    assert result.answer.startswith("The store holds no documents yet") and asked == []
    assert result.abstained  # was False: a script checking it took the advice to ingest for an answer


def test_without_an_endpoint_the_answer_quotes_cited_evidence(zoo_store: GraphStore, tmp_path: Path) -> None:
    settings = no_llm_settings(tmp_path)
    assert llm_status(settings) == NOT_CONFIGURED
    streamed: list[str] = []
    result = ask(QUESTION, zoo_store, settings, retriever_for(zoo_store), k=3, stream_callback=streamed.append)

    assert result.mode == "extractive"
    assert "Penguins are fed twice a day" in result.answer
    assert "[zoo p.1 #r1]" in result.answer
    assert result.citations and result.citations[0].region_id == region_id(1, 1)
    assert {"step": "llm", "status": NOT_CONFIGURED} in result.trace
    assert streamed == [result.answer]


def test_citation_groups_are_split_and_each_tag_checked(zoo_store: GraphStore) -> None:
    context = build_context(regions_by_id(zoo_store, [region_id(1, 1), region_id(1, 2)]))
    checked = check_citations(
        "Both are fed daily [zoo p.1 #r1; zoo p.1 #r2, zoo p.4 #r1]. Lions fast [zoo, p.1, #r2] [see #3].", context
    )

    assert checked.text == "Both are fed daily [zoo p.1 #r1][zoo p.1 #r2]. Lions fast [zoo p.1 #r2]."
    assert [c.region_id for c in checked.citations] == [region_id(1, 1), region_id(1, 2)]
    assert checked.removed == ["zoo p.4 #r1", "see #3"]


def test_the_context_puts_the_best_hit_first_with_its_graph_context_in_reading_order(zoo_store: GraphStore) -> None:
    """Hit by hit in rank order (the best evidence is read first), each hit's graph context beside it
    in reading order (the table a p.2 passage refers to before it), not the whole set by page."""
    best, referred, second = regions_by_id(zoo_store, [region_id(2, 3), region_id(1, 3), region_id(1, 1)])
    context = build_context([best, replace(referred, via="ref"), second])

    assert context.region_ids() == [region_id(1, 3), region_id(2, 3), region_id(1, 1)]
    assert context.render().index("[zoo p.2 #r3]") < context.render().index("[zoo p.1 #r1]")


def test_the_model_and_the_citations_say_which_text_ocr_read(zoo_store: GraphStore) -> None:
    context = build_context(regions_by_id(zoo_store, [region_id(1, 1), region_id(1, 3)]))
    rendered = context.render()

    assert "[zoo p.1 #r3] (table, read by OCR, section: Feeding)" in rendered
    assert "[zoo p.1 #r1] (paragraph, section: Feeding)" in rendered
    checked = check_citations("Penguins eat fish [zoo p.1 #r3], twice a day [zoo p.1 #r1].", context)
    assert [(c.to_json()["tag"], c.to_json()["ocr"]) for c in checked.citations] == [
        ("zoo p.1 #r3", True),
        ("zoo p.1 #r1", False),
    ]


def test_a_rejected_router_request_falls_back_to_the_rules(zoo_store: GraphStore, tmp_path: Path) -> None:
    with ScriptedLLMServer() as server:
        server.add(Reply(status=400, error="model does not exist"), confident("At 10:00 [zoo p.1 #r1]."))
        result = ask(QUESTION, zoo_store, llm_settings(server.base_url, tmp_path), retriever_for(zoo_store), k=3)

    route = next(step for step in result.trace if step["step"] == "route")
    assert route["by"] == "rules" and "model does not exist" in route["reason"]
    assert result.answer == "At 10:00 [zoo p.1 #r1]."


def test_an_endpoint_hung_while_writing_cypher_leaves_an_extractive_answer(
    zoo_store: GraphStore, tmp_path: Path
) -> None:
    route_cypher = json.dumps({"route": "cypher", "reason": "a count", "sub_questions": []})
    with ScriptedLLMServer() as server:
        server.add(route_cypher, *[Reply("MATCH (r:Region) RETURN count(r)", delay_s=3.0)] * 2)
        settings = llm_settings(server.base_url, tmp_path, llm_timeout_s=1.0)
        result = ask(QUESTION, zoo_store, settings, retriever_for(zoo_store), k=3)

    assert result.route == "retrieve" and result.mode == "extractive"
    assert "Penguins are fed twice a day" in result.answer and result.citations
    assert any(step["step"] == "llm" and "extractive" in str(step["status"]) for step in result.trace)


def test_an_answer_that_timed_out_counts_its_try_in_the_generate_time(zoo_store: GraphStore, tmp_path: Path) -> None:
    """The model stalls mid-answer past the 1 s limit, and the answer quotes the documents: its
    "generate" time holds the timed-out try too, not only the quoting that followed it."""
    with ScriptedLLMServer() as server:
        server.add(ROUTE_RETRIEVE, Reply("Penguins are fed at ten.", stall_after=2, stall_s=3.0))
        settings = llm_settings(server.base_url, tmp_path, llm_timeout_s=1.0)
        result = ask(QUESTION, zoo_store, settings, retriever_for(zoo_store), k=3)

    assert result.mode == "extractive" and "within 1s" in (result.llm_fallback or "")
    assert result.timings["generate"] >= 1.0


def test_an_unreachable_endpoint_is_a_typed_error(tmp_path: Path) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    client = make_client(llm_settings(f"http://127.0.0.1:{port}/v1", tmp_path))
    with pytest.raises(LLMUnavailableError, match="cannot be reached"):
        client.chat([{"role": "user", "content": "hello"}])


def test_no_endpoint_means_no_client(tmp_path: Path) -> None:
    with pytest.raises(LLMUnavailableError, match="OPENAI_BASE_URL"):
        make_client(no_llm_settings(tmp_path))


def test_the_extractive_quote_matches_words_as_retrieval_does() -> None:
    # "penguins" meets "Penguin", as it does in BM25; before, only the exact word counted.
    text = "The seals get herring. Lions fast on Sundays. Each Penguin is weighed on Monday. The pool is cleaned."
    assert "Each Penguin is weighed on Monday." in best_quote(
        text, content_words("What happens to penguins on Mondays?")
    )
    # Japanese runs on without spaces: sentences end at "。", words match as character pairs.
    japanese = "入場料は大人六百円です。駐車場は東門にあります。営業時間は午前9時から午後6時までです。"
    quote = best_quote(japanese, content_words("営業時間は?"))
    assert "営業時間は午前9時から" in quote and "入場料" not in quote


def test_the_extractive_quote_meets_a_word_in_another_inflection_as_abstention_does() -> None:
    """A scanned procedure read as one list: the quote took "Loosen the four motor mounting bolts"
    for "... be tightened to?", and the step that tightens them to 45 Nm went unquoted."""
    steps = (
        "1. Loosen the four motor mounting bolts and slide the motor. 2. Remove the old belt. 3. Fit the"
        " new belt over both pulleys. 4. Slide the motor back and tighten the motor mounting bolts to 45 Nm."
    )
    quote = best_quote(steps, content_words("What torque should the motor mounting bolts be tightened to?"))
    assert "45 Nm" in quote and "Loosen" not in quote


def test_the_extractive_quote_keeps_a_label_with_its_number_and_meets_a_plural_in_es() -> None:
    """A paper's "Eq. (1)" cut its sentence ("... is then given by Eq." | "(1) and ..."), and
    "indexes" did not meet "index", so the sentence that answered lost to the first two."""
    text = (
        "The energy per query is then given by Eq. (1) and Eq. (2), as Smith et al. (2019) did. "
        "The choice of index matters far more than the choice of hardware: HNSW saves more energy than a GPU. "
        "The energy model of Section 3.2 estimates these savings from a latency benchmark alone. "
        "We caution that our numbers exclude the energy needed to build the indexes, which for HNSW is 19 kWh."
    )
    quote = best_quote(text, content_words("What gives the energy per query?"))
    assert quote.startswith("The energy per query is then given by Eq. (1) and Eq. (2), as Smith et al. (2019) did.")
    assert "19 kWh" in best_quote(text, content_words("How much energy does it take to build the HNSW index?"))


@pytest.mark.parametrize(
    ("text", "units"),
    [
        # the first abbreviation list kept "12 ms." and "Lee et al." from ending their sentences
        ("It took 12 ms. The hit rate was 93%.", ["It took 12 ms.", "The hit rate was 93%."]),
        ("Lee et al. We extend it. Lee et al. [12] did.", ["Lee et al.", "We extend it.", "Lee et al. [12] did."]),
        # a contract's quotes were "4." and "... in line with § 257 Abs."
        (
            "4. Critical Failure. It occurs when two targets are missed.",
            ["4. Critical Failure.", "It occurs when two targets are missed."],
        ),
        (
            "Kept under § 257 Abs. 4 HGB and Art. 28 GDPR. Then.",
            ["Kept under § 257 Abs. 4 HGB and Art. 28 GDPR.", "Then."],
        ),
        ("It is the state of the art. (See the survey.)", ["It is the state of the art.", "(See the survey.)"]),
        # an order's "Buyer M." | "Okafor": a name's initial cut the name off the quote
        ("Buyer M. Okafor. Signed: P. Natarajan", ["Buyer M. Okafor.", "Signed: P. Natarajan"]),
        ("It needs vitamin A. The rest is water.", ["It needs vitamin A.", "The rest is water."]),
        # a patent's front page: "(43) Pub. Date: Jun." was quoted without its day and year
        (
            "(22) Filed: Nov. 29, 2021. It was granted in Oct. Then.",
            ["(22) Filed: Nov. 29, 2021.", "It was granted in Oct.", "Then."],
        ),
    ],
)
def test_sentences_end_where_an_abbreviation_or_a_number_does_not_go_on(text: str, units: list[str]) -> None:
    assert sentences(text) == units


def test_a_table_no_row_of_which_shares_a_word_is_quoted_from_its_first_row() -> None:
    """ "Which sub-processors are listed in Annex III?" quoted the header and the first of three
    rows: with no row sharing a word, the table as a whole answers."""
    rows = ["Cloudwave Hosting B.V. | Amsterdam", "Sendly Mail Ltd | Dublin", "Kestrel Support Oy | Tampere"]
    table = "\n".join(["| Sub-processor | Location |", "| --- | --- |", *(f"| {row} |" for row in rows)])
    quote = quote_passage(
        Passage("t", "dpa", 3, 1, "table", (), table), content_words("Which are listed in Annex III?")
    )
    assert all(row.split(" | ")[0] in quote for row in rows)
    long_table = "\n".join(
        ["| Sub-processor | Location |", "| --- | --- |", *(f"| Northdata {n} AS | Oslo |" for n in range(500))]
    )
    quote = quote_passage(Passage("t", "dpa", 3, 1, "table", (), long_table), content_words("What is in Annex III?"))
    assert quote.endswith("| Oslo |") and len(quote) <= 360  # whole rows, as many as the quote holds


def test_the_quote_of_a_table_keeps_the_row_a_lone_digit_names() -> None:
    """ "What does exit code 3 mean?" quoted the header and the first row: a one-character word was
    no content word, so no row shared a word with the question."""
    rows = ["0 | Success", "1 | General error", "2 | Usage error", "3 | Configuration file not found"]
    table = "\n".join(["| Exit code | Meaning |", "| --- | --- |", *(f"| {row} |" for row in rows)])
    passage = Passage("t", "manual", 4, 2, "table", (), table)
    quote = quote_passage(passage, content_words("What does exit code 3 mean?"))
    assert quote == "| Exit code | Meaning | … | 3 | Configuration file not found |"


def renamed(batch: GraphBatch, doc_id: str) -> GraphBatch:
    """``batch`` as another document: every id and doc_id under ``doc_id``'s name."""

    def moved(value: Any) -> Any:
        if value == batch.doc_id:
            return doc_id
        return value.replace(PREFIX, f"{doc_id}@{PREFIX.split('@')[1]}") if isinstance(value, str) else value

    nodes = [NodeRecord(n.label, moved(n.key), {k: moved(v) for k, v in n.props.items()}) for n in batch.nodes]
    edges = [
        EdgeRecord(e.type, e.src_label, moved(e.src_key), e.dst_label, moved(e.dst_key), dict(e.props))
        for e in batch.edges
    ]
    return GraphBatch(doc_id=doc_id, sha256="ef56" + batch.sha256[4:], nodes=nodes, edges=edges)


def test_the_cypher_route_keeps_its_evidence_to_the_document_asked_about(zoo_store: GraphStore, tmp_path: Path) -> None:
    """The model was asked to keep to one document; its query named regions of both."""
    zoo_store.write_document(renamed(zoo_batch(), "zoo2"))
    route_cypher = json.dumps({"route": "cypher", "reason": "a list", "sub_questions": []})
    every_paragraph = "MATCH (r:Region) WHERE r.kind = 'paragraph' RETURN r.region_id AS region_id"
    with ScriptedLLMServer() as server:
        server.add(route_cypher, every_paragraph, confident("Penguins are fed twice a day."))
        result = ask(
            "List the paragraphs",
            zoo_store,
            llm_settings(server.base_url, tmp_path),
            retriever_for(zoo_store),
            doc_id="zoo2",
        )
    assert result.route == "cypher" and {row["region_id"].split("@")[0] for row in result.rows} == {"zoo", "zoo2"}
    assert result.evidence and {p.doc_id for p in result.evidence} == {"zoo2"}


def test_the_quote_of_a_list_is_its_items_that_answer() -> None:
    """An option or command list's items end in no full stop before the next item: the list was
    one sentence, quoted from its start and cut there, the item that answers left out."""
    items = [
        "h help;",
        "c continue execution;",
        "i step to the next instruction;",
        "s step to the next executable line;",
        "n step to the next executable line in the current file;",
        "f step to the next file;",
        "r return to the file associated with the most recent breakpoint;",
        "b set a breakpoint at the line the debugger stopped at;",
        "d delete every breakpoint set so far in this session;",
        "t toggle tracing (-vvvvv) mode;",
        "q quit debugging and end execution;",
        "x exit the debugger and run to completion.",
    ]
    passage = Passage("l", "manual", 183, 3, "list", (), "\n".join(items))
    quote = quote_passage(passage, content_words("Which debugger command toggles tracing mode?"))
    assert "t toggle tracing (-vvvvv) mode;" in quote
    assert "h help;" not in quote  # the items that answer, not the list from its start

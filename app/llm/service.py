"""What the CLI and the UI call: ask a question, turn a question into Cypher, describe figures.

``ask`` routes the question (:mod:`app.llm.router`), gathers evidence — a generated graph query for
structural questions, hybrid retrieval for single-hop ones, one retrieval per sub-question for
multi-hop ones — and answers with citations (:mod:`app.llm.answer`), re-reading with more evidence
while the model is unsure (:mod:`app.llm.uncertainty`). Without an LLM endpoint the answer is
extractive (:mod:`app.llm.extractive`). Every decision goes into the result's trace.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from itertools import zip_longest
from typing import TypeVar

from docgraph.app.config import Settings
from docgraph.app.jobs.documents import holds_documents
from docgraph.app.llm.answer import AnswerResult, Extras
from docgraph.app.llm.client import (
    NO_ENDPOINT,
    NOT_CONFIGURED,
    HeardStream,
    LLMClient,
    StreamCallback,
    make_client,
    optional_client,
)
from docgraph.app.llm.context import (
    Passage,
    build_context,
    evidence_groups,
    first_groups,
    lead_ins,
    next_regions,
    passages_from_hits,
    regions_by_id,
)
from docgraph.app.llm.describe import DescribeReport, describe_document
from docgraph.app.llm.extractive import NO_EVIDENCE, bare_line, extractive_answer
from docgraph.app.llm.focus import focus_passages
from docgraph.app.llm.heading_hits import heading_hit, passed_under_heading
from docgraph.app.llm.procedures import asks_how_to, list_parts
from docgraph.app.llm.router import RouteDecision, route_question
from docgraph.app.llm.text2cypher import Text2CypherResult, generate_cypher
from docgraph.app.llm.uncertainty import answer_with_rereads, prune_evidence
from docgraph.app.retrieval.base import Retriever, ScoredRegion, check_k, check_question
from docgraph.app.retrieval.hits import retrieve_distinct
from docgraph.app.retrieval.relevance import AbstentionBar, Evidence, dense_part, measure
from docgraph.app.stores.base import GraphStore, Row
from docgraph.errors import LLMRequestError, LLMTimeoutError, LLMUnavailableError, Text2CypherError

__all__ = ["DescribeReport", "ask", "check_question", "describe_document", "text2cypher"]

T = TypeVar("T")
NO_DOCUMENTS = "The store holds no documents yet: ingest PDFs first (docgraph ingest FILE.pdf, or POST /documents)."
NOT_ANSWERED = "The stored documents do not seem to answer this question."

Groups = list[list[Passage]]
ASK_K = 8  # evidence regions an answer is made from unless asked otherwise: CLI, API, UI and eval alike


def ask(
    question: str,
    store: GraphStore,
    settings: Settings,
    retriever: Retriever,
    k: int = ASK_K,
    doc_id: str | None = None,
    force_cypher: bool = False,
    stream_callback: StreamCallback | None = None,
    stop_when: Callable[[], bool] | None = None,
) -> AnswerResult:
    """Answer ``question`` from the stored documents (only ``doc_id``'s when given), with citations.

    ``force_cypher`` answers through text-to-Cypher whatever the router says, and raises when no
    valid query comes out (without it, a failed query falls back to retrieval, noted in the trace).
    ``stop_when`` says whoever asked has stopped waiting: the model calls end with AnswerAbandoned.
    """
    check_question(question)
    check_k(k)
    started = time.perf_counter()
    result = AnswerResult(question=question)
    if not holds_documents(store):  # say why nothing can be found, asking no model
        result.answer = NO_DOCUMENTS
        result.abstained = True  # nothing stored answers it (code checking abstained took this for an answer)
        result.note("answer", status="the store holds no documents")
        if stream_callback is not None:
            stream_callback(NO_DOCUMENTS)
        result.timings["total"] = time.perf_counter() - started
        return result
    client = optional_client(settings, stop_when)
    if client is None:
        if force_cypher:
            raise LLMUnavailableError(NO_ENDPOINT)
        result.note("llm", status=NOT_CONFIGURED)
    try:
        decision = _decide(question, client, force_cypher, result)
    except LLMTimeoutError as error:
        if force_cypher:
            raise
        _without_llm(result, error)
        client = None
        decision = _decide(question, client, force_cypher, result)
    extras = Extras(sub_questions=decision.sub_questions)
    heard = HeardStream(stream_callback) if stream_callback is not None else None
    groups: Groups | None = None
    first_round = k
    if decision.route == "cypher" and client is not None:
        try:
            cypher_result = _run_cypher(question, doc_id, store, settings, client, force_cypher, result)
        except LLMTimeoutError as error:  # a hung endpoint: retrieval answers, extractively
            if force_cypher:
                raise
            _without_llm(result, error)
            client, cypher_result, result.route = None, None, "retrieve"
        if cypher_result is not None:
            extras = Extras(
                cypher=cypher_result.cypher, rows=cypher_result.rows, rows_truncated=cypher_result.truncated
            )
            named = regions_by_id(store, _row_region_ids(cypher_result.rows), via="cypher")
            # the prompt asked the model to keep to the document; the evidence cited is held to it
            groups = evidence_groups([p for p in named if doc_id is None or p.doc_id == doc_id])
    if groups is None:
        rounds = 1 + settings.llm_max_rereads if client is not None else 1
        groups, first_round = _retrieve(decision, question, retriever, store, k, rounds, doc_id, result)
        result.abstained = settings.abstain and result.relevance is not None and _below_bar(result)
    if result.abstained:
        _answer(result, question, groups, first_round, store, settings, None, extras, None)
        nearest = result.answer not in ("", NO_EVIDENCE)
        result.answer = f"{NOT_ANSWERED} The nearest passages:\n\n{result.answer}" if nearest else NOT_ANSWERED
        if stream_callback is not None:
            stream_callback(result.answer)
    else:
        try:
            _answer(result, question, groups, first_round, store, settings, client, extras, heard)
        except LLMTimeoutError as error:
            _without_llm(result, error)
            if heard is not None and heard.anything:  # part of a reply was shown: say it ends there
                heard(f"\n\n[{error}: the answer below quotes the documents instead]\n\n")
            _answer(result, question, groups, first_round, store, settings, None, extras, heard)
    result.timings["total"] = time.perf_counter() - started
    return result


def text2cypher(
    question: str,
    store: GraphStore,
    settings: Settings,
    run: bool = False,
    stop_when: Callable[[], bool] | None = None,
) -> Text2CypherResult:
    """A checked read-only query for ``question`` (and its rows when ``run``); needs an LLM endpoint.
    ``stop_when`` says whoever asked has stopped waiting: the model calls end with AnswerAbandoned."""
    check_question(question)
    return generate_cypher(question, store, settings, make_client(settings, stop_when), run=run)


def _without_llm(result: AnswerResult, error: LLMTimeoutError) -> None:
    """Give up on a hung endpoint for the rest of this answer: it is extractive, and says why."""
    result.mode, result.llm_fallback = "extractive", str(error)
    details = {"partial_reply": error.partial} if error.partial else {}  # what the endpoint had sent, kept
    result.note("llm", status=f"{error}: the answer is extractive", **details)


def _decide(question: str, client: LLMClient | None, force_cypher: bool, result: AnswerResult) -> RouteDecision:
    started = time.perf_counter()
    try:
        if force_cypher:
            decision = RouteDecision("cypher", "forced", "asked for text-to-Cypher")
        else:
            decision = route_question(question, client, result.tokens)
    finally:  # a router that timed out took its time too, and is decided again without the model
        result.timings["route"] = result.timings.get("route", 0.0) + time.perf_counter() - started
    if decision.route == "cypher" and client is None:
        decision = RouteDecision("retrieve", decision.by, decision.reason + "; text-to-Cypher needs an LLM endpoint")
    result.route = decision.route
    result.note("route", **decision.to_json())
    return decision


def _run_cypher(
    question: str,
    doc_id: str | None,
    store: GraphStore,
    settings: Settings,
    client: LLMClient,
    force_cypher: bool,
    result: AnswerResult,
) -> Text2CypherResult | None:
    asked = question if doc_id is None else f"{question}\n(Only about the document with doc_id '{doc_id}'.)"
    started = time.perf_counter()
    try:
        generated = generate_cypher(asked, store, settings, client, run=True, usage=result.tokens)
    except (Text2CypherError, LLMRequestError) as error:  # no valid query, or a prompt past the model's context
        if force_cypher:
            raise
        result.timings["text2cypher"] = time.perf_counter() - started  # the tries given up on took time too
        result.note("cypher", error=str(error), fallback="retrieve")
        result.route = "retrieve"
        return None
    result.timings.update(generated.timings)
    result.cypher, result.rows = generated.cypher, generated.rows
    result.note(
        "cypher",
        query=generated.cypher,
        rows=len(generated.rows),
        truncated=generated.truncated,
        tries=len(generated.attempts),
    )
    return generated


def _retrieve(
    decision: RouteDecision,
    question: str,
    retriever: Retriever,
    store: GraphStore,
    k: int,
    rounds: int,
    doc_id: str | None,
    result: AnswerResult,
) -> tuple[Groups, int]:
    """Ranked evidence groups (enough for ``rounds`` reads), and how many of them the first answer reads.

    A decomposed question retrieves for each sub-question and interleaves the rankings, so every
    sub-question is represented from the first round on.
    """
    started = time.perf_counter()
    queries = decision.sub_questions if decision.route == "decompose" and decision.sub_questions else [question]
    per_query = max(2, k // len(queries)) if len(queries) > 1 else k
    rankings: list[Groups] = []
    found: list[list[ScoredRegion]] = []
    for query in queries:
        hits = retrieve_distinct(retriever, query, per_query * rounds, doc_id)
        rankings.append(evidence_groups(passages_from_hits(store, hits)))
        found.append(hits)
        result.note("retrieve", query=query, retriever=retriever.name, hits=[h.region_id for h in hits])
    _measure(result, question, _interleave(found), retriever)  # every sub-question's first hits, as read
    result.timings["retrieve"] = time.perf_counter() - started
    return _interleave(rankings), per_query * len(queries)


def _measure(result: AnswerResult, question: str, hits: list[ScoredRegion], retriever: Retriever) -> None:
    """How well the first hits match the question (``app.retrieval.relevance``; no hits at all, as in
    a document that holds nothing of it, measure nothing); retrievers without embeddings are not
    measured, and never abstain."""
    dense = dense_part(retriever)
    if dense is not None:
        result.relevance = measure(question, hits, dense).to_json()


def _below_bar(result: AnswerResult) -> bool:
    bar = AbstentionBar()
    assert result.relevance is not None
    below = not bar.cleared_by(Evidence(**result.relevance))
    result.note("relevance", **result.relevance, abstain=below)
    return below


def _answer(
    result: AnswerResult,
    question: str,
    groups: Groups,
    first_round: int,
    store: GraphStore,
    settings: Settings,
    client: LLMClient | None,
    extras: Extras,
    stream: StreamCallback | None,
) -> None:
    started = time.perf_counter()
    try:
        if client is None:
            focused = focus_passages(first_groups(groups, first_round), question, settings.context_focus)
            bare = [p for p in focused if p.via == "retrieved" and bare_line(p)]
            headings = [p for p in focused if heading_hit(p)]
            bodies = next_regions(store, headings, passed=passed_under_heading)  # the text a heading hit heads
            lists = [p for p in focused if p.via == "retrieved" and p.kind == "list"]
            after = [*next_regions(store, bare, passed=bare_line), *bodies, *lead_ins(store, lists)]
            if asks_how_to(question):  # every part of a procedure, however it was reached
                after += list_parts(store, [*focused, *after])
            context = build_context([*focused, *after])
            extractive = extractive_answer(question, context)
            result.answer, result.citations, result.evidence = (
                extractive.text,
                extractive.citations,
                extractive.passages,
            )
            result.context = context
            if stream is not None:
                stream(extractive.text)
        else:
            result.mode = "llm"
            checked, context = answer_with_rereads(
                result, question, groups, first_round, store, client, settings, extras, stream
            )
            result.answer, result.citations = checked.text, checked.citations
            result.context = context
            result.removed_citations = checked.removed
            result.evidence = prune_evidence(context, checked)
            if checked.removed:
                result.note("citations", removed=checked.removed)
    finally:  # a timed-out try and the extractive answer after it both count
        result.timings["generate"] = result.timings.get("generate", 0.0) + time.perf_counter() - started


def _interleave(rankings: Sequence[Sequence[T]]) -> list[T]:
    """The rankings' first items, then their second ones, and so on."""
    merged: list[T] = []
    for round_items in zip_longest(*rankings):
        merged += [item for item in round_items if item is not None]
    return merged


def _row_region_ids(rows: Sequence[Row]) -> list[str]:
    """Region ids named by a query's rows (columns called ``region_id`` or ending in ``_region_id``)."""
    found: list[str] = []
    for row in rows:
        for column, value in row.items():
            if (column == "region_id" or column.endswith("_region_id")) and isinstance(value, str):
                found.append(value)
    return list(dict.fromkeys(found))

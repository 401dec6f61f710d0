"""Routes that read the graph: retrieve regions, answer a question (whole or streamed), run a read-only
graph query."""

from __future__ import annotations

import asyncio
import functools
import threading
from collections.abc import Callable
from typing import Any

from fastapi import APIRouter, FastAPI, Request
from starlette.concurrency import run_in_threadpool
from starlette.responses import Response, StreamingResponse

from docgraph.app.api.answer_stream import DISCONNECT_POLL_S, MEDIA_TYPE, AnswerEvents
from docgraph.app.api.errors import ApiError
from docgraph.app.api.models import (
    AnswerModel,
    AnswerStreamEvent,
    AskRequest,
    CypherRequest,
    CypherResultModel,
    RetrieveRequest,
    RetrieveResponse,
    as_json,
)
from docgraph.app.api.responses import documented
from docgraph.app.api.routes_documents import State
from docgraph.app.api.state import ApiState
from docgraph.app.config import Settings
from docgraph.app.integrations.regions import retrieve_regions
from docgraph.app.jobs.documents import find_document
from docgraph.app.llm.client import StreamCallback
from docgraph.app.llm.service import ask, text2cypher
from docgraph.app.llm.text2cypher import run_written_query
from docgraph.app.stores.base import GraphStore
from docgraph.errors import AnswerAbandoned, StoreError

router = APIRouter()


@router.post("/retrieve", response_model=RetrieveResponse, responses=documented(403, 404), tags=["query"])
def retrieve(body: RetrieveRequest, state: State) -> dict[str, Any]:
    """The best regions for a query, each with its section path and graph context."""
    store = state.store()
    doc_id = stored_doc_id(store, body.doc_id)
    results = retrieve_regions(store, state.retriever(body.variant), body.query, body.k, doc_id)
    payload = {
        "query": body.query,
        "retriever": body.variant,
        "doc_id": doc_id,
        "regions": [result.to_json() for result in results],
    }
    return as_json(RetrieveResponse, payload)


@router.post("/ask", response_model=AnswerModel, responses=documented(403, 404, 422, 502), tags=["query"])
async def ask_question(body: AskRequest, state: State, request: Request) -> Any:
    """A cited answer from the stored documents (extractive when no LLM endpoint is configured)."""
    store = await run_in_threadpool(state.store)
    doc_id = await run_in_threadpool(stored_doc_id, store, body.doc_id)
    left = threading.Event()  # the client hung up: the model is asked nothing more for it
    watch = asyncio.create_task(_note_when_gone(request, left))
    try:
        return await run_in_threadpool(answer_json, body, state, store, doc_id, None, left.is_set)
    except AnswerAbandoned:
        return Response(status_code=CLIENT_CLOSED_REQUEST)  # nobody reads it
    finally:
        watch.cancel()


async def _note_when_gone(request: Request, left: threading.Event) -> None:
    while not await request.is_disconnected():
        await asyncio.sleep(DISCONNECT_POLL_S)
    left.set()


def answer_json(
    body: AskRequest,
    state: ApiState,
    store: GraphStore,
    doc_id: str | None,
    stream: StreamCallback | None = None,
    stop_when: Callable[[], bool] | None = None,
) -> dict[str, Any]:
    """The answer to ``body``'s question as the API returns it; ``stream`` hears its text as it comes,
    and ``stop_when`` says the client has gone. A server that stops ends it with ServerStoppingError."""
    k, cypher = body.k, body.force_cypher

    def stopped() -> bool:
        return state.stopping.is_set() or (stop_when is not None and stop_when())

    with state.until_stopped():
        retriever = state.retriever(body.variant)
        result = ask(body.question, store, state.settings, retriever, k, doc_id, cypher, stream, stopped)
    return as_json(AnswerModel, result.to_json())


CLIENT_CLOSED_REQUEST = 499  # as nginx logs a request whose client left before the answer
# Each event as it is written: no cache, and no buffering by a proxy in front (nginx's X-Accel-Buffering).
STREAM_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
STREAM_RESPONSES: dict[int | str, dict[str, Any]] = {
    200: {
        "model": AnswerStreamEvent,
        "description": "Newline-delimited JSON, one event a line: a text event for each piece the model "
        "writes, then an answer event (the answer as POST /ask returns it), or an error event when the answer "
        "fails after its first text",
    },
    **documented(403, 404, 422, 502),
}


def schema_with_typed_events(app: FastAPI) -> None:
    """FastAPI files the events' model of ``POST /ask/stream``'s 200 under application/json; its body is
    JSON lines of them, so the schema is moved under that media type once it is made."""
    make_schema = app.openapi

    def openapi() -> dict[str, Any]:
        schema = make_schema()
        ok = schema["paths"]["/ask/stream"]["post"]["responses"]["200"]
        if "application/json" in ok.get("content", {}):
            ok["content"] = {MEDIA_TYPE: ok["content"].pop("application/json")}
        return schema

    app.openapi = openapi  # type: ignore[method-assign]


@router.post("/ask/stream", response_class=StreamingResponse, responses=STREAM_RESPONSES, tags=["query"])
async def ask_streamed(body: AskRequest, state: State, request: Request) -> Response:
    """``POST /ask``, its text sent as the model writes it (newline-delimited JSON events, the whole
    answer last). A failure before the first text is an error response, as ``POST /ask`` gives."""
    store = await run_in_threadpool(state.store)
    doc_id = await run_in_threadpool(stored_doc_id, store, body.doc_id)

    events = AnswerEvents(functools.partial(answer_json, body, state, store, doc_id))
    first = await events.first(request.is_disconnected)
    if first is None:  # nobody is left to read a response
        return Response(status_code=CLIENT_CLOSED_REQUEST)
    return StreamingResponse(events.lines(first), media_type=MEDIA_TYPE, headers=STREAM_HEADERS)


def stored_doc_id(store: GraphStore, doc: str | None) -> str | None:
    """The id of the stored document named by id or file name, as the CLI, MCP and the library
    take it; an unknown one is a 404, not an empty answer."""
    return str(find_document(store, doc)["doc_id"]) if doc else None


@router.post("/cypher", response_model=CypherResultModel, responses=documented(403, 429, 502, 504), tags=["query"])
def cypher(body: CypherRequest, state: State) -> dict[str, Any]:
    """Run a read-only Cypher query, or turn a question into one (needs an LLM) and run it.

    Queries run only through the database's read-only path, after a check that refuses writes,
    file access and procedures beyond the schema ones; rows are cut at ``text2cypher_row_limit``.
    """
    store = state.store()
    if body.question is not None and body.question.strip():
        with state.until_stopped(), state.user_query_slot():
            written = text2cypher(body.question, store, state.settings, body.run, state.stopping.is_set)
        return as_json(CypherResultModel, written.to_json())
    assert body.query is not None  # the request model insists on one of the two
    with state.user_query_slot():
        return as_json(CypherResultModel, run_read_only(store, state.settings, body.query, body.params, body.run))


def run_read_only(
    store: GraphStore, settings: Settings, query: str, params: dict[str, Any], run: bool
) -> dict[str, Any]:
    """A query the caller wrote, checked and run like a generated one (without the model)."""
    try:
        return run_written_query(query, store, settings, params, run).to_json()
    except StoreError as error:
        if type(error) is StoreError:  # the database refused this query: the caller's problem
            raise ApiError(400, "query_failed", str(error)) from error
        raise

"""Every error leaves the API as JSON (``{"error": {type, message, status}}``) with a fitting status.

docgraph's typed errors map to statuses by class (most specific first); request validation errors
are 422 with per-field details; anything unexpected is logged here with its traceback and answered
with a plain 500 — no stack trace leaves the server. Request bodies are capped before they are read
(:class:`BodyLimitMiddleware`), so an oversized body is refused without being buffered.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import threading
from typing import Any

from fastapi import FastAPI, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from docgraph.app.config import Settings
from docgraph.app.stores.results import finite_numbers
from docgraph.app.stores.url import parse_store_url
from docgraph.errors import (
    AmbiguousDocumentError,
    BadDocumentError,
    ConfigError,
    DocgraphError,
    DocumentBusyError,
    DocumentNotFoundError,
    IngestError,
    JobNotFoundError,
    JobStateError,
    LLMRequestError,
    LLMUnavailableError,
    ModelError,
    QueriesBusyError,
    QuerySyntaxError,
    QueryTimeoutError,
    QuestionError,
    ReadOnlyViolationError,
    ServerStoppingError,
    StoreBusyError,
    StoreError,
    StoreUnavailableError,
    Text2CypherError,
    UnknownDocumentError,
)

log = logging.getLogger("docgraph.api")


class ApiError(DocgraphError):
    """An error the API raises itself, with its status and type."""

    def __init__(self, status: int, kind: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.kind = kind


# (error class, status, type); the first class an error is an instance of decides.
ERROR_STATUS: list[tuple[type[Exception], int, str]] = [
    (AmbiguousDocumentError, 409, "ambiguous"),  # a file name several documents have: not "not found"
    (DocumentNotFoundError, 404, "not_found"),
    (JobNotFoundError, 404, "not_found"),
    (JobStateError, 409, "conflict"),
    (DocumentBusyError, 409, "conflict"),
    (ReadOnlyViolationError, 403, "read_only"),
    (QueriesBusyError, 429, "busy"),
    (QuerySyntaxError, 400, "query_syntax"),
    (QueryTimeoutError, 504, "query_timeout"),
    (ServerStoppingError, 503, "server_stopping"),
    (StoreUnavailableError, 503, "store_unavailable"),
    (StoreBusyError, 503, "store_busy"),
    (StoreError, 500, "store_error"),
    (Text2CypherError, 422, "no_valid_query"),
    (LLMUnavailableError, 503, "llm_unavailable"),
    (LLMRequestError, 502, "llm_error"),
    (ModelError, 503, "model_unavailable"),
    (BadDocumentError, 422, "bad_document"),
    (IngestError, 422, "ingest_failed"),
    (ConfigError, 400, "bad_request"),
    (QuestionError, 400, "bad_request"),
    (DocgraphError, 500, "error"),
]

# Statuses every route may answer, for the OpenAPI schema.
COMMON_ERRORS = (400, 401, 422, 500, 503)
INTERNAL_MESSAGE = "internal server error (the server log has the details)"


def status_of(error: Exception) -> tuple[int, str]:
    if isinstance(error, ApiError):
        return error.status, error.kind
    for error_class, status, kind in ERROR_STATUS:
        if isinstance(error, error_class):
            return status, kind
    return 500, "internal_error"


def error_body(status: int, kind: str, message: str, details: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    error: dict[str, Any] = {"type": kind, "message": message, "status": status}
    if details is not None:
        error["details"] = details
    return {"error": error}


def error_response(status: int, kind: str, message: str, details: list[dict[str, Any]] | None = None) -> JSONResponse:
    return SafeJSONResponse(error_body(status, kind, message, details), status_code=status)


class SafeJSONResponse(JSONResponse):
    """JSON where NaN and infinities (a query may compute them) become null instead of failing."""

    def render(self, content: Any) -> bytes:
        try:
            text = json.dumps(content, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
        except ValueError:
            text = json.dumps(finite_numbers(content), ensure_ascii=False, allow_nan=False, separators=(",", ":"))
        return text.encode("utf-8")


async def docgraph_error_handler(request: Request, error: Exception) -> JSONResponse:
    status, kind = status_of(error)
    if status >= 500 and kind in ("store_error", "error", "store_unavailable"):
        log.error("%s %s failed: %s", request.method, request.url.path, error)  # the whole message
    message = f"{error} (GET /documents lists them)" if isinstance(error, UnknownDocumentError) else str(error)
    state = getattr(request.app.state, "docgraph", None)
    settings = getattr(state, "settings", None)
    return error_response(status, kind, public_message(message, settings) if settings else message)


def public_message(message: str, settings: Settings) -> str:
    """An error message as API clients see it: no store host, port or folder, no data home path."""
    with contextlib.suppress(DocgraphError):  # a URL that does not parse was never connected to
        message = parse_store_url(settings.store_url, settings).without_address(message)
    return message.replace(str(settings.home), "<data home>")


async def validation_error_handler(request: Request, error: Exception) -> JSONResponse:
    assert isinstance(error, RequestValidationError)
    details = [
        {"loc": list(item.get("loc", ())), "msg": str(item.get("msg", "")), "type": str(item.get("type", ""))}
        for item in error.errors()
    ]
    summary = "; ".join(f"{'.'.join(map(str, d['loc']))}: {d['msg']}" for d in details[:5])
    return error_response(422, "invalid_request", summary or "invalid request", jsonable_encoder(details))


async def http_error_handler(request: Request, error: Exception) -> JSONResponse:
    assert isinstance(error, StarletteHTTPException)
    kinds = {
        400: "bad_request",
        404: "not_found",
        405: "method_not_allowed",
        413: "too_large",
        415: "unsupported_media_type",
    }
    response = error_response(error.status_code, kinds.get(error.status_code, "http_error"), str(error.detail))
    for name, value in (error.headers or {}).items():
        response.headers[name] = value
    return response


def install_error_handlers(app: FastAPI, stopping: threading.Event | None = None) -> None:
    """Typed errors as JSON; ``stopping`` is the server's stop, for the requests it cuts off."""
    app.add_exception_handler(DocgraphError, docgraph_error_handler)
    app.add_exception_handler(RequestValidationError, validation_error_handler)
    app.add_exception_handler(StarletteHTTPException, http_error_handler)
    app.add_middleware(CatchAllMiddleware, stopping=stopping)


class StartWatchingSend:
    """An ASGI ``send`` that notes whether the response has started (an error can still be answered)."""

    def __init__(self, send: Send) -> None:
        self.send = send
        self.started = False

    async def __call__(self, message: Message) -> None:
        self.started = self.started or message["type"] == "http.response.start"
        await self.send(message)


CUT_OFF_MESSAGE = "the server stopped before this request finished: send it again once it is back"


class CatchAllMiddleware:
    """Answer any unexpected exception with a JSON 500 (its traceback goes to the log, not the
    client). A request still open when a stop's grace has run out (``stopping`` set) is cancelled by
    uvicorn: it gets the 503 ``server_stopping`` an answer gets, instead of uvicorn's plain-text 500
    and a traceback. A response already under way is left to uvicorn (it closes the connection)."""

    def __init__(self, app: ASGIApp, stopping: threading.Event | None = None) -> None:
        self.app = app
        self.stopping = stopping

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        watched = StartWatchingSend(send)
        try:
            await self.app(scope, receive, watched)
        except Exception:
            log.exception("%s %s failed", scope.get("method"), scope.get("path"))
            if not watched.started:
                await error_response(500, "internal_error", INTERNAL_MESSAGE)(scope, receive, send)
        except asyncio.CancelledError:
            if watched.started or self.stopping is None or not self.stopping.is_set():
                raise
            task = asyncio.current_task()
            if task is not None:
                task.uncancel()  # answered: the cancel is handled here, not left pending on the task
            log.warning("%s %s was cut off: the server is stopping", scope.get("method"), scope.get("path"))
            await error_response(503, "server_stopping", CUT_OFF_MESSAGE)(scope, receive, send)


def route_path(scope: Scope) -> str:
    """The path the app routes on: without the prefix it is served under (``--root-path`` behind a
    proxy, or a Mount), which the ASGI path carries."""
    path, root = str(scope["path"]), str(scope.get("root_path") or "")
    if root and (path == root or path.startswith(root + "/")):
        return path[len(root) :] or "/"
    return path


BODY_LIMIT_BYTES = 1024 * 1024  # any body but an upload: a question, a query and its parameters


class BodyLimitMiddleware:
    """Refuse a request body over its route's limit with 413, reading no more of it: on the upload
    route (``upload_path``) the file size limit plus room for the multipart framing, elsewhere
    ``BODY_LIMIT_BYTES`` (a reader's 300 MB question was read whole before it was refused).

    A declared ``Content-Length`` over the limit is refused at once; a body without one (chunked) is
    counted as it arrives, and the app's own answer is replaced with the 413 once the count passes.
    """

    def __init__(
        self,
        app: ASGIApp,
        upload_path: str = "",
        upload_limit_bytes: int = 0,
        slack_bytes: int = 0,
        length_required: bool = False,
    ) -> None:
        self.app = app
        self.length_required = length_required  # 411 for a body sent without its length (MCP's)
        self.upload_path = upload_path
        self.upload_limit_bytes = upload_limit_bytes  # the file size limit, for the message
        self.slack_bytes = slack_bytes  # an upload's body also holds the multipart framing

    def limit(self, scope: Scope) -> tuple[int, str]:
        """The most bytes the request's body may have, and the message past that."""
        if self.upload_path and scope.get("method") == "POST" and route_path(scope).rstrip("/") == self.upload_path:
            limit_mib = self.upload_limit_bytes / (1024 * 1024)
            message = f"the upload is larger than the limit of {limit_mib:.3g} MiB (setting api_max_upload_mb)"
            return self.upload_limit_bytes + self.slack_bytes, message
        limit_mib = BODY_LIMIT_BYTES / (1024 * 1024)
        return BODY_LIMIT_BYTES, f"the request body is larger than {limit_mib:.3g} MiB; questions and queries are short"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        max_bytes, message = self.limit(scope)
        declared = _declared_length(scope)
        if self.length_required and scope.get("method") == "POST" and declared < 0:
            await error_response(411, "length_required", "send the request with a Content-Length")(scope, receive, send)
            return
        if declared > max_bytes:
            await error_response(413, "too_large", message)(scope, receive, send)
            return
        received = 0
        tripped = False

        async def counting_receive() -> Message:
            nonlocal received, tripped
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > max_bytes:
                    tripped = True
                    return {"type": "http.disconnect"}
            return message

        async def guarded_send(message: Message) -> None:
            if not tripped:
                await send(message)

        try:
            await self.app(scope, counting_receive, guarded_send)
        except Exception:
            if not tripped:
                raise
        if tripped:
            await error_response(413, "too_large", message)(scope, receive, send)


def _declared_length(scope: Scope) -> int:
    """The Content-Length the request declares; -1 without one (a chunked body)."""
    for name, value in scope.get("headers", []):
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return 0
    return -1

"""An answer as it is written: ``ask`` runs in a thread of its own and its text reaches the client as
newline-delimited JSON events, the whole answer last.

Events, one JSON object a line: ``{"event": "text", "text": ...}`` for each piece the model writes
(the uncertainty loop's notes included, as the CLI prints them), then ``{"event": "answer",
"answer": {...}}`` (what ``POST /ask`` returns), or ``{"event": "error", "error": {...}}`` when the
answer fails after its first text (before it, the request fails with the error's own status).
A client that goes away stops the answer at the model's next piece (its reply stream is closed), and
before the first text, at the next piece of any model call or before the next call.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from docgraph.app.api.errors import INTERNAL_MESSAGE, error_body, status_of
from docgraph.app.llm.client import StreamCallback
from docgraph.app.stores.results import finite_numbers
from docgraph.errors import AnswerAbandoned

log = logging.getLogger("docgraph.api")

MEDIA_TYPE = "application/x-ndjson"
# Answers written at once by streamed requests, as many as the threads that answer POST /ask (anyio's
# default); more wait for a slot. Each holds a thread of its own while the model writes.
ANSWER_SLOTS = threading.BoundedSemaphore(40)
# ask with this stream callback and this "has the client gone?" check -> the answer's JSON
Answering = Callable[[StreamCallback, Callable[[], bool]], dict[str, Any]]
Event = tuple[str, Any]  # ("text", str) | ("answer", dict) | ("error", BaseException)
DISCONNECT_POLL_S = 0.5  # before the first text, how often the request is asked whether its client left


class AnswerEvents:
    """The events of one answer, from the thread that writes it to the request's event loop."""

    def __init__(self, answering: Answering) -> None:
        self._loop = asyncio.get_running_loop()
        self._queue: asyncio.Queue[Event] = asyncio.Queue()
        self._gone = threading.Event()
        self._thread = threading.Thread(target=self._answer, args=(answering,), daemon=True, name="docgraph-answer")
        self._thread.start()

    def _answer(self, answering: Answering) -> None:
        with ANSWER_SLOTS:
            if self._gone.is_set():  # the client left while the answer waited for a slot
                return
            try:
                answer = answering(self._piece, self._gone.is_set)
            except AnswerAbandoned:
                return
            except BaseException as error:  # the request's loop raises or reports it
                self._send(("error", error))
                return
            self._send(("answer", answer))

    def _piece(self, text: str) -> None:
        if self._gone.is_set():
            raise AnswerAbandoned("the client stopped reading the answer")
        if text:
            self._send(("text", text))

    def _send(self, event: Event) -> None:
        if self._gone.is_set():
            return
        try:
            self._loop.call_soon_threadsafe(self._queue.put_nowait, event)
        except RuntimeError:  # the loop has closed (the server stopped): nobody is reading
            self._gone.set()

    async def first(self, client_gone: Callable[[], Awaitable[bool]]) -> Event | None:
        """The first event; None when the client left before it (asked every DISCONNECT_POLL_S while
        the question is routed and the evidence gathered). An answer that fails before any text
        raises its error here."""
        getting = asyncio.ensure_future(self._queue.get())  # one get, never cancelled by a poll
        try:
            while not (await asyncio.wait({getting}, timeout=DISCONNECT_POLL_S))[0]:
                if await client_gone():
                    self._gone.set()
                    getting.cancel()
                    return None
        except BaseException:  # the request was given up before any text
            self._gone.set()
            getting.cancel()
            raise
        event = getting.result()
        if event[0] == "error":
            self._gone.set()
            error = event[1]
            raise error if isinstance(error, Exception) else RuntimeError(f"the answer ended: {error!r}")
        return event

    async def lines(self, first: Event) -> AsyncIterator[bytes]:
        """``first`` and the events after it, a JSON line each, until the answer or an error."""
        try:
            event = first
            while True:
                yield event_line(event)
                if event[0] != "text":
                    return
                event = await self._queue.get()
        finally:  # the last event, a failure or a client gone (the request's task is cancelled)
            self._gone.set()


def event_line(event: Event) -> bytes:
    kind, value = event
    if kind == "text":
        body: dict[str, Any] = {"event": "text", "text": value}
    elif kind == "answer":
        body = {"event": "answer", "answer": value}
    else:
        body = {"event": "error", **error_body(*error_report(value))}
    return (json.dumps(finite_numbers(body), ensure_ascii=False, allow_nan=False) + "\n").encode("utf-8")


def error_report(error: BaseException) -> tuple[int, str, str]:
    """The status, type and message the answer's failure is reported with, as the API's errors are."""
    if not isinstance(error, Exception):
        return 500, "internal_error", INTERNAL_MESSAGE
    status, kind = status_of(error)
    if kind == "internal_error":
        log.error("a streamed answer failed", exc_info=error)
        return status, kind, INTERNAL_MESSAGE
    if status >= 500 and kind in ("store_error", "error"):  # as the API's error handler logs them
        log.error("a streamed answer failed: %s", error)
    return status, kind, str(error)

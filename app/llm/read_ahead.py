"""An endpoint's streamed chunks read by a thread of their own, so that a reply's time-out holds
while no chunk comes at all.

A server still reading a long prompt sends nothing but keep-alive comments (llama.cpp's server one
every 15 s), and each of them resets the HTTP read time-out: the first words of a reply could be
waited for well past ``DOCGRAPH_LLM_TIMEOUT_S``. Read here, the waiting ends at the deadline: the
next item is then :data:`LATE`, which :func:`app.llm.client.from_chunks` takes as a chunk come too
late (it closes the stream and raises its time-out). The reading thread stops, closing the stream,
at the next chunk or when the server ends the reply.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from docgraph.errors import AnswerAbandoned

LATE = object()  # what the iterator gives once the deadline has passed with no chunk
STOP_LOOK_S = 0.25  # how often the asker's stop_when is looked at while no chunk comes
_CHUNK, _END, _ERROR = "chunk", "end", "error"


class ReadAhead(Iterator[Any]):
    """``stop_when``: whoever asked has stopped waiting (a client gone, a server stopping); looked at
    while no chunk comes too (a long prompt being read), so the asker hears of it at once."""

    def __init__(self, chunks: Iterable[Any], deadline: float, stop_when: Callable[[], bool] | None = None) -> None:
        self._chunks, self._deadline, self._stop_when = chunks, deadline, stop_when
        self._arrived: queue.Queue[tuple[str, Any]] = queue.Queue()
        self._closed = threading.Event()
        self._over = False  # the end or an error was handed on: nothing more comes
        self._reader = threading.Thread(target=self._read, name="docgraph-llm-stream", daemon=True)
        self._reader.start()

    @property
    def response(self) -> Any:
        """The HTTP response the chunks come from (the openai SDK's stream has one): its headers say
        what a reply without chunks was."""
        return getattr(self._chunks, "response", None)

    def __next__(self) -> Any:
        if self._over:
            raise StopIteration
        while True:
            wait = max(0.0, self._deadline - time.perf_counter()) + 0.01  # past the deadline, not at it
            try:
                kind, value = self._arrived.get(timeout=min(wait, STOP_LOOK_S))
                break
            except queue.Empty:
                self._check_asker()
                if wait <= STOP_LOOK_S:
                    return LATE
        self._over = kind != _CHUNK
        if kind == _CHUNK:  # chunks without text too (reasoning sent apart from the answer)
            self._check_asker()
        if kind == _END:
            raise StopIteration
        if kind == _ERROR:
            raise value
        return value

    def _check_asker(self) -> None:
        if self._stop_when is not None and self._stop_when():
            raise AnswerAbandoned("whoever asked stopped waiting for the answer")

    def close(self) -> None:
        """Stop the request: now when the reading is over, else by the reader at its next chunk (the
        stream is not closed under a read going on in the other thread)."""
        self._closed.set()
        if not self._reader.is_alive():
            _close(self._chunks)

    def _read(self) -> None:
        try:
            for chunk in self._chunks:
                if self._closed.is_set():
                    break
                self._arrived.put((_CHUNK, chunk))
            self._arrived.put((_END, None))
        except BaseException as error:  # raised where the chunks are taken, as without this thread
            self._arrived.put((_ERROR, error))
        finally:
            if self._closed.is_set():
                _close(self._chunks)


def _close(chunks: Iterable[Any]) -> None:
    getattr(chunks, "close", lambda: None)()

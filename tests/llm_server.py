"""A small OpenAI-compatible chat server for tests: real HTTP on 127.0.0.1, scripted replies.

Each POST to ``/v1/chat/completions`` takes the next scripted :class:`Reply` and answers it the way
the OpenAI API does: one JSON object, or with ``"stream": true`` server-sent events (``data:``
chunks, a usage chunk when ``stream_options.include_usage`` is asked for, then ``data: [DONE]``).
A reply may carry token log-probabilities (``choices[0].logprobs.content``). Every request body is
recorded, so a test can check what the code sent (prompts, images, parameters).
"""

from __future__ import annotations

import json
import math
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

TopLogprobs = list[tuple[str, float]]


@dataclass
class Reply:
    """One scripted answer. ``tokens`` splits ``content`` for streaming and log-probabilities."""

    content: str = ""
    tokens: list[str] | None = None
    logprobs: list[tuple[float, TopLogprobs]] | None = None  # per token: (chosen logprob, top alternatives)
    status: int = 200
    error: str = ""
    raw: bytes | None = None  # sent as the whole body instead of a completion (a broken endpoint; b"" as
    # llama.cpp answers a streamed request whose prompt overflows its context: HTTP 200, nothing in it)
    delay_s: float = 0.0  # wait this long before answering (a hung endpoint)
    stall_after: int | None = None  # streamed, stop for stall_s after this many chunks (hung mid-reply)
    stall_s: float = 0.0
    pace_s: float = 0.0  # streamed, wait this long before each chunk (a model writing slowly)
    pings_s: float = 0.0  # streamed, only keep-alive comments for this long, then the end without a completion:
    # a server still reading a long prompt (llama.cpp's sends a comment every 15 s, which resets a read time-out)
    content_type: str | None = None  # of a raw reply; by default what the request asked for

    def token_list(self) -> list[str]:
        if self.tokens is not None:
            return self.tokens
        words = self.content.split(" ")
        return [word if i == 0 else " " + word for i, word in enumerate(words)]


def confident(content: str) -> Reply:
    """A reply whose every token had probability ~0.99: near-zero entropy."""
    reply = Reply(content)
    reply.logprobs = [_distribution([0.99, 0.004, 0.003, 0.002, 0.001]) for _ in reply.token_list()]
    return reply


def uncertain(content: str) -> Reply:
    """A reply whose every token was a coin toss among five: entropy ~log(5) nats."""
    reply = Reply(content)
    reply.logprobs = [_distribution([0.2, 0.2, 0.2, 0.2, 0.2]) for _ in reply.token_list()]
    return reply


def hesitant(content: str) -> Reply:
    """A reply whose every token was a likely choice among five: entropy ~0.9 nats, between the two."""
    reply = Reply(content)
    reply.logprobs = [_distribution([0.7, 0.1, 0.1, 0.05, 0.05]) for _ in reply.token_list()]
    return reply


def _distribution(probabilities: list[float]) -> tuple[float, TopLogprobs]:
    top = [(f"alt{i}", math.log(p)) for i, p in enumerate(probabilities)]
    return top[0][1], top


@dataclass
class ScriptedLLMServer:
    """Start with ``with ScriptedLLMServer([...]) as server:``; point the client at ``server.base_url``."""

    replies: list[Reply] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)
    hung_up: list[int] = field(default_factory=list)  # per streamed reply its client closed early: chunks sent
    models: list[str] = field(default_factory=lambda: ["m"])  # what GET /models lists
    models_status: int = 200  # GET /models answers this (401: a refused key)
    model_lists: int = 0  # GET requests answered
    _server: _QuietServer | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def base_url(self) -> str:
        assert self._server is not None, "server not started"
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def add(self, *replies: Reply | str) -> None:
        with self._lock:
            self.replies += [Reply(r) if isinstance(r, str) else r for r in replies]

    def prompts(self) -> list[str]:
        """The whole text of each request's messages, one string per request."""
        return [_message_text(body) for body in self.requests]

    def __enter__(self) -> ScriptedLLMServer:
        handler = _handler_for(self)
        self._server = _QuietServer(("127.0.0.1", 0), handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def _next(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            self.requests.append(body)
            if not self.replies:
                return Reply(status=500, error="the test script has no reply left for this request")
            return self.replies.pop(0)


class _QuietServer(ThreadingHTTPServer):
    """Says nothing when a client hangs up mid-reply (a client that gave up waiting does so)."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


def _message_text(body: dict[str, Any]) -> str:
    parts: list[str] = []
    for message in body.get("messages", []):
        content = message.get("content")
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            parts += [str(part.get("text", "")) for part in content if part.get("type") == "text"]
    return "\n".join(parts)


def _handler_for(server: ScriptedLLMServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
            return

        def do_GET(self) -> None:
            server.model_lists += 1
            if not self.path.rstrip("/").endswith("/models"):
                self._send_json(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})
            elif server.models_status != 200:
                self._send_json(server.models_status, {"error": {"message": "no", "type": "invalid_request_error"}})
            else:
                listed = [{"id": name, "object": "model", "owned_by": "test"} for name in server.models]
                self._send_json(200, {"object": "list", "data": listed})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            if not self.path.rstrip("/").endswith("/chat/completions"):
                self._send_json(404, {"error": {"message": f"no route {self.path}", "type": "not_found"}})
                return
            reply = server._next(body)
            time.sleep(reply.delay_s)
            if reply.raw is not None:
                self.send_response(200)
                asked = "text/event-stream" if body.get("stream") else "application/json"
                self.send_header("Content-Type", reply.content_type or asked)
                self.send_header("Content-Length", str(len(reply.raw)))
                self.end_headers()
                self.wfile.write(reply.raw)
            elif reply.status != 200:
                self._send_json(reply.status, {"error": {"message": reply.error, "type": "invalid_request_error"}})
            elif body.get("stream"):
                self._send_stream(reply, body)
            else:
                self._send_json(200, _completion(reply, body))

        def _send_json(self, status: int, payload: dict[str, Any]) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _send_stream(self, reply: Reply, body: dict[str, Any]) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Connection", "close")
            self.end_headers()
            if reply.pings_s:
                self._send_pings(reply.pings_s)
                return
            sent = 0
            try:
                for sent, chunk in enumerate(_stream_chunks(reply, body)):
                    if sent == reply.stall_after:
                        time.sleep(reply.stall_s)
                    time.sleep(reply.pace_s)
                    self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
                    self.wfile.flush()
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):  # the client gave the reply up
                server.hung_up.append(sent)
            self.close_connection = True

        def _send_pings(self, seconds: float) -> None:
            self.close_connection = True
            ends = time.monotonic() + seconds
            try:
                while time.monotonic() < ends:
                    self.wfile.write(b": ping\n\n")
                    self.wfile.flush()
                    time.sleep(0.1)
                self.wfile.write(b"data: [DONE]\n\n")
                self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):  # the client gave up: what it should do
                return

    return Handler


def _usage(reply: Reply, body: dict[str, Any]) -> dict[str, int]:
    prompt = len(_message_text(body).split())
    completion = len(reply.token_list())
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


def _logprob_entries(reply: Reply, body: dict[str, Any], start: int, stop: int) -> dict[str, Any] | None:
    if not body.get("logprobs") or reply.logprobs is None:
        return None
    tokens = reply.token_list()
    wanted = int(body.get("top_logprobs") or 0)
    content = []
    for token, (logprob, top) in zip(tokens[start:stop], reply.logprobs[start:stop], strict=True):
        alternatives = [
            {"token": token if i == 0 else alt, "logprob": lp, "bytes": None}
            for i, (alt, lp) in enumerate(top[:wanted])
        ]
        content.append({"token": token, "logprob": logprob, "bytes": None, "top_logprobs": alternatives})
    return {"content": content, "refusal": None}


def _completion(reply: Reply, body: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model", ""),
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": reply.content},
                "logprobs": _logprob_entries(reply, body, 0, len(reply.token_list())),
                "finish_reason": "stop",
            }
        ],
        "usage": _usage(reply, body),
    }


def _stream_chunks(reply: Reply, body: dict[str, Any]) -> Iterator[dict[str, Any]]:
    def chunk(delta: dict[str, Any], finish: str | None = None, logprobs: Any = None) -> dict[str, Any]:
        choice = {"index": 0, "delta": delta, "logprobs": logprobs, "finish_reason": finish}
        return {
            "id": "chatcmpl-test",
            "object": "chat.completion.chunk",
            "created": int(time.time()),
            "model": body.get("model", ""),
            "choices": [choice],
        }

    yield chunk({"role": "assistant", "content": ""})
    for i, token in enumerate(reply.token_list()):
        yield chunk({"content": token}, logprobs=_logprob_entries(reply, body, i, i + 1))
    yield chunk({}, finish="stop")
    if (body.get("stream_options") or {}).get("include_usage"):
        yield {
            "id": "chatcmpl-test",
            "object": "chat.completion.chunk",
            "created": int(time.time()),
            "model": body.get("model", ""),
            "choices": [],
            "usage": _usage(reply, body),
        }

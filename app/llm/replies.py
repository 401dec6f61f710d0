"""A chat reply read from its stream of chunks: its text, log-probabilities and token counts, and
the ways a stream ends short of a whole reply (its deadline passed, or no finish reason came)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from docgraph.app.llm.read_ahead import LATE
from docgraph.errors import LLMReplyCutOffError, LLMRequestError, LLMTimeoutError

MAX_REPLY_CHARS = 64_000  # a reply is cut here whatever the endpoint does with max_tokens

StreamCallback = Callable[[str], None]


@dataclass(frozen=True, slots=True)
class TokenLogprob:
    token: str
    logprob: float
    top: tuple[float, ...] = ()  # log-probabilities of the top alternatives, the chosen one included


@dataclass(slots=True)
class Completion:
    text: str
    logprobs: list[TokenLogprob] | None = None  # None when the endpoint gave none
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    seconds: float = 0.0


class DeadlineError(Exception):
    """A reply still coming at its deadline; ``partial`` is what had come."""

    def __init__(self, partial: str) -> None:
        super().__init__(partial)
        self.partial = partial

    def timed_out(self, model: str, timeout_s: float) -> LLMTimeoutError:
        """The error a caller gets: ``model`` (who answered) did not finish within ``timeout_s``."""
        return LLMTimeoutError(
            f"{model} did not finish its reply within {timeout_s:g}s (stopped after {len(self.partial)} characters)",
            partial=self.partial,
        )


class UnfinishedReply(Exception):
    """A stream that ended without a finish reason; ``partial`` is what had come."""

    def __init__(self, partial: str) -> None:
        super().__init__(partial)
        self.partial = partial

    def cut_off(self, model: str) -> LLMReplyCutOffError:
        return LLMReplyCutOffError(
            f"{model} ended its reply unfinished after {len(self.partial)} characters, without a finish reason "
            "(llama-cpp-python's server ends a reply so when another request comes in, unless started with "
            "--interrupt_requests False)",
            partial=self.partial,
        )


def from_chunks(chunks: Iterable[Any], stream: StreamCallback, deadline: float | None = None) -> Completion:
    """The completion a stream of chunks makes; the stream is closed (the request stopped: for an
    endpoint's stream read ahead, at its next chunk) when the reply grows past ``MAX_REPLY_CHARS``
    or is still coming at ``deadline`` (``time.perf_counter``), which :data:`LATE` says too."""
    parts: list[str] = []
    size = 0
    logprobs: list[TokenLogprob] | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    received = 0
    finished = False  # a finish reason came ("stop", "length", ...): the reply is whole
    for chunk in chunks:
        received += 1
        if chunk is LATE or (deadline is not None and time.perf_counter() > deadline):
            getattr(chunks, "close", lambda: None)()
            raise DeadlineError("".join(parts))
        usage = getattr(chunk, "usage", None)
        if usage is not None:
            prompt_tokens, completion_tokens = usage.prompt_tokens, usage.completion_tokens
        if not getattr(chunk, "choices", None):
            continue
        choice = chunk.choices[0]
        finished = finished or bool(getattr(choice, "finish_reason", None))
        delta = getattr(choice, "delta", None)
        text = getattr(delta, "content", None) if delta is not None else None
        if text:
            kept = text[: MAX_REPLY_CHARS - size]
            parts.append(kept)
            size += len(kept)
            stream(kept)
            if size >= MAX_REPLY_CHARS:
                getattr(chunks, "close", lambda: None)()  # long enough: stop the request
                finished = True
                break
        chunk_logprobs = _token_logprobs(getattr(choice, "logprobs", None))
        if chunk_logprobs is not None:
            logprobs = (logprobs or []) + chunk_logprobs
    if not received:
        raise _empty_stream_error(chunks)
    if not finished:  # llama.cpp's server ends a reply so when another request comes in
        raise UnfinishedReply("".join(parts))
    if completion_tokens is None:  # no usage chunk (llama.cpp sends none): one token per text chunk
        completion_tokens = len(logprobs) if logprobs else len(parts)
    return Completion("".join(parts), logprobs, prompt_tokens, completion_tokens)


def _empty_stream_error(chunks: Iterable[Any]) -> LLMRequestError:
    """Why a stream held no chunk: the reply was no event stream, or (llama.cpp's way of refusing a
    prompt longer than the model's context) an empty one."""
    kind = str(getattr(getattr(chunks, "response", None), "headers", {}).get("content-type", ""))
    if kind and not kind.startswith("text/event-stream"):
        return LLMRequestError(f"the LLM endpoint sent back something that is not a chat completion ({kind})")
    return LLMRequestError(
        "the LLM endpoint ended the stream without sending a completion "
        "(llama.cpp does so when the prompt is longer than the model's context)"
    )


def _token_logprobs(logprobs: Any) -> list[TokenLogprob] | None:
    content = getattr(logprobs, "content", None) if logprobs is not None else None
    if not content:
        return None
    return [
        TokenLogprob(
            token=entry.token,
            logprob=float(entry.logprob),
            top=tuple(float(alt.logprob) for alt in (entry.top_logprobs or [])),
        )
        for entry in content
    ]

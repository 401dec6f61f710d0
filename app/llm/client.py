"""The chat endpoint: an OpenAI-compatible server named by settings, reached with the openai SDK.

Configured by ``OPENAI_BASE_URL``, ``OPENAI_API_KEY`` and ``DOCGRAPH_LLM_MODEL`` (``settings.llm_base_url``,
``llm_api_key``, ``llm_model``); ``DOCGRAPH_VLM_MODEL`` names the vision model. Without an endpoint,
:func:`make_client` raises :class:`LLMUnavailableError` and callers fall back to extractive answers.
"""

from __future__ import annotations

import base64
import contextlib
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from docgraph.app.config import Settings
from docgraph.app.llm.local_model import LOCAL_PREFIX, PromptAbandoned, local_model_path, local_stream
from docgraph.app.llm.read_ahead import ReadAhead

# Completion, StreamCallback and TokenLogprob are this module's too: its callers' types of a reply
from docgraph.app.llm.replies import Completion as Completion
from docgraph.app.llm.replies import DeadlineError, UnfinishedReply, from_chunks
from docgraph.app.llm.replies import StreamCallback as StreamCallback
from docgraph.app.llm.replies import TokenLogprob as TokenLogprob
from docgraph.errors import (
    AnswerAbandoned,
    LLMReplyCutOffError,
    LLMRequestError,
    LLMTimeoutError,
    LLMUnavailableError,
)

if TYPE_CHECKING:  # the SDK is imported on use: ~1.5 s that a run without an LLM endpoint never needs
    import openai

NO_ENDPOINT = "no LLM endpoint configured (set OPENAI_BASE_URL and OPENAI_API_KEY; DOCGRAPH_LLM_MODEL names the model)"
NOT_CONFIGURED = f"{NO_ENDPOINT}: answers are extractive"  # what ask says of itself
NO_VISION_MODEL = "no vision model configured (set DOCGRAPH_VLM_MODEL, and the LLM endpoint)"
REQUEST_TIMEOUT_S = 60.0  # one completion (settings.llm_timeout_s); tried once more on a time-out
MAX_TOKENS = 1024  # settings.llm_max_tokens: a reply's bound when a call names none
TOP_LOGPROBS = 5

Message = dict[str, Any]


@dataclass(slots=True)
class TokenUsage:
    """Token counts summed over every call one answer made."""

    prompt: int = 0
    completion: int = 0
    calls: int = 0
    unreported: int = 0  # calls whose endpoint did not say how many tokens they used (their prompt's
    # tokens are missing from ``prompt``; their reply's were counted from the stream, see from_chunks)

    def add(self, completion: Completion) -> None:
        self.calls += 1
        if completion.prompt_tokens is None or completion.completion_tokens is None:
            self.unreported += 1
        self.prompt += completion.prompt_tokens or 0
        self.completion += completion.completion_tokens or 0

    def merge(self, other: TokenUsage) -> None:
        self.prompt += other.prompt
        self.completion += other.completion
        self.calls += other.calls
        self.unreported += other.unreported

    def to_json(self) -> dict[str, int]:
        return {
            "prompt": self.prompt,
            "completion": self.completion,
            "calls": self.calls,
            "unreported": self.unreported,
        }


def llm_configured(settings: Settings) -> bool:
    """An endpoint (URL, key and model), or a ``local:`` model file run in this process."""
    if settings.llm_model.startswith(LOCAL_PREFIX):
        return True
    return bool(settings.llm_base_url and settings.llm_api_key and settings.llm_model)


def vision_configured(settings: Settings) -> bool:
    """Whether figures can be described: an endpoint and a vision model (``DOCGRAPH_VLM_MODEL``)."""
    return llm_configured(settings) and bool(settings.vlm_model)


def llm_status(settings: Settings) -> str:
    """One line for status output: what the LLM layer will use."""
    if not llm_configured(settings):
        return NOT_CONFIGURED
    vision = f", vision model {settings.vlm_model}" if settings.vlm_model else ", no vision model"
    if settings.llm_model.startswith(LOCAL_PREFIX):
        return f"LLM {settings.llm_model} (in this process){vision}"
    return f"LLM {settings.llm_model} at {settings.llm_base_url}{vision}"


def make_client(settings: Settings, stop_when: Callable[[], bool] | None = None) -> LLMClient:
    """The configured client; ``stop_when`` says whoever asked has stopped waiting (LLMClient.stop_when)."""
    if not llm_configured(settings):
        raise LLMUnavailableError(NO_ENDPOINT)
    kind = LocalModelClient if settings.llm_model.startswith(LOCAL_PREFIX) else LLMClient
    return kind(
        settings.llm_base_url,
        settings.llm_api_key,
        settings.llm_model,
        settings.vlm_model,
        timeout_s=settings.llm_timeout_s,
        max_tokens=settings.llm_max_tokens,
        stop_when=stop_when,
    )


def optional_client(settings: Settings, stop_when: Callable[[], bool] | None = None) -> LLMClient | None:
    """The configured client, or None when there is no endpoint (extractive mode)."""
    return make_client(settings, stop_when) if llm_configured(settings) else None


@dataclass
class LLMClient:
    base_url: str
    api_key: str
    model: str
    vlm_model: str = ""
    timeout_s: float = REQUEST_TIMEOUT_S
    max_tokens: int = MAX_TOKENS
    # Set once an endpoint has refused log-probabilities, so later calls stop asking for them.
    logprobs_refused: bool = False
    # Whether whoever asked has stopped waiting: checked before each call and at each piece of a reply.
    stop_when: Callable[[], bool] | None = None
    _sdk: openai.OpenAI | None = field(default=None, repr=False)

    @property
    def sdk(self) -> openai.OpenAI:
        if self._sdk is None:
            import openai

            self._sdk = openai.OpenAI(
                api_key=self.api_key, base_url=self.base_url, timeout=self.timeout_s, max_retries=1
            )
        return self._sdk

    def chat(
        self,
        messages: list[Message],
        *,
        stream: StreamCallback | None = None,
        logprobs: bool = False,
        max_tokens: int | None = None,
        model: str | None = None,
    ) -> Completion:
        """One chat completion at temperature 0; text chunks go to ``stream`` as they arrive."""
        import openai

        want_logprobs = logprobs and not self.logprobs_refused
        heard = HeardStream(stream or _unheard, self.stop_when)  # replies are streamed, heard or not
        heard.check()
        try:
            return self._complete(messages, heard, want_logprobs, max_tokens, model or self.model)
        except (openai.BadRequestError, LLMRequestError) as exc:
            if not want_logprobs or heard.anything:  # a reply that broke off: not refused for its logprobs
                raise _request_error(exc) from exc
            # Some OpenAI-compatible servers refuse log-probabilities (llama.cpp started with
            # --logits_all False answers HTTP 500): ask once more without. Only when that succeeds
            # were the log-probabilities the problem; otherwise the first error is the answer.
            try:
                completion = self._complete(messages, stream, False, max_tokens, model or self.model)
            except (openai.BadRequestError, LLMRequestError):
                raise _request_error(exc) from exc
            self.logprobs_refused = True
            return completion

    def describe_image(self, prompt: str, png: bytes, max_tokens: int = 700) -> Completion:
        """Ask the vision model about one PNG image."""
        if not self.vlm_model:
            raise LLMUnavailableError(NO_VISION_MODEL)
        image_url = "data:image/png;base64," + base64.b64encode(png).decode("ascii")
        content = [
            {"type": "text", "text": prompt},
            {"type": "image_url", "image_url": {"url": image_url}},
        ]
        return self.chat([{"role": "user", "content": content}], max_tokens=max_tokens, model=self.vlm_model)

    def _options(self, messages: list[Message], logprobs: bool, max_tokens: int | None) -> dict[str, Any]:
        """A chat request's settings, the model aside: temperature 0, a bounded reply, log-probabilities."""
        options: dict[str, Any] = {"messages": messages, "temperature": 0.0}
        # the setting bounds every reply: a call's own bound (the router's, a description's) only lowers it
        options["max_tokens"] = min(max_tokens, self.max_tokens) if max_tokens is not None else self.max_tokens
        if logprobs:
            options.update(logprobs=True, top_logprobs=TOP_LOGPROBS)
        return options

    def _complete(
        self,
        messages: list[Message],
        stream: StreamCallback | None,
        logprobs: bool,
        max_tokens: int | None,
        model: str,
    ) -> Completion:
        options = {"model": model, **self._options(messages, logprobs, max_tokens)}
        import httpx
        import openai

        started = time.perf_counter()
        # Always streamed, also for a caller that wants the whole reply: closing the stream is what
        # makes a server (llama.cpp's among them) stop generating a reply nobody waits for any more.
        # The time-out bounds the whole reply, streamed to the caller or not.
        deadline = started + self.timeout_s
        shown = HeardStream(stream or _unheard)  # what the reply said, should its connection break
        try:
            chunks = self.sdk.chat.completions.create(**options, stream=True, stream_options={"include_usage": True})
            # read by a thread of its own: the deadline holds while a long prompt is read (no chunks);
            # closed however the reading ends, so that a reply nobody reads any more is stopped
            with contextlib.closing(ReadAhead(cast(Iterable[Any], chunks), deadline, self.stop_when)) as ahead:
                completion = from_chunks(ahead, shown, deadline)
        except (openai.APITimeoutError, httpx.TimeoutException) as exc:
            raise LLMTimeoutError(
                f"the LLM endpoint {self.base_url} did not answer within {self.timeout_s:g}s (tried twice)"
            ) from exc
        except DeadlineError as exc:
            raise exc.timed_out(f"the LLM endpoint {self.base_url}", self.timeout_s) from exc
        except UnfinishedReply as exc:
            raise exc.cut_off(f"the LLM endpoint {self.base_url}") from exc
        except (openai.APIConnectionError, httpx.TransportError) as exc:
            if shown.text:  # the server went away mid-reply: as a reply cut off, not one never begun
                raise LLMReplyCutOffError(
                    f"the LLM endpoint {self.base_url} broke off its reply after {len(shown.text)} characters "
                    f"(the connection was lost: {exc})",
                    partial=shown.text,
                ) from exc
            raise LLMUnavailableError(f"the LLM endpoint {self.base_url} cannot be reached: {exc}") from exc
        except openai.BadRequestError:
            raise
        except openai.APIStatusError as exc:
            raise LLMRequestError(_status_problem(self.base_url, exc)) from exc
        except (openai.APIError, ValueError, AttributeError, TypeError) as exc:  # a reply that is not a completion
            raise LLMRequestError(f"the LLM endpoint sent back something that is not a chat completion: {exc}") from exc
        completion.seconds = time.perf_counter() - started
        return completion


@dataclass
class LocalModelClient(LLMClient):
    """An :class:`LLMClient` whose completions come from a ``local:`` GGUF file in this process."""

    def _asker_left(self) -> bool:
        return self.stop_when is not None and self.stop_when()

    def _complete(
        self,
        messages: list[Message],
        stream: StreamCallback | None,
        logprobs: bool,
        max_tokens: int | None,
        model: str,
    ) -> Completion:
        path = local_model_path(model)
        if path is None:
            raise LLMUnavailableError(f"{model!r} is not a local: model")
        options = self._options(messages, logprobs, max_tokens)
        try:
            # streamed whatever the caller wants, so that the time-out can stop a reply going on for
            # ever; it runs from when the model is loaded and held (not while another request has
            # it), and the model is free again however the reading ends
            with contextlib.closing(local_stream(path, options)) as chunks:
                started = time.perf_counter()
                deadline = started + self.timeout_s
                chunks.abort_when = lambda: time.perf_counter() > deadline or self._asker_left()
                completion = from_chunks(chunks, stream or _unheard, deadline)
        except ValueError as exc:  # e.g. a prompt longer than the context
            raise LLMRequestError(f"the local model refused the request: {exc}") from exc
        except PromptAbandoned as exc:  # stopped while it read the prompt
            if self._asker_left():
                raise AnswerAbandoned("whoever asked stopped waiting for the answer") from exc
            raise DeadlineError("").timed_out(f"the local model {path.name}", self.timeout_s) from exc
        except DeadlineError as exc:
            raise exc.timed_out(f"the local model {path.name}", self.timeout_s) from exc
        except UnfinishedReply as exc:
            raise exc.cut_off(f"the local model {path.name}") from exc
        completion.seconds = time.perf_counter() - started
        return completion


def _request_error(exc: Exception) -> LLMRequestError:
    import openai

    if isinstance(exc, openai.BadRequestError):
        return LLMRequestError(f"the LLM endpoint rejected the request: {_error_text(exc)}")
    return exc if isinstance(exc, LLMRequestError) else LLMRequestError(str(exc))


def _status_problem(base_url: str, exc: openai.APIStatusError) -> str:
    """An HTTP error of the endpoint in one line, with what usually causes it (the SDK's own text for
    one without a body is "Error code: 404")."""
    text = _error_text(exc)
    said = "" if text == f"Error code: {exc.status_code}" else f": {text}"
    if exc.status_code == 401:
        return f"the LLM endpoint {base_url} refused the API key (HTTP 401){said}"
    if exc.status_code == 403:
        return f"the LLM endpoint {base_url} refused the key access (HTTP 403: to this model?){said}"
    if exc.status_code == 404:
        hint = "is its URL the server's OpenAI-compatible /v1 address, and the model's name right?"
        return f"the LLM endpoint {base_url} answered HTTP 404{said}: {hint}"
    return f"the LLM endpoint answered HTTP {exc.status_code}{said}"


def _error_text(exc: openai.APIStatusError) -> str:
    body = exc.body
    if isinstance(body, dict):
        error = body.get("error", body)
        if isinstance(error, dict) and error.get("message"):
            return str(error["message"])
    return str(exc)


class HeardStream:
    """A stream callback that keeps the text that went through it (what a reply broken off had
    said); with ``stop_when``, it gives the reply up (its stream is closed) at the first piece after
    that says so."""

    def __init__(self, stream: StreamCallback, stop_when: Callable[[], bool] | None = None) -> None:
        self.stream, self.stop_when, self.pieces = stream, stop_when, list[str]()

    @property
    def text(self) -> str:
        return "".join(self.pieces)

    @property
    def anything(self) -> bool:
        return any(self.pieces)

    def check(self) -> None:
        if self.stop_when is not None and self.stop_when():
            raise AnswerAbandoned("whoever asked stopped waiting for the answer")

    def __call__(self, text: str) -> None:
        self.check()
        self.pieces.append(text)
        self.stream(text)


def _unheard(text: str) -> None:
    """The stream callback of a caller that wants only the whole reply."""

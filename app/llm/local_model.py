"""A GGUF chat model run in this process by llama.cpp: ``DOCGRAPH_LLM_MODEL=local:/path/model.gguf``
(``pip install 'docgraph[local-llm]'``), for a user who has a model file and no server.

It answers through the same client interface as an endpoint (streaming, log-probabilities, token
counts), so the CLI, the API and the UI use it unchanged. The chat template is the one the GGUF
file carries; the model is loaded once per process, with every token's logits kept so that the
uncertainty loop gets log-probabilities. No time-out applies: nothing runs elsewhere to hang.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from docgraph.app.llm.client import (
    LOCAL_PREFIX,
    TOP_LOGPROBS,
    Completion,
    LLMClient,
    Message,
    StreamCallback,
    from_chunks,
    from_response,
)
from docgraph.errors import LLMRequestError, LLMUnavailableError
from docgraph.models.runtimes import process_threads

CONTEXT_TOKENS = 4096  # the prompt and the reply together; a longer prompt is refused


def local_model_path(model: str) -> Path | None:
    """The GGUF file a ``local:PATH`` model names; None for an endpoint's model name."""
    return Path(model[len(LOCAL_PREFIX) :]).expanduser() if model.startswith(LOCAL_PREFIX) else None


@cache
def load_local_model(path: Path, context: int = CONTEXT_TOKENS) -> Any:
    """The model at ``path`` in llama.cpp, loaded once per process."""
    try:
        from llama_cpp import Llama
    except ImportError as exc:
        raise LLMUnavailableError("a local: model needs llama-cpp-python: pip install 'docgraph[local-llm]'") from exc
    if not path.is_file():
        raise LLMUnavailableError(f"the local model file {path} does not exist")
    try:
        return Llama(model_path=str(path), n_ctx=context, logits_all=True, n_threads=process_threads(), verbose=False)
    except ValueError as exc:  # llama.cpp's way of saying the file is no model it can load
        raise LLMUnavailableError(f"llama.cpp cannot load {path}: {exc}") from exc


@dataclass
class LocalModelClient(LLMClient):
    """An :class:`LLMClient` whose completions come from the local model, not over HTTP."""

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
        llama = load_local_model(path)
        options: dict[str, Any] = {
            "messages": messages,
            "temperature": 0.0,
            "max_tokens": max_tokens if max_tokens is not None else self.max_tokens,
        }
        if logprobs:
            options.update(logprobs=True, top_logprobs=TOP_LOGPROBS)
        try:
            if stream is None:
                return from_response(_namespace(llama.create_chat_completion(**options)))
            chunks: Iterable[Any] = (
                _namespace(chunk) for chunk in llama.create_chat_completion(**options, stream=True)
            )
            return from_chunks(chunks, stream)
        except ValueError as exc:  # e.g. a prompt longer than the context
            raise LLMRequestError(f"the local model refused the request: {exc}") from exc


def _namespace(value: Any) -> Any:
    """llama.cpp's OpenAI-shaped dicts as objects, as the openai SDK returns them."""
    if isinstance(value, dict):
        return SimpleNamespace(**{key: _namespace(item) for key, item in value.items()})
    if isinstance(value, list):
        return [_namespace(item) for item in value]
    return value

"""A GGUF chat model run in this process by llama.cpp: ``DOCGRAPH_LLM_MODEL=local:/path/model.gguf``
(``pip install 'docgraph[local-llm]'``), for a user who has a model file and no server.

Its completions come back shaped as the openai SDK's, so ``app.llm.client.LocalModelClient`` reads
them as it reads an endpoint's (streaming, log-probabilities, token counts) and the CLI, the API
and the UI use it unchanged. The chat template is the one the GGUF file carries; the model is
loaded once per process, with every token's logits kept so that the uncertainty loop gets
log-probabilities. The client reads every reply as a stream, so ``DOCGRAPH_LLM_TIMEOUT_S`` stops
one that goes on for ever.
"""

from __future__ import annotations

import atexit
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from docgraph.errors import LLMUnavailableError
from docgraph.models.runtimes import process_threads

LOCAL_PREFIX = "local:"
CONTEXT_TOKENS = 4096  # the prompt and the reply together; a longer prompt is refused
PROMPT_BATCH = 128  # prompt tokens read at once: a time-out is seen between two (as fast as 512 here)


def local_model_path(model: str) -> Path | None:
    """The GGUF file a ``local:PATH`` model names; None for an endpoint's model name."""
    return Path(model[len(LOCAL_PREFIX) :]).expanduser() if model.startswith(LOCAL_PREFIX) else None


_LOADED: dict[tuple[Path, int], Any] = {}
_IN_USE: dict[tuple[Path, int], threading.Lock] = {}  # one completion at a time per model
_LOADING = threading.Lock()


def _loaded(path: Path, context: int = CONTEXT_TOKENS) -> tuple[Any, threading.Lock]:
    """The model at ``path`` in llama.cpp, loaded once per process, and the lock its completions
    take: one llama.cpp context serves one completion at a time (two at once, as the API's threads
    asked, failed a GGML assertion and ended the process)."""
    key = (path.expanduser().resolve(), context)
    with _LOADING:
        if key not in _LOADED:  # a file moved away once loaded is still the model in memory
            check_model_file(path)
            _LOADED[key] = _load(key[0], context)
            _IN_USE[key] = threading.Lock()
        return _LOADED[key], _IN_USE[key]


def _load(path: Path, context: int) -> Any:
    try:
        from llama_cpp import Llama
    except ImportError as exc:
        raise LLMUnavailableError("a local: model needs llama-cpp-python: pip install 'docgraph[local-llm]'") from exc
    try:
        return Llama(
            model_path=str(path),
            n_ctx=context,
            n_batch=PROMPT_BATCH,
            logits_all=True,
            n_threads=process_threads(),
            verbose=False,
        )
    except ValueError as exc:  # llama.cpp's way of saying the file is no model it can load
        raise LLMUnavailableError(f"llama.cpp cannot load {path}: {exc}") from exc


def check_model_file(path: Path) -> None:
    """Refuse, in one line, a ``local:`` model that names no file."""
    if str(path) == ".":  # "local:" alone
        raise LLMUnavailableError("a local: model needs the path of its GGUF file: local:/path/model.gguf")
    if path.is_dir():
        raise LLMUnavailableError(f"the local model {path} is a folder, not a GGUF file")
    if not path.is_file():
        raise LLMUnavailableError(f"the local model file {path} does not exist")


@atexit.register
def _close_loaded() -> None:
    """Close the models while Python still runs: llama.cpp's own destructor, left to the interpreter's
    shutdown, fails on the modules already torn down."""
    for model in _LOADED.values():
        model.close()
    _LOADED.clear()


def local_stream(path: Path, options: dict[str, Any]) -> HeldStream:
    """A streamed chat completion, chunk by chunk, once the model is loaded and free (this call waits
    for both); the model is held until the stream is read to its end or closed."""
    model, in_use = _loaded(path)
    in_use.acquire()
    try:
        context = getattr(model, "_ctx", None)  # llama-cpp-python's wrapper of the llama.cpp context
        return HeldStream(model.create_chat_completion(**options, stream=True), in_use, context)
    except BaseException:
        in_use.release()
        raise


class PromptAbandoned(Exception):
    """llama.cpp stopped reading the prompt, as the stream's ``abort_when`` asked."""


class HeldStream(Iterator[Any]):
    """llama.cpp's chunks as the openai SDK's objects, holding the model's lock until closed (also
    when closed unread, which a generator's own ``finally`` would not see).

    The first chunk comes once llama.cpp has read the whole prompt, minutes for a long one on a slow
    machine; with ``abort_when`` set, it is asked before each batch of PROMPT_BATCH tokens meanwhile,
    and the reading stops (PromptAbandoned) when it says so. Only then: the reader checks between the
    reply's tokens itself."""

    def __init__(self, chunks: Iterator[Any], held: threading.Lock, context: Any = None) -> None:
        self._chunks, self._held, self._context, self._open = chunks, held, context, True
        self._first = True
        self.abort_when: Callable[[], bool] | None = None

    def __next__(self) -> Any:
        try:
            if self._first:
                self._first = False
                return as_objects(self._read_prompt())
            return as_objects(next(self._chunks))
        except BaseException:
            self.close()
            raise

    def _read_prompt(self) -> Any:
        abort_when, context = self.abort_when, self._context
        if abort_when is None or context is None:
            return next(self._chunks)
        decode = context.decode

        def decode_unless_abandoned(batch: Any) -> None:
            if abort_when():
                raise PromptAbandoned("the prompt was still being read")
            decode(batch)

        context.decode = decode_unless_abandoned  # llama-cpp-python decodes the prompt batch by batch
        try:
            return next(self._chunks)
        finally:
            del context.decode  # its class's own again

    def close(self) -> None:
        if self._open:
            self._open = False
            getattr(self._chunks, "close", lambda: None)()
            self._held.release()


def as_objects(value: Any) -> Any:
    """llama.cpp's OpenAI-shaped dicts as objects, as the openai SDK returns them."""
    if isinstance(value, dict):
        return SimpleNamespace(**{key: as_objects(item) for key, item in value.items()})
    if isinstance(value, list):
        return [as_objects(item) for item in value]
    return value

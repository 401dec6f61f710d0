"""The thread that reads an endpoint's chunks ahead: an asker who stops waiting is heard while the
model sends no text (a long prompt read, or reasoning sent apart from the answer's text)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest

from docgraph.app.llm.read_ahead import ReadAhead
from docgraph.app.llm.replies import from_chunks
from docgraph.errors import AnswerAbandoned


def reasoning_chunks(count: int, sent: list[int]) -> Iterator[Any]:
    """Chunks with reasoning but no answer text (vLLM's and llama.cpp's reasoning formats), 20 a second."""
    for i in range(count):
        sent.append(i)
        time.sleep(0.05)
        delta = SimpleNamespace(content=None, reasoning_content=f"thought {i}")
        yield SimpleNamespace(usage=None, choices=[SimpleNamespace(delta=delta, finish_reason=None, logprobs=None)])


def test_an_asker_gone_while_only_reasoning_comes_is_heard_at_the_next_chunk() -> None:
    """It was heard only at the first word of the answer's text, or at the reply's deadline."""
    gone, sent = threading.Event(), list[int]()
    gone.set()
    ahead = ReadAhead(reasoning_chunks(200, sent), time.perf_counter() + 60, gone.is_set)
    with pytest.raises(AnswerAbandoned):
        from_chunks(ahead, lambda text: None)
    ahead.close()
    assert len(sent) < 10  # of 200: the reading stopped at once

"""A text encoder whose work is spread over an executor's workers, chunk by chunk."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from docgraph.app.pipeline.execution.base import TaskExecutor
from docgraph.models.encoders import RowsDone, Vectors

CHUNK_TEXTS = 256  # texts per task: enough to batch well, small enough to share a long document


@dataclass(slots=True)
class SpreadEncoder:
    """The workers' encoder (its name and size asked of one of them), encoding chunks in parallel."""

    tasks: TaskExecutor
    name: str
    dim: int

    @classmethod
    def of(cls, tasks: TaskExecutor) -> SpreadEncoder:
        name, dim = tasks.submit("encoder_info").result()
        return cls(tasks, str(name), int(dim))

    def encode(self, texts: list[str], batch_size: int = 32, progress: RowsDone | None = None) -> Vectors:
        """The texts in chunks, a task each; ``progress`` hears a chunk's rows as its task returns."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        # Longest first, so that each chunk holds texts of like length and its batches pad little.
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        chunks = [order[start : start + CHUNK_TEXTS] for start in range(0, len(order), CHUNK_TEXTS)]
        futures = [self.tasks.submit("encode", [texts[i] for i in chunk]) for chunk in chunks]
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        try:
            for chunk, future in zip(chunks, futures, strict=True):
                out[chunk] = future.result()
                if progress is not None:
                    progress(chunk)
        finally:
            for future in futures:
                future.cancel()
        return out

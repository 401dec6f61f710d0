"""Sentence encoders run by onnxruntime: the same model, exported once from its own weights.

Encoding is most of ingest time on a small CPU. An ONNX export of the model with onnxruntime's
transformer fusions (attention, skip layer norm, bias GELU) gives the same vectors faster; int8
dense layers (dynamic quantisation, one scale per output channel) faster still, with vectors close
to the originals (docs/experiments/encoder-runtimes.md has the numbers). The export is made and
found by :mod:`models.onnx_export`; this module runs one.

At run time only onnxruntime and the ``tokenizers`` library are loaded, not torch or transformers,
so a command that only encodes a question starts quickly.
"""

from __future__ import annotations

import json
import threading
import weakref
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from docgraph.models.encoders import (
    LENGTH_CHUNK,
    RowsDone,
    Vectors,
    longest_first_batches,
    threads_for,
)

MODEL_FILE = "model.onnx"
INFO_FILE = "export.json"
TOKENIZER_FILE = "tokenizer.json"


class OnnxEncoder:
    """An exported sentence encoder: tokenizer and ONNX graph (pooling and normalisation included).

    Tokenizing goes straight through the ``tokenizers`` library: importing transformers would load
    torch, seconds that a one-question command does not need."""

    def __init__(self, name: str, folder: Path) -> None:
        from tokenizers import Tokenizer

        info = json.loads((folder / INFO_FILE).read_text(encoding="utf-8"))
        self.name = name
        self.dim = int(info["dim"])
        self.folder = folder
        self._inputs = tuple(str(name) for name in info["inputs"])
        self._pad_id = int(info.get("pad_id", 0))
        self._tokenizer = Tokenizer.from_file(str(folder / TOKENIZER_FILE))
        self._tokenizer.enable_truncation(int(info["max_length"]))
        self._tokenizer.no_padding()  # batches are padded here, to their own longest text
        self._sessions: dict[int, Any] = {}
        self._lock = threading.Lock()  # guards session creation; running a session is thread-safe
        # Held open for the sessions made later (one per thread count): another process may remove
        # an export it has not seen loaded for a week (remove_older_exports) while this one runs.
        self._model_file = (folder / MODEL_FILE).open("rb")
        weakref.finalize(self, self._model_file.close)

    def encode(self, texts: list[str], batch_size: int = 32, progress: RowsDone | None = None) -> Vectors:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return out
        session = self._session(threads_for(texts))
        lengths = [  # a chunk's encodings at a time, not a document's
            len(encoding.ids)
            for start in range(0, len(texts), LENGTH_CHUNK)
            for encoding in self._tokenizer.encode_batch(texts[start : start + LENGTH_CHUNK])
        ]
        for rows in longest_first_batches(lengths, batch_size):
            encodings = self._tokenizer.encode_batch([texts[i] for i in rows])
            out[rows] = session.run(None, self._feed(encodings))[0]
            if progress is not None:
                progress(rows)
        out /= np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-12)
        return out

    def _feed(self, encodings: list[Any]) -> dict[str, NDArray[np.int64]]:
        width = max(len(encoding.ids) for encoding in encodings)
        arrays = {
            "input_ids": np.full((len(encodings), width), self._pad_id, dtype=np.int64),
            "attention_mask": np.zeros((len(encodings), width), dtype=np.int64),
            "token_type_ids": np.zeros((len(encodings), width), dtype=np.int64),
        }
        for row, encoding in enumerate(encodings):
            length = len(encoding.ids)
            arrays["input_ids"][row, :length] = encoding.ids
            arrays["attention_mask"][row, :length] = 1
            arrays["token_type_ids"][row, :length] = encoding.type_ids
        return {name: arrays[name] for name in self._inputs}

    def _session(self, threads: int) -> Any:
        with self._lock:
            if threads not in self._sessions:
                import onnxruntime as ort

                options = ort.SessionOptions()
                options.intra_op_num_threads = threads
                options.inter_op_num_threads = 1
                options.log_severity_level = 3
                self._model_file.seek(0)
                model = self._model_file.read()
                self._sessions[threads] = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])
            return self._sessions[threads]

"""The one way to get a text encoder: by model name and runtime (torch or an ONNX export)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from docgraph.errors import ModelError
from docgraph.models.encoders import (
    DEFAULT_MODEL,
    SentenceTransformerEncoder,
    TextEncoder,
    load_sentence_transformer,
)
from docgraph.models.onnx_encoder import load_onnx_encoder
from docgraph.models.runtimes import DEFAULT_RUNTIME, ENCODER_RUNTIMES, default_model_cache


@cache
def load_encoder(
    name_or_path: str = DEFAULT_MODEL, runtime: str = DEFAULT_RUNTIME, cache_dir: Path | None = None
) -> TextEncoder:
    """Load a sentence encoder once per process; never downloads.

    ``runtime`` "torch" runs the model as sentence-transformers does; "onnx" and "onnx-int8" run an
    export of it in onnxruntime (``models.onnx_encoder``), made once and kept under ``cache_dir``."""
    if runtime not in ENCODER_RUNTIMES:
        raise ModelError(f"unknown encoder runtime {runtime!r}; choose one of {', '.join(ENCODER_RUNTIMES)}")
    if runtime == "torch":
        return SentenceTransformerEncoder(name_or_path, load_sentence_transformer(name_or_path))
    return load_onnx_encoder(
        name_or_path, quantized=runtime == "onnx-int8", cache_dir=cache_dir or default_model_cache()
    )

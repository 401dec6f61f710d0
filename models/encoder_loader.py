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
    model_files_fingerprint,
)
from docgraph.models.onnx_export import load_onnx_encoder
from docgraph.models.runtimes import DEFAULT_RUNTIME, ENCODER_RUNTIMES, default_model_cache


def load_encoder(
    name_or_path: str = DEFAULT_MODEL, runtime: str = DEFAULT_RUNTIME, cache_dir: Path | None = None
) -> TextEncoder:
    """Load a sentence encoder once per process (again when its folder's files change); never
    downloads.

    ``runtime`` "torch" runs the model as sentence-transformers does; "onnx" and "onnx-int8" run an
    export of it in onnxruntime (``models.onnx_export``), made once and kept under ``cache_dir``.
    A model read from a folder is named with its files' fingerprint (``encoder_label``), so vectors
    cached under its name are never those of the model as it was before a retraining in place."""
    if runtime not in ENCODER_RUNTIMES:
        raise ModelError(f"unknown encoder runtime {runtime!r}; choose one of {', '.join(ENCODER_RUNTIMES)}")
    return _load_encoder(name_or_path, runtime, cache_dir, model_files_fingerprint(name_or_path))


def encoder_label(name_or_path: str, fingerprint: str | None = None) -> str:
    """The model's name, with ``@<fingerprint>`` when it is read from a folder."""
    fingerprint = model_files_fingerprint(name_or_path) if fingerprint is None else fingerprint
    return f"{name_or_path}@{fingerprint}" if fingerprint else name_or_path


@cache
def _load_encoder(name_or_path: str, runtime: str, cache_dir: Path | None, fingerprint: str) -> TextEncoder:
    label = encoder_label(name_or_path, fingerprint)
    if runtime == "torch":
        return SentenceTransformerEncoder(label, load_sentence_transformer(name_or_path))
    return load_onnx_encoder(
        name_or_path, quantized=runtime == "onnx-int8", cache_dir=cache_dir or default_model_cache(), label=label
    )

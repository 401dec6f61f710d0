"""The encoder runtimes (how the sentence encoder runs), named once for the settings and the loaders.

Light imports only: app.config reads it on every start.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal, get_args

EncoderRuntime = Literal["torch", "onnx", "onnx-int8"]
ENCODER_RUNTIMES: tuple[str, ...] = get_args(EncoderRuntime)
DEFAULT_RUNTIME: EncoderRuntime = "onnx"  # the same vectors as torch, faster


def default_model_cache() -> Path:
    """Where models docgraph derives (ONNX exports) are kept: ``$XDG_CACHE_HOME/docgraph/models``."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "docgraph" / "models"

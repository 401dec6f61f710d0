"""The encoder runtimes (how the sentence encoder runs), named once for the settings and the loaders.

No imports beyond typing: app.config reads it on every start.
"""

from __future__ import annotations

from typing import Literal, get_args

EncoderRuntime = Literal["torch", "onnx", "onnx-int8"]
ENCODER_RUNTIMES: tuple[str, ...] = get_args(EncoderRuntime)
DEFAULT_RUNTIME: EncoderRuntime = "onnx"  # the same vectors as torch, faster

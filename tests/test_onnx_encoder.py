"""The encoder's ONNX runtimes: exported from the packaged MiniLM, checked against it on real text."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from docgraph.app.config import Settings
from docgraph.app.pipeline.build import encoder_build
from docgraph.app.pipeline.embedding import embedding_texts
from docgraph.app.pipeline.readers import make_reader
from docgraph.app.resources import SAMPLES_DIR
from docgraph.errors import ModelError
from docgraph.ingest.graph import build_graph
from docgraph.models.encoder_loader import load_encoder
from docgraph.models.encoders import DEFAULT_MODEL, TextEncoder, resolve_model_path
from docgraph.models.onnx_encoder import INFO_FILE, MODEL_FILE, OnnxEncoder
from docgraph.models.onnx_export import export_folder_name, load_onnx_encoder

QUESTIONS = [
    "When are the penguins fed?",
    "What is the area of the seal pool enclosure?",
    "Which animals are on a special diet?",
    "How high is the glass wall of the seal pool?",
]


@pytest.fixture(scope="module")
def model_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("model-cache")


@pytest.fixture(scope="module")
def torch_encoder() -> TextEncoder:
    return load_encoder(DEFAULT_MODEL, "torch")


@pytest.fixture(scope="module")
def sample_texts() -> list[str]:
    """What ingest embeds for the sample PDF: context lines, tables as rows, long regions as passages."""
    layout = make_reader("native", Settings()).read(SAMPLES_DIR / "docgraph-sample.pdf")
    batch = build_graph(layout, ingested_at="2024-01-01T00:00:00+00:00")
    return [text for texts in embedding_texts(batch).values() for text in texts]


@pytest.fixture(scope="module")
def onnx_fp32(model_cache: Path) -> OnnxEncoder:
    return load_onnx_encoder(DEFAULT_MODEL, quantized=False, cache_dir=model_cache)


@pytest.fixture(scope="module")
def onnx_int8(model_cache: Path) -> OnnxEncoder:
    return load_onnx_encoder(DEFAULT_MODEL, quantized=True, cache_dir=model_cache)


def test_the_onnx_export_gives_the_torch_model_s_vectors(
    onnx_fp32: OnnxEncoder, torch_encoder: TextEncoder, sample_texts: list[str]
) -> None:
    assert len(sample_texts) > 30
    ours = onnx_fp32.encode(sample_texts, batch_size=7)
    assert ours.shape == (len(sample_texts), 384) and ours.dtype == np.float32
    assert np.allclose(ours, torch_encoder.encode(sample_texts), atol=1e-4)
    assert onnx_fp32.name == "all-MiniLM-L6-v2 (onnx)" and onnx_fp32.dim == 384
    info = json.loads((onnx_fp32.folder / INFO_FILE).read_text())
    assert info["probe_cosine"] > 0.9999 and info["max_length"] == 256
    assert info["inputs"] == ["input_ids", "attention_mask", "token_type_ids"]
    assert onnx_fp32.encode([]).shape == (0, 384)


def test_int8_vectors_stay_close_and_rank_the_sample_as_torch_does(
    onnx_int8: OnnxEncoder, onnx_fp32: OnnxEncoder, torch_encoder: TextEncoder, sample_texts: list[str]
) -> None:
    reference = torch_encoder.encode(sample_texts)
    quantized = onnx_int8.encode(sample_texts)
    cosines = np.sum(reference * quantized, axis=1)
    assert cosines.min() > 0.95 and cosines.mean() > 0.98
    assert np.allclose(np.linalg.norm(quantized, axis=1), 1.0, atol=1e-5)
    for question in QUESTIONS:
        want = int(np.argmax(reference @ torch_encoder.encode([question])[0]))
        got = int(np.argmax(quantized @ onnx_int8.encode([question])[0]))
        assert got == want, question
    # The dense layers' weights are int8 (the word embeddings and the attention projections stay fp32).
    assert (onnx_int8.folder / MODEL_FILE).stat().st_size < 0.8 * (onnx_fp32.folder / MODEL_FILE).stat().st_size


def test_an_export_is_made_once_then_reused(onnx_int8: OnnxEncoder, model_cache: Path) -> None:
    made = (onnx_int8.folder / MODEL_FILE).stat().st_mtime_ns
    again = load_onnx_encoder(DEFAULT_MODEL, quantized=True, cache_dir=model_cache)
    assert again.folder == onnx_int8.folder
    assert (again.folder / MODEL_FILE).stat().st_mtime_ns == made
    assert not [p for p in model_cache.iterdir() if p.name.endswith(".part")]  # no half-made export left


def test_the_export_folder_is_named_by_runtime_and_model_files(tmp_path: Path) -> None:
    model = tmp_path / "my-model"
    model.mkdir()
    (model / "config.json").write_text("{}")
    first = export_folder_name(str(model), "onnx-int8")
    assert first.startswith("my-model-onnx-int8-")
    assert export_folder_name(str(model), "onnx-int8") == first
    assert export_folder_name(str(model), "onnx") != first
    (model / "config.json").write_text('{"changed": true}')
    assert export_folder_name(str(model), "onnx-int8") != first


def test_a_pooling_the_export_cannot_reproduce_is_refused(tmp_path: Path) -> None:
    packaged = Path(resolve_model_path(DEFAULT_MODEL))
    model = tmp_path / "max-pooled"
    (model / "1_Pooling").mkdir(parents=True)
    for item in packaged.iterdir():
        if item.name != "1_Pooling":
            (model / item.name).symlink_to(item)
    pooling = json.loads((packaged / "1_Pooling" / "config.json").read_text())
    pooling.update(pooling_mode_mean_tokens=False, pooling_mode_max_tokens=True)
    (model / "1_Pooling" / "config.json").write_text(json.dumps(pooling))
    cache = tmp_path / "cache"
    with pytest.raises(ModelError, match=r"pooling.*use torch"):
        load_onnx_encoder(str(model), quantized=True, cache_dir=cache)
    assert not cache.exists() or not any(cache.iterdir())


def test_an_unknown_runtime_is_refused() -> None:
    with pytest.raises(ModelError, match="unknown encoder runtime 'tensorrt'"):
        load_encoder(DEFAULT_MODEL, "tensorrt")


def test_a_build_names_the_runtime_when_it_changes_the_vectors() -> None:
    assert encoder_build(Settings(encoder_runtime="torch")) == "encoder all-MiniLM-L6-v2"
    assert encoder_build(Settings(encoder_runtime="onnx-int8")) == "encoder all-MiniLM-L6-v2 (onnx-int8)"


def test_a_cache_folder_that_cannot_be_written_is_a_model_error(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder should be")
    with pytest.raises(ModelError, match=r"cannot export encoder .* DOCGRAPH_MODEL_CACHE to a writable folder"):
        load_onnx_encoder(DEFAULT_MODEL, quantized=False, cache_dir=blocker / "models")


def test_an_export_removed_while_loaded_still_makes_sessions(
    onnx_int8: OnnxEncoder, sample_texts: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another process may remove an export that this one loaded over a week ago (a newer export
    replaced it): a session made afterwards, for batches, still comes from the model loaded."""
    monkeypatch.setenv("DOCGRAPH_ENCODER_THREADS", "2")  # batches get a session of their own
    export = tmp_path / "export"
    shutil.copytree(onnx_int8.folder, export)
    encoder = OnnxEncoder("copied export", export)
    one = encoder.encode(sample_texts[:1])  # the one-thread session, made while the files are there
    shutil.rmtree(export)
    batch = encoder.encode(sample_texts)
    np.testing.assert_allclose(batch, onnx_int8.encode(sample_texts), atol=1e-6)
    np.testing.assert_allclose(one, onnx_int8.encode(sample_texts[:1]), atol=1e-6)

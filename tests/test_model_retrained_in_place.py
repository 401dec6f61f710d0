"""An encoder read from a folder and retrained there: new vectors, a new build, one ONNX export."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

import numpy as np
import pytest

from docgraph.app.config import Settings
from docgraph.app.pipeline.build import build_ingest_worker, encoder_build
from docgraph.app.pipeline.embedding import DiskCache, MemoryCache, encode_cached
from docgraph.app.pipeline.worker import WorkerSpec
from docgraph.app.serving import ServingState
from docgraph.app.stores.falkordb_store import FalkorDBStore
from docgraph.models.encoder_loader import encoder_label, load_encoder
from docgraph.models.encoders import DEFAULT_MODEL, load_sentence_transformer, resolve_model_path
from docgraph.models.onnx_encoder import INFO_FILE
from docgraph.models.onnx_export import load_onnx_encoder

TEXTS = ["When are the penguins fed?", "The seal pool holds 400 cubic metres of sea water."]


@pytest.fixture()
def model_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "team-encoder"
    shutil.copytree(resolve_model_path(DEFAULT_MODEL), folder)
    return folder


def retrain_in_place(folder: Path, seed: int) -> None:
    """What a fine-tuning run does to the folder: other weights, saved over the old files."""
    import torch

    model = load_sentence_transformer(str(folder))
    embeddings = model[0].auto_model.embeddings.word_embeddings.weight
    with torch.no_grad():
        embeddings.add_(0.05 * torch.randn(embeddings.shape, generator=torch.Generator().manual_seed(seed)))
    model.save(str(folder))


def test_a_retrained_folder_model_gives_new_vectors_through_the_same_caches(model_folder: Path, tmp_path: Path) -> None:
    disk = DiskCache(tmp_path / "cache")
    before = encode_cached(TEXTS, load_encoder(str(model_folder), "torch"), disk, MemoryCache())
    build_before = encoder_build(Settings(encoder_model=str(model_folder)))
    retrain_in_place(model_folder, seed=1)
    encoder = load_encoder(str(model_folder), "torch")
    after = encode_cached(TEXTS, encoder, disk, MemoryCache())
    assert np.allclose(after, encoder.encode(TEXTS), atol=1e-6)
    assert not np.allclose(after, before, atol=1e-3)
    build_after = encoder_build(Settings(encoder_model=str(model_folder)))
    assert build_after != build_before and build_after.startswith(f"encoder {model_folder}@")
    # The packaged model's build stays as it was, so stores made with it are not re-embedded.
    assert encoder_build(Settings(encoder_runtime="torch")) == "encoder all-MiniLM-L6-v2"


def test_a_copy_that_only_changes_file_times_keeps_the_model_s_name(model_folder: Path) -> None:
    """A checkout or a copy without -p gives the files new times, not a new model: a fingerprint of
    the times alone would rebuild every stored document."""
    label = encoder_label(str(model_folder))
    for path in model_folder.rglob("*"):
        os.utime(path, (1_000_000_000, 1_000_000_000))
    assert encoder_label(str(model_folder)) == label


def test_a_new_export_removes_the_older_exports_of_the_same_model(model_folder: Path, tmp_path: Path) -> None:
    cache = tmp_path / "models"
    first = load_onnx_encoder(str(model_folder), quantized=False, cache_dir=cache)
    recent = cache / first.folder.name.replace(first.folder.name[-16:], "1" * 16)  # loaded an hour ago
    shutil.copytree(first.folder, recent)
    os.utime(recent / INFO_FILE, (time.time() - 3600, time.time() - 3600))
    week_ago = time.time() - 8 * 24 * 3600
    os.utime(first.folder / INFO_FILE, (week_ago, week_ago))  # not loaded for a week
    other_location = cache / first.folder.name.replace(first.folder.name[-16:], "0" * 16)
    other_location.mkdir()
    (other_location / INFO_FILE).write_text(json.dumps({"location": "/elsewhere/team-encoder"}))
    retrain_in_place(model_folder, seed=2)
    second = load_onnx_encoder(str(model_folder), quantized=False, cache_dir=cache)
    assert second.folder != first.folder and (second.folder / INFO_FILE).is_file()
    assert not first.folder.exists()
    assert other_location.is_dir()  # an export of another folder with the same name stays
    assert recent.is_dir()  # a process may still make sessions from it (or another virtualenv uses it)
    assert sorted(p.name for p in cache.iterdir()) == sorted([second.folder.name, other_location.name, recent.name])


def test_a_model_s_hidden_files_do_not_name_it(model_folder: Path) -> None:
    """A clone's .git holds a second copy of the weights: fetching into it is no new model."""
    label = encoder_label(str(model_folder))
    (model_folder / ".git" / "objects").mkdir(parents=True)
    (model_folder / ".git" / "objects" / "pack").write_bytes(b"another copy of the weights")
    assert encoder_label(str(model_folder)) == label


def test_long_running_workers_and_servers_take_up_a_model_retrained_in_place(
    model_folder: Path, falkordb_store: FalkorDBStore, tmp_path: Path
) -> None:
    """A worker process (the API's pool) and a server's retrievers kept the model they loaded first,
    while the build, read anew for each ingest, named the retrained one: documents stored as built
    with it held the old model's vectors, and questions were encoded by the old model."""
    settings = Settings(home=tmp_path, graph=falkordb_store.graph_name, store="", encoder_model=str(model_folder))
    worker = build_ingest_worker(WorkerSpec(settings, "native"))
    state = ServingState(settings, store=falkordb_store)
    before, retriever = worker.encode(TEXTS), state.retriever("dense-region")
    retrain_in_place(model_folder, seed=3)
    assert f"encoder {worker.encoder_info()[0]}" == encoder_build(settings)
    assert not np.allclose(worker.encode(TEXTS), before, atol=1e-3)
    assert state.retriever("dense-region") is not retriever

"""Checkpoint files that are not what they claim (empty, a Git LFS pointer from a clone without
LFS, cut short by a crash): one-line refusals, an ingest that goes on without the GNN, and a
reranker save that never leaves half a file where the old one was."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from docgraph.app.config import Settings
from docgraph.app.pipeline.build import build_ingest_pipeline
from docgraph.app.resources import SAMPLES_DIR
from docgraph.app.stores.falkordb_store import FalkorDBStore
from docgraph.errors import ModelError
from docgraph.models import cross_encoder
from docgraph.models.checkpoint_files import unreadable
from docgraph.models.cross_encoder import CrossEncoder, CrossEncoderConfig, load_cross_encoder, save_cross_encoder
from docgraph.models.gnn import GnnConfig, RelationalGNN, load_checkpoint, save_checkpoint

LFS_POINTER = b"version https://git-lfs.github.com/spec/v1\noid sha256:4d7a\nsize 1210000\n"


def broken_files(folder: Path) -> list[Path]:
    (folder / "empty.pt").write_bytes(b"")
    (folder / "pointer.pt").write_bytes(LFS_POINTER)
    return [folder / "empty.pt", folder / "pointer.pt"]


def test_an_unreadable_checkpoint_is_a_one_line_model_error(tmp_path: Path) -> None:
    for path in broken_files(tmp_path):
        with pytest.raises(ModelError, match="is not a docgraph GNN checkpoint") as gnn:
            load_checkpoint(path)
        with pytest.raises(ModelError, match="is not a docgraph reranker checkpoint") as reranker:
            load_cross_encoder(path)
        for error in (gnn, reranker):
            assert "\n" not in str(error.value) and "weights_only=False" not in str(error.value)


def test_a_checkpoint_cut_short_is_named_in_one_short_line(tmp_path: Path) -> None:
    """torch's zip reader says why in one line that goes on for a paragraph about miniz."""
    whole = save_checkpoint(RelationalGNN(GnnConfig()), tmp_path / "whole.pt", {})
    cut = tmp_path / "cut.pt"
    cut.write_bytes(whole.read_bytes()[:3000])
    with pytest.raises(ModelError) as refused:
        load_checkpoint(cut)
    said = str(refused.value)
    assert said == f"{cut} is not a docgraph GNN checkpoint: {said.split(': ', 1)[1]}"
    assert said.endswith("failed finding central directory.") and "miniz" not in said
    # and a reason is not cut inside a path or after an abbreviation
    whole_reason = unreadable(cut, "GNN", OSError("cannot read e.g. /tmp/a. b.pt: it is gone"))
    assert str(whole_reason).endswith("cannot read e.g. /tmp/a. b.pt: it is gone")


def test_an_ingest_goes_on_without_the_gnn_when_its_checkpoint_is_unreadable(
    falkordb_store: FalkorDBStore, tmp_path: Path
) -> None:
    (empty, _) = broken_files(tmp_path)
    settings = Settings(home=tmp_path / "home", graph=falkordb_store.graph_name, store="", gnn_checkpoint=empty)
    pipeline = build_ingest_pipeline(falkordb_store, settings)
    assert any(note.startswith("GNN embeddings off") for note in pipeline.notes)
    assert pipeline.ingest(SAMPLES_DIR / "docgraph-sample.pdf").status == "ingested"


def test_a_reranker_save_that_fails_leaves_the_old_checkpoint_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = CrossEncoder(CrossEncoderConfig())
    path = tmp_path / "reranker.pt"
    save_cross_encoder(model, path, {"round": 1})
    before = path.read_bytes()

    def crash_mid_save(payload: object, target: Path) -> None:
        Path(target).write_bytes(b"PK\x03\x04 half a zip")
        raise KeyboardInterrupt

    monkeypatch.setattr(cross_encoder.torch, "save", crash_mid_save)
    with pytest.raises(KeyboardInterrupt):
        save_cross_encoder(model, path, {"round": 2})
    monkeypatch.undo()
    assert path.read_bytes() == before and [p.name for p in tmp_path.iterdir()] == ["reranker.pt"]
    assert load_cross_encoder(path).score("penguins", ["Penguins are fed twice a day."]).shape == (1,)
    assert torch.load(path, weights_only=True)["meta"] == {"round": 1}


def test_a_checkpoint_of_another_graph_layout_is_refused(tmp_path: Path) -> None:
    """Trained on fewer relation types it loaded, then failed inside the ingest's GNN stage
    ("addmm: index out of row bound")."""
    path = save_checkpoint(RelationalGNN(GnnConfig(num_relations=10)), tmp_path / "old.pt", {})
    with pytest.raises(ModelError, match=r"trained on 10 relation types .* `docgraph train-gnn`"):
        load_checkpoint(path)

"""A long-running process (the API server, the UI) sees a GNN checkpoint that `docgraph train-gnn`
in another process wrote under the same name: its weights, and the tag that names them in a build."""

from __future__ import annotations

import os
from pathlib import Path

import torch

from docgraph.app.pipeline.gnn import checkpoint_tag, load_gnn
from docgraph.models.gnn import GnnConfig, RelationalGNN, save_checkpoint


def weights(path: Path) -> torch.Tensor:
    return torch.cat([tensor.flatten() for tensor in load_gnn(str(path)).model.state_dict().values()]).clone()


def test_a_rewritten_checkpoint_is_loaded_and_tagged_anew(tmp_path: Path) -> None:
    path = tmp_path / "rgcn.pt"
    torch.manual_seed(1)
    save_checkpoint(RelationalGNN(GnnConfig()), path, {})
    first, first_tag = weights(path), checkpoint_tag(path)
    assert torch.equal(weights(path), first) and checkpoint_tag(path) == first_tag  # cached meanwhile

    torch.manual_seed(2)
    save_checkpoint(RelationalGNN(GnnConfig()), path, {})  # as another process's train-gnn would
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))  # a later write, whatever the clock
    assert not torch.equal(weights(path), first)
    assert checkpoint_tag(path) != first_tag and checkpoint_tag(path).startswith("rgcn.pt ")

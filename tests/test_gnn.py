"""The relational GNN: per-relation message passing, equivalence with RGCNConv, checkpoints."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from torch_geometric.nn import RGCNConv

from app.exceptions import ModelError
from ingest.types import EdgeRecord, GraphBatch, NodeRecord
from models.gnn import (
    BasisRelationalConv,
    GnnConfig,
    RelationalAdjacency,
    RelationalGNN,
    load_checkpoint,
    save_checkpoint,
)
from models.graph_tensors import GROUPS, NUM_RELATIONS, batch_to_tensors

DIM = 8

# One edge record per forward relation: (relation, group, edge type, target label, edge props).
RELATION_EDGES = [
    ("next", "adjacency", "HAS_NEXT", "Region", {"cross_page": False}),
    ("next_cross", "cross_page", "HAS_NEXT", "Region", {"cross_page": True}),
    ("ref", "reference", "REF", "Region", {}),
    ("caption_of", "reference", "CAPTION_OF", "Region", {}),
    ("similar", "similarity", "IS_SIMILAR", "Region", {"score": 0.5}),
    ("under", "hierarchy", "IS_UNDER", "Section", {}),
]


def small_model(seed: int = 0) -> RelationalGNN:
    torch.manual_seed(seed)
    model = RelationalGNN(GnnConfig(dim=DIM, hidden=DIM, layers=3, num_bases=3, alpha_init=1.0, dropout=0.0))
    model.eval()
    return model


def pair_batch(edge_type: str, target_label: str, props: dict[str, object], a: list[float]) -> GraphBatch:
    """Regions a -> b joined by one edge, and a region c joined to nothing."""
    id_prop = "section_id" if target_label == "Section" else "region_id"
    generator = torch.Generator().manual_seed(1)
    b_vec, c_vec = torch.randn(2, DIM, generator=generator).tolist()
    nodes = [
        NodeRecord("Region", "a", {"region_id": "a", "kind": "paragraph", "embedding": a}),
        NodeRecord(target_label, "b", {id_prop: "b", "kind": "table", "embedding": b_vec}),
        NodeRecord("Region", "c", {"region_id": "c", "kind": "paragraph", "embedding": c_vec}),
    ]
    edges = [EdgeRecord(edge_type, "Region", "a", target_label, "b", dict(props))]
    return GraphBatch("doc", "0" * 64, nodes, edges)


def outputs(model: RelationalGNN, batch: GraphBatch, groups: tuple[str, ...] = GROUPS) -> dict[str, torch.Tensor]:
    graph = batch_to_tensors(batch, groups)
    vectors = model.embed(graph)
    return {key: vectors[row] for row, (_, key) in enumerate(graph.nodes)}


@pytest.mark.parametrize(("relation", "group", "edge_type", "target_label", "props"), RELATION_EDGES)
def test_messages_follow_each_relation_and_its_inverse(
    relation: str, group: str, edge_type: str, target_label: str, props: dict[str, object]
) -> None:
    model = small_model()
    before = outputs(model, pair_batch(edge_type, target_label, props, [1.0] * DIM))
    after = outputs(model, pair_batch(edge_type, target_label, props, [-1.0] * DIM))
    assert not torch.allclose(before["b"], after["b"]), f"{relation}: the target did not hear its source"
    assert torch.equal(before["c"], after["c"]), f"{relation}: an unconnected node changed"

    # The inverse relation: the source hears the target.
    changed_b = pair_batch(edge_type, target_label, props, [1.0] * DIM)
    changed_b.nodes[1].props["embedding"] = [0.5] * DIM
    assert not torch.allclose(before["a"], outputs(model, changed_b)["a"]), f"{relation}: no inverse message"

    # With the relation's group masked off, nothing reaches b.
    others = tuple(g for g in GROUPS if g != group)
    masked_before = outputs(model, pair_batch(edge_type, target_label, props, [1.0] * DIM), others)
    masked_after = outputs(model, pair_batch(edge_type, target_label, props, [-1.0] * DIM), others)
    assert torch.equal(masked_before["b"], masked_after["b"])


def test_relations_have_their_own_weights() -> None:
    model = small_model()
    seen = []
    for _, _, edge_type, target_label, props in RELATION_EDGES:
        if target_label == "Region":
            seen.append(outputs(model, pair_batch(edge_type, target_label, props, [1.0] * DIM))["b"])
    for i in range(len(seen)):
        for j in range(i + 1, len(seen)):
            assert not torch.allclose(seen[i], seen[j])


def test_layer_computes_what_rgcnconv_computes() -> None:
    torch.manual_seed(3)
    nodes, edges, bases = 30, 120, 4
    edge_index = torch.randint(0, nodes, (2, edges))
    edge_type = torch.randint(0, NUM_RELATIONS, (edges,))
    x = torch.randn(nodes, 16)
    ours = BasisRelationalConv(16, 12, NUM_RELATIONS, bases)
    torch.nn.init.normal_(ours.bias)
    theirs = RGCNConv(16, 12, NUM_RELATIONS, num_bases=bases, aggr="mean")
    theirs.load_state_dict(ours.state_dict())
    adjacency = RelationalAdjacency.build(edge_index, edge_type, nodes, NUM_RELATIONS)
    torch.testing.assert_close(ours(x, adjacency), theirs(x, edge_index, edge_type), atol=1e-5, rtol=1e-4)


def test_output_is_unit_length_and_starts_near_the_input() -> None:
    torch.manual_seed(0)
    model = RelationalGNN(GnnConfig(dim=DIM, hidden=DIM, alpha_init=0.05))
    batch = pair_batch("HAS_NEXT", "Region", {"cross_page": True}, [1.0] * DIM)
    graph = batch_to_tensors(batch)
    out = model.embed(graph)
    torch.testing.assert_close(out.norm(dim=1), torch.ones(3))
    cosine = torch.nn.functional.cosine_similarity(out, graph.x, dim=1)
    assert bool((cosine > 0.8).all())


def test_checkpoint_round_trip(tmp_path: Path) -> None:
    model = small_model(5)
    graph = batch_to_tensors(pair_batch("REF", "Region", {}, [0.3] * DIM))
    exact = load_checkpoint(save_checkpoint(model, tmp_path / "full.pt", {"note": "x"}, half=False))
    assert exact.model.config == model.config
    assert exact.meta == {"note": "x"}
    torch.testing.assert_close(exact.model.embed(graph), model.embed(graph), atol=0.0, rtol=0.0)
    small = load_checkpoint(save_checkpoint(model, tmp_path / "half.pt"))
    assert small.model.config == model.config
    torch.testing.assert_close(small.model.embed(graph), model.embed(graph), atol=2e-3, rtol=0.0)
    assert (tmp_path / "half.pt").stat().st_size < (tmp_path / "full.pt").stat().st_size


def test_loading_something_else_fails_with_a_model_error(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match="no GNN checkpoint"):
        load_checkpoint(tmp_path / "missing.pt")
    junk = tmp_path / "junk.pt"
    torch.save({"weights": torch.zeros(2)}, junk)
    with pytest.raises(ModelError, match="not a docgraph GNN checkpoint"):
        load_checkpoint(junk)
    wrong = RelationalGNN(GnnConfig(dim=DIM, hidden=DIM))
    with pytest.raises(ModelError, match="expects 8-d"):
        wrong.embed(batch_to_tensors(GraphBatch("d", "0" * 64, [NodeRecord("Region", "r", {"embedding": [1.0, 0.0]})])))

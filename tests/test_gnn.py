"""The relational GNN: per-relation message passing, equivalence with RGCNConv, checkpoints."""

from __future__ import annotations

import copy
import os
import random
from pathlib import Path

import numpy as np
import pytest
import torch
from torch_geometric.nn import RGCNConv

from docgraph.app.stores.base import GraphStore
from docgraph.errors import ModelError
from docgraph.models.gnn import (
    RELATION_WEIGHTS,
    BasisRelationalConv,
    GnnConfig,
    RelationalAdjacency,
    RelationalGNN,
    load_checkpoint,
    save_checkpoint,
)
from docgraph.models.graph_tensors import GROUPS, NUM_RELATIONS, batch_to_tensors
from docgraph.models.spill import SpillFolder, release_spilled_pages
from docgraph.records import EdgeRecord, GraphBatch, NodeRecord

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


def small_model(seed: int = 0, relation_weights: str = "matrix") -> RelationalGNN:
    torch.manual_seed(seed)
    bases = 1 if relation_weights == "scalar" else 3
    config = GnnConfig(
        dim=DIM, hidden=DIM, layers=3, relation_weights=relation_weights, num_bases=bases, alpha_init=1.0, dropout=0.0
    )
    model = RelationalGNN(config)
    if relation_weights == "scalar":  # as if trained: every relation speaks, each with its own weight
        for conv in model.convs:
            torch.nn.init.uniform_(conv.comp, 0.2, 1.0)
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


@pytest.mark.parametrize("relation_weights", RELATION_WEIGHTS)
@pytest.mark.parametrize(("relation", "group", "edge_type", "target_label", "props"), RELATION_EDGES)
def test_messages_follow_each_relation_and_its_inverse(
    relation: str, group: str, edge_type: str, target_label: str, props: dict[str, object], relation_weights: str
) -> None:
    model = small_model(relation_weights=relation_weights)
    before = outputs(model, pair_batch(edge_type, target_label, props, [1.0] * DIM))
    after = outputs(model, pair_batch(edge_type, target_label, props, [-1.0] * DIM))
    assert not torch.allclose(before["b"], after["b"]), f"{relation}: the target did not hear its source"
    assert torch.equal(before["c"], after["c"]), f"{relation}: an unconnected node changed"

    # The inverse relation: the source hears the target.
    changed_b = pair_batch(edge_type, target_label, props, [1.0] * DIM)
    changed_b.nodes[1].props["embedding"] = [0.5, -0.5] * (DIM // 2)
    assert not torch.allclose(before["a"], outputs(model, changed_b)["a"]), f"{relation}: no inverse message"

    # With the relation's group masked off, nothing reaches b.
    others = tuple(g for g in GROUPS if g != group)
    masked_before = outputs(model, pair_batch(edge_type, target_label, props, [1.0] * DIM), others)
    masked_after = outputs(model, pair_batch(edge_type, target_label, props, [-1.0] * DIM), others)
    assert torch.equal(masked_before["b"], masked_after["b"])


@pytest.mark.parametrize("relation_weights", RELATION_WEIGHTS)
def test_relations_have_their_own_weights(relation_weights: str) -> None:
    model = small_model(relation_weights=relation_weights)
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


def test_scalar_layer_is_rgcnconv_with_one_identity_basis_that_does_not_train() -> None:
    torch.manual_seed(4)
    nodes, edges = 30, 120
    edge_index = torch.randint(0, nodes, (2, edges))
    edge_type = torch.randint(0, NUM_RELATIONS, (edges,))
    x = torch.randn(nodes, 16)
    ours = BasisRelationalConv(16, 16, NUM_RELATIONS, 1, scalar=True)
    adjacency = RelationalAdjacency.build(edge_index, edge_type, nodes, NUM_RELATIONS)
    torch.testing.assert_close(ours(x, adjacency), x)  # untrained: relations silent, the input passes through
    assert {name for name, p in ours.named_parameters() if p.requires_grad} == {"comp", "bias"}
    torch.nn.init.normal_(ours.comp)
    torch.nn.init.normal_(ours.bias)
    theirs = RGCNConv(16, 16, NUM_RELATIONS, num_bases=1, aggr="mean")
    theirs.load_state_dict(ours.state_dict())
    torch.testing.assert_close(ours(x, adjacency), theirs(x, edge_index, edge_type), atol=1e-5, rtol=1e-4)
    with pytest.raises(ModelError, match="one basis"):
        BasisRelationalConv(16, 12, NUM_RELATIONS, 1, scalar=True)


def test_config_checks_relation_weights_and_reads_old_checkpoints_as_matrices() -> None:
    with pytest.raises(ModelError, match="relation_weights"):
        GnnConfig(relation_weights="vector")
    with pytest.raises(ModelError, match="hidden must equal dim"):
        GnnConfig(dim=8, hidden=16, relation_weights="scalar", num_bases=1)
    with pytest.raises(ModelError, match="num_bases be 1"):
        GnnConfig(dim=8, hidden=8, relation_weights="scalar", num_bases=4)
    assert GnnConfig().relation_weights == "matrix"
    old = {"dim": 8, "hidden": 16, "num_bases": 4}  # written before relation_weights existed
    assert GnnConfig.from_dict(old) == GnnConfig(dim=8, hidden=16, num_bases=4, relation_weights="matrix")


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


# ---- the pipeline stage and re-embedding, on a real document and a real store -------------------

PDF = Path("/work/shared/bench/train/shared-mime-info-spec.pdf")


@pytest.fixture(scope="module")
def embedded_batch() -> GraphBatch:
    from docgraph.app.pipeline.embedding import embed_batch
    from docgraph.ingest.graph import build_graph
    from docgraph.ingest.readers.native import NativeReader
    from docgraph.models.encoder_loader import load_encoder

    batch = build_graph(NativeReader().read(PDF), ingested_at="1970-01-01T00:00:00+00:00")
    embed_batch(batch, load_encoder("all-MiniLM-L6-v2"))
    return batch


def gnn_vectors(batch: GraphBatch) -> dict[tuple[str, str], list[float]]:
    return {(n.label, n.key): n.props["gnn_embedding"] for n in batch.nodes if "gnn_embedding" in n.props}


def test_gnn_stage_writes_back_onto_the_right_nodes(embedded_batch: GraphBatch) -> None:
    from docgraph.app.pipeline.gnn import GnnStage, load_gnn
    from docgraph.app.pipeline.similarity import SimilarityStage
    from docgraph.app.pipeline.stages import IngestContext

    model = load_gnn().model
    batch = copy.deepcopy(embedded_batch)
    SimilarityStage().run(IngestContext(path=PDF, batch=batch))
    GnnStage(model).run(IngestContext(path=PDF, batch=batch))

    embedded = {(n.label, n.key) for n in batch.nodes if n.props.get("embedding") is not None}
    vectors = gnn_vectors(batch)
    assert set(vectors) == embedded
    assert {label for label, _ in vectors} == {"Region", "Section"}
    matrix = np.asarray(list(vectors.values()))
    np.testing.assert_allclose(np.linalg.norm(matrix, axis=1), 1.0, atol=1e-5)
    similar = [e for e in batch.edges if e.type == "IS_SIMILAR"]
    assert similar and batch.stats["similarity_edges"] == len(similar)

    # The same document with its nodes and edges in another order gives every node the same vector.
    shuffled = copy.deepcopy(embedded_batch)
    random.Random(4).shuffle(shuffled.nodes)
    random.Random(5).shuffle(shuffled.edges)
    SimilarityStage().run(IngestContext(path=PDF, batch=shuffled))
    GnnStage(model).run(IngestContext(path=PDF, batch=shuffled))
    again = gnn_vectors(shuffled)
    for ref, vector in vectors.items():
        np.testing.assert_allclose(again[ref], vector, atol=1e-4)

    # Each node's GNN vector is closer to its own input embedding than to almost any other node's.
    refs = list(vectors)
    inputs = np.asarray([next(n for n in batch.nodes if (n.label, n.key) == ref).props["embedding"] for ref in refs])
    inputs /= np.linalg.norm(inputs, axis=1, keepdims=True)
    nearest = (np.asarray([vectors[ref] for ref in refs]) @ inputs.T).argmax(axis=1)
    own = np.mean([inputs[i] @ inputs[nearest[i]] > 0.999 for i in range(len(refs))])
    assert own > 0.95


def fulltext_ranking(store: GraphStore, query: str) -> list[tuple[str, float]]:
    return [(hit.key, round(hit.score, 6)) for hit in store.fulltext_top_k("Region", query, k=20)]


def spill_mappings() -> list[str]:
    return [line for line in Path("/proc/self/maps").read_text().splitlines() if "docgraph-spill-" in line]


def test_a_long_document_s_gnn_vectors_live_in_files_that_go_with_them(
    embedded_batch: GraphBatch, falkordb_store: GraphStore, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from docgraph.app.pipeline import gnn as gnn_stage
    from docgraph.app.pipeline.similarity import add_similarity_edges

    model = gnn_stage.load_gnn().model
    in_memory, spilled = copy.deepcopy(embedded_batch), copy.deepcopy(embedded_batch)
    add_similarity_edges(in_memory)
    add_similarity_edges(spilled)
    monkeypatch.setattr("docgraph.models.gnn.WINDOW_NODES", 16)
    monkeypatch.setattr(gnn_stage, "WINDOW_NODES", 16)
    assert gnn_stage.apply_gnn(in_memory, model) == gnn_stage.apply_gnn(spilled, model, tmp_path / "spill") > 16

    assert same_gnn_vectors(spilled, in_memory)
    assert [line.endswith("(deleted)") for line in spill_mappings()] == [True]  # one file: the vectors
    assert not list((tmp_path / "spill").iterdir())  # unlinked as soon as made

    assert falkordb_store.write_document(spilled).written  # the writer reads them from the file
    rows = falkordb_store.read("MATCH (r:Region) RETURN r.region_id AS key, r.gnn_embedding AS vector")
    stored = {str(row["key"]): row["vector"] for row in rows}
    expected = {node.key: node.props.get("gnn_embedding") for node in in_memory.nodes if node.label == "Region"}
    assert stored.keys() == expected.keys()
    for key, vector in expected.items():
        assert (vector is None) == (stored[key] is None)
        assert vector is None or np.array_equal(np.asarray(stored[key], dtype=np.float32), vector)
    del spilled
    assert spill_mappings() == []


def same_gnn_vectors(batch: GraphBatch, expected: GraphBatch) -> bool:
    vectors = {(node.label, node.key): node.props.get("gnn_embedding") for node in batch.nodes}
    wanted = {(node.label, node.key): node.props.get("gnn_embedding") for node in expected.nodes}
    if vectors.keys() != wanted.keys():
        return False
    return all(
        (found is None and wanted[ref] is None) or np.array_equal(found, wanted[ref]) for ref, found in vectors.items()
    )


def resident_mb() -> float:
    return int(Path("/proc/self/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def test_a_spill_folder_that_cannot_be_made_is_a_model_error(tmp_path: Path) -> None:
    (tmp_path / "home").write_text("a file, not a folder")
    with pytest.raises(ModelError, match="cannot make a working file in"):
        SpillFolder(tmp_path / "home" / "spill").empty(2048, 384)


def test_spilled_arrays_leave_resident_memory_and_keep_their_values(tmp_path: Path) -> None:
    spill = SpillFolder(tmp_path)
    array = spill.empty(32_768, 512)  # 64 MB
    before = resident_mb()
    array.copy_(torch.arange(512, dtype=torch.float32).expand(32_768, 512))
    written = resident_mb()
    spill.release()
    released = resident_mb()
    assert written - before > 48
    assert written - released > 48
    array.add_(1.0)  # the pages back in; every folder's let go at once
    assert resident_mb() - released > 48
    release_spilled_pages()
    assert written - resident_mb() > 48
    array.sub_(1.0)
    assert torch.equal(array[-1], torch.arange(512, dtype=torch.float32))  # read back from the file
    assert float(array.sum()) == 32_768 * sum(range(512))


def test_reembed_recomputes_stored_documents(
    embedded_batch: GraphBatch, falkordb_store: GraphStore, tmp_path: Path
) -> None:
    from docgraph.app.config import Settings
    from docgraph.app.jobs.reembed import reembed
    from docgraph.app.pipeline.gnn import apply_gnn, load_gnn
    from docgraph.app.pipeline.similarity import add_similarity_edges

    stored = copy.deepcopy(embedded_batch)  # ingested without the GNN stage: no IS_SIMILAR, no gnn_embedding
    unembedded = [node for node in stored.nodes if node.label == "Region"][-2:]  # as regions without text are
    for node in unembedded:
        del node.props["embedding"]
    assert falkordb_store.write_document(stored).written
    heard: list[tuple[str, int, int]] = []
    updated = reembed(falkordb_store, Settings(encoder_model="all-MiniLM-L6-v2"), progress=lambda *p: heard.append(p))
    assert heard == [("reembed", 0, 1), ("reembed", 1, 1), ("full-text index", 0, 1), ("full-text index", 1, 1)]

    expected_batch = copy.deepcopy(stored)
    add_similarity_edges(expected_batch)
    apply_gnn(expected_batch, load_gnn().model)
    expected = gnn_vectors(expected_batch)
    assert updated == len(expected)
    rows = falkordb_store.read("MATCH (r:Region) RETURN r.region_id AS key, r.gnn_embedding AS vector")
    rows += falkordb_store.read("MATCH (s:Section) RETURN s.section_id AS key, s.gnn_embedding AS vector")
    found = {str(row["key"]): row["vector"] for row in rows}
    for (_, key), vector in expected.items():
        np.testing.assert_allclose(np.asarray(found[key], dtype=np.float32), vector, atol=1e-4)
    counts = falkordb_store.counts().relationship_types
    assert counts.get("IS_SIMILAR") == sum(1 for e in expected_batch.edges if e.type == "IS_SIMILAR")
    # Nodes without an input embedding get none.
    assert [found[node.key] for node in unembedded] == [None, None]
    assert not {node.key for node in unembedded} & {key for _, key in expected}

    # Another checkpoint replaces the stored vectors (FalkorDB keeps an old vecf32 unless cleared).
    words = " ".join(str(n.props.get("text", "")) for n in stored.nodes if n.label == "Region").split()
    query = " ".join(words[40:46])  # a few of the document's own words
    ranking = fulltext_ranking(falkordb_store, query)
    torch.manual_seed(9)
    other = save_checkpoint(RelationalGNN(GnnConfig(alpha_init=1.0)), tmp_path / "other.pt")
    reembed(falkordb_store, Settings(encoder_model="all-MiniLM-L6-v2"), other, doc_id=stored.doc_id)
    # Every region was written in place; with the full-text index rebuilt after, it ranks as before.
    assert len(ranking) == 20 and fulltext_ranking(falkordb_store, query) == ranking
    replaced = {
        str(row["key"]): row["vector"]
        for row in falkordb_store.read(
            "MATCH (r:Region) WHERE r.gnn_embedding IS NOT NULL RETURN r.region_id AS key, r.gnn_embedding AS vector"
        )
    }
    assert replaced
    for key, vector in replaced.items():
        assert float(np.dot(vector, expected[("Region", key)])) < 0.999


def test_shipped_checkpoints_match_their_variants() -> None:
    from docgraph.app.pipeline.gnn import GNN_VARIANTS

    for variant in GNN_VARIANTS.values():
        checkpoint = load_checkpoint(variant.checkpoint)
        assert set(checkpoint.model.config.groups) == set(variant.groups), variant.name
        assert checkpoint.model.config.encoder == "all-MiniLM-L6-v2"
        assert checkpoint.meta["best_epoch"] >= 1
        assert variant.checkpoint.stat().st_size < 6_000_000

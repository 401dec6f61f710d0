"""GraphBatch -> tensors: relation typing, inverses, masks, unions."""

from __future__ import annotations

import pytest
import torch

from docgraph.models.graph_tensors import (
    GROUPS,
    KIND_ID,
    NUM_RELATIONS,
    RELATION_ID,
    RELATIONS,
    SECTION_KIND,
    batch_to_tensors,
    group_mask,
    relation_counts,
)
from docgraph.records import EdgeRecord, GraphBatch, NodeRecord


def node(label: str, key: str, kind: str = "paragraph", vector: list[float] | None = None) -> NodeRecord:
    id_prop = {"Region": "region_id", "Section": "section_id", "Page": "page_id", "Document": "doc_id"}[label]
    props: dict[str, object] = {id_prop: key, "doc_id": "doc"}
    if label == "Region":
        props["kind"] = kind
    if vector is not None:
        props["embedding"] = vector
    return NodeRecord(label, key, props)


def sample_batch() -> GraphBatch:
    """r1 -> r2 on one page, r2 -> r3 across a break, r3 -> r4 a continuation on the same page,
    a caption, a reference, a similarity edge, a section tree, and nodes the GNN must skip."""
    nodes = [
        node("Document", "doc"),
        node("Page", "p1"),
        node("Section", "s1", vector=[0.0, 1.0]),
        node("Section", "s2", vector=[0.0, 1.0]),
        node("Region", "r1", vector=[1.0, 0.0]),
        node("Region", "r2", vector=[1.0, 0.0]),
        node("Region", "r3", "table", vector=[1.0, 0.0]),
        node("Region", "r4", "caption", vector=[1.0, 0.0]),
        node("Region", "r5", "page_footer", vector=[1.0, 0.0]),
        node("Region", "bare"),  # no embedding: not a GNN node
    ]
    edges = [
        EdgeRecord("HAS_NEXT", "Region", "r1", "Region", "r2", {"cross_page": False}),
        EdgeRecord("HAS_NEXT", "Region", "r2", "Region", "r3", {"cross_page": True}),
        EdgeRecord("HAS_NEXT", "Region", "r3", "Region", "r4", {"cross_page": False, "continuation": True}),
        EdgeRecord("HAS_NEXT", "Region", "r4", "Region", "bare", {"cross_page": False}),
        EdgeRecord("CAPTION_OF", "Region", "r4", "Region", "r3"),
        EdgeRecord("REF", "Region", "r1", "Region", "r3", {"label": "Table 1"}),
        EdgeRecord("REF", "Region", "r1", "Page", "p1"),  # pages are not GNN nodes
        EdgeRecord("IS_SIMILAR", "Region", "r1", "Region", "r4", {"score": 0.9}),
        EdgeRecord("IS_UNDER", "Region", "r1", "Section", "s2"),
        EdgeRecord("IS_UNDER", "Region", "r5", "Document", "doc"),
        EdgeRecord("IS_UNDER", "Section", "s2", "Section", "s1"),
        EdgeRecord("IS_UNDER", "Section", "s1", "Document", "doc"),
        EdgeRecord("HAS_NEXT", "Section", "s1", "Section", "s2"),
        EdgeRecord("ON_PAGE", "Region", "r1", "Page", "p1"),
        EdgeRecord("HAS_PAGE", "Document", "doc", "Page", "p1"),
    ]
    return GraphBatch("doc", "0" * 64, nodes, edges)


def edge_set(graph: torch.Tensor, types: torch.Tensor, refs: list[tuple[str, str]]) -> set[tuple[str, str, str]]:
    names = [name for name, _ in RELATIONS]
    return {
        (refs[int(s)][1], refs[int(d)][1], names[int(t)])
        for s, d, t in zip(graph[0].tolist(), graph[1].tolist(), types.tolist(), strict=True)
    }


def test_nodes_are_embedded_regions_and_sections_with_kinds() -> None:
    graph = batch_to_tensors(sample_batch())
    assert [key for _, key in graph.nodes] == ["s1", "s2", "r1", "r2", "r3", "r4", "r5"]
    assert graph.x.shape == (7, 2)
    kinds = dict(zip([k for _, k in graph.nodes], graph.node_kind.tolist(), strict=True))
    assert kinds["s1"] == SECTION_KIND
    assert kinds["r3"] == KIND_ID["table"]
    assert kinds["r5"] == KIND_ID["page_footer"]
    assert graph.doc_index.tolist() == [0] * 7


def test_every_relation_is_typed_and_has_its_inverse() -> None:
    graph = batch_to_tensors(sample_batch())
    edges = edge_set(graph.edge_index, graph.edge_type, graph.nodes)
    expected_forward = {
        ("r1", "r2", "next"),
        ("r2", "r3", "next_cross"),
        ("r3", "r4", "next_cross"),  # a continuation counts as crossing
        ("r4", "r3", "caption_of"),
        ("r1", "r3", "ref"),
        ("r1", "r4", "similar"),
        ("r1", "s2", "under"),
        ("s2", "s1", "under"),
    }
    expected = expected_forward | {(dst, src, name + "_inv") for src, dst, name in expected_forward}
    assert edges == expected
    counts = relation_counts(graph)
    for name, _ in RELATIONS[::2]:
        assert counts[name] == counts[name + "_inv"]
    assert RELATION_ID["next_inv"] == RELATION_ID["next"] + 1


def test_relation_mask_drops_whole_groups() -> None:
    full = relation_counts(batch_to_tensors(sample_batch()))
    without = relation_counts(
        batch_to_tensors(sample_batch(), [g for g in GROUPS if g not in ("cross_page", "similarity")])
    )
    for name, group in RELATIONS:
        if group in ("cross_page", "similarity"):
            assert without[name] == 0
        else:
            assert without[name] == full[name] > 0
    mask = group_mask(["reference"])
    assert mask.shape == (NUM_RELATIONS,)
    assert [RELATIONS[i][0] for i in torch.nonzero(mask).flatten().tolist()] == [
        "ref",
        "ref_inv",
        "caption_of",
        "caption_of_inv",
    ]
    with pytest.raises(ValueError, match="unknown relation groups"):
        group_mask(["hierarchy", "nonsense"])

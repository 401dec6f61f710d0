"""kNN IS_SIMILAR edges over region embeddings."""

from __future__ import annotations

import numpy as np
import pytest

from docgraph.ingest.links.similarity import similarity_edges, top_k_neighbours
from docgraph.records import EdgeRecord, GraphBatch, NodeRecord


def region(key: str, vector: list[float] | None, kind: str = "paragraph") -> NodeRecord:
    props: dict[str, object] = {"region_id": key, "doc_id": "d", "kind": kind}
    if vector is not None:
        props["embedding"] = vector
    return NodeRecord("Region", key, props)


def batch_of(nodes: list[NodeRecord]) -> GraphBatch:
    return GraphBatch(doc_id="d", sha256="0" * 64, nodes=nodes)


def targets(edges: list[EdgeRecord], source: str) -> list[str]:
    return [e.dst_key for e in edges if e.src_key == source]


def test_neighbours_are_the_most_cosine_similar_best_first() -> None:
    nodes = [
        region("a", [1.0, 0.0, 0.0]),
        region("b", [0.9, 0.1, 0.0]),  # close to a
        region("c", [0.0, 1.0, 0.0]),
        region("d", [0.7, 0.7, 0.0]),  # between a and c
        region("e", [0.0, 0.0, 5.0]),  # unrelated; length must not matter
    ]
    edges = similarity_edges(batch_of(nodes), k=2)
    assert targets(edges, "a") == ["b", "d"]
    assert targets(edges, "c") == ["d", "b"]
    assert all(e.type == "IS_SIMILAR" and e.src_label == e.dst_label == "Region" for e in edges)
    assert len(edges) == 5 * 2
    first = next(e for e in edges if e.src_key == "a" and e.dst_key == "b")
    expected = 0.9 / np.linalg.norm([0.9, 0.1])
    assert first.props["score"] == pytest.approx(expected, abs=1e-4)


def test_no_self_loops_and_k_larger_than_the_document() -> None:
    nodes = [region("a", [1.0, 0.0]), region("b", [1.0, 0.0]), region("c", [0.0, 1.0])]
    edges = similarity_edges(batch_of(nodes), k=10)
    assert all(e.src_key != e.dst_key for e in edges)
    assert sorted(targets(edges, "a")) == ["b", "c"]
    assert targets(edges, "a")[0] == "b"


def test_furniture_unembedded_and_non_region_nodes_take_no_part() -> None:
    nodes = [
        region("a", [1.0, 0.0]),
        region("b", [0.9, 0.2]),
        region("header", [1.0, 0.0], kind="page_header"),
        region("footer", [1.0, 0.0], kind="page_footer"),
        region("bare", None),
        NodeRecord("Section", "s", {"section_id": "s", "doc_id": "d", "embedding": [1.0, 0.0]}),
    ]
    edges = similarity_edges(batch_of(nodes), k=3)
    keys = {e.src_key for e in edges} | {e.dst_key for e in edges}
    assert keys == {"a", "b"}


def test_nothing_to_link() -> None:
    assert similarity_edges(batch_of([region("a", [1.0, 0.0])]), k=3) == []
    assert similarity_edges(batch_of([region("a", [1.0]), region("b", [1.0])]), k=0) == []


def test_block_size_does_not_change_the_result() -> None:
    rng = np.random.default_rng(7)
    vectors = rng.normal(size=(57, 16)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    whole = top_k_neighbours(vectors, 5, block_rows=1000)
    blocked = top_k_neighbours(vectors, 5, block_rows=8)
    for (row_a, nb_a, sc_a), (row_b, nb_b, sc_b) in zip(whole, blocked, strict=True):
        assert row_a == row_b
        assert nb_a.tolist() == nb_b.tolist()
        np.testing.assert_allclose(sc_a, sc_b, atol=1e-6)
    # the brute-force answer for one row
    scores = vectors @ vectors[10]
    scores[10] = -np.inf
    assert whole[10][1].tolist() == np.argsort(-scores)[:5].tolist()


def test_groups_keep_each_row_to_the_other_groups() -> None:
    rng = np.random.default_rng(3)
    vectors = rng.normal(size=(30, 8)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    groups = np.array([0] * 26 + [1] * 3 + [2], dtype=np.int64)
    found = top_k_neighbours(vectors, 5, block_rows=7, groups=groups)
    for row, neighbours, scores in found:
        others = np.flatnonzero(groups != groups[row])
        expected = others[np.argsort(-(vectors[others] @ vectors[row]), kind="stable")][:5]
        assert neighbours.tolist() == expected.tolist()  # fewer than k where the others are fewer
        np.testing.assert_allclose(scores, vectors[expected] @ vectors[row], atol=1e-6)
    assert len(found[0][1]) == 4 and len(found[29][1]) == 5

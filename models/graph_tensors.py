"""Graph records -> torch tensors for the relational GNN.

Nodes are the embedded Region and Section nodes (a Section's embedding is its title's). Edges become
typed relations, each with its inverse, in five groups that ablations can switch off:

- ``adjacency``: reading order on the same page (HAS_NEXT without ``cross_page``/``continuation``)
- ``cross_page``: reading order across a page break or a marked continuation
- ``reference``: REF and CAPTION_OF
- ``similarity``: IS_SIMILAR
- ``hierarchy``: IS_UNDER (Region -> Section -> Section)

Messages flow along ``edge_index[0] -> edge_index[1]``: for a record ``a -> b`` the forward relation
lets ``b`` hear ``a`` and the inverse lets ``a`` hear ``b`` (a region hears its section's title
through ``under_inv``). Relation ids never change with the mask, so a checkpoint's shapes do not
depend on which groups were on.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

from docgraph.models.spill import SpillFolder
from docgraph.records import REGION_KINDS, EdgeRecord, GraphBatch, NodeRecord

GROUPS: tuple[str, ...] = ("adjacency", "cross_page", "reference", "similarity", "hierarchy")

# (relation name, group); every forward relation is followed by its inverse.
RELATIONS: tuple[tuple[str, str], ...] = (
    ("next", "adjacency"),
    ("next_inv", "adjacency"),
    ("next_cross", "cross_page"),
    ("next_cross_inv", "cross_page"),
    ("ref", "reference"),
    ("ref_inv", "reference"),
    ("caption_of", "reference"),
    ("caption_of_inv", "reference"),
    ("similar", "similarity"),
    ("similar_inv", "similarity"),
    ("under", "hierarchy"),
    ("under_inv", "hierarchy"),
)
RELATION_ID: dict[str, int] = {name: index for index, (name, _) in enumerate(RELATIONS)}
NUM_RELATIONS = len(RELATIONS)

# Node kinds: the region kinds, then Section.
SECTION_KIND = len(REGION_KINDS)
NUM_KINDS = len(REGION_KINDS) + 1
KIND_ID: dict[str, int] = {kind: index for index, kind in enumerate(REGION_KINDS)}

GNN_LABELS: tuple[str, ...] = ("Region", "Section")
NodeRef = tuple[str, str]  # (label, key)


@dataclass(slots=True)
class GraphTensors:
    """One graph (or a disjoint union of documents) ready for the model."""

    x: torch.Tensor  # (N, D) float32 input embeddings
    edge_index: torch.Tensor  # (2, E) int64, message source -> target
    edge_type: torch.Tensor  # (E,) int64 relation ids
    node_kind: torch.Tensor  # (N,) int64 kind ids
    doc_index: torch.Tensor  # (N,) int64 which document a node belongs to
    nodes: list[NodeRef] = field(default_factory=list)
    index: dict[NodeRef, int] = field(default_factory=dict)

    @property
    def num_nodes(self) -> int:
        return int(self.x.shape[0])


def group_mask(groups: Iterable[str] = GROUPS) -> torch.Tensor:
    """(R,) bool: which relations belong to the enabled groups."""
    enabled = set(groups)
    unknown = enabled - set(GROUPS)
    if unknown:
        raise ValueError(f"unknown relation groups: {sorted(unknown)}; known: {list(GROUPS)}")
    return torch.tensor([group in enabled for _, group in RELATIONS], dtype=torch.bool)


def relation_of(edge: EdgeRecord) -> str | None:
    """The forward relation of an edge record, or None for edges the GNN ignores."""
    if edge.type == "HAS_NEXT":
        if edge.src_label != "Region" or edge.dst_label != "Region":
            return None
        crossing = bool(edge.props.get("cross_page")) or bool(edge.props.get("continuation"))
        return "next_cross" if crossing else "next"
    if edge.type == "IS_UNDER":
        return "under" if edge.dst_label == "Section" else None
    return {"REF": "ref", "CAPTION_OF": "caption_of", "IS_SIMILAR": "similar"}.get(edge.type)


def is_gnn_node(node: NodeRecord) -> bool:
    """Whether the GNN works on ``node``: a Region or Section that has an embedding."""
    vector = node.props.get("embedding")
    return node.label in GNN_LABELS and vector is not None and len(vector) > 0


def gnn_nodes(nodes: Iterable[NodeRecord]) -> list[NodeRecord]:
    """The nodes the GNN works on, in their order."""
    return [node for node in nodes if is_gnn_node(node)]


def gnn_node_count(nodes: Iterable[NodeRecord]) -> int:
    """How many of ``nodes`` the GNN works on, without listing them."""
    return sum(1 for node in nodes if is_gnn_node(node))


def kind_id(node: NodeRecord) -> int:
    if node.label == "Section":
        return SECTION_KIND
    return KIND_ID.get(str(node.props.get("kind", "paragraph")), KIND_ID["paragraph"])


def batch_to_tensors(batch: GraphBatch, groups: Iterable[str] = GROUPS) -> GraphTensors:
    """One document's batch (embedded) as tensors; edges of disabled groups are left out."""
    return records_to_tensors(batch.nodes, batch.edges, groups)


def records_to_tensors(
    nodes: Iterable[NodeRecord],
    edges: Iterable[EdgeRecord],
    groups: Iterable[str] = GROUPS,
    doc: int = 0,
    spill: SpillFolder | None = None,
) -> GraphTensors:
    """Tensors from node and edge records; edges to nodes outside the GNN's node set are dropped.
    The input embeddings go in a file of ``spill`` when given."""
    kept = gnn_nodes(nodes)
    refs: list[NodeRef] = [(node.label, node.key) for node in kept]
    index = {ref: position for position, ref in enumerate(refs)}
    x = _embeddings(kept, spill)
    mask = group_mask(groups)
    sources, targets, types = array("q"), array("q"), array("q")  # 8 bytes an edge end, not a Python int
    for edge in edges:
        name = relation_of(edge)
        src = index.get((edge.src_label, edge.src_key))
        dst = index.get((edge.dst_label, edge.dst_key))
        if name is None or src is None or dst is None or not mask[RELATION_ID[name]]:
            continue
        forward = RELATION_ID[name]
        sources.extend((src, dst))
        targets.extend((dst, src))
        types.extend((forward, forward + 1))  # the inverse always follows its forward relation
    return GraphTensors(
        x=x,
        edge_index=torch.stack([_int64(sources), _int64(targets)]),
        edge_type=_int64(types),
        node_kind=torch.tensor([kind_id(node) for node in kept], dtype=torch.int64),
        doc_index=torch.full((len(kept),), doc, dtype=torch.int64),
        nodes=refs,
        index=index,
    )


def _embeddings(kept: list[NodeRecord], spill: SpillFolder | None) -> torch.Tensor:
    """(N, D) float32: the nodes' input embeddings, row by row."""
    dim = len(kept[0].props["embedding"]) if kept else 0
    x = torch.empty((len(kept), dim)) if spill is None else spill.empty(len(kept), dim)
    rows = x.numpy()
    for row, node in enumerate(kept):
        rows[row] = node.props["embedding"]
    if spill is not None:
        spill.release()
    return x


def _int64(values: array[int]) -> torch.Tensor:
    return torch.from_numpy(np.frombuffer(values, dtype=np.int64).copy())


def relation_counts(graph: GraphTensors) -> dict[str, int]:
    """Edges per relation name (for logs and tests)."""
    counts = torch.bincount(graph.edge_type, minlength=NUM_RELATIONS).tolist()
    return {name: int(count) for (name, _), count in zip(RELATIONS, counts, strict=True)}


def describe(graph: GraphTensors) -> dict[str, Any]:
    return {"nodes": graph.num_nodes, "edges": int(graph.edge_type.numel()), "relations": relation_counts(graph)}

"""A GraphBatch as UNWIND-ready row groups, shared by both stores.

Nodes are grouped by their full label set (``Region:Table``), edges by type and endpoint labels,
so each group is written by one templated ``UNWIND $rows`` query. Property values are made storable
here: graph databases keep scalars and flat lists of one scalar type, so a dict, a list of lists or
a list mixing types (e.g. a table's ``cells``) is stored as a JSON string; ``None`` is dropped.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from docgraph.app.stores.cypher import identifier, load, render
from docgraph.app.stores.schema import VECTOR_PROPERTIES, VERSION_PROPERTY, kind_label
from docgraph.errors import StoreError
from docgraph.models.spill import release_spilled_pages
from docgraph.records import ID_PROPERTY, EdgeRecord, GraphBatch, NodeRecord

DOCUMENT_LABELS: tuple[str, ...] = tuple(ID_PROPERTY)
DEFAULT_CHUNK_ROWS = 500


@dataclass(slots=True)
class NodeGroup:
    labels: tuple[str, ...]  # primary label first
    rows: list[dict[str, Any]] = field(default_factory=list)

    @property
    def label(self) -> str:
        return self.labels[0]


@dataclass(slots=True)
class EdgeGroup:
    type: str
    src_label: str
    dst_label: str
    rows: list[dict[str, Any]] = field(default_factory=list)


def node_groups(batch: GraphBatch, split_vectors: bool, chunk_rows: int = DEFAULT_CHUNK_ROWS) -> Iterator[NodeGroup]:
    """Rows ``{"props": {...}}`` per label set, ``chunk_rows`` at a time; with ``split_vectors`` the
    embeddings move out of ``props`` into ``row[<vector property>]`` (FalkorDB wraps them in
    ``vecf32``, stored as float32). A chunk's rows are made when it is reached, so a writer that
    sends each chunk before taking the next holds one chunk's rows, whatever the document's size
    (vectors kept in files, see :mod:`models.spill`, included).
    """
    for labels, nodes in _nodes_by_labels(batch).items():
        for start in range(0, len(nodes), chunk_rows):
            chunk = nodes[start : start + chunk_rows]
            yield NodeGroup(labels, [_node_row(node, batch, split_vectors) for node in chunk])
            release_spilled_pages()  # a long document's vectors read so far, back to their files


def _nodes_by_labels(batch: GraphBatch) -> dict[tuple[str, ...], list[NodeRecord]]:
    groups: dict[tuple[str, ...], list[NodeRecord]] = {}
    for node in batch.nodes:
        groups.setdefault(node_labels(node), []).append(node)
    return groups


def _node_row(node: NodeRecord, batch: GraphBatch, split_vectors: bool) -> dict[str, Any]:
    if not split_vectors:
        return {"props": node_properties(node, batch)}
    vectors = {name: node.props.get(name) for name in VECTOR_PROPERTIES}
    props = node_properties(node, batch, skipped=VECTOR_PROPERTIES)
    return {"props": props, **{name: _float32_text(vector) for name, vector in vectors.items()}}


@dataclass(frozen=True, slots=True)
class VectorLiteral:
    """A vector as Cypher list text for FalkorDB's ``vecf32``: rounded to float32, each value written
    with the 9 significant digits that read back as the same float32 (a double's full repr would
    double the size of the transaction for nothing), and a decimal point (``%#``) so that vecf32 is
    always handed floats. One ``%`` for the whole vector is several times faster than the falkordb
    client's one call per float, which dominated a document write; the client writes a value of a
    type it does not know with ``str()``, so the text goes out as is."""

    text: str

    def __str__(self) -> str:
        return self.text


def _float32_text(vector: Any) -> Any:
    if not isinstance(vector, list | tuple | np.ndarray):
        return vector
    values = tuple(np.asarray(vector, dtype=np.float32).tolist())  # round once, to what vecf32 keeps
    return VectorLiteral("[" + ",".join(["%#.9g"] * len(values)) % values + "]")


def edge_groups(batch: GraphBatch, chunk_rows: int = DEFAULT_CHUNK_ROWS) -> Iterator[EdgeGroup]:
    """Rows ``{"src", "dst", "props"}`` per (type, source label, target label), ``chunk_rows`` at a time."""
    for key, edges in _edges_by_key(batch).items():
        for start in range(0, len(edges), chunk_rows):
            rows = [
                {"src": edge.src_key, "dst": edge.dst_key, "props": storable_properties(edge.props)}
                for edge in edges[start : start + chunk_rows]
            ]
            yield EdgeGroup(*key, rows)


def _edges_by_key(batch: GraphBatch) -> dict[tuple[str, str, str], list[EdgeRecord]]:
    groups: dict[tuple[str, str, str], list[EdgeRecord]] = {}
    for edge in batch.edges:
        for label in (edge.src_label, edge.dst_label):
            _require_known_label(label)
        groups.setdefault((identifier(edge.type), edge.src_label, edge.dst_label), []).append(edge)
    return groups


def node_labels(node: NodeRecord) -> tuple[str, ...]:
    """The node's label, its extra labels, and for a Region the CamelCase label of its kind."""
    _require_known_label(node.label)
    labels = [node.label, *node.extra_labels]
    kind = node.props.get("kind")
    if node.label == "Region" and isinstance(kind, str) and kind:
        labels.append(kind_label(kind))
    unique = tuple(dict.fromkeys(labels))
    for label in unique:
        identifier(label)
    return unique


def node_properties(node: NodeRecord, batch: GraphBatch, skipped: tuple[str, ...] = ()) -> dict[str, Any]:
    """Storable properties (but ``skipped``), with the id property, ``doc_id`` and the version always set."""
    props = storable_properties({name: value for name, value in node.props.items() if name not in skipped})
    id_property = ID_PROPERTY[node.label]
    if props.setdefault(id_property, node.key) != node.key:
        raise StoreError(f"{node.label} {node.key}: property {id_property} is {props[id_property]!r}")
    if props.setdefault("doc_id", batch.doc_id) != batch.doc_id:
        raise StoreError(f"{node.label} {node.key}: doc_id {props['doc_id']!r} is not the batch's {batch.doc_id!r}")
    props[VERSION_PROPERTY] = batch.version
    return props


def storable_properties(props: dict[str, Any]) -> dict[str, Any]:
    stored = {}
    for name, value in props.items():
        converted = storable_value(value)
        if converted is not None:
            stored[name] = converted
    return stored


def storable_value(value: Any) -> Any:
    """A value both databases can store as a property (see the module docstring)."""
    if isinstance(value, str):  # FalkorDB's query text ends at a NUL; no text needs one
        return value.replace("\x00", "") if "\x00" in value else value
    if hasattr(value, "tolist"):  # numpy arrays and scalars
        value = value.tolist()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list | tuple):
        return _storable_list(list(value))
    return value


def _storable_list(items: list[Any]) -> Any:
    kinds = set(map(type, items))  # one C-speed pass: vectors are most of a batch's values
    if kinds == {float}:
        return items
    if kinds == {str}:
        return [storable_value(item) for item in items]
    if type(None) in kinds or any(issubclass(kind, list | tuple | dict) for kind in kinds):
        return json.dumps(items, ensure_ascii=False)
    if kinds <= {int, float} and float in kinds:
        return [float(item) for item in items]  # one numeric type per list (Neo4j requires it)
    if len(kinds) > 1:
        return json.dumps(items, ensure_ascii=False)
    return items


def check_vector_sizes(batch: GraphBatch, dimension: int) -> None:
    """Refuse a batch whose vectors do not fit the store's vector indexes (another encoder than the
    one the store was set up for): written, they would fail every vector search (FalkorDB) or be
    left out of the index without a word (Neo4j)."""
    for node in batch.nodes:
        for name in VECTOR_PROPERTIES:
            vector = node.props.get(name)
            if vector is not None and len(vector) and len(vector) != dimension:
                raise StoreError(
                    f"{batch.doc_id}: its {name} vectors have {len(vector)} numbers, this store's vector indexes "
                    f"{dimension} (as do the GNN's): use an encoder of {dimension}-number vectors, such as the "
                    "default all-MiniLM-L6-v2"
                )


def _require_known_label(label: str) -> None:
    if label not in ID_PROPERTY:
        raise StoreError(f"unknown node label {label!r}; a batch holds {', '.join(DOCUMENT_LABELS)}")


# ---- templates -------------------------------------------------------------------------------


def render_nodes(name: str, dialect: str, labels: tuple[str, ...]) -> str:
    """Load a node template and fill ``{labels}`` (``Region:Table``), each label checked."""
    return load(name, dialect).replace("{labels}", ":".join(identifier(label) for label in labels))


def render_edges(name: str, dialect: str, group: EdgeGroup) -> str:
    """Load an edge template and fill type, endpoint labels and their id properties."""
    return render(
        name,
        dialect,
        type=group.type,
        src_label=group.src_label,
        src_id=ID_PROPERTY[group.src_label],
        dst_label=group.dst_label,
        dst_id=ID_PROPERTY[group.dst_label],
    )

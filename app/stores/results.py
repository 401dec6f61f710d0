"""Query results as plain Python, shared by both stores.

Nodes, relationships and paths of either driver become dicts (``{"id", "labels", "properties"}``,
``{"id", "type", "start", "end", "properties"}``, ``{"nodes", "relationships"}``), temporal values
ISO-8601 strings and vectors lists of floats, so callers (``--json``) can serialise any row.
"""

from __future__ import annotations

import math
import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date, datetime, time
from typing import TYPE_CHECKING, Any

import falkordb

if TYPE_CHECKING:
    import neo4j.graph

from docgraph.app.stores.base import GraphCounts, Row, ScoredNode
from docgraph.app.stores.cypher import load
from docgraph.app.stores.schema import is_vector_property
from docgraph.records import ID_PROPERTY


@dataclass(frozen=True, slots=True)
class IndexInfo:
    label: str
    property: str
    kind: str  # RANGE | FULLTEXT | VECTOR
    status: str  # OPERATIONAL / ONLINE when usable


def plain_value(value: Any) -> Any:
    """A JSON-friendly copy of a value returned by either driver."""
    if type(value) is list and all(type(item) is float for item in value):
        return list(value)  # a vector: thousands of them per read, so not item by item
    if isinstance(value, falkordb.Node):
        return {"id": value.id, "labels": list(value.labels or []), "properties": plain_value(value.properties)}
    if isinstance(value, falkordb.Edge):
        return {
            "id": value.id,
            "type": value.relation,
            "start": _falkordb_node_id(value.src_node),
            "end": _falkordb_node_id(value.dest_node),
            "properties": plain_value(value.properties),
        }
    if isinstance(value, falkordb.Path):
        return {"nodes": plain_value(value.nodes()), "relationships": plain_value(value.edges())}
    if _neo4j_loaded():
        import neo4j.graph

        if isinstance(value, neo4j.graph.Node | neo4j.graph.Relationship | neo4j.graph.Path):
            return _plain_neo4j_entity(value)
    return _plain_scalar(value)


def finite_numbers(value: Any) -> Any:
    """``value`` with NaN and infinities (a query may compute them) as None: JSON has no such numbers."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: finite_numbers(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [finite_numbers(item) for item in value]
    return value


def _neo4j_loaded() -> bool:
    """Whether the neo4j driver is loaded: its values exist only then, and importing it costs ~1 s."""
    return "neo4j" in sys.modules


def _plain_scalar(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {str(key): plain_value(item) for key, item in value.items()}
    if _neo4j_loaded():  # before tuples: a Neo4j Duration is a tuple of its fields
        import neo4j.spatial
        import neo4j.time

        if isinstance(value, neo4j.time.DateTime | neo4j.time.Date | neo4j.time.Time | neo4j.time.Duration):
            return value.iso_format()
        if isinstance(value, neo4j.spatial.Point):
            return list(value)
    if isinstance(value, list | tuple):
        return [plain_value(item) for item in value]
    if isinstance(value, datetime | date | time):
        return value.isoformat()
    if hasattr(value, "to_native"):  # neo4j.Vector
        return [float(item) for item in value.to_native()]
    if type(value).__name__ == "relativedelta":  # FalkorDB durations
        return str(value)
    return value


def _plain_neo4j_entity(value: neo4j.graph.Node | neo4j.graph.Relationship | neo4j.graph.Path) -> Any:
    import neo4j.graph

    if isinstance(value, neo4j.graph.Node):
        return {"id": value.element_id, "labels": sorted(value.labels), "properties": plain_value(dict(value))}
    if isinstance(value, neo4j.graph.Relationship):
        start, end = value.nodes
        return {
            "id": value.element_id,
            "type": value.type,
            "start": start.element_id if start is not None else None,
            "end": end.element_id if end is not None else None,
            "properties": plain_value(dict(value)),
        }
    return {"nodes": plain_value(list(value.nodes)), "relationships": plain_value(list(value.relationships))}


def _falkordb_node_id(node: Any) -> Any:
    return node.id if isinstance(node, falkordb.Node) else node


def scored_nodes(rows: list[Row], label: str) -> list[ScoredNode]:
    """Rows ``{"props", "score"}`` as ScoredNodes keyed by the label's id property, vectors left out."""
    id_property = ID_PROPERTY.get(label)
    hits: list[ScoredNode] = []
    for row in rows:
        props = {key: value for key, value in dict(row["props"]).items() if not is_vector_property(key)}
        key = props.get(id_property, "") if id_property else ""
        hits.append(ScoredNode(key=str(key), score=float(row["score"]), props=props))
    return hits


# ---- full-text query text --------------------------------------------------------------------

_WORD = re.compile(r"\w+", re.UNICODE)


def fulltext_terms(text: str) -> list[str]:
    """The words of a question, lower-cased, without punctuation or duplicates.

    Neither RediSearch nor Lucene query syntax survives arbitrary user text (quotes, brackets,
    ``-``, ``:``, ``AND``...); plain lower-case words are valid in both and match the same tokens the
    indexes store.
    """
    return list(dict.fromkeys(word.lower() for word in _WORD.findall(text)))


def graph_counts(read: Callable[[str], list[Row]], dialect: str) -> GraphCounts:
    """Label, relationship-type and property-key counts, from the shared ``count_*`` queries."""

    def tally(name: str) -> dict[str, int]:
        rows = read(load(name, dialect))
        return {str(next(v for k, v in row.items() if k != "count")): int(row["count"]) for row in rows}

    keys = tally("count_node_property_keys")
    for key, count in tally("count_relationship_property_keys").items():
        keys[key] = keys.get(key, 0) + count
    return GraphCounts(
        labels=tally("count_labels"), relationship_types=tally("count_relationship_types"), property_keys=keys
    )

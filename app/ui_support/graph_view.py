"""Graphs to draw: query results, a region's neighbourhood and a document's section tree.

A :class:`GraphView` is plain data (node ids, display labels, groups for colours, edge labels);
the UI hands it to the graph component.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from docgraph.app.jobs.render import KIND_COLOURS
from docgraph.app.stores.base import Row
from docgraph.app.stores.schema import is_vector_property
from docgraph.app.ui_support.evidence import RegionEvidence
from docgraph.records import ID_PROPERTY

MAX_TITLE_CHARS = 300
MAX_LABEL_CHARS = 28

LABEL_COLOURS: dict[str, str] = {
    "Document": "#444444",
    "Page": "#8c8c8c",
    "Section": "#e67300",
}


@dataclass(frozen=True, slots=True)
class ViewNode:
    id: str
    label: str  # short text drawn on the node
    title: str  # longer text on hover
    group: str  # a kind (regions) or a node label: picks the colour

    @property
    def colour(self) -> str:
        return group_colour(self.group)


@dataclass(frozen=True, slots=True)
class ViewEdge:
    source: str
    target: str
    label: str


@dataclass(slots=True)
class GraphView:
    nodes: dict[str, ViewNode] = field(default_factory=dict)
    edges: list[ViewEdge] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not self.nodes

    def add_node(self, node: ViewNode) -> None:
        # A placeholder (an endpoint seen before its node) gives way to the real node.
        known = self.nodes.get(node.id)
        if known is None or known.group == "?":
            self.nodes[node.id] = node

    def add_edge(self, edge: ViewEdge) -> None:
        for end in (edge.source, edge.target):
            if end not in self.nodes:
                self.nodes[end] = ViewNode(end, end, end, "?")
        if edge not in self.edges:
            self.edges.append(edge)


def group_colour(group: str) -> str:
    if group in LABEL_COLOURS:
        return LABEL_COLOURS[group]
    red, green, blue = KIND_COLOURS.get(group, (0.2, 0.4, 0.8))
    return f"#{round(red * 255):02x}{round(green * 255):02x}{round(blue * 255):02x}"


# ---- query results ---------------------------------------------------------------------------


def is_node(value: Any) -> bool:
    return isinstance(value, dict) and {"id", "labels", "properties"} <= value.keys()


def is_relationship(value: Any) -> bool:
    return isinstance(value, dict) and {"id", "type", "start", "end"} <= value.keys()


def is_path(value: Any) -> bool:
    return isinstance(value, dict) and set(value) == {"nodes", "relationships"}


def graph_from_rows(rows: Sequence[Row]) -> GraphView:
    """The nodes, relationships and paths anywhere in the rows (lists included), as one graph."""
    view = GraphView()
    for row in rows:
        for value in row.values():
            _collect(value, view)
    return view


def _collect(value: Any, view: GraphView) -> None:
    if is_node(value):
        view.add_node(node_of(value))
    elif is_relationship(value):
        view.add_edge(ViewEdge(str(value["start"]), str(value["end"]), str(value["type"])))
    elif is_path(value):
        for item in [*value["nodes"], *value["relationships"]]:
            _collect(item, view)
    elif isinstance(value, list):
        for item in value:
            _collect(item, view)


def node_of(entity: dict[str, Any]) -> ViewNode:
    """A stored node (``{"id", "labels", "properties"}``) as a view node."""
    labels = [str(label) for label in entity.get("labels") or []]
    props = {k: v for k, v in dict(entity.get("properties") or {}).items() if not is_vector_property(k)}
    main = next((label for label in ("Region", "Section", "Page", "Document") if label in labels), "")
    group = str(props.get("kind") or main or (labels[0] if labels else "?"))
    return ViewNode(str(entity["id"]), _short(_node_caption(main, props, labels)), _hover(labels, props), group)


def _node_caption(main: str, props: dict[str, Any], labels: list[str]) -> str:
    if main == "Region":
        return f"{props.get('kind', 'region')} p.{props.get('page', '?')}"
    if main == "Section":
        return str(props.get("title") or props.get("number") or "section")
    if main == "Page":
        return f"page {props.get('number', '?')}"
    if main == "Document":
        return str(props.get("doc_id") or "document")
    return ":".join(labels) or "node"


def _hover(labels: Iterable[str], props: dict[str, Any]) -> str:
    head = ":" + ":".join(labels)
    key = next((str(props[p]) for p in ID_PROPERTY.values() if p in props), "")
    text = str(props.get("text") or props.get("title") or "")
    return _clip("\n".join(part for part in (head, key, text) if part), MAX_TITLE_CHARS)


# ---- neighbourhood and section tree ----------------------------------------------------------


def neighbourhood_view(evidence: RegionEvidence) -> GraphView:
    """The region in the middle, every neighbour around it, edges in their stored direction."""
    view = GraphView()
    centre = evidence.region_id
    view.add_node(
        ViewNode(
            centre, _short(f"{evidence.kind} p.{evidence.page}"), _clip(evidence.text, MAX_TITLE_CHARS), evidence.kind
        )
    )
    for neighbour in evidence.neighbours:
        label = neighbour.node_label
        if label == "Region":
            caption, group = f"{neighbour.kind} p.{neighbour.page}", neighbour.kind
        elif label == "Page":
            caption, group = f"page {neighbour.page}", label
        else:
            caption, group = neighbour.text or neighbour.key, label
        view.add_node(ViewNode(neighbour.key, _short(caption), _clip(neighbour.text, MAX_TITLE_CHARS), group))
        edge_label = f"{neighbour.type} {neighbour.ref_label}".strip()
        source, target = (centre, neighbour.key) if neighbour.outgoing else (neighbour.key, centre)
        view.add_edge(ViewEdge(source, target, edge_label))
    return view


def section_tree_view(doc_id: str, sections: Sequence[Row]) -> GraphView:
    """The document at the root, each section under its parent (rows of ``ui_section_tree``).

    Edges point from parent to child (the stored IS_UNDER points the other way) for a top-down tree.
    """
    view = GraphView()
    view.add_node(ViewNode(doc_id, _short(doc_id), doc_id, "Document"))
    for section in sections:
        section_id = str(section["section_id"])
        title = str(section.get("title") or section_id)
        hover = f"{title}\npage {section.get('page_start')}, {section.get('regions', 0)} regions"
        view.add_node(ViewNode(section_id, _short(title), hover, "Section"))
    for section in sections:  # drawn parent -> child, so a top-down layout reads as a tree
        parent = section.get("parent_id") or doc_id
        view.add_edge(ViewEdge(str(parent), str(section["section_id"]), ""))
    return view


def section_outline(sections: Sequence[Row]) -> list[str]:
    """The section tree as indented lines, in document order."""
    return [
        f"{'    ' * (max(int(s.get('level') or 1), 1) - 1)}- {s.get('title')} "
        f"(p.{s.get('page_start')}, {s.get('regions', 0)} regions)"
        for s in sections
    ]


def _short(text: str) -> str:
    return _clip(" ".join(text.split()), MAX_LABEL_CHARS)


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"

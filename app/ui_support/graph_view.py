"""Graphs to draw: query results, a region's neighbourhood (with a legend) and a section tree.

A :class:`GraphView` is plain data (node ids, display labels, groups for colours, edge labels);
the UI hands it to the graph component.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from docgraph.app.jobs.render import KIND_COLOURS, rgb_hex
from docgraph.app.stores.base import Row
from docgraph.app.stores.schema import is_vector_property
from docgraph.app.ui_support.evidence import SIMILAR_RELATIONS, Neighbour, RegionEvidence
from docgraph.records import ID_PROPERTY

MAX_TITLE_CHARS = 300
MAX_LABEL_CHARS = 28
MAX_DRAWN_NODES = 300  # of a query's results: more take the browser's layout minutes
MAX_SIMILAR_DRAWN = 6  # of a region's top-10 similar ones (both ways): more would bury the other links

# Apart from every kind's colour (a legend told Page from page_header, Section from section_header
# and Document from code by a shade before): navy, gold and cyan.
LABEL_COLOURS: dict[str, str] = {
    "Document": "#1a237e",
    "Page": "#d4b000",
    "Section": "#00d5ff",
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
    _edge_set: set[ViewEdge] = field(default_factory=set, compare=False, repr=False)  # each edge once, at once

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
        if edge not in self._edge_set:
            self._edge_set.add(edge)
            self.edges.append(edge)

    def first_nodes(self, count: int) -> GraphView:
        """The first ``count`` nodes, in the order found, and the edges between them: what a browser
        can lay out (a few thousand nodes took it minutes)."""
        if len(self.nodes) <= count:
            return self
        kept = dict(list(self.nodes.items())[:count])
        part = GraphView(nodes=kept)
        for edge in self.edges:
            if edge.source in kept and edge.target in kept:
                part.add_edge(edge)
        return part


def group_colour(group: str) -> str:
    if group in LABEL_COLOURS:
        return LABEL_COLOURS[group]
    return rgb_hex(KIND_COLOURS.get(group, (0.2, 0.4, 0.8)))


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
    caption = _node_caption(main, props, labels)
    return ViewNode(str(entity["id"]), caption if main == "Region" else _short(caption), _hover(labels, props), group)


def _node_caption(main: str, props: dict[str, Any], labels: list[str]) -> str:
    if main == "Region":
        return _place(str(props.get("doc_id") or ""), str(props.get("kind") or "region"), props.get("page"))
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


# ---- neighbourhood and legend -----------------------------------------------------------------


def neighbourhood_view(evidence: RegionEvidence) -> GraphView:
    """The region in the middle, every neighbour around it, edges in their stored direction and
    named by what the neighbour is to the region. Each node says its document, kind and page. A
    region that is already a neighbour in another way (next, caption, …) is not drawn again as
    a similar one, a region similar both ways gets one edge, and a few similar ones are drawn."""
    view = GraphView()
    centre = evidence.region_id
    view.add_node(
        ViewNode(
            centre,
            _place(evidence.doc_id, evidence.kind, evidence.page),
            _clip(evidence.text, MAX_TITLE_CHARS),
            evidence.kind,
        )
    )
    linked: set[str] = {n.key for n in evidence.neighbours if n.relation not in SIMILAR_RELATIONS}
    similar_drawn = 0
    for neighbour in evidence.neighbours:
        similar = neighbour.relation in SIMILAR_RELATIONS
        if similar and (neighbour.key in linked or neighbour.key in view.nodes or similar_drawn >= MAX_SIMILAR_DRAWN):
            continue
        similar_drawn += similar
        view.add_node(_neighbour_node(neighbour))
        edge_label = f"{neighbour.relation} {neighbour.ref_label}".strip()
        source, target = (centre, neighbour.key) if neighbour.outgoing or similar else (neighbour.key, centre)
        view.add_edge(ViewEdge(source, target, edge_label))
    return view


def _neighbour_node(neighbour: Neighbour) -> ViewNode:
    label = neighbour.node_label
    hover = _clip(neighbour.text, MAX_TITLE_CHARS)
    if label == "Region":
        return ViewNode(neighbour.key, _place(neighbour.doc_id, neighbour.kind, neighbour.page), hover, neighbour.kind)
    if label == "Page":
        return ViewNode(neighbour.key, _place(neighbour.doc_id, "page", neighbour.page), hover, label)
    caption = (
        f"{neighbour.doc_id}\n{_short(neighbour.text or neighbour.key)}"
        if label == "Section"
        else _short(neighbour.text or neighbour.key)
    )
    return ViewNode(neighbour.key, caption, hover, label)


def _place(doc_id: str, kind: str, page: int | None) -> str:
    """A node's label: its document on one line, its kind and page on the next."""
    where = f"{kind} p.{page}" if page is not None else kind
    return f"{_short(doc_id)}\n{_short(where)}" if doc_id else _short(where)


def legend(view: GraphView) -> list[tuple[str, str]]:
    """``(colour, group)`` for each group drawn in ``view``, in the order first drawn."""
    groups = dict.fromkeys(node.group for node in view.nodes.values())
    return [(group_colour(group), group.replace("_", " ")) for group in groups]


# ---- section tree --------------------------------------------------------------------------


@dataclass(slots=True)
class SectionBranch:
    """A section with the sections under it, for a collapsible tree."""

    section_id: str
    title: str
    page: int | None
    regions: int
    children: list[SectionBranch] = field(default_factory=list)

    @property
    def summary(self) -> str:
        return f"{self.title} (p.{self.page}, {self.regions} regions)"


def section_tree(sections: Sequence[Row]) -> list[SectionBranch]:
    """The top sections, each holding its subsections, in document order (rows of ``ui_section_tree``)."""
    branches = {
        str(s["section_id"]): SectionBranch(
            str(s["section_id"]),
            " ".join(str(s.get("title") or s["section_id"]).split()),
            int(s["page_start"]) if s.get("page_start") is not None else None,
            int(s.get("regions") or 0),
        )
        for s in sections
    }
    roots: list[SectionBranch] = []
    for section in sections:
        branch, parent = branches[str(section["section_id"])], branches.get(str(section.get("parent_id") or ""))
        (parent.children if parent is not None else roots).append(branch)
    return roots


def _short(text: str) -> str:
    return _clip(" ".join(text.split()), MAX_LABEL_CHARS)


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"

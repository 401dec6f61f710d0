"""The interactive graph widget (streamlit-agraph: vis-network bundled in the package, no CDN)."""

from __future__ import annotations

import streamlit as st

from docgraph.app.ui_support.graph_view import GraphView


def draw_graph(view: GraphView, key: str, height: int = 460, hierarchical: bool = False) -> str | None:
    """Draw ``view``; returns the id of the node last clicked, if any.

    Without streamlit-agraph installed the graph is drawn by Graphviz (static, no clicks).
    """
    try:
        from streamlit_agraph import Config, Edge, Node, agraph
    except ImportError:
        st.graphviz_chart(_dot(view), use_container_width=True)
        return None
    nodes = [
        Node(id=n.id, label=n.label, title=n.title, color=n.colour, size=16, shape="dot") for n in view.nodes.values()
    ]
    edges = [Edge(source=e.source, target=e.target, label=e.label, color="#9aa0a6") for e in view.edges]
    config = Config(
        width="100%",
        height=height,
        directed=True,
        physics=not hierarchical,
        hierarchical=hierarchical,
        direction="UD" if hierarchical else "LR",
        sortMethod="directed",
        key=key,
    )
    config.width = "100%"  # Config appends "px" to whatever it is given
    clicked = agraph(nodes=nodes, edges=edges, config=config)
    return str(clicked) if clicked else None


def _dot(view: GraphView) -> str:
    def quoted(text: str) -> str:
        return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'

    lines = ["digraph G {", "rankdir=LR;", "node [shape=box, style=rounded, fontsize=10];"]
    lines += [f"{quoted(n.id)} [label={quoted(n.label)}, color={quoted(n.colour)}];" for n in view.nodes.values()]
    lines += [f"{quoted(e.source)} -> {quoted(e.target)} [label={quoted(e.label)}, fontsize=8];" for e in view.edges]
    return "\n".join([*lines, "}"])

"""Widgets the pages share: the interactive graph (streamlit-agraph: vis-network bundled in the
package, no CDN) and colour legends."""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

import streamlit as st

from docgraph.app.ui_support.graph_view import GraphView

LegendEntry = tuple[str, str, str]  # (fill colour, frame colour, what it means)


def draw_graph(view: GraphView, height: int = 460) -> str | None:
    """Draw ``view``; returns the id of the node last clicked, if any.

    Without streamlit-agraph installed the graph is drawn by Graphviz (static, no clicks).
    """
    try:
        from streamlit_agraph import Edge, Node, agraph
    except ImportError:
        st.graphviz_chart(_dot(view), use_container_width=True)
        return None
    nodes = [
        Node(id=n.id, label=n.label, title=n.title, color=n.colour, size=16, shape="dot") for n in view.nodes.values()
    ]
    edges = [Edge(source=e.source, target=e.target, label=e.label, color="#9aa0a6") for e in view.edges]
    clicked = agraph(nodes=nodes, edges=edges, config=_VisOptions(height))
    return str(clicked) if clicked else None


class _VisOptions:
    """vis-network's options, and only those: streamlit-agraph's ``Config`` also sends its own
    keyword arguments and ``groups: null``, which vis-network reports as errors in the console."""

    def __init__(self, height: int) -> None:
        self.height = f"{height}px"
        self.width = "100%"
        self.physics: dict[str, Any] = {
            "enabled": True,
            "solver": "barnesHut",
            "barnesHut": {"gravitationalConstant": -9000, "springLength": 170, "avoidOverlap": 0.6},
            "minVelocity": 1,
            "maxVelocity": 100,
            "stabilization": {"enabled": True, "fit": True},
            "timestep": 0.5,
        }
        self.edges: dict[str, Any] = {"font": {"size": 10, "color": "#5f6368", "strokeWidth": 3}}
        self.nodes: dict[str, Any] = {"font": {"size": 13}}


def colour_legend(entries: Sequence[LegendEntry], key: str) -> None:
    """A row of swatches saying what each colour in a picture means."""
    swatches = "".join(
        '<span style="display:inline-flex;align-items:center;margin:0 1.1em 0.3em 0;font-size:0.85rem">'
        f'<span style="display:inline-block;width:1.2em;height:0.9em;margin-right:0.4em;background:{fill};'
        f'border:2px solid {frame};border-radius:2px"></span>{html.escape(label)}</span>'
        for fill, frame, label in entries
    )
    st.html(f'<div class="docgraph-legend docgraph-legend-{html.escape(key)}">{swatches}</div>')


def _dot(view: GraphView) -> str:
    def quoted(text: str) -> str:
        return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'

    lines = ["digraph G {", "rankdir=LR;", "node [shape=box, style=rounded, fontsize=10];"]
    lines += [f"{quoted(n.id)} [label={quoted(n.label)}, color={quoted(n.colour)}];" for n in view.nodes.values()]
    lines += [f"{quoted(e.source)} -> {quoted(e.target)} [label={quoted(e.label)}, fontsize=8];" for e in view.edges]
    return "\n".join([*lines, "}"])

"""Graph: a document's section tree, and the neighbourhood of a region, explored by clicking."""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import Any

import streamlit as st

from docgraph.app.jobs.documents import list_documents
from docgraph.app.stores import cypher
from docgraph.app.stores.base import GraphStore
from docgraph.app.ui_support.answers import markdown_text
from docgraph.app.ui_support.evidence import region_evidence
from docgraph.app.ui_support.graph_view import SectionBranch, legend, neighbourhood_view, section_tree
from docgraph.errors import RegionNotFoundError
from docgraph.ui import common
from docgraph.ui.widgets import colour_legend, draw_graph

FOCUS = "graph_focus"  # a region reached by clicking in the neighbourhood graph
PICKED = "graph_picked"  # the region last picked in the list
TREE_STYLE = """<style>
.docgraph-tree details, .docgraph-tree .leaf { margin: 0.15rem 0 0.15rem 1.1rem; }
.docgraph-tree > details, .docgraph-tree > .leaf { margin-left: 0; }
.docgraph-tree summary { cursor: pointer; }
.docgraph-tree .leaf::before { content: "•"; margin-right: 0.45rem; color: #00a5c8; }
.docgraph-tree .pages { color: #6b6f76; font-size: 0.85em; }
</style>"""


def render() -> None:
    st.title("Graph")
    graph_store = common.store()
    if graph_store is None:
        return
    documents: list[dict[str, Any]] = []
    with common.shown_errors("Listing the documents"):
        documents = list_documents(graph_store)
    if not documents:
        st.info("No documents yet: add some on the Documents page.")
        return
    titles = {str(d["doc_id"]): str(d.get("title") or "") for d in documents}
    doc_id = st.selectbox("Document", list(titles), format_func=lambda d: f"{d} — {titles[d]}", key="graph_doc")
    sections: list[dict[str, Any]] = []
    with common.shown_errors("Reading the sections"):
        sections = graph_store.read(cypher.load("ui_section_tree", graph_store.dialect), {"doc_id": doc_id})
    tree, neighbourhood = st.columns([2, 3], gap="large")
    with tree:
        st.subheader("Section tree")
        st.caption("Click a section to open or close the sections under it.")
        st.html(TREE_STYLE + section_tree_html(section_tree(sections)))
    with neighbourhood:
        _neighbourhood(graph_store, str(doc_id), sections)


def section_tree_html(branches: Sequence[SectionBranch]) -> str:
    """The sections as nested ``<details>``: top sections open, deeper ones closed."""
    if not branches:
        return "<p><em>(no sections)</em></p>"
    return '<div class="docgraph-tree">' + "".join(_branch_html(branch, open_=True) for branch in branches) + "</div>"


def _branch_html(branch: SectionBranch, open_: bool) -> str:
    title = f'{html.escape(branch.title)} <span class="pages">p.{branch.page} · {branch.regions} regions</span>'
    if not branch.children:
        return f'<div class="leaf">{title}</div>'
    inner = "".join(_branch_html(child, open_=False) for child in branch.children)
    return f"<details{' open' if open_ else ''}><summary>{title}</summary>{inner}</details>"


def _neighbourhood(graph_store: GraphStore, doc_id: str, sections: list[dict[str, Any]]) -> None:
    st.subheader("Region neighbourhood")
    names = {doc_id: "(before the first section)"} | {str(s["section_id"]): str(s["title"]) for s in sections}
    section = st.selectbox("Section", list(names), format_func=lambda s: names[s], key=f"graph_section-{doc_id}")
    regions = graph_store.read(cypher.load("ui_section_regions", graph_store.dialect), {"section_id": section})
    if not regions:
        st.caption("No regions directly in this section.")
        return
    labels = {str(r["region_id"]): f"p.{r['page']} {r['kind']}: {str(r['text'] or '')[:60]}" for r in regions}
    picked = st.selectbox("Region", list(labels), format_func=lambda r: labels[r], key=f"graph_region-{section}")
    if st.session_state.get(PICKED) != picked:  # a new pick in the list ends any clicked-to exploration
        st.session_state[PICKED], st.session_state[FOCUS] = picked, None
    focus = st.session_state.get(FOCUS) or picked
    if focus != picked and st.button("Back to the selected region", key="graph_back"):
        st.session_state[FOCUS] = None
        st.rerun()
    with common.shown_errors("Reading the neighbourhood"):
        evidence = region_evidence(graph_store, str(focus))
        where = markdown_text(f"{evidence.doc_id} · {evidence.section_path_text}")
        st.markdown(f"**{evidence.kind}** on page {evidence.page} of {where}")
        st.caption(markdown_text(evidence.text[:300]))
        view = neighbourhood_view(evidence)
        clicked = draw_graph(view, height=460)
        colour_legend([(colour, colour, group) for colour, group in legend(view)], key="neighbourhood")
        st.caption("Each node names its document, kind and page. Click a region in the graph to move to it.")
        if clicked and clicked != focus and _is_region(graph_store, clicked):
            st.session_state[FOCUS] = clicked
            st.rerun()


def _is_region(graph_store: GraphStore, key: str) -> bool:
    try:
        region_evidence(graph_store, key)
    except RegionNotFoundError:
        return False
    return True

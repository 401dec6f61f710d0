"""The Ask page's evidence column: the cited page with the clicked citation marked, and its region.

The column stays in view beside the chat (sticky, scrolling on its own) however long the chat grows.
"""

from __future__ import annotations

import streamlit as st

from docgraph.app.jobs.render import CHOSEN_FILL, CHOSEN_FRAME, rgb_hex
from docgraph.app.llm.answer import AnswerResult
from docgraph.app.stores.base import GraphStore
from docgraph.app.ui_support.answers import markdown_text, page_highlights
from docgraph.app.ui_support.evidence import RegionEvidence, region_evidence
from docgraph.app.ui_support.page_images import page_data_uri, page_image
from docgraph.ui import common
from docgraph.ui.widgets import colour_legend

REGION_TEXT_PX = 110  # the region's text scrolls in a box this tall, so the page image fits below it
PANEL_KEY = "evidence_panel"  # Streamlit gives the container the class st-key-evidence_panel
# The column holding the panel runs the height of the chat; the panel (with the wrapper Streamlit puts
# around it, the element that can move within the column) sticks below the header and ends above
# the chat input (fixed at the bottom), scrolling by itself when it is taller.
STICKY_STYLE = f"""<style>
[data-testid="stColumn"]:has(.st-key-{PANEL_KEY}) {{ align-self: stretch; }}
[data-testid="stLayoutWrapper"]:has(> .st-key-{PANEL_KEY}) {{ position: sticky; top: 3.75rem; }}
.st-key-{PANEL_KEY} {{
  max-height: calc(100vh - 3.75rem - 8.5rem); overflow-y: auto; overflow-x: hidden; padding-right: 0.5rem;
}}
</style>"""


def show_evidence(graph_store: GraphStore, history: list[AnswerResult], selected: tuple[int, int] | None) -> None:
    """The page and region of the selected citation (answer index, citation index), if any."""
    st.html(STICKY_STYLE)
    with st.container(key=PANEL_KEY):
        st.markdown("#### Evidence")
        if not selected or selected[0] >= len(history) or selected[1] >= len(history[selected[0]].citations):
            st.caption("Click a citation to see the page and the region it points at.")
            return
        result = history[selected[0]]
        citation = result.citations[selected[1]]
        st.markdown(f"**[{selected[1] + 1}]** `{citation.tag}`")
        evidence: RegionEvidence | None = None
        with common.shown_errors("Reading the region"):
            evidence = region_evidence(graph_store, citation.region_id)
            _show_region_text(evidence)
        with common.shown_errors("Rendering the page"), st.spinner("Rendering the page…"):
            _show_page(graph_store, result, selected[1])
        if evidence is not None:
            _show_neighbours(evidence)


def _show_page(graph_store: GraphStore, result: AnswerResult, index: int) -> None:
    """The cited page: the clicked citation yellow in a thick frame, the answer's other citations
    on the page filled pale, and a legend saying so."""
    citation = result.citations[index]
    highlight = page_highlights(result.citations, citation.doc_id, citation.page)
    chosen = citation.region_id
    image = page_image(graph_store, common.settings(), citation.doc_id, citation.page, highlight, chosen=chosen)
    st.image(page_data_uri(image), caption=f"{citation.doc_id}, page {citation.page}", width="stretch")
    others = len(highlight - {chosen})
    colour_legend(
        [
            (rgb_hex(CHOSEN_FILL), rgb_hex(CHOSEN_FRAME), f"[{index + 1}] the citation you clicked"),
            ("#dbe7f6", "#0066e6", f"the answer's other citations on this page ({others}): pale fill"),
            ("#ffffff", "#8c8c8c", "other regions: a frame in their kind's colour"),
        ],
        key="page",
    )


def _show_region_text(evidence: RegionEvidence) -> None:
    st.markdown(f"**{evidence.kind}** on page {evidence.page} · section: {markdown_text(evidence.section_path_text)}")
    with st.container(border=True, height=REGION_TEXT_PX, key="evidence_region_text"):
        st.text(evidence.text)
    if evidence.ocr:
        st.caption("Read by OCR: words may be misread.")
    if evidence.description:
        st.caption(f"Visual description: {markdown_text(evidence.description)}")


def _show_neighbours(evidence: RegionEvidence) -> None:
    neighbours = evidence.evidence_neighbours()
    if not neighbours:
        st.caption("No graph neighbours.")
        return
    st.markdown("**Graph neighbours**")
    st.markdown("\n".join(f"- {neighbour.summary()}" for neighbour in neighbours))

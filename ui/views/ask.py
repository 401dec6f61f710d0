"""Ask: a chat whose answers stream in, with clickable citations and the evidence beside them."""

from __future__ import annotations

from typing import Any

import streamlit as st

from docgraph.app.jobs.documents import list_documents
from docgraph.app.llm.answer import AnswerResult
from docgraph.app.llm.client import llm_configured
from docgraph.app.llm.service import ASK_K, ask
from docgraph.app.retrieval.registry import DEFAULT_RETRIEVER, RETRIEVER_NAMES
from docgraph.app.stores.base import GraphStore
from docgraph.app.ui_support.answers import (
    markdown_text,
    numbered_answer,
    numbered_citations,
    route_summary,
    streamed_answer,
    trace_lines,
)
from docgraph.app.ui_support.examples import example_questions
from docgraph.app.ui_support.tables import display_rows
from docgraph.ui import common
from docgraph.ui.views.evidence_panel import show_evidence

HISTORY = "ask_history"  # list[AnswerResult], oldest first
SELECTED = "ask_selected"  # (answer index, citation index) shown in the evidence panel
ALL_DOCUMENTS = "All documents"
SCOPE = "ask_scope"  # the chosen document (or ALL_DOCUMENTS), kept across changes to the list


def render() -> None:
    st.title("Ask")
    graph_store = common.store()
    if graph_store is None:
        return
    st.session_state.setdefault(HISTORY, [])
    options = _options(graph_store)
    question = st.chat_input("Ask a question about the documents")
    chat, evidence = st.columns([1, 1], gap="large")
    with chat:
        if not st.session_state[HISTORY] and not question:
            question = _examples(graph_store) or question
        for index, result in enumerate(st.session_state[HISTORY]):
            _show_answer(index, result)
        if question:
            _answer_new(question, graph_store, options)
    with evidence:
        show_evidence(graph_store, st.session_state[HISTORY], st.session_state.get(SELECTED))


def _examples(graph_store: GraphStore) -> str | None:
    """Example questions made from what is stored, each a button that asks it; the one clicked."""
    questions: list[str] = []
    with common.shown_errors("Suggesting questions"):
        questions = example_questions(graph_store)
    if not questions:
        st.info("No documents are stored yet: add some on the Documents page, then ask about them.")
        return None
    st.info("Ask anything about the stored documents, for example:")
    clicked = [q for n, q in enumerate(questions) if st.button(markdown_text(q), key=f"example-{n}")]
    return clicked[0] if clicked else None


def _options(graph_store: GraphStore) -> dict[str, Any]:
    config = common.settings()
    with st.expander("Options", expanded=False):
        left, middle, right = st.columns(3)
        retriever = left.selectbox("Retriever", RETRIEVER_NAMES, index=RETRIEVER_NAMES.index(DEFAULT_RETRIEVER))
        k = middle.slider("Passages", min_value=2, max_value=20, value=ASK_K)
        doc = _document_scope(right, graph_store)
        force_cypher = st.checkbox(
            "Answer through a generated Cypher query",
            disabled=not llm_configured(config),
            help="Needs an LLM endpoint (OPENAI_BASE_URL, OPENAI_API_KEY, DOCGRAPH_LLM_MODEL).",
        )
        if st.button("Clear the conversation"):
            st.session_state[HISTORY] = []
            st.session_state.pop(SELECTED, None)
    return {"retriever": retriever, "k": k, "doc_id": None if doc == ALL_DOCUMENTS else doc, "force": force_cypher}


def _document_scope(column: Any, graph_store: GraphStore) -> str:
    """The document the questions go to, kept when another user adds or deletes one (a changed list
    of options made a new box, back at "All documents", without a word)."""
    documents, listed = [ALL_DOCUMENTS], False
    with common.shown_errors("Listing the documents"):
        documents += [str(row["doc_id"]) for row in list_documents(graph_store)]
        listed = True
    chosen = st.session_state.get(SCOPE, ALL_DOCUMENTS)
    if chosen not in documents:
        if listed:
            st.warning(f"{chosen!r} is no longer stored: questions now go to all documents.")
            st.session_state[SCOPE] = ALL_DOCUMENTS
        chosen = ALL_DOCUMENTS
    doc = str(column.selectbox("Document", documents, index=documents.index(chosen)))
    if listed:
        st.session_state[SCOPE] = doc
    return doc


def _answer_new(question: str, graph_store: GraphStore, options: dict[str, Any]) -> None:
    with st.chat_message("user"):
        st.markdown(markdown_text(question))
    with st.chat_message("assistant"):
        placeholder = st.empty()
        streamed: list[str] = []

        def show_chunk(text: str) -> None:
            streamed.append(text)
            placeholder.markdown(streamed_answer(streamed) + " ▌")

        result: AnswerResult | None = None
        with common.shown_errors("Answering"), st.spinner("Searching the graph and answering…"):
            retriever = common.retriever(options["retriever"])
            result = ask(
                question,
                graph_store,
                common.settings(),
                retriever,
                k=options["k"],
                doc_id=options["doc_id"],
                force_cypher=options["force"],
                stream_callback=show_chunk,
            )
    if result is None:
        return
    st.session_state[HISTORY].append(result)
    st.session_state[SELECTED] = (len(st.session_state[HISTORY]) - 1, 0) if result.citations else None
    st.rerun()


def _select(answer: int, citation: int) -> None:
    st.session_state[SELECTED] = (answer, citation)


def _show_answer(index: int, result: AnswerResult) -> None:
    with st.chat_message("user"):
        st.markdown(markdown_text(result.question))
    with st.chat_message("assistant"):
        st.markdown(numbered_answer(result) or "_(no answer)_")
        if not result.citations and not result.evidence:
            st.warning("No evidence found: are documents ingested (Documents page)?")
        selected = st.session_state.get(SELECTED)
        with st.container(horizontal=True):
            for numbered in numbered_citations(result.citations):
                st.button(
                    numbered.button_label,
                    key=f"cite-{index}-{numbered.number}",
                    on_click=_select,
                    args=(index, numbered.number - 1),
                    type="primary" if selected == (index, numbered.number - 1) else "secondary",
                    help=numbered.citation.tag,
                )
        st.caption(route_summary(result))
        if result.cypher:
            with st.expander("Generated Cypher", expanded=True):
                st.code(result.cypher, language="cypher")
                if result.rows:
                    st.dataframe(display_rows(result.rows), hide_index=True)
        with st.expander("Trace: how the answer was made"):
            st.markdown("\n".join(f"{n}. {line}" for n, line in enumerate(trace_lines(result.trace), start=1)))

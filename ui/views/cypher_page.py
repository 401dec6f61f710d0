"""Cypher: ad-hoc read-only queries with JSON parameters; table, graph and CSV of the results."""

from __future__ import annotations

from typing import Any

import streamlit as st

from docgraph.app.jobs.documents import list_documents
from docgraph.app.llm.cypher_guard import check_read_only, unsupplied_parameters
from docgraph.app.stores.base import GraphStore, Row
from docgraph.app.stores.query_errors import query_problem
from docgraph.app.ui_support.examples import example_on_store, load_examples
from docgraph.app.ui_support.graph_view import MAX_DRAWN_NODES, graph_from_rows, legend
from docgraph.app.ui_support.tables import display_rows, parse_params, rows_to_csv
from docgraph.errors import QuerySyntaxError, StoreError
from docgraph.ui import common
from docgraph.ui.widgets import colour_legend, draw_graph

QUERY = "cypher_query"
PARAMS = "cypher_params"
EXAMPLE = "cypher_example"
EXAMPLE_NOTE = "cypher_example_note"  # an example's document the store lacks, and which one it asks about
ROWS = "cypher_rows"
CUT = "cypher_rows_cut"  # how many rows the query returned, when more than KEPT_ROWS
# The rows stay in the session (table, graph, CSV) while it lasts: a million-row result pinned 1.3 GB
# of the server for every session that ran one. Beyond this, the first rows and a word of why.
KEPT_ROWS = 50_000
NO_EXAMPLE = "— pick an example —"
STARTER = "MATCH (d:Document)\nRETURN d.doc_id AS doc_id, d.title AS title, d.page_count AS pages"


def render() -> None:
    st.title("Cypher")
    graph_store = common.store()
    if graph_store is None:
        return
    examples = {example.question: example.query for example in load_examples()}
    st.session_state.setdefault(QUERY, STARTER)
    st.session_state.setdefault(PARAMS, "{}")

    def use_example() -> None:
        chosen = st.session_state.get(EXAMPLE)
        if chosen in examples:
            query, note = example_on_store(examples[chosen], list_documents(graph_store))
            st.session_state[QUERY], st.session_state[EXAMPLE_NOTE] = query, note

    st.selectbox("Example queries", [NO_EXAMPLE, *examples], key=EXAMPLE, on_change=use_example)
    if st.session_state.get(EXAMPLE_NOTE):
        st.caption(st.session_state[EXAMPLE_NOTE])
    st.text_area("Query (read-only: the database refuses writes)", key=QUERY, height=180, on_change=_forget_note)
    st.text_area("Parameters (JSON object)", key=PARAMS, height=80, help='e.g. {"doc": "report", "page": 3}')
    if st.button("Run", type="primary", key="cypher_run"):
        st.session_state[ROWS] = None
        _run_query(graph_store, st.session_state[QUERY])
    _show_rows(st.session_state.get(ROWS))


def _forget_note() -> None:
    st.session_state[EXAMPLE_NOTE] = ""  # the query is the reader's own now


def _run_query(graph_store: GraphStore, query: str) -> None:
    """Run ``query``; a syntax error is one line naming its position, with a caret under it. The
    API's read-only guard comes first: a read transaction still lets Neo4j run LOAD CSV (files of
    its import folder, requests to any address it reaches) as the app's database user."""
    with common.shown_errors("The query"):
        check_read_only(query)
        params = parse_params(st.session_state[PARAMS])
        with st.spinner("Running the query…"):
            try:
                rows = graph_store.read(query, params, timeout_s=common.settings().user_query_timeout_s)
            except StoreError as error:
                if _said_missing_parameters(str(error), query, params):  # FalkorDB names none
                    return
                if not isinstance(error, QuerySyntaxError):
                    raise
                problem = query_problem(str(error))
                st.error(f"The query failed: {problem.summary}")
                if problem.pointer(query):
                    st.code(problem.pointer(query), language=None)
                return
        st.session_state[ROWS] = rows[:KEPT_ROWS]
        st.session_state[CUT] = len(rows) if len(rows) > KEPT_ROWS else None


def _said_missing_parameters(error: str, query: str, params: dict[str, Any]) -> bool:
    missing = unsupplied_parameters(error, query, params)
    if missing:
        named = ", ".join(f"${name}" for name in missing)
        example = f'{{"{missing[0]}": ...}}'
        st.error(f"The query failed: it uses {named}, which the parameters do not give (e.g. {example})")
    return bool(missing)


def _show_rows(rows: list[Row] | None) -> None:
    if rows is None:
        return
    returned = st.session_state.get(CUT)
    if returned:
        st.warning(
            f"The query returned {returned:,} rows; the first {len(rows):,} are kept here. Add LIMIT or "
            "SKIP to see others, or run it with `docgraph cypher` for all of them."
        )
    st.caption(f"{len(rows)} row(s)")
    if rows:
        st.dataframe(display_rows(rows), hide_index=True, key="cypher_table")
        st.download_button(
            "Download CSV", rows_to_csv(rows), file_name="docgraph-query.csv", mime="text/csv", key="cypher_csv"
        )
    found = graph_from_rows(rows)
    view = found.first_nodes(MAX_DRAWN_NODES)
    if not view.empty:
        st.subheader(f"Graph ({len(found.nodes):,} nodes, {len(found.edges):,} relationships)")
        if view is not found:
            st.caption(
                f"Drawn: the first {len(view.nodes):,} nodes and the {len(view.edges):,} relationships between "
                "them. Add LIMIT or SKIP to draw others."
            )
        draw_graph(view)
        colour_legend([(colour, colour, group) for colour, group in legend(view)], key="cypher")

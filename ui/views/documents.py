"""Documents: upload or pick PDFs, ingest them with progress, list, delete, re-embed."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import streamlit as st

from docgraph.app.jobs.documents import list_documents
from docgraph.app.pipeline.stages import IngestReport
from docgraph.app.stores.base import GraphStore
from docgraph.app.ui_support.ingest import (
    folder_pdfs,
    ingest_files,
    report_line,
    report_notes,
    save_upload,
    uploads_dir,
)
from docgraph.ui import common

MESSAGES = "documents_messages"  # (level, text) pairs shown once after a rerun
UPLOAD_ROUND = "documents_upload_round"  # bumped after each ingest


def render() -> None:
    st.title("Documents")
    graph_store = common.store()
    if graph_store is None:
        return
    _flash_messages()
    _ingest_section(graph_store)
    rows: list[dict[str, Any]] = []
    with common.shown_errors("Listing the documents"):
        rows = list_documents(graph_store)
    st.subheader(f"Stored documents ({len(rows)})")
    if rows:
        st.dataframe(rows, hide_index=True, key="documents_table")
        _manage_section(graph_store, [str(row["doc_id"]) for row in rows])
    else:
        st.info("No documents yet: upload PDFs above.")


def _flash_messages() -> None:
    shown: dict[str, Callable[..., Any]] = {
        "success": st.success,
        "error": st.error,
        "info": st.info,
        "warning": st.warning,
    }
    for level, text in st.session_state.pop(MESSAGES, []):
        shown[level](text)


def _ingest_section(graph_store: GraphStore) -> None:
    st.subheader("Add documents")
    upload, folder = st.tabs(["Upload PDFs", "From a folder on the server"])
    force = st.checkbox(
        "Rebuild files already stored",
        key="ingest_force",
        help="A file stored as it would be built now is skipped as unchanged; tick this to rebuild it "
        "anyway, e.g. after updating docgraph within one release.",
    )
    with upload:
        round_key = f"documents_upload-{st.session_state.get(UPLOAD_ROUND, 0)}"  # a new key empties the uploader
        files = st.file_uploader("PDF files", type=["pdf"], accept_multiple_files=True, key=round_key)
        if st.button("Ingest uploaded files", type="primary", disabled=not files, key="ingest_uploads"):
            folder_path = uploads_dir(common.settings())
            _ingest(graph_store, [save_upload(f.name, f.getvalue(), folder_path) for f in files or []], force)
    with folder:
        chosen = st.text_input("Folder", placeholder="/data/pdfs", key="documents_folder")
        if st.button("Ingest the folder's PDFs", disabled=not chosen.strip(), key="ingest_folder"):
            paths: list[Path] = []
            with common.shown_errors("Reading the folder"):
                paths = folder_pdfs(chosen.strip())
                if not paths:
                    st.warning(f"No PDF in {chosen}.")
            if paths:
                _ingest(graph_store, paths, force)


def _ingest(graph_store: GraphStore, paths: Sequence[Path], force: bool = False) -> None:
    bar = st.progress(0.0, text=f"Ingesting {len(paths)} file(s)…")
    reports: list[IngestReport] = []

    def show(fraction: float, text: str) -> None:
        bar.progress(fraction, text=text)

    with common.shown_errors("Ingesting"), st.spinner("Ingesting (the encoder loads on first use)…"):
        reports = ingest_files(graph_store, common.settings(), paths, progress=show, force=force)
    bar.empty()
    if not reports:
        return
    st.session_state[MESSAGES] = [
        ("error" if report.status == "failed" else "success", report_line(report)) for report in reports
    ] + [("warning", f"Note: {note}") for note in report_notes(reports)]
    st.session_state[UPLOAD_ROUND] = st.session_state.get(UPLOAD_ROUND, 0) + 1
    common.refresh_health()
    st.rerun()


def _manage_section(graph_store: GraphStore, doc_ids: list[str]) -> None:
    delete, reembed = st.columns(2, gap="large")
    with delete:
        st.markdown("**Delete a document**")
        doc_id = st.selectbox("Document", doc_ids, key="delete_doc")
        sure = st.checkbox("Yes, delete it and everything under it", key="delete_sure")
        if st.button("Delete", disabled=not sure, key="delete_button"):
            with common.shown_errors("Deleting"), st.spinner(f"Deleting {doc_id}…"):
                deleted = graph_store.delete_document(str(doc_id))
                st.session_state[MESSAGES] = [("success", f"Deleted {doc_id}: {deleted} nodes.")]
                common.refresh_health()
                st.rerun()
    reembed_fn, checkpoint = _reembed_function()
    if reembed_fn is not None:
        with reembed:
            st.markdown("**Structure-aware embeddings**")
            st.caption("Recompute every document's GNN embedding (after training a new checkpoint).")
            missing = checkpoint is not None and not checkpoint.is_file()
            if missing:
                st.caption(f"No GNN checkpoint at {checkpoint}: train one with `docgraph train-gnn` first.")
            if st.button("Re-embed with the GNN", key="reembed_button", disabled=missing):
                with common.shown_errors("Re-embedding"), st.spinner("Re-embedding…"):
                    updated = reembed_fn(graph_store, common.settings())
                    st.session_state[MESSAGES] = [("success", f"Re-embedded {updated} nodes.")]
                    st.rerun()


def _reembed_function() -> tuple[Callable[..., int] | None, Path | None]:
    """``app.jobs.reembed.reembed`` and the configured GNN checkpoint (torch loads on first use)."""
    try:
        from docgraph.app.jobs.reembed import reembed
        from docgraph.app.pipeline.gnn import configured_checkpoint
    except ImportError:  # an install without the GNN's libraries: no button
        return None, None
    return reembed, configured_checkpoint(common.settings())

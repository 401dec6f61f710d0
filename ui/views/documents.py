"""Documents: upload or pick PDFs, ingest them in the background with progress, list, delete, re-embed."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import streamlit as st

from docgraph.app.jobs.documents import delete_document, list_documents
from docgraph.app.pipeline.reports import IngestReport
from docgraph.app.stores.base import GraphStore
from docgraph.app.stores.kept_copies import kept_copies_dir
from docgraph.app.stores.page_cache import page_cache_dir
from docgraph.app.ui_support.ingest import (
    OverallProgress,
    folder_pdfs,
    ingest_files,
    ingest_roots,
    save_upload,
    uploads_dir,
)
from docgraph.app.ui_support.ingest_runs import run_messages
from docgraph.ui import common, signin

MESSAGES = "documents_messages"  # (level, text) pairs shown once after a rerun
UPLOAD_ROUND = "documents_upload_round"  # bumped after each ingest
DELETE_ROUND = "documents_delete_round"  # bumped after each delete
# Widths that fit the page at 1400 px: a long title is cut (hover shows it) rather than the last column.
DOCUMENT_COLUMNS: dict[str, Any] = {
    "doc_id": st.column_config.TextColumn("Document", width=170),
    "title": st.column_config.TextColumn("Title", width=240),
    "file_name": st.column_config.TextColumn("File", width=170),
    "pages": st.column_config.NumberColumn("Pages", width=60),
    "sections": st.column_config.NumberColumn("Sections", width=75),
    "regions": st.column_config.NumberColumn("Regions", width=70),
    "ingested_at": st.column_config.TextColumn("Ingested (UTC)", width=135),
}


def render() -> None:
    st.title("Documents")
    graph_store = common.store()
    if graph_store is None:
        return
    _collect_ended_ingests()
    _flash_messages()
    writer = signin.may_write()
    if writer:
        _ingest_section(graph_store)
    others = _others_running_ids()
    if others:  # readers see them too
        _others_ingesting(others)
    rows: list[dict[str, Any]] = []
    with common.shown_errors("Listing the documents"):
        rows = list_documents(graph_store)
    st.subheader(f"Stored documents ({len(rows)})")
    if rows:
        st.dataframe(_table_rows(rows), hide_index=True, key="documents_table", column_config=DOCUMENT_COLUMNS)
        if writer:
            _manage_section(graph_store, [str(row["doc_id"]) for row in rows])
    else:
        st.info("No documents yet: upload PDFs above." if writer else "No documents yet.")
    if not writer:
        st.caption("Adding, deleting and re-embedding documents needs a writer's key.")


def _table_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The listing with the ingest time to the minute ("2026-11-27 08:24"), which fits its column."""
    return [row | {"ingested_at": str(row.get("ingested_at") or "")[:16].replace("T", " ")} for row in rows]


def _flash_messages() -> None:
    shown: dict[str, Callable[..., Any]] = {
        "success": st.success,
        "error": st.error,
        "info": st.info,
        "warning": st.warning,
    }
    for level, text in st.session_state.pop(MESSAGES, []):
        shown[level](text)


def _collect_ended_ingests() -> None:
    """The reports of this session's background ingests that have ended, as messages."""
    ended = common.ingest_runs().collect(signin.ingest_owner())
    if not ended:
        return
    st.session_state[MESSAGES] = st.session_state.get(MESSAGES, []) + [m for run in ended for m in run_messages(run)]
    st.session_state[UPLOAD_ROUND] = st.session_state.get(UPLOAD_ROUND, 0) + 1
    common.refresh_health()
    st.rerun()  # the sidebar's counts were drawn before this page: draw them again, with the messages


def _others_running_ids() -> tuple[str, ...]:
    return tuple(run.run_id for run in common.ingest_runs().others_running(signin.ingest_owner()))


@st.fragment(run_every=2.0)
def _others_ingesting(drawn_with: tuple[str, ...]) -> None:
    """Other users' batches, as they go; when one ends or starts, the whole page again (its list of
    documents has changed)."""
    if _others_running_ids() != drawn_with:
        st.rerun()
    for other in common.ingest_runs().others_running(signin.ingest_owner()):
        st.caption(f"Another user is ingesting {len(other.files)} file(s): {other.text}")


@st.fragment(run_every=1.0)
def _ingest_progress(run_id: str) -> None:
    """The running batch's bar, redrawn each second; once it has ended, the whole page again (and
    the sign-in page, drawn whole, once the key is revoked)."""
    if not signin.session_allowed():
        st.rerun()
    run = common.ingest_runs().running(signin.ingest_owner())
    if run is None or run.run_id != run_id:
        st.rerun()
        return
    st.progress(run.fraction, text=f"Ingesting {len(run.files)} file(s): {run.text}")
    st.caption("The ingest goes on if you leave this page; its results show here when it ends.")


def _ingest_section(graph_store: GraphStore) -> None:
    st.subheader("Add documents")
    runs = common.ingest_runs()
    mine = runs.running(signin.ingest_owner())
    if mine is not None:
        _ingest_progress(mine.run_id)
    busy = mine is not None
    upload, folder = st.tabs(["Upload PDFs", "From a folder on the server"])
    force = st.checkbox(
        "Rebuild files already stored",
        key="ingest_force",
        help="A file stored as it would be built now is skipped as unchanged; tick this to rebuild it "
        "anyway, e.g. after updating docgraph within one release.",
    )
    replace = st.checkbox(
        "Replace documents stored under the same name",
        key="ingest_replace",
        help="A different file named like a stored document is refused unless this is ticked.",
    )
    with upload:
        round_key = f"documents_upload-{st.session_state.get(UPLOAD_ROUND, 0)}"  # a new key empties the uploader
        files = st.file_uploader("PDF files", type=["pdf"], accept_multiple_files=True, key=round_key)
        if st.button("Ingest uploaded files", type="primary", disabled=busy or not files, key="ingest_uploads"):
            folder_path = uploads_dir(common.settings())
            saved = [save_upload(f.name, f.getvalue(), folder_path) for f in files or []]
            _ingest(graph_store, saved, force, replace, uploads=[path.parent for path in saved])
    with folder:
        roots = ingest_roots(common.settings())
        if not roots:
            st.info("Ingesting a folder on the server is off. Set DOCGRAPH_INGEST_ROOTS to the folders it may read.")
            return
        st.caption("Folders below: " + ", ".join(f"`{root}`" for root in roots))
        chosen = st.text_input("Folder", placeholder=str(roots[0]), key="documents_folder")
        if st.button("Ingest the folder's PDFs", disabled=busy or not chosen.strip(), key="ingest_folder"):
            paths: list[Path] = []
            with common.shown_errors("Reading the folder"):
                paths = folder_pdfs(chosen.strip(), roots)
                if not paths:
                    st.warning(f"No PDF in {chosen}.")
            if paths:
                _ingest(graph_store, paths, force, replace)


def _ingest(
    graph_store: GraphStore,
    paths: Sequence[Path],
    force: bool = False,
    replace: bool = False,
    uploads: Sequence[Path] = (),
) -> None:
    """Start the batch on a thread of its own (``uploads``, the folders of uploaded files, go when
    it ends) and show the page again with its progress bar."""
    settings = common.settings()

    workers = common.ingest_workers()

    def work(progress: OverallProgress) -> list[IngestReport]:
        uploaded = [path for path in paths if path.parent in uploads]
        tasks = workers.for_files(paths)  # started here, off the page's thread: a Ray cluster takes seconds to join
        return ingest_files(
            graph_store, settings, paths, progress, force=force, replace=replace, uploaded=uploaded, tasks=tasks
        )

    with common.shown_errors("Ingesting"):
        common.ingest_runs().start(signin.ingest_owner(), paths, work, uploads=uploads)
        st.rerun()


def _manage_section(graph_store: GraphStore, doc_ids: list[str]) -> None:
    delete, reembed = st.columns(2, gap="large")
    with delete:
        st.markdown("**Delete a document**")
        doc_id = st.selectbox("Document", doc_ids, key="delete_doc")
        # keyed by a count of deletes: after one, the box starts unticked for whatever document is next
        deletes = st.session_state.get(DELETE_ROUND, 0)
        sure = st.checkbox("Yes, delete it and everything under it", key=f"delete_sure-{deletes}")
        if st.button("Delete", disabled=not sure, key="delete_button"):
            ingesting = common.ingest_runs().writing(str(doc_id))
            if ingesting is not None:  # the batch would store it again after the delete said it was gone
                st.error(f"{doc_id} is being ingested ({ingesting.text}): delete it once that ends.")
                return
            with common.shown_errors("Deleting"), st.spinner(f"Deleting {doc_id}…"):
                home = common.settings().home
                files_dir = kept_copies_dir(home, graph_store)
                deleted = delete_document(graph_store, str(doc_id), files_dir, page_cache_dir(home, graph_store))
                messages = [("success", f"Deleted {doc_id}: {deleted.deleted_nodes} nodes.")]
                st.session_state[MESSAGES] = messages + ([("warning", deleted.note)] if deleted.note else [])
                st.session_state[DELETE_ROUND] = deletes + 1
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

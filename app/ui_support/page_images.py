"""Page images with region boxes, rendered once and kept on disk under ``<home>/cache/pages``
(:mod:`app.stores.page_cache` names them)."""

from __future__ import annotations

import base64
import uuid
from collections.abc import Iterable
from pathlib import Path

from docgraph.app.config import Settings
from docgraph.app.jobs.documents import find_document, locate_pdf, page_regions, page_turn
from docgraph.app.jobs.render import render_page
from docgraph.app.stores.base import GraphStore
from docgraph.app.stores.kept_copies import kept_copies_dir
from docgraph.app.stores.page_cache import DEFAULT_DPI, cache_path, page_cache_dir


def page_image(
    store: GraphStore,
    settings: Settings,
    doc_id: str,
    page: int,
    highlight: Iterable[str] = (),
    dpi: int = DEFAULT_DPI,
    chosen: str | None = None,
) -> Path:
    """The PNG of ``page`` of ``doc_id`` with its regions boxed, ``highlight`` (region ids) filled
    and the ``chosen`` region (the clicked citation) drawn apart from them."""
    marked = set(highlight)
    document = find_document(store, doc_id)
    ingest_id = str(document.get("ingest_id") or "")
    target = cache_path(
        page_cache_dir(settings.home, store), str(document["sha256"]), page, marked, dpi, chosen, ingest_id
    )
    if target.is_file():
        return target
    regions = page_regions(store, str(document["doc_id"]), page)
    turn = page_turn(store, str(document["doc_id"]), page)
    pdf = locate_pdf(document, kept_copies_dir(settings.home, store))
    # Render beside the target and rename: two sessions (threads of one process) rendering the same
    # page each write a file of their own, and never see half a file.
    partial = target.with_name(f"{target.stem}.{uuid.uuid4().hex}.part.png")
    try:
        render_page(pdf, page, regions, partial, dpi=dpi, highlight=marked, chosen=chosen, turn=turn)
        partial.replace(target)
    finally:
        partial.unlink(missing_ok=True)
    return target


def page_data_uri(image: Path) -> str:
    """``image`` (a PNG) as a ``data:`` URI, so it travels inside the page.

    Streamlit keeps an image it serves by URL only until the next run ends; a browser still loading
    the last run's page then gets a 404 and a broken image."""
    return "data:image/png;base64," + base64.b64encode(image.read_bytes()).decode("ascii")

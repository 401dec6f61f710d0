"""Page images with region boxes, rendered once and kept on disk under ``<home>/cache/pages``.

A rendering depends only on the stored document version (sha256) and the ingest that stored it (its
regions, and how far each page was turned to read it), the page, the resolution and the set of
highlighted regions and the chosen one, so those make its file name and a cached file is never stale.
"""

from __future__ import annotations

import base64
import hashlib
import uuid
from collections.abc import Iterable
from pathlib import Path

from docgraph.app.config import Settings
from docgraph.app.jobs.documents import find_document, locate_pdf, page_regions, page_turn
from docgraph.app.jobs.render import render_page
from docgraph.app.stores.base import GraphStore
from docgraph.app.stores.kept_copies import kept_copies_dir

DEFAULT_DPI = 110


def page_cache_dir(settings: Settings) -> Path:
    return settings.home / "cache" / "pages"


def cache_path(
    cache_dir: Path,
    sha256: str,
    page: int,
    highlight: Iterable[str],
    dpi: int = DEFAULT_DPI,
    chosen: str | None = None,
    ingest_id: str = "",
) -> Path:
    marked = "\n".join(sorted(set(highlight))) + (f"\nchosen:{chosen}" if chosen else "")
    digest = hashlib.sha256(marked.encode("utf-8")).hexdigest()[:12] if marked else "plain"
    ingest = hashlib.sha256(ingest_id.encode("utf-8")).hexdigest()[:8]  # --force may read it otherwise
    return cache_dir / f"{sha256[:16]}-{ingest}-p{page}-{dpi}dpi-{digest}.png"


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
    target = cache_path(page_cache_dir(settings), str(document["sha256"]), page, marked, dpi, chosen, ingest_id)
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

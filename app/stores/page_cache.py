"""Where rendered page images are kept (``<home>/cache/pages/<store>``, a folder per store like the
kept copies: which images a stored document still uses is known of its own store only), named so
that a cached file is never stale, and how a deleted or replaced document's images go.

A rendering depends only on the stored document version (sha256) and the ingest that stored it (its
regions, and how far each page was turned to read it), the page, the resolution and the set of
highlighted regions and the chosen one, so those make its file name.
"""

from __future__ import annotations

import hashlib
import shutil
from collections.abc import Iterable
from pathlib import Path

from docgraph.app.stores import cypher
from docgraph.app.stores.base import GraphStore, Row
from docgraph.app.stores.kept_copies import store_key

DEFAULT_DPI = 110


def page_cache_dir(home: Path, store: GraphStore) -> Path:
    return home / "cache" / "pages" / store_key(store)


def _document_part(sha256: str, ingest_id: str) -> str:
    """The start of every image name of one stored document: its content and its ingest (another
    document of the same content, and a --force re-read, have images of their own)."""
    return f"{sha256[:16]}-{hashlib.sha256(ingest_id.encode('utf-8')).hexdigest()[:8]}"


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
    return cache_dir / f"{_document_part(sha256, ingest_id)}-p{page}-{dpi}dpi-{digest}.png"


def drop_page_images(cache_dir: Path, sha256: str, kept_ingests: Iterable[str] = ()) -> int:
    """Remove the cached images of the file ``sha256`` (its pages are readable in them), those of
    every ingest of it (a --force re-read renders anew) but the still stored ``kept_ingests`` (other
    documents of the same file); how many went."""
    if not sha256:
        return 0
    kept = {_document_part(sha256, ingest_id) for ingest_id in kept_ingests}
    dropped = 0
    for image in cache_dir.glob(f"{sha256[:16]}-*.png"):
        if image.name[: len(_document_part(sha256, ""))] not in kept:
            image.unlink(missing_ok=True)
            dropped += 1
    for image in cache_dir.parent.glob(f"{sha256[:16]}-*.png"):  # an older release's, of every store: they render anew
        image.unlink(missing_ok=True)
        dropped += 1
    return dropped


def drop_unused_images(
    store: GraphStore, cache_dir: Path | None, sha256: str, doc_id: str = ""
) -> tuple[int, list[Row]]:
    """Drop the cached images of the file ``sha256`` under ``cache_dir`` (None: no cache) that no
    document of ``store`` but ``doc_id`` (gone or replaced) stores; how many went, and those
    documents (:func:`drop_page_images`)."""
    rows = store.read(cypher.load("documents_with_sha256", store.dialect), {"sha256": sha256, "doc_id": doc_id})
    if cache_dir is None:
        return 0, rows
    return drop_page_images(cache_dir, sha256, [str(row["ingest_id"] or "") for row in rows]), rows


def remove_page_cache(cache_dir: Path) -> None:
    """The images of a store that is gone (a throw-away store)."""
    shutil.rmtree(cache_dir, ignore_errors=True)

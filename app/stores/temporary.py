"""A throw-away local FalkorDB store, for ``docgraph eval`` and ``docgraph bench`` runs."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from docgraph.app.config import Settings
from docgraph.app.stores import falkordb_server
from docgraph.app.stores.base import GraphStore
from docgraph.app.stores.factory import open_store
from docgraph.app.stores.kept_copies import kept_copies_dir, remove_kept_copies
from docgraph.app.stores.page_cache import page_cache_dir, remove_page_cache


@contextmanager
def temporary_local_store(settings: Settings) -> Iterator[GraphStore]:
    """A fresh FalkorDB under a new temporary home, stopped and removed afterwards, with the PDF
    copies that ingests into it kept under ``settings.home``.

    Socket paths are limited to ~100 bytes, so the home lives directly under the system temp folder.
    A store that fails to open (or to take the schema) leaves no server and no folder behind.
    """
    home = Path(tempfile.mkdtemp(prefix="docgraph-"))
    store: GraphStore | None = None
    try:
        store = open_store(settings, url=f"falkordb-local://{home}")
        store.apply_schema()
        yield store
    finally:
        if store is not None:
            store.close()
            remove_kept_copies(kept_copies_dir(settings.home, store))
            remove_page_cache(page_cache_dir(settings.home, store))
        falkordb_server.stop(home)
        shutil.rmtree(home, ignore_errors=True)

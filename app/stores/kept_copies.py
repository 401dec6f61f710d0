"""Where the PDFs of a store's documents are kept under the data home (pages render from them)."""

from __future__ import annotations

import hashlib
from pathlib import Path

from docgraph.app.stores.base import GraphStore


def kept_copies_dir(home: Path, store: GraphStore) -> Path:
    """One folder per store, so that deleting a document of one graph never takes a file another
    graph renders from."""
    return home / "files" / hashlib.sha256(store.url.encode()).hexdigest()[:12]

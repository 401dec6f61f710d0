"""One lock per store object for the pipeline stages that use the store: a document's links to
other documents are chosen and written before another document's write can remove their targets,
whichever pipeline of this process (a UI batch, an API job, the CLI) writes it."""

from __future__ import annotations

import threading
import weakref

from docgraph.app.stores.base import GraphStore

_STORE_LOCKS: weakref.WeakKeyDictionary[GraphStore, threading.Lock] = weakref.WeakKeyDictionary()
_STORE_LOCKS_GUARD = threading.Lock()


def store_lock(store: GraphStore | None) -> threading.Lock:
    """The lock of a store object, shared by every pipeline that writes to it in this process (the
    UI makes a pipeline per batch and the API one per job, all on one store)."""
    if store is None:
        return threading.Lock()
    with _STORE_LOCKS_GUARD:
        lock = _STORE_LOCKS.get(store)
        if lock is None:
            lock = _STORE_LOCKS[store] = threading.Lock()
        return lock

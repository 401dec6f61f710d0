"""What a long-running server (the HTTP API, the MCP server) shares across its requests.

The store is opened on first use (not at start-up), so a server starts and answers even while the
database is down; the encoder loads on the first request that needs it. Retrievers are built once
per variant over one shared corpus view, which keeps its indexes between requests and reloads only
documents whose stored version changed.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from docgraph.app.config import Settings
from docgraph.app.pipeline.embedding import configured_encoder
from docgraph.app.retrieval.base import Retriever
from docgraph.app.retrieval.corpus import Corpus
from docgraph.app.retrieval.registry import make_retriever
from docgraph.app.stores.base import GraphStore
from docgraph.app.stores.factory import apply_schema_if_allowed, open_store
from docgraph.errors import AnswerAbandoned, QueriesBusyError, ServerStoppingError
from docgraph.models.encoders import TextEncoder

QUERY_SLOT_WAIT_S = 2.0  # how long a written query waits for a slot before it is refused


class ServingState:
    def __init__(self, settings: Settings, store: GraphStore | None = None) -> None:
        self.settings = settings
        self._store = store
        self._owns_store = store is None  # a store handed in is closed by whoever opened it
        self._lock = threading.Lock()
        self._corpus: Corpus | None = None
        self._retrievers: dict[tuple[str, str], Retriever] = {}  # by variant and encoder (its files)
        self._query_slots = threading.BoundedSemaphore(settings.user_query_slots)
        self.stopping = threading.Event()  # set as the server stops: answers under way end at once

    @contextmanager
    def until_stopped(self) -> Iterator[None]:
        """Refuse work asked once the server is stopping, and report the model calls the stop ended
        under way, as ServerStoppingError (a 503 or a tool error the client may retry)."""
        stopping = ServerStoppingError("the server is stopping: ask again once it is back")
        if self.stopping.is_set():
            raise stopping
        try:
            yield
        except AnswerAbandoned:
            if self.stopping.is_set():
                raise stopping from None
            raise

    @contextmanager
    def user_query_slot(self) -> Iterator[None]:
        """One of the few slots for queries people or models wrote (a cartesian product can hold
        the database's workers while retrieval waits); refused when none frees up soon."""
        if not self._query_slots.acquire(timeout=QUERY_SLOT_WAIT_S):
            slots = self.settings.user_query_slots
            raise QueriesBusyError(f"{slots} written queries are running already: try again shortly")
        try:
            yield
        finally:
            self._query_slots.release()

    def store(self) -> GraphStore:
        with self._lock:
            if self._store is None:
                self._store = apply_schema_if_allowed(open_store(self.settings))
            return self._store

    def encoder(self) -> TextEncoder:
        return configured_encoder(self.settings)  # cached per process

    def retriever(self, variant: str) -> Retriever:
        store = self.store()
        encoder = self.encoder()
        with self._lock:
            if self._corpus is None:
                self._corpus = Corpus(store)
            key = (variant, encoder.name)  # a model folder retrained in place: a new name, new retrievers
            if key not in self._retrievers:
                self._retrievers = {k: r for k, r in self._retrievers.items() if k[1] == encoder.name}
                made = make_retriever(variant, store, encoder, corpus=self._corpus, settings=self.settings)
                self._retrievers[key] = made
            return self._retrievers[key]

    def close(self) -> None:
        """Close the store this state opened; the retrievers over it go too, so that a state used
        again (an app whose lifespan is entered anew, as a test client does) opens a new one."""
        with self._lock:
            if self._owns_store and self._store is not None:
                self._store.close()
                self._store = None
                self._corpus = None
                self._retrievers = {}

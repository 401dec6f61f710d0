"""What the API's routes share: settings, the store, the encoder, retrievers and the ingest jobs.

The store is opened on first use (not at start-up), so the server starts and ``/health`` answers
even while the database is down; the encoder loads on the first request that needs it. Retrievers
are built once per variant over one shared corpus view, which keeps its indexes between requests
and reloads only documents whose stored version changed.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from docgraph.app.api.errors import ApiError
from docgraph.app.api.jobs import JobManager
from docgraph.app.config import Settings
from docgraph.app.pipeline.build import build_ingest_pipeline
from docgraph.app.pipeline.embedding import configured_encoder
from docgraph.app.pipeline.stages import IngestPipeline
from docgraph.app.retrieval.base import Retriever
from docgraph.app.retrieval.corpus import Corpus
from docgraph.app.retrieval.registry import make_retriever
from docgraph.app.stores.base import GraphStore
from docgraph.app.stores.factory import open_store
from docgraph.models.encoders import TextEncoder

QUERY_SLOT_WAIT_S = 2.0  # how long a written query waits for a slot before 429


class ApiState:
    def __init__(self, settings: Settings, store: GraphStore | None = None) -> None:
        self.settings = settings
        self._store = store
        self._owns_store = store is None  # a store handed in is closed by whoever opened it
        self._lock = threading.Lock()
        self._corpus: Corpus | None = None
        self._retrievers: dict[str, Retriever] = {}
        self.jobs = JobManager(self.ingest_pipeline)
        self._query_slots = threading.BoundedSemaphore(settings.user_query_slots)

    @property
    def uploads_dir(self) -> Path:
        return self.settings.home / "uploads"

    @property
    def max_upload_bytes(self) -> int:
        return int(self.settings.api_max_upload_mb * 1024 * 1024)

    def store(self) -> GraphStore:
        with self._lock:
            if self._store is None:
                opened = open_store(self.settings)
                opened.apply_schema()
                self._store = opened
            return self._store

    def encoder(self) -> TextEncoder:
        return configured_encoder(self.settings)  # cached per process

    def retriever(self, variant: str) -> Retriever:
        store = self.store()
        encoder = self.encoder()
        with self._lock:
            if self._corpus is None:
                self._corpus = Corpus(store)
            if variant not in self._retrievers:
                self._retrievers[variant] = make_retriever(variant, store, encoder, corpus=self._corpus)
            return self._retrievers[variant]

    @contextmanager
    def user_query_slot(self) -> Iterator[None]:
        """One of the few slots for queries people or models wrote; 429 when none frees up soon."""
        if not self._query_slots.acquire(timeout=QUERY_SLOT_WAIT_S):
            raise ApiError(
                429, "busy", f"{self.settings.user_query_slots} written queries are running already: try again shortly"
            )
        try:
            yield
        finally:
            self._query_slots.release()

    def ingest_pipeline(self, embed: bool, force: bool = False) -> IngestPipeline:
        return build_ingest_pipeline(self.store(), self.settings, embed=embed, force=force)

    def close(self) -> None:
        self.jobs.shutdown()
        with self._lock:
            if self._owns_store and self._store is not None:
                self._store.close()
                self._store = None

"""What the API's routes share: the store and retrievers (``app.serving``), the ingest jobs, the
upload limits and the slots for written queries."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from docgraph.app.api.errors import ApiError
from docgraph.app.api.jobs import JobManager
from docgraph.app.config import Settings
from docgraph.app.pipeline.build import build_ingest_pipeline
from docgraph.app.pipeline.stages import IngestPipeline
from docgraph.app.serving import ServingState
from docgraph.app.stores.base import GraphStore

QUERY_SLOT_WAIT_S = 2.0  # how long a written query waits for a slot before 429


class ApiState(ServingState):
    def __init__(self, settings: Settings, store: GraphStore | None = None) -> None:
        super().__init__(settings, store)
        self.jobs = JobManager(self.ingest_pipeline)
        self._query_slots = threading.BoundedSemaphore(settings.user_query_slots)

    @property
    def uploads_dir(self) -> Path:
        return self.settings.home / "uploads"

    @property
    def max_upload_bytes(self) -> int:
        return int(self.settings.api_max_upload_mb * 1024 * 1024)

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
        super().close()

"""What the API's routes share: the store and retrievers (``app.serving``), the ingest jobs, the
upload limits and the slots for written queries."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

from docgraph.app.api.errors import public_message
from docgraph.app.api.job_store import JobStore
from docgraph.app.api.jobs import KEPT_JOBS, JobManager
from docgraph.app.config import Settings
from docgraph.app.jobs.documents import clashing_document, note_copies
from docgraph.app.pipeline.build import build_ingest_pipeline
from docgraph.app.pipeline.execution.factory import SharedWorkers
from docgraph.app.pipeline.ingest_pipeline import IngestPipeline
from docgraph.app.serving import ServingState
from docgraph.app.stores.base import GraphStore


def jobs_key(settings: Settings) -> str:
    """Names the ingest jobs of the configured store and graph: a server on another graph must not
    run them again into its own, nor sweep their uploads."""
    return hashlib.sha256(f"{settings.store}\n{settings.graph}".encode()).hexdigest()[:12]


def jobs_file(settings: Settings) -> Path:
    return settings.home / "jobs" / f"{jobs_key(settings)}.sqlite"


class ApiState(ServingState):
    def __init__(self, settings: Settings, store: GraphStore | None = None) -> None:
        super().__init__(settings, store)
        self._workers = SharedWorkers(settings)
        self.jobs = JobManager(
            self.ingest_pipeline,
            JobStore(jobs_file(settings), KEPT_JOBS),
            clash_of=lambda name, path: clashing_document(self.store(), name, path),
            note_copies=lambda report: note_copies(self.store(), report),
            public=lambda text: public_message(text, settings),
        )
        self._sweep_uploads()

    @property
    def uploads_dir(self) -> Path:
        return self.settings.home / "uploads" / jobs_key(self.settings)

    def _sweep_uploads(self) -> None:
        """Remove upload folders no job will run (left by a request that failed midway, or by jobs
        evicted long ago): this server holds the jobs, so nothing else is using them."""
        if not self.uploads_dir.is_dir():
            return
        wanted = self.jobs.unfinished_uploads()
        for folder in self.uploads_dir.iterdir():
            if folder.is_dir() and folder not in wanted:
                shutil.rmtree(folder, ignore_errors=True)

    @property
    def max_upload_bytes(self) -> int:
        return int(self.settings.api_max_upload_mb * 1024 * 1024)

    def ingest_pipeline(self, embed: bool, force: bool = False, path: Path | None = None) -> IngestPipeline:
        """The pipeline for one upload: through the shared workers (started on first need) when the file
        has pages enough for more than one, or when a Ray cluster is configured; in this process else."""
        tasks = self._workers.for_files([path] if path is not None else None)
        return build_ingest_pipeline(self.store(), self.settings, embed=embed, force=force, tasks=tasks)

    def close(self) -> None:
        self.jobs.shutdown()
        self._workers.close()
        super().close()

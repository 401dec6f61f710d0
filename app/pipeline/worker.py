"""The store-free half of ingest, as a worker runs it: read page windows, assemble the document and
build its graph, encode texts, run the in-document stages (similarity, GNN).

The pipeline's stages hand these calls to an executor (:mod:`app.pipeline.execution`); an
:class:`IngestWorker` answers them in this process, in each worker process, or in each Ray worker.
Nothing here opens a store.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from docgraph.app.config import Settings
from docgraph.app.pipeline.embedding import ENCODE_BATCH
from docgraph.app.pipeline.execution.base import SourceFile
from docgraph.app.pipeline.execution.sources import local_path
from docgraph.app.pipeline.source_files import read_pdf
from docgraph.app.pipeline.stages import IngestContext, Stage
from docgraph.errors import IngestError
from docgraph.ingest.graph import build_graph
from docgraph.ingest.page.scan import PageScan
from docgraph.ingest.readers.paged import PagedReader, PageWindow, layout_from_scans
from docgraph.ingest.types import DocumentLayout, Reader
from docgraph.models.encoders import TextEncoder, Vectors
from docgraph.records import GraphBatch


@dataclass(frozen=True, slots=True)
class WorkerSpec:
    """What a worker process needs to build its :class:`IngestWorker`: the settings and the reader."""

    settings: Settings
    reader: str


@dataclass
class IngestWorker:
    reader: Reader
    # Asked for the encoder on every use: configured_encoder loads it once per process, and again
    # when a model folder is retrained in place while this worker lives (the build names the new one).
    encoder_factory: Callable[[], TextEncoder] | None = None
    stages: Sequence[Stage] = ()  # the in-document stages after embed, by name

    @property
    def encoder(self) -> TextEncoder:
        if self.encoder_factory is None:
            raise IngestError("this worker has no encoder (embeddings are off)")
        return self.encoder_factory()

    def scan_window(self, source: SourceFile, window: PageWindow) -> list[PageScan]:
        return self._paged().scan_window(local_path(source), window)

    def read(self, source: SourceFile) -> DocumentLayout:
        return read_pdf(self.reader, local_path(source))

    def build_graph(
        self, source: SourceFile, read: list[PageScan] | DocumentLayout, build: str, ingested_at: str
    ) -> GraphBatch:
        """The document's graph, from the scans of all its pages (or a reader's whole layout)."""
        layout = layout_from_scans(local_path(source), self._paged(), read) if isinstance(read, list) else read
        return build_graph(layout, ingested_at=ingested_at, build=build)

    def encoder_info(self) -> tuple[str, int]:
        return self.encoder.name, self.encoder.dim

    def encode(self, texts: list[str]) -> Vectors:
        return self.encoder.encode(texts, batch_size=ENCODE_BATCH)

    def run_stage(self, name: str, path: Path, batch: GraphBatch) -> GraphBatch:
        """Run the in-document stage ``name`` on ``batch`` (a copy, when it came from another process)."""
        ctx = IngestContext(path=path, batch=batch)
        self.stage(name).run(ctx)
        return batch

    def stage(self, name: str) -> Stage:
        for stage in self.stages:
            if stage.name == name:
                return stage
        raise IngestError(f"this worker has no {name!r} stage")

    def _paged(self) -> PagedReader:
        if not isinstance(self.reader, PagedReader):
            raise IngestError(f"the {self.reader.name} reader reads whole documents, not page windows")
        return self.reader

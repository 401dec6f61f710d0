"""Getting the documents an evaluation or benchmark needs into the store, through the real pipeline."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from docgraph.app.config import Settings
from docgraph.app.jobs.documents import files_replacing_others
from docgraph.app.pipeline.build import build_ingest_pipeline
from docgraph.app.pipeline.ingest_pipeline import IngestPipeline
from docgraph.app.pipeline.reports import IngestReport
from docgraph.app.pipeline.stages import EmbedStage
from docgraph.app.retrieval.corpus import stored_builds
from docgraph.app.stores.base import GraphStore
from docgraph.errors import IngestError
from docgraph.ingest.structure.ids import doc_id_for
from docgraph.models.encoders import TextEncoder

ProgressFn = Callable[[str, int, int], None]  # (what, done, total)
EVALUATION_REMEDY = "an evaluation replaces no stored document: give it a store of its own, or rename the file"


def make_pipeline(store: GraphStore, encoder: TextEncoder, settings: Settings) -> IngestPipeline:
    """The standard pipeline of ``docgraph ingest`` (read, graph, embed, GNN when available, write),
    embedding with the caller's encoder."""
    pipeline = build_ingest_pipeline(store, settings)
    for stage in pipeline.stages:
        if isinstance(stage, EmbedStage):
            stage.encoder = encoder
    return pipeline


@dataclass(slots=True)
class IngestOutcome:
    doc_ids: dict[str, str] = field(default_factory=dict)  # file name -> doc_id
    reports: list[IngestReport] = field(default_factory=list)  # documents actually ingested
    skipped: list[str] = field(default_factory=list)  # file names already stored as they are


def ensure_ingested(
    paths: Sequence[Path],
    store: GraphStore,
    encoder: TextEncoder,
    settings: Settings,
    progress: ProgressFn | None = None,
    force: bool = False,
) -> IngestOutcome:
    """Ingest each file unless the same file built the same way is already stored, GNN vectors included
    (``force``: delete and re-ingest)."""
    refused = files_replacing_others(store, list(paths), EVALUATION_REMEDY)
    if refused:  # a team's stored document is never replaced by an evaluation's file of its name
        raise IngestError(next(iter(refused.values())))
    outcome = IngestOutcome()
    pipeline = make_pipeline(store, encoder, settings)
    stored = stored_builds(store) if force else {}
    with store.fulltext_refresh_deferred():
        for done, path in enumerate(paths):
            if progress:
                progress(f"ingest {path.name}", done, len(paths))
            doc_id = doc_id_for(path.name)
            outcome.doc_ids[path.name] = doc_id
            if force and doc_id in stored:
                store.delete_document(doc_id)
            report = pipeline.ingest(path)  # a file stored as built is "unchanged" without being read
            if report.status == "failed":
                named = path.name in report.error  # most failures name their file already
                raise IngestError(report.error if named else f"{path.name}: {report.error}")
            if report.status == "unchanged":
                outcome.skipped.append(path.name)
            else:
                outcome.reports.append(report)
    if progress:
        progress("ingest", len(paths), len(paths))
    store.wait_for_indexes()
    return outcome

"""Ingest files from disk as the CLI and the library do, with the same checks of names."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import cast

from docgraph.app.jobs.documents import colliding_ids, files_replacing_others
from docgraph.app.pipeline.ingest_pipeline import IngestPipeline
from docgraph.app.pipeline.reports import IngestReport
from docgraph.app.pipeline.stages import ProgressFn
from docgraph.app.pipeline.unchanged import take_over_source
from docgraph.app.stores.base import GraphStore
from docgraph.errors import IngestInterrupted


def ingest_batch(
    pipeline: IngestPipeline,
    store: GraphStore,
    files: Sequence[Path],
    *,
    replace: bool = False,
    progress: Callable[[Path], ProgressFn | None] | None = None,
    finishing: Callable[[list[Path]], None] | None = None,
) -> list[IngestReport]:
    """A report per file, in the order given. Files that would share a document id with another of
    ``files`` get a failed report each, and the others still ingest. Without ``replace``, a file
    that would replace a stored document read from another file of that name is refused the same
    way; with it, such a file replaces the document, and one found unchanged becomes its file.

    Ctrl-C raises :class:`IngestInterrupted` with the reports of the files that ended, refused ones too."""
    refused = colliding_ids(list(files))
    if not replace:
        others = [path for path in files if path not in refused]
        refused |= files_replacing_others(store, others)
    for path in refused:  # refused files end too, for a display that counts the files ended
        heard = progress(path) if progress else None
        if heard is not None:
            heard("failed", 1, 1)
    try:
        ingested = pipeline.ingest_many(
            [path for path in files if path not in refused], progress, finishing, replace=replace
        )
    except IngestInterrupted as interrupted:
        ended = {report.path: report for report in cast(list[IngestReport], interrupted.reports)}
        kept = [ended.get(path) or _refused(path, refused) for path in files if path in ended or path in refused]
        _take_over_unchanged(store, kept, replace)
        raise IngestInterrupted(kept, interrupted.not_started, interrupted.abandoned) from None
    by_path = {report.path: report for report in ingested}
    reports = [by_path.get(path) or _refused(path, refused) for path in files]
    _take_over_unchanged(store, reports, replace)
    return reports


def _take_over_unchanged(store: GraphStore, reports: list[IngestReport], replace: bool) -> None:
    """With ``replace``, a file found unchanged (the same content from here) is its document's file now."""
    for report in reports if replace else []:
        if report.status == "unchanged":
            take_over_source(store, report.doc_id, report.path)


def _refused(path: Path, refused: dict[Path, str]) -> IngestReport:
    return IngestReport.failed(path, refused[path])

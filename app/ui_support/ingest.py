"""Ingest from the UI: uploaded files kept under the data home, folders of PDFs, overall progress."""

from __future__ import annotations

import os
import threading
import uuid
from collections.abc import Callable, Collection, Sequence
from pathlib import Path

from docgraph.app.config import Settings
from docgraph.app.jobs.documents import clashing_document, upload_file_name
from docgraph.app.pipeline.build import build_ingest_pipeline
from docgraph.app.pipeline.execution.base import TaskExecutor
from docgraph.app.pipeline.reports import IngestReport
from docgraph.app.pipeline.source_files import expand_paths, same_content
from docgraph.app.pipeline.stages import ProgressFn
from docgraph.app.stores.base import GraphStore
from docgraph.errors import ConfigError, DocgraphError
from docgraph.ingest.structure.ids import doc_id_for

# Share of one file's progress bar for each pipeline stage; "read" and "embed" report counts as they go.
STAGE_SHARES: dict[str, tuple[float, float]] = {
    "read": (0.0, 0.6),
    "graph": (0.6, 0.65),
    "embed": (0.65, 0.85),
    "similarity": (0.85, 0.88),
    "corpus_similarity": (0.88, 0.9),
    "gnn": (0.9, 0.93),
    "graph_write": (0.93, 1.0),
}
STAGE_UNITS = {"read": "pages", "embed": "regions"}  # what a stage that reports its progress counts

OverallProgress = Callable[[float, str], None]  # (fraction 0..1, what is happening)


def uploads_dir(settings: Settings) -> Path:
    return settings.home / "uploads"


def save_upload(name: str, data: bytes, folder: Path) -> Path:
    """Write an uploaded file under its name (:func:`upload_file_name`) in a folder of its own under
    ``folder``: two uploads of one name, in a batch or in two sessions, never overwrite each other
    (nor a stored document's file)."""
    target = folder / uuid.uuid4().hex / upload_file_name(name)
    target.parent.mkdir(parents=True)
    partial = target.with_suffix(".part")
    partial.write_bytes(data)
    partial.replace(target)
    return target


def ingest_roots(settings: Settings) -> list[Path]:
    """The folders below which a folder on the server may be ingested (``DOCGRAPH_INGEST_ROOTS``)."""
    parts = settings.ingest_roots.replace(",", os.pathsep).split(os.pathsep)
    return [Path(part).expanduser().resolve() for part in parts if part.strip()]


def folder_pdfs(folder: str, roots: Sequence[Path]) -> list[Path]:
    """The PDFs inside ``folder`` (recursively, sorted), which must lie below one of ``roots``;
    links are followed before the check, so none leads out of them."""
    if not roots:
        raise ConfigError("ingesting a folder on the server is off: set DOCGRAPH_INGEST_ROOTS to allow folders")
    path = Path(folder).expanduser().resolve()
    if not _below(path, roots):
        raise ConfigError(f"{folder!r} is not below an ingest root ({', '.join(str(r) for r in roots)})")
    if not path.is_dir():
        raise ConfigError(f"{folder!r} is not a folder")
    return [pdf for pdf in expand_paths([path]) if _below(pdf.resolve(), roots)]


def _below(path: Path, roots: Sequence[Path]) -> bool:
    return any(path == root or path.is_relative_to(root) for root in roots)


def file_fraction(stage: str, done: int, total: int) -> float:
    """How far one file has got (0..1), being at ``done``/``total`` of ``stage``."""
    start, end = STAGE_SHARES.get(stage, (1.0, 1.0))  # an outcome ("ingested", "failed") ends the file
    return min(1.0, start + (end - start) * (done / total if total > 0 else 0.0))


def progress_label(name: str, stage: str, done: int, total: int) -> str:
    """What the bar says: the file, the stage and, where it counts, how far (``read 12/30 pages``,
    ``embed 120/300 regions``)."""
    if not total or stage not in STAGE_SHARES:
        return f"{name}: {stage}"
    unit = STAGE_UNITS.get(stage, "")
    return f"{name}: {stage} {done}/{total} {unit}".rstrip()


def ingest_files(
    store: GraphStore,
    settings: Settings,
    paths: Sequence[Path],
    progress: OverallProgress | None = None,
    force: bool = False,
    replace: bool = False,
    uploaded: Collection[Path] = (),
    tasks: TaskExecutor | None = None,
) -> list[IngestReport]:
    """A report per file, in order; a failed file is reported and the others still go in. ``force``
    rebuilds files stored as they would be built now (see ``build_ingest_pipeline``); without
    ``replace``, a file whose name is that of a different stored document is refused. The files in
    ``uploaded`` are a client's uploads (their temporary paths are not recorded as sources).
    ``tasks``: the server's workers (``SharedWorkers``), which read and embed several files, and
    the pages of a long one, at once; None: this process ingests the files one after another."""
    pipeline = build_ingest_pipeline(store, settings, force=force, tasks=tasks)
    overall = _OverallProgress(paths, progress)
    refused: dict[Path, str] = {}
    claimed: dict[str, Path] = {}  # document id -> the file of this batch stored under it
    for path in paths:
        refusal = _refusal(store, path, replace, claimed)
        if refusal is not None:
            refused[path] = f"{path.name}: {refusal}"
            overall.update(path, "failed", 1, 1)
    accepted = [path for path in paths if path not in refused]
    with store.fulltext_refresh_deferred():
        ingested = pipeline.ingest_many(accepted, overall.for_file, uploaded=uploaded, replace=replace)
    by_path = dict(zip(accepted, ingested, strict=True))
    return [by_path.get(path) or IngestReport.failed(path, refused[path]) for path in paths]


class _OverallProgress:
    """One bar over the files of a batch, some of which may be under way at once: the mean of each
    file's share done, and the latest file's stage as its text."""

    def __init__(self, paths: Sequence[Path], progress: OverallProgress | None) -> None:
        self._progress = progress
        self._done = {path: 0.0 for path in paths}
        self._lock = threading.Lock()

    def for_file(self, path: Path) -> ProgressFn:
        self.update(path, "read", 0, 0)
        return lambda stage, done, total: self.update(path, stage, done, total)

    def update(self, path: Path, stage: str, done: int, total: int) -> None:
        if self._progress is None:
            return
        with self._lock:  # a file's share only grows; the bar with it
            self._done[path] = max(self._done[path], file_fraction(stage, done, total))
            fraction = sum(self._done.values()) / max(len(self._done), 1)
            self._progress(fraction, progress_label(path.name, stage, done, total))


def _refusal(store: GraphStore, path: Path, replace: bool, claimed: dict[str, Path]) -> str | None:
    """Why ``path`` is not ingested (None: it is): another file of the batch takes its document id,
    or, without ``replace``, a different stored document has it. A file the checks cannot read is
    refused alone; the batch goes on."""
    try:
        doc_id = doc_id_for(path.name)
        other = claimed.setdefault(doc_id, path)
        if other != path and not same_content([other, path]):  # copies of one file are one document
            return f"{other.name} in this batch is stored as {doc_id!r} too: rename one"
        clash = None if replace or not path.is_file() else clashing_document(store, path.name, path)
    except (DocgraphError, OSError) as error:
        return str(error)
    return None if clash is None else f"a different document is stored as {clash!r} (tick Replace to replace it)"


def report_notes(reports: Sequence[IngestReport]) -> list[str]:
    """What the ingest ran without (OCR, the GNN, …), each once, for the user to see."""
    return list(dict.fromkeys(note for report in reports for note in report.notes))


def report_line(report: IngestReport) -> str:
    if report.status == "failed":  # errors often name the file already: name it once
        return f"{report.path.name}: failed: {report.error.removeprefix(report.path.name + ': ')}"
    return (
        f"{report.path.name} → {report.doc_id}: {report.status}, {report.pages} pages, "
        f"{report.regions} regions, {report.sections} sections ({report.seconds:.1f}s)"
    )

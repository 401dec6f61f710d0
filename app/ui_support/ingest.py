"""Ingest from the UI: uploaded files kept under the data home, folders of PDFs, overall progress."""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Collection, Sequence
from pathlib import Path

from docgraph.app.config import Settings
from docgraph.app.jobs.documents import clashing_document, upload_file_name
from docgraph.app.pipeline.build import build_ingest_pipeline
from docgraph.app.pipeline.reports import IngestReport
from docgraph.app.pipeline.source_files import expand_paths
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


def overall_fraction(index: int, count: int, stage: str, done: int, total: int) -> float:
    """Progress over all files, file ``index`` of ``count`` being at ``done``/``total`` of ``stage``."""
    start, end = STAGE_SHARES.get(stage, (1.0, 1.0))  # an outcome ("ingested", "failed") ends the file
    within = start + (end - start) * (done / total if total > 0 else 0.0)
    return min(1.0, (index + within) / max(count, 1))


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
) -> list[IngestReport]:
    """Ingest each file in turn; a failed file is reported and the others still go in. ``force``
    rebuilds files stored as they would be built now (see ``build_ingest_pipeline``); without
    ``replace``, a file whose name is that of a different stored document is refused. The files in
    ``uploaded`` are a client's uploads (their temporary paths are not recorded as sources)."""
    pipeline = build_ingest_pipeline(store, settings, force=force)
    reports: list[IngestReport] = []
    claimed: dict[str, Path] = {}  # document id -> the file of this batch stored under it
    with store.fulltext_refresh_deferred():
        for index, path in enumerate(paths):

            def update(stage: str, done: int, total: int, index: int = index, name: str = path.name) -> None:
                if progress is not None:
                    progress(
                        overall_fraction(index, len(paths), stage, done, total),
                        progress_label(name, stage, done, total),
                    )

            update("read", 0, 0)
            refusal = _refusal(store, path, replace, claimed)
            if refusal is not None:
                reports.append(IngestReport(path=path, status="failed", error=f"{path.name}: {refusal}"))
                continue
            reports.append(pipeline.ingest(path, progress=update, uploaded_as=path.name if path in uploaded else ""))
            update("done", 1, 1)
    return reports


def _refusal(store: GraphStore, path: Path, replace: bool, claimed: dict[str, Path]) -> str | None:
    """Why ``path`` is not ingested (None: it is): another file of the batch takes its document id,
    or, without ``replace``, a different stored document has it. A file the checks cannot read is
    refused alone; the batch goes on."""
    try:
        doc_id = doc_id_for(path.name)
        other = claimed.setdefault(doc_id, path)
        if other != path:
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

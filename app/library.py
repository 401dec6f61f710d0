"""docgraph as a Python library: open a store, ingest PDFs, ask questions, get a retriever.

    import docgraph

    with docgraph.open_store() as store:  # the configured store (default: the local FalkorDB)
        docgraph.ingest_pdfs(["manual.pdf"], store)
        print(docgraph.ask("How do I reset it?", store).answer)

The ingest call is ``ingest_pdfs``: ``docgraph.ingest`` is the reading stage's package.
These are the calls the CLI makes, with the same settings (``DOCGRAPH_*``, ``docgraph.toml``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from docgraph.app.config import Settings, load_settings
from docgraph.app.jobs.documents import find_document
from docgraph.app.jobs.ingest_batch import ingest_batch
from docgraph.app.llm.answer import AnswerResult
from docgraph.app.llm.service import ask as ask_store
from docgraph.app.pipeline.embedding import configured_encoder
from docgraph.app.pipeline.reports import IngestReport
from docgraph.app.pipeline.source_files import expand_paths
from docgraph.app.pipeline.stages import ProgressFn
from docgraph.app.retrieval.base import Retriever
from docgraph.app.retrieval.registry import DEFAULT_RETRIEVER, make_retriever
from docgraph.app.stores.base import GraphStore
from docgraph.app.stores.factory import apply_schema_if_allowed
from docgraph.app.stores.factory import open_store as open_graph_store

FileProgressFn = Callable[[Path, str, int, int], None]  # (file, stage, done, total); at its end (status, 1, 1)


@contextmanager
def open_store(url: str | None = None, settings: Settings | None = None) -> Iterator[GraphStore]:
    """The store ``url`` names (default: the configured one), schema applied, closed on exit."""
    settings = settings or load_settings()
    store = open_graph_store(settings, url)
    try:
        yield apply_schema_if_allowed(store)
    finally:
        store.close()


def ingest_pdfs(
    paths: str | Path | Sequence[str | Path],
    store: GraphStore,
    settings: Settings | None = None,
    *,
    embed: bool = True,
    force: bool = False,
    replace: bool = False,
    progress: FileProgressFn | None = None,
    workers: int | None = None,
) -> list[IngestReport]:
    """Ingest PDFs (a file or folder, or a sequence of them) into ``store``; a report per file, a
    failed file's graph unchanged.

    As ``docgraph ingest``: files that would be stored under one document id, and a file that
    would replace a stored document read from another file of that name (unless ``replace``), get
    failed reports, and the others still ingest. ``progress(file, stage, done, total)`` hears
    each file's stages (one call at a time, from the threads that run the files), then its outcome
    (``"ingested"``, ``"failed"``, …, 1, 1). ``workers`` as ``--workers`` (default: the setting);
    worker processes are started with ``spawn``, so a script that calls this needs the
    ``if __name__ == "__main__":`` guard. Ctrl-C raises ``IngestInterrupted`` (a
    ``KeyboardInterrupt``) with the reports of the files that ended."""
    from docgraph.app.pipeline.build import build_ingest_pipeline  # the readers load PyMuPDF; asking does not
    from docgraph.app.pipeline.execution.factory import ingest_executor

    settings = settings or load_settings()
    files = expand_paths(Path(p) for p in ([paths] if isinstance(paths, str | Path) else paths))
    tasks = ingest_executor(settings, settings.reader, workers, files=files)
    try:
        pipeline = build_ingest_pipeline(store, settings, embed=embed, force=force, tasks=tasks)
        with store.fulltext_refresh_deferred():
            each = _per_file(progress) if progress else None
            return ingest_batch(pipeline, store, files, replace=replace, progress=each)
    finally:
        if tasks is not None:
            tasks.close()


def _per_file(progress: FileProgressFn) -> Callable[[Path], ProgressFn]:
    """Each file's stage events, with the file, handed to ``progress`` one at a time."""
    lock = threading.Lock()

    def for_file(path: Path) -> ProgressFn:
        def heard(stage: str, done: int, total: int) -> None:
            with lock:
                progress(path, stage, done, total)

        return heard

    return for_file


def retriever(store: GraphStore, name: str = DEFAULT_RETRIEVER, settings: Settings | None = None) -> Retriever:
    """The retriever variant ``name`` over ``store`` with the configured encoder."""
    settings = settings or load_settings()
    return make_retriever(name, store, configured_encoder(settings), settings=settings)


def ask(
    question: str,
    store: GraphStore,
    settings: Settings | None = None,
    *,
    k: int = 8,
    doc_id: str | None = None,
    variant: str = DEFAULT_RETRIEVER,
    using: Retriever | None = None,
) -> AnswerResult:
    """A cited answer from the stored documents (extractive when no LLM endpoint is configured).

    A retriever indexes the stored documents when it is made: for many questions, make one with
    :func:`retriever` and pass it as ``using``. ``doc_id`` may name the document by its file name
    too, as the CLI's ``--doc`` does; an unknown one is a ``DocumentNotFoundError``."""
    settings = settings or load_settings()
    doc = str(find_document(store, doc_id)["doc_id"]) if doc_id else None
    chosen = using or retriever(store, variant, settings)
    return ask_store(question, store, settings, chosen, k=k, doc_id=doc)

"""Commands that add, list, remove and render documents."""

from __future__ import annotations

import os
import sys
from contextlib import nullcontext
from pathlib import Path
from typing import Annotated, cast

import typer
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from docgraph.app.cli.common import (
    JsonOption,
    StoreOption,
    console,
    err_console,
    handles_errors,
    note_other_graphs,
    opened_store,
    print_json,
    print_rows,
    stage_progress,
)
from docgraph.app.cli.ingest_reports import print_reports, untexted_hint
from docgraph.app.cli.termination import raise_if_terminated, sigterm_as_ctrl_c, stop_code, stopped_by
from docgraph.app.config import Settings
from docgraph.app.jobs.documents import (
    delete_documents,
    documents_with_sources,
    find_document,
    list_documents,
    locate_pdf,
    note_copies,
    page_regions,
    page_turn,
)
from docgraph.app.jobs.ingest_batch import ingest_batch
from docgraph.app.jobs.relink import relink_corpus
from docgraph.app.llm.client import vision_configured
from docgraph.app.llm.service import describe_document
from docgraph.app.pipeline.ingest_pipeline import IngestPipeline
from docgraph.app.pipeline.readers import make_reader
from docgraph.app.pipeline.reports import OUTCOMES, IngestReport, not_ingested_report
from docgraph.app.pipeline.source_files import expand_paths
from docgraph.app.pipeline.stages import ProgressFn
from docgraph.app.stores.base import GraphStore
from docgraph.app.stores.kept_copies import kept_copies_dir
from docgraph.app.stores.page_cache import page_cache_dir
from docgraph.errors import ConfigError, DocgraphError, IngestInterrupted


@handles_errors
def ingest_command(
    paths: Annotated[list[Path], typer.Argument(help="PDF files or folders of PDFs.")],
    reader: Annotated[
        str | None,
        typer.Option(
            "--reader",
            help="PDF reader: auto (default: OCR only where the text layer fails), native, detector, azure.",
        ),
    ] = None,
    no_embed: Annotated[bool, typer.Option("--no-embed", help="Skip region embeddings.")] = False,
    similar_elsewhere: Annotated[
        int | None,
        typer.Option(
            "--similar-elsewhere",
            min=0,
            help="Link each region both ways to its K nearest regions of the other stored documents "
            "(IS_SIMILAR cross_document); default DOCGRAPH_SIMILARITY_CORPUS_K, 0 = none.",
        ),
    ] = None,
    describe: Annotated[
        bool, typer.Option("--describe", help="Describe figures/tables with the vision model (DOCGRAPH_VLM_MODEL).")
    ] = False,
    replace: Annotated[
        bool,
        typer.Option(
            "--replace",
            help="Let a file replace a stored document of the same name that was read from another "
            "file (refused otherwise; a changed file ingested again from its own path updates its document).",
        ),
    ] = False,
    force: Annotated[
        bool,
        typer.Option(
            "--force",
            help="Rebuild files already stored as they would be built now (same file and settings), "
            "e.g. after updating docgraph from source within one release.",
        ),
    ] = False,
    workers: Annotated[
        int | None,
        typer.Option(
            "--workers",
            min=0,
            help="Worker processes that read and embed (several documents, and the pages of a long one, at "
            "once); default DOCGRAPH_INGEST_WORKERS, 0 = one per two cores. Writes stay one document at a time.",
        ),
    ] = None,
    ray: Annotated[
        str | None,
        typer.Option(
            "--ray",
            help="Run the workers on a Ray cluster: auto, HOST:PORT or ray://HOST:PORT (needs docgraph\\[ray]); "
            "this machine still writes to the store.",
        ),
    ] = None,
    json_out: JsonOption = False,
    store: StoreOption = None,
) -> None:
    """Ingest PDFs into the graph. Failed files leave the graph unchanged; the others still ingest."""
    from docgraph.app.pipeline.build import build_ingest_pipeline  # the readers load PyMuPDF
    from docgraph.app.pipeline.execution.factory import ingest_executor

    files = expand_paths(paths)
    if not files:
        raise typer.BadParameter("no PDF found in the given paths")
    with sigterm_as_ctrl_c() as terminated, opened_store(store, schema=True) as (graph_store, settings):
        if describe and not vision_configured(settings):
            raise ConfigError("--describe needs a vision model: set DOCGRAPH_VLM_MODEL and the LLM endpoint")
        if similar_elsewhere is not None:
            settings = settings.model_copy(update={"similarity_corpus_k": similar_elsewhere})
        reader_name = reader or settings.reader
        chosen = make_reader(reader_name, settings)
        tasks = ingest_executor(settings, reader_name, workers, ray, files=files)
        left: list[object] | None = None  # with Ctrl-C: the files not ingested
        abandoned = False  # a second Ctrl-C: the documents under way were left running
        try:
            pipeline = build_ingest_pipeline(
                graph_store, settings, reader=chosen, embed=not no_embed, force=force, tasks=tasks
            )
            # with --json the bars still show on a terminal's stderr (stdout holds the JSON)
            quiet = json_out and not err_console.is_terminal
            reports = _ingest_all(pipeline, files, graph_store, quiet=quiet, replace=replace, terminated=terminated)
        except IngestInterrupted as interrupted:  # what ended is reported; the rest is named
            reports, left = cast(list[IngestReport], interrupted.reports), interrupted.not_started
            abandoned = interrupted.abandoned
        finally:
            if tasks is not None and not abandoned:  # left to die with this process, which ends now
                tasks.close()
        if left is not None:  # 130 also when every document was under way, and so finished first
            not_ingested = [Path(str(path)) for path in left]
            print_reports(
                reports + [not_ingested_report(path) for path in not_ingested], json_out, untexted_hint(chosen)
            )
            names = ", ".join(path.name for path in not_ingested)
            said = f"not ingested: {names} (run the command again for them)" if left else "every document ended"
            err_console.print(f"{stopped_by(terminated)}: {said}", markup=False)
            code = stop_code(terminated)
            if abandoned:  # the documents under way still run in this process's threads: end it now
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(code)
            raise typer.Exit(code)
        try:
            for report in reports:
                note_copies(graph_store, report)
            if describe:
                for report in reports:
                    if report.status != "failed":
                        _describe(graph_store, settings, report)
        except KeyboardInterrupt:  # the documents are stored: their reports are printed all the same
            print_reports(reports, json_out, untexted_hint(chosen))
            err_console.print(f"{stopped_by(terminated)}: the documents are stored, their descriptions cut short")
            raise typer.Exit(stop_code(terminated)) from None
    print_reports(reports, json_out, untexted_hint(chosen))
    if any(report.status == "failed" for report in reports):
        raise typer.Exit(1)


def _ingest_all(
    pipeline: IngestPipeline,
    files: list[Path],
    graph_store: GraphStore,
    quiet: bool,
    replace: bool,
    terminated: list[int],
) -> list[IngestReport]:
    """Every file through ``pipeline`` (:func:`ingest_batch`), a progress line per document (several
    at once with workers); a SIGTERM in ``terminated`` is raised again as the next stage starts."""
    for note in pipeline.notes:
        err_console.print(f"[dim]note: {note}[/]", highlight=False)
    if pipeline.tasks.workers > 1:
        err_console.print(f"[dim]{pipeline.tasks.workers} workers[/]", highlight=False)
    with _progress(quiet=quiet) as progress, graph_store.fulltext_refresh_deferred():
        overall = progress.add_task("documents", total=len(files))

        def row(path: Path) -> ProgressFn:
            task = progress.add_task(path.name, total=None)

            def update(stage: str, done: int, total: int) -> None:
                if stage not in OUTCOMES:  # a document that ended is reported
                    raise_if_terminated(terminated)
                progress.update(task, completed=done, total=total, description=stage_description(path.name, stage))
                if stage in OUTCOMES:
                    progress.advance(overall)

            return update

        def finishing(paths: list[Path]) -> None:
            if paths:
                names = ", ".join(path.name for path in paths)
                err_console.print(
                    f"stopping: finishing the documents under way first: {names} "
                    "(Ctrl-C or SIGTERM again to stop now: each is written whole or not at all)",
                    markup=False,
                )

        reports = ingest_batch(pipeline, graph_store, files, replace=replace, progress=row, finishing=finishing)
    return reports


def stage_description(name: str, stage: str) -> str:
    """A document's progress line, ``manual.pdf [embed]``, its counts beside it (pages read, regions
    embedded); escaped, since rich would take ``[embed]`` for markup and show nothing of it."""
    return escape(f"{name} [{stage}]")


def _describe(graph_store: GraphStore, settings: Settings, report: IngestReport) -> None:
    """Vision descriptions for the document just ingested; a failure is reported on the document."""
    try:
        described = describe_document(graph_store, settings, report.doc_id)
    except DocgraphError as exc:
        report.stats["describe_error"] = str(exc)
        return
    report.stats["described_regions"] = len(described.described)
    report.stats["describe_failed"] = len(described.failed)


def _progress(quiet: bool) -> Progress:
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err_console,
        disable=quiet,
        transient=False,
    )


@handles_errors
def delete_command(
    docs: Annotated[list[str] | None, typer.Argument(help="Document ids (or file names).", metavar="DOC...")] = None,
    every: Annotated[bool, typer.Option("--all", help="Delete every document of the store.")] = False,
    json_out: JsonOption = False,
    store: StoreOption = None,
) -> None:
    """Delete documents and everything under them (--json: an object, a list of them for several or --all)."""
    if every and docs:
        raise ConfigError("delete takes the documents to delete (ids or file names) or --all, not both")
    if not every and not docs:
        raise ConfigError("delete needs the documents to delete (ids or file names), or --all for every one")
    # on FalkorDB a delete rebuilds the full-text indexes (seconds per 10,000 regions) and rewrites the
    # local server's append-only file (seconds per GB): once for all the documents named
    with opened_store(store) as (graph_store, settings):
        named = docs or [str(row["doc_id"]) for row in list_documents(graph_store)]
        shown = ", ".join(named) if len(named) <= 3 else f"{len(named)} documents"
        progress = nullcontext() if json_out or not named else err_console.status(f"deleting {shown}")
        files_dir, page_cache = kept_copies_dir(settings.home, graph_store), page_cache_dir(settings.home, graph_store)
        with progress:
            results, failure = delete_documents(graph_store, named, files_dir, page_cache) if named else ([], None)
    if not named and not json_out:
        err_console.print("no documents in the store: nothing deleted")
    if json_out and (results or every):
        print_json(results[0].to_json() if len(named) == 1 and not every else [one.to_json() for one in results])
    for one in [] if json_out else results:
        console.print(f"deleted {one.doc_id}: {one.deleted_nodes} nodes")
        if one.note:
            err_console.print(f"note: {one.note}")
    if failure is not None:  # after the documents it did delete are reported
        raise failure


@handles_errors
def relink_command(
    k: Annotated[
        int | None,
        typer.Option(
            "--k",
            min=0,
            help="Neighbours per region in the other documents (default DOCGRAPH_SIMILARITY_CORPUS_K); "
            "0 removes every link between documents.",
        ),
    ] = None,
    min_score: Annotated[
        float | None,
        typer.Option("--min-score", min=-1.0, max=1.0, help="Least cosine (default DOCGRAPH_SIMILARITY_CORPUS_MIN)."),
    ] = None,
    json_out: JsonOption = False,
    store: StoreOption = None,
) -> None:
    """Recompute the IS_SIMILAR links between documents for the whole store, whatever the order of ingest."""
    with opened_store(store) as (graph_store, settings):
        neighbours = settings.similarity_corpus_k if k is None else k
        if neighbours == 0 and k is None:
            raise ConfigError(
                "relink needs --k K (0 removes every link between documents) or DOCGRAPH_SIMILARITY_CORPUS_K"
            )
        least = settings.similarity_corpus_min if min_score is None else min_score
        with stage_progress() as progress:
            report = relink_corpus(graph_store, neighbours, least, progress=progress)
    if json_out:
        print_json(report.to_json())
    else:
        console.print(
            f"relinked {report.documents} documents ({report.regions} regions, k={report.k}, "
            f"min {report.min_score}): {report.links_before} -> {report.links_after} links between documents"
            + (f" ({report.passes} passes: documents changed while it ran)" if report.passes > 1 else ""),
            highlight=False,
        )


SOURCE_KEYS = ("source_path", "sha256", "build", "source_found")  # in --json; the table keeps to the listing


@handles_errors
def documents_command(json_out: JsonOption = False, store: StoreOption = None) -> None:
    """List the documents in the store."""
    with opened_store(store) as (graph_store, _):
        rows = documents_with_sources(graph_store)
        if not rows:
            note_other_graphs(graph_store)
    if json_out:
        print_json(rows)
        return
    print_rows([{key: row[key] for key in row if key not in SOURCE_KEYS} for row in rows], title="Documents")
    gone = [str(row["doc_id"]) for row in rows if row["source_found"] is False]
    if gone:
        err_console.print(
            f"note: {len(gone)} document(s) were read from a file that is gone: {', '.join(gone)} "
            "(`docgraph documents --json` gives each source_path)",
            markup=False,
        )


@handles_errors
def render_command(
    doc: Annotated[str, typer.Argument(help="Document id (or file name).")],
    page: Annotated[int, typer.Argument(help="Page number (1-based).")],
    out: Annotated[Path, typer.Option("--out", "-o", help="PNG file to write.")] = Path("page.png"),
    dpi: Annotated[int, typer.Option("--dpi", min=1, max=1200, help="Resolution (huge pages at less).")] = 110,
    json_out: JsonOption = False,
    store: StoreOption = None,
) -> None:
    """Render a page with its regions' boxes drawn in (colour = kind, label = order:kind)."""
    from docgraph.app.jobs.render import render_page

    if out.suffix.lower() != ".png" or out.is_dir():
        raise typer.BadParameter(f"--out {out} is not a .png file")
    with opened_store(store) as (graph_store, settings):
        document = find_document(graph_store, doc)
        regions = page_regions(graph_store, str(document["doc_id"]), page)
        turn = page_turn(graph_store, str(document["doc_id"]), page)
        pdf = locate_pdf(document, kept_copies_dir(settings.home, graph_store))
    render_page(pdf, page, regions, out, dpi=dpi, turn=turn)
    if json_out:
        print_json({"doc_id": document["doc_id"], "page": page, "regions": len(regions), "out": str(out)})
    else:
        console.print(f"wrote {out} ({len(regions)} regions on page {page})")

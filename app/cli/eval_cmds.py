"""Measuring commands: eval (page recall per variant) and bench (ingest speed, query latency)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from docgraph.app.cli.common import (
    JsonOption,
    StoreOption,
    console,
    err_console,
    handles_errors,
    opened_store,
    print_json,
    settings_for,
    stage_progress,
)
from docgraph.app.config import Settings
from docgraph.app.evaluation.metrics import SCOPES
from docgraph.app.pipeline.embedding import configured_encoder
from docgraph.app.pipeline.source_files import expand_paths
from docgraph.app.resources import SAMPLES_DIR
from docgraph.app.retrieval.registry import EVAL_VARIANTS, RETRIEVER_NAMES
from docgraph.app.stores.base import GraphStore
from docgraph.app.stores.temporary import temporary_local_store
from docgraph.errors import ConfigError, LLMRequestError

if TYPE_CHECKING:
    from docgraph.app.evaluation.runner import EvalReport

VariantOption = Annotated[
    list[str] | None,
    typer.Option(
        "--variant",
        help=f"Retriever variant to score, repeatable: {', '.join(RETRIEVER_NAMES)} "
        f"(default: {', '.join(EVAL_VARIANTS)}).",
    ),
]


@contextmanager
def eval_store(store: str | None) -> Iterator[tuple[GraphStore, Settings]]:
    """The store named by --store, else a fresh temporary local one that is removed afterwards."""
    settings = settings_for(store)
    if store:
        with opened_store(store, schema=True) as opened:
            yield opened
        return

    with temporary_local_store(settings) as temporary:
        yield temporary, settings


@handles_errors
def eval_command(
    questions: Annotated[Path, typer.Argument(help="questions.jsonl")],
    docs: Annotated[Path, typer.Option("--docs", help="Folder with the PDFs the questions name.")],
    variant: VariantOption = None,
    baseline: Annotated[
        str | None,
        typer.Option(
            "--baseline",
            help="Also compare every variant with this one question by question "
            "(won/lost questions, exact McNemar p-value); scored even when not a --variant.",
        ),
    ] = None,
    misses: Annotated[
        bool,
        typer.Option(
            "--misses",
            help="Also list, per variant, the questions whose gold page was not ranked first "
            "(gold pages, the pages ranked instead, the gold page's rank, and how far it trailed the "
            "first page in each signal).",
        ),
    ] = False,
    scope: Annotated[
        str,
        typer.Option(
            "--scope",
            help="document: each question asked inside its own document; corpus: of the whole store "
            "(a hit needs the right document and page); both: side by side.",
        ),
    ] = "document",
    distractors: Annotated[
        list[Path] | None,
        typer.Option(
            "--distractors",
            help="More PDFs (files or folders, repeatable) ingested into the evaluation store beside "
            "the questions' documents, for --scope corpus.",
        ),
    ] = None,
    answers: Annotated[
        bool,
        typer.Option(
            "--answers",
            help="Also run the whole ask path per question: evidence recall, context recall at 100/200/400 "
            "words, context words before the gold page, answer accuracy and F1, citation precision.",
        ),
    ] = False,
    json_out: JsonOption = False,
    store: StoreOption = None,
) -> None:
    """Page Recall@1/3/5 per retriever variant and per question type, per document or across the store."""
    from docgraph.app.evaluation.runner import run_eval_scopes

    scopes = list(SCOPES) if scope == "both" else [scope]
    if not set(scopes) <= set(SCOPES):
        raise ConfigError(f"--scope {scope!r}: choose document, corpus or both")
    if distractors and "corpus" not in scopes:  # they would be ingested and never asked of
        raise typer.BadParameter("--distractors are for --scope corpus (or both)")
    with eval_store(store) as (graph_store, settings), stage_progress() as progress:
        encoder = configured_encoder(settings)
        reports = run_eval_scopes(
            questions,
            docs,
            variant,
            graph_store,
            encoder,
            progress,
            settings,
            baseline,
            scopes,
            distractors or (),
            answers,
        )
    _warn_of_answers(reports)
    if json_out:
        data = {name: report.to_json(misses) for name, report in reports.items()}
        print_json(data[scopes[0]] if len(scopes) == 1 else {"scopes": data})
        return
    _print_reports(reports, misses, temporary=not store)


def _warn_of_answers(reports: dict[str, EvalReport]) -> None:
    """On stderr (under --json too): answers the LLM endpoint refused, or fell back to quoting the
    documents; a run whose every answer was refused measured nothing and fails, as eval-cypher's does."""
    from docgraph.app.evaluation.answers import error_warning, fallback_warning

    answered = [outcomes for report in reports.values() for outcomes in report.answers.values()]
    if answered and all(o.error for outcomes in answered for o in outcomes):
        first = next(o.error for outcomes in answered for o in outcomes)
        raise LLMRequestError(f"nothing measured: the LLM endpoint answered no question (first: {first})")
    for report in reports.values():
        for variant, outcomes in report.answers.items():
            for warning in (error_warning(variant, outcomes), fallback_warning(variant, outcomes)):
                if warning is not None:
                    err_console.print(f"warning: {warning}", style="yellow", markup=False)


def _print_reports(reports: dict[str, EvalReport], misses: bool, temporary: bool) -> None:
    from docgraph.app.evaluation.runner import (
        format_answers,
        format_ingested,
        format_misses,
        format_scopes,
        format_table,
    )

    def show(text: str) -> None:
        console.print(text, markup=False, highlight=False, soft_wrap=True)  # rows wider than 80

    first = next(iter(reports.values()))
    ingested = format_ingested(first, temporary)
    if ingested:
        show(ingested + "\n")
    if len(reports) > 1:
        show(format_scopes(reports) + "\n")
    for report in reports.values():
        show(format_table(report) + "\n")
        if report.answers:
            show(format_answers(report) + "\n")
        if misses:
            show(format_misses(report) + "\n")


@handles_errors
def bench_command(
    docs: Annotated[list[Path] | None, typer.Option("--docs", help="PDFs or folders (default: the sample).")] = None,
    variant: VariantOption = None,
    queries: Annotated[int, typer.Option("--queries", min=1, help="Queries timed per variant.")] = 100,
    workers: Annotated[
        str | None,
        typer.Option(
            "--workers",
            help="Time ingest alone with each of these worker counts (e.g. 1,2,4), each into a fresh store: "
            "pages/s, speed-up, efficiency, peak memory.",
        ),
    ] = None,
    no_ingest: Annotated[
        bool,
        typer.Option(
            "--no-ingest",
            help="Time queries on the --store as it is, without ingesting --docs (their questions.jsonl "
            "still gives queries).",
        ),
    ] = False,
    json_out: JsonOption = False,
    store: StoreOption = None,
) -> None:
    """Ingest into a fresh store, then time queries per variant (p50/p95), asked of the whole store and
    inside one document; or, with --workers, ingest alone with each worker count."""
    from docgraph.app.evaluation.bench import run_bench

    paths = docs or [SAMPLES_DIR / "docgraph-sample.pdf"]
    if workers is not None:
        if variant or no_ingest:  # --workers times ingest alone
            raise typer.BadParameter("--workers times ingest alone: it takes no --variant or --no-ingest")
        _bench_workers(paths, worker_counts(workers), json_out)
        return
    with eval_store(store) as (graph_store, settings), stage_progress() as progress:
        encoder = configured_encoder(settings)
        if no_ingest and not store:
            raise ConfigError("--no-ingest times a store as it is: name it with --store")
        report = run_bench(paths, graph_store, encoder, variant, queries, progress, settings, ingest=not no_ingest)
    if json_out:
        print_json(report.to_json())
    else:
        _print_bench(report.to_json())


def worker_counts(text: str) -> list[int]:
    try:
        counts = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        counts = []
    if not counts or min(counts) < 1:
        raise typer.BadParameter(f"--workers takes counts of at least 1, such as 1,2,4 (not {text!r})")
    return counts


def _bench_workers(paths: list[Path], counts: list[int], json_out: bool) -> None:
    from docgraph.app.evaluation.scaling import format_scaling, run_scaling

    files = expand_paths(paths)
    if not files:
        raise ConfigError("no PDF found in the given paths")
    settings = settings_for(None)
    note = None if json_out else (lambda text: err_console.print(f"[dim]{text}[/]", highlight=False))
    report = run_scaling(files, settings, counts, note).to_json()
    if json_out:
        print_json(report)
        return
    console.print(format_scaling(report), markup=False, highlight=False, soft_wrap=True)


def _print_bench(report: dict[str, Any]) -> None:
    ingest = report["ingest"]
    if ingest is not None:
        stages = ", ".join(f"{name} {seconds:.1f}s" for name, seconds in ingest["stages"].items())
        speed = f"{ingest['pages_per_second']:.1f} pages/s"
        console.print(f"ingest: {ingest['pages']} pages in {ingest['seconds']:.1f}s = {speed} ({stages})")
    console.print(f"queries on a store of {report['stored_pages']} pages:")
    for scope, key in (("whole store", "query"), ("one document", "query_in_document")):
        for name, timing in report[key].items():
            cells = f"n={timing['n']} p50={timing['p50_ms']:.1f} ms p95={timing['p95_ms']:.1f} ms"
            console.print(f"  {name} ({scope}): {cells}")
    console.print(f"peak RSS: {report['peak_rss_mb']} MB")


@handles_errors
def eval_cypher_command(
    questions: Annotated[Path, typer.Argument(help="Questions with gold queries (JSON lines).")],
    docs: Annotated[
        Path | None,
        typer.Option("--docs", help="PDFs (a file or folder) ingested first: into a temporary store, or --store's."),
    ] = None,
    json_out: JsonOption = False,
    store: StoreOption = None,
) -> None:
    """Text-to-Cypher execution accuracy, first-try validity, tries and tokens (needs an LLM endpoint)."""
    from docgraph.app.evaluation.corpus_ingest import ensure_ingested
    from docgraph.app.evaluation.cypher_bench import (
        cypher_summary,
        empty_gold_warning,
        gold_rows,
        load_cypher_questions,
        run_cypher_bench,
        unanswered_warning,
    )
    from docgraph.app.llm.client import make_client

    loaded = load_cypher_questions(questions)
    if docs is None and store is None:  # the temporary store would be empty: every gold row would be missed
        raise ConfigError("eval-cypher needs --docs (ingested into a temporary store) or --store (a stored corpus)")
    with eval_store(store) as (graph_store, settings), stage_progress() as progress:
        client = make_client(settings)  # no endpoint: refused before any ingest
        if docs is not None:
            ensure_ingested(expand_paths([docs]), graph_store, configured_encoder(settings), settings, progress)
        golds = [gold_rows(question, graph_store) for question in loaded]  # before the model is asked anything
        empty = empty_gold_warning(loaded, golds)
        outcomes = run_cypher_bench(loaded, golds, graph_store, settings, client, progress)
    summary = cypher_summary(outcomes)
    warning = unanswered_warning(outcomes)
    if warning is not None and all(o.unanswered for o in outcomes):
        raise LLMRequestError(f"nothing measured: {warning}")
    for said in (empty, None if warning is None else f"{warning}; they count as wrong"):
        if said is not None:  # on stderr under --json too: the numbers need it
            err_console.print(f"warning: {said}", style="yellow", markup=False)
    if json_out:
        print_json({"model": settings.llm_model, "summary": summary, "questions": [o.to_json() for o in outcomes]})
        return
    console.print(f"text-to-Cypher with {settings.llm_model}", highlight=False, markup=False)
    console.print("type            n  execution  first-try valid  valid  tries  tokens  unanswered", highlight=False)
    for name, row in summary.items():
        console.print(
            f"{name:<12} {row['n']:>4} {100 * row['execution_accuracy']:9.1f} {100 * row['first_try_valid']:16.1f}"
            f" {100 * row['valid']:6.1f} {row['mean_tries']:6.2f} {row['tokens']:7} {row['unanswered']:11}",
            highlight=False,
        )

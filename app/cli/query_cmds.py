"""Commands that query the graph: ask, text2cypher, describe."""

from __future__ import annotations

from typing import Annotated

import typer

from docgraph.app.cli.common import (
    CliState,
    JsonOption,
    StoreOption,
    TerminalStream,
    console,
    err_console,
    fail,
    handles_errors,
    note_other_graphs,
    opened_store,
    print_json,
    print_rows,
    terminal_text,
)
from docgraph.app.jobs.documents import find_document, list_documents
from docgraph.app.llm.client import llm_status
from docgraph.app.llm.service import ASK_K, NO_DOCUMENTS, ask, check_question, describe_document, text2cypher
from docgraph.app.llm.uncertainty import shows_kept_answer
from docgraph.app.pipeline.embedding import configured_encoder
from docgraph.app.retrieval.registry import RETRIEVER_NAMES, make_retriever
from docgraph.errors import LLMRequestError, LLMUnavailableError, Text2CypherError

KOption = Annotated[int, typer.Option("--k", help="How many evidence regions to retrieve.")]
DocOption = Annotated[str | None, typer.Option("--doc", help="Restrict to one document (id or file name).")]
RetrieverOption = Annotated[str, typer.Option("--retriever", help=f"Retriever variant: {', '.join(RETRIEVER_NAMES)}.")]


@handles_errors
def ask_command(
    question: Annotated[str, typer.Argument(help="The question.")],
    doc: DocOption = None,
    k: KOption = ASK_K,
    retriever: RetrieverOption = "hybrid",
    cypher_route: Annotated[bool, typer.Option("--cypher", help="Answer through text-to-Cypher.")] = False,
    json_out: JsonOption = False,
    store: StoreOption = None,
) -> None:
    """Answer a question with citations to document, page and region (extractive without an LLM)."""
    check_question(question)  # before the notes about the LLM and the store
    with opened_store(store) as (graph_store, settings):  # reads only: a read-only account may ask
        doc_id = str(find_document(graph_store, doc)["doc_id"]) if doc else None
        status = [] if json_out else [line for line in [llm_status(settings)] if line]
        chosen = make_retriever(retriever, graph_store, configured_encoder(settings), settings=settings)
        streamed: list[str] = []
        safe = TerminalStream()

        def note_status() -> None:  # with the answer, not before an error that ends the command
            while status:
                err_console.print(f"[dim]{status.pop()}[/]", highlight=False)

        def stream(piece: str) -> None:
            note_status()
            streamed.append(piece)
            safe.write(piece)

        try:
            result = ask(
                question,
                graph_store,
                settings,
                chosen,
                k=k,
                doc_id=doc_id,
                force_cypher=cypher_route,
                stream_callback=None if json_out else stream,
            )
        except KeyboardInterrupt:  # the reply is stopped (its stream closed); the line it was on ends
            if streamed:
                safe.end_line()
            err_console.print("interrupted: the answer above is cut off" if streamed else "interrupted", markup=False)
            raise typer.Exit(130) from None
        if result.answer == NO_DOCUMENTS:
            note_other_graphs(graph_store)
    if json_out:
        print_json(result.to_json())
        return
    note_status()
    if streamed:
        safe.end_line()
        shown_checked = shows_kept_answer("".join(streamed), result.answer)
        if result.removed_citations and not shown_checked:  # the stream showed them; the answer kept is without
            removed = ", ".join(f"[{tag}]" for tag in result.removed_citations)
            notice = f"\n(removed citations of passages the model was not shown: {removed}; the answer as checked:)"
            console.print(terminal_text(notice), style="dim", markup=False, highlight=False)
            console.print(terminal_text(result.answer), markup=False, highlight=False)
    else:
        console.print(terminal_text(result.answer), markup=False, highlight=False)
    if result.llm_fallback and result.llm_fallback not in "".join(streamed):  # the stream said so already
        err_console.print(f"note: {result.llm_fallback}: the answer quotes the documents", style="dim", markup=False)
    _print_trace(result.route, result.cypher, result.mode)
    _print_evidence([p.to_json() for p in result.evidence])


def _print_trace(route: str, cypher: str | None, mode: str) -> None:
    console.print(f"\n[dim]route: {route} · answer: {mode}[/]")
    if cypher:
        console.print("[dim]cypher:[/]")
        console.print(terminal_text(cypher), markup=False, highlight=False)


def _print_evidence(evidence: list[dict[str, object]]) -> None:
    if not evidence:
        return
    console.print("[bold]evidence[/]")
    for index, item in enumerate(evidence, 1):
        text = terminal_text(" ".join(str(item.get("text", "")).split()))
        short = text if len(text) <= 240 else text[:239] + "…"
        kind = f"{item['kind']}, OCR" if item.get("ocr") else item["kind"]
        console.print(
            f"{index}. [{item['doc_id']} p.{item['page']} #{item['region_id']}] ({kind}) {short}",
            markup=False,
            highlight=False,
        )


@handles_errors
def text2cypher_command(
    question: Annotated[str, typer.Argument(help="A question about the graph.")],
    run: Annotated[bool, typer.Option("--run", help="Run the query (read-only) and print its rows.")] = False,
    json_out: JsonOption = False,
    store: StoreOption = None,
) -> None:
    """Show the read-only Cypher query an LLM writes for a question (needs an LLM endpoint)."""
    with opened_store(store) as (graph_store, settings):
        try:
            result = text2cypher(question, graph_store, settings, run=run)
        except (Text2CypherError, LLMUnavailableError, LLMRequestError) as error:
            if CliState.debug:
                raise
            attempts = error.attempts if isinstance(error, Text2CypherError) else []
            fail(str(error), details={"question": question, "attempts": attempts})  # what was tried, under --json
    if json_out:
        print_json(result.to_json())
        return
    console.print(terminal_text(result.cypher), markup=False, highlight=False)
    if run:
        print_rows(result.rows or [])


@handles_errors
def describe_command(
    doc: DocOption = None,
    redo: Annotated[bool, typer.Option("--redo", help="Describe regions that already have a description.")] = False,
    json_out: JsonOption = False,
    store: StoreOption = None,
) -> None:
    """Describe figures and tables with the vision model (DOCGRAPH_VLM_MODEL) and re-embed them."""
    with opened_store(store, schema=True) as (graph_store, settings):
        targets = [doc] if doc else [str(row["doc_id"]) for row in list_documents(graph_store)]
        reports = [describe_document(graph_store, settings, target, redo=redo) for target in targets]
    if json_out:
        print_json([report.to_json() for report in reports])
    else:
        for report in reports:
            described, failed = len(report.described), len(report.failed)
            console.print(
                f"{report.doc_id}: {described} described, {failed} failed, {report.seconds:.1f}s", highlight=False
            )
            for region_id, why in report.failed.items():
                err_console.print(f"  {region_id}: {terminal_text(why)}", highlight=False, markup=False)
    if any(report.failed for report in reports):  # as ingest does when a file fails: the rest is kept
        raise typer.Exit(1)

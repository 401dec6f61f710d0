"""Entry point of the ``docgraph`` command: registers the commands of each area."""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated, Any

import typer
from typer._click.core import Context  # typer 0.29 vendors click: its own classes, not click's
from typer._click.exceptions import NoArgsIsHelpError, UsageError
from typer._click.globals import get_current_context
from typer.core import TyperGroup

from docgraph.app.cli import (
    eval_cmds,
    ingest_cmds,
    key_cmds,
    mcp_cmds,
    model_cmds,
    query_cmds,
    serve_cmds,
    store_cmds,
    ui_cmds,
)
from docgraph.app.cli.common import CliState, fail, json_asked, usage_error_line


class OneLineUsageErrors(TyperGroup):
    """A mistyped option, argument or command is one ``error:`` line and exit 2, as every other
    bad input is, instead of click's usage block in a box."""

    def make_context(
        self, info_name: str | None, args: list[str], parent: Context | None = None, **extra: Any
    ) -> Context:
        if parent is None:  # the whole command line: whether its errors are JSON too
            CliState.json_errors, CliState.json_printed = json_asked(args), False
        with _usage_errors_in_one_line():
            return super().make_context(info_name, args, parent=parent, **extra)

    def invoke(self, ctx: Context) -> Any:
        with _usage_errors_in_one_line():
            return super().invoke(ctx)


@contextmanager
def _usage_errors_in_one_line() -> Iterator[None]:
    try:
        yield
    except NoArgsIsHelpError:  # a bare `docgraph` or group: the help, as before
        raise
    except UsageError as exc:
        fail(usage_error_line(exc.format_message(), exc.ctx or _subcommand_context()), code=exc.exit_code)


def _subcommand_context() -> Context | None:
    """The context of the command whose options were being read when an error came without one
    (click's "Option '--k' requires an argument"): the group's, named after its subcommand."""
    group = get_current_context(silent=True)
    if group is None or not group.invoked_subcommand or not isinstance(group.command, TyperGroup):
        return group
    command = group.command.get_command(group, group.invoked_subcommand)
    return group if command is None else Context(command, parent=group, info_name=group.invoked_subcommand)


app = typer.Typer(
    cls=OneLineUsageErrors,
    name="docgraph",
    help="Layout-aware document-graph RAG: ingest PDFs into a graph, then search and ask.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)


SERVERS = ("serve", "mcp", "ui")  # long-running: the driver's warnings (retries) are their log


@app.callback()
def root(
    ctx: typer.Context,
    debug: Annotated[bool, typer.Option("--debug", help="Show tracebacks on errors.")] = False,
) -> None:
    if debug:
        CliState.debug = True
        os.environ["DOCGRAPH_DEBUG"] = "1"  # for the worker processes too
    show_model_notes()
    quiet_library_logs(debug or ctx.invoked_subcommand in SERVERS)


class _StderrNotes(logging.Handler):
    """Writes to whatever ``sys.stderr`` is at the time: a test runner swaps it per invocation."""

    def emit(self, record: logging.LogRecord) -> None:
        sys.stderr.write(f"note: {record.getMessage()}\n")


def show_model_notes() -> None:
    """One-off model work (an encoder's ONNX export) says what it is doing, on stderr."""
    logger = logging.getLogger("docgraph.models")
    if not any(isinstance(handler, _StderrNotes) for handler in logger.handlers):
        logger.addHandler(_StderrNotes())
        logger.setLevel(logging.INFO)


def quiet_library_logs(keep: bool) -> None:
    """The Neo4j driver logs why it failed (through Python's last-resort handler: a bare line on
    stderr) and then raises it, which a command reports in its one error line; MuPDF's messages
    about a damaged PDF ("unhandled font type ''", eight times) came before the one line saying
    the file is damaged. ``keep`` (--debug, a server) leaves their logs alone."""
    for name in ("neo4j", "pymupdf"):
        logger = logging.getLogger(name)
        if not keep and not logger.handlers:
            logger.addHandler(logging.NullHandler())


app.command("cypher")(store_cmds.cypher_command)
app.command("stats")(store_cmds.stats_command)
app.command("schema")(store_cmds.schema_command)
app.add_typer(store_cmds.store_app, name="store", cls=OneLineUsageErrors)
app.command("ingest")(ingest_cmds.ingest_command)
app.command("delete")(ingest_cmds.delete_command)
app.command("relink")(ingest_cmds.relink_command)
app.command("documents")(ingest_cmds.documents_command)
app.command("render")(ingest_cmds.render_command)
app.command("ask")(query_cmds.ask_command)
app.command("text2cypher")(query_cmds.text2cypher_command)
app.command("describe")(query_cmds.describe_command)
app.command("eval")(eval_cmds.eval_command)
app.command("bench")(eval_cmds.bench_command)
app.command("eval-cypher")(eval_cmds.eval_cypher_command)
app.command("serve")(serve_cmds.serve_command)
app.add_typer(key_cmds.keys_app, name="keys", cls=OneLineUsageErrors)
app.command("mcp")(mcp_cmds.mcp_command)
app.command("ui")(ui_cmds.ui_command)
app.command("train-layout")(model_cmds.train_layout_command)
app.command("train-gnn")(model_cmds.train_gnn_command)
app.command("train-reranker")(model_cmds.train_reranker_command)
app.command("calibrate-uncertainty")(model_cmds.calibrate_uncertainty_command)
app.command("reembed")(model_cmds.reembed_command)


def main() -> None:
    app(prog_name="docgraph")


if __name__ == "__main__":
    main()

"""Options, store opening, output and error handling shared by every command."""

from __future__ import annotations

import functools
import json
import math
import os
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Annotated, Any, NoReturn, ParamSpec, TypeVar

import typer
from rich.console import Console
from rich.measure import Measurement
from rich.progress import Progress, TaskID
from rich.table import Table
from rich.text import Text
from typer._click.core import Context  # typer 0.29 vendors click: its own classes, not click's
from typer._click.globals import get_current_context

from docgraph.app.config import Settings, load_settings
from docgraph.app.stores.base import GraphStore
from docgraph.app.stores.factory import apply_schema_if_allowed, open_store
from docgraph.app.stores.falkordb_server import server_paths
from docgraph.app.stores.results import finite_numbers
from docgraph.app.stores.url import parse_store_url
from docgraph.errors import ConfigError, DocgraphError, UnknownDocumentError

StoreOption = Annotated[
    str | None,
    typer.Option("--store", help="Store URL: falkordb-local://PATH, falkordb://HOST:PORT, neo4j://…, bolt://…"),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON.")]


PIPED_TABLE_MAX_WIDTH = 2000  # a table to a pipe or a file is as wide as its cells (each cut at 160) need
PLAIN_NUMBERS = (1e-4, 1e15)  # floats in this range print without an exponent


class LineConsole(Console):
    """Rich's console, except that to a pipe or a file it leaves each line of text whole: Rich wraps
    at 80 columns there, which broke one-line errors and reports in two for grep and log files
    (tables take the width they need there, see print_rows; --json is the form for programs)."""

    def print(self, *objects: Any, soft_wrap: bool | None = None, **options: Any) -> None:
        if soft_wrap is None and not self.is_terminal:
            soft_wrap = True
        super().print(*objects, soft_wrap=soft_wrap, **options)


console = LineConsole()
err_console = LineConsole(stderr=True)

P = ParamSpec("P")
R = TypeVar("R")


class CliState:
    debug: bool = bool(os.environ.get("DOCGRAPH_DEBUG"))
    json_errors: bool = False  # --json on the command line: errors are a JSON object on stdout too
    json_printed: bool = False  # the command's JSON is out already: its error stays on stderr alone


def json_asked(args: Sequence[str]) -> bool:
    """Whether a command line asks for JSON: ``--json`` among its options (not after ``--``)."""
    options = args[: list(args).index("--")] if "--" in args else args
    return "--json" in options


def settings_for(store: str | None) -> Settings:
    return load_settings(store=store)


def server_settings(store: str | None) -> Settings:
    """The settings of a server (API, UI, MCP), with its store URL checked: a server started on a
    URL it cannot read would refuse every request instead of failing at once."""
    settings = settings_for(store)
    parse_store_url(settings.store_url, settings)
    return settings


def check_local_store_exists(settings: Settings) -> None:
    """Refuse a local store named explicitly (``--store``, ``DOCGRAPH_STORE``) that holds nothing yet:
    a command that only reads it would make a new, empty store there (a mistyped path) and leave a
    server running on it. Ingesting makes one; the data home's own store is made on first use."""
    target = parse_store_url(settings.store_url, settings)
    local = target.path if settings.store and target.kind == "falkordb-local" else None
    if local is not None and not server_paths(local).data_dir.is_dir():
        raise ConfigError(f"no docgraph store at {local}: check the path (ingesting makes one there)")


@contextmanager
def opened_store(store: str | None, schema: bool = False) -> Iterator[tuple[GraphStore, Settings]]:
    """Open the configured store, and close it afterwards.

    ``schema``: apply constraints and indexes first, for commands that write. Reading commands leave
    it out, so they work with a read-only database account.
    """
    settings = settings_for(store)
    if not schema:
        check_local_store_exists(settings)
    graph_store = open_store(settings)
    try:
        yield (apply_schema_if_allowed(graph_store) if schema else graph_store), settings
    finally:
        graph_store.close()


def note_other_graphs(graph_store: GraphStore) -> None:
    """When the graph read holds no documents, name the server's graphs that do (on stderr): a
    mistyped graph name reads a new, empty graph, since FalkorDB makes one on first use."""
    from docgraph.app.jobs.documents import holds_documents
    from docgraph.app.stores.falkordb_store import FalkorDBStore

    if not isinstance(graph_store, FalkorDBStore) or holds_documents(graph_store):
        return
    others = graph_store.graphs_with_documents()
    if others:
        err_console.print(
            f"note: graph {graph_store.graph_name!r} holds no documents; on this server "
            f"{', '.join(map(repr, others))} {'does' if len(others) == 1 else 'do'} "
            "(choose with DOCGRAPH_GRAPH, or --store URL?graph=NAME)",
            markup=False,
        )


@contextmanager
def stage_progress() -> Iterator[Callable[[str, int, int], None]]:
    """A progress callback ``(stage, done, total)`` that shows a bar per stage on a terminal's stderr,
    with --json too (stdout holds the JSON); to a pipe or a file Rich draws no bars, and its closing
    left a blank line before what followed."""
    with Progress(console=err_console, disable=not err_console.is_terminal, transient=True) as bar:
        tasks: dict[str, TaskID] = {}

        def update(stage: str, done: int, total: int) -> None:
            kind = stage.split(" ", 1)[0]  # "ingest a.pdf", then "ingest b.pdf": one bar that goes on, named anew
            if kind not in tasks:
                tasks[kind] = bar.add_task(stage, total=total or None)
            bar.update(tasks[kind], completed=done, total=total or None, description=stage)

        yield update


def handles_errors(func: Callable[P, R]) -> Callable[P, R]:
    """Turn docgraph errors into one line on stderr and exit 1; tracebacks only with --debug."""

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return func(*args, **kwargs)
        except (typer.Exit, typer.Abort):
            raise
        except KeyboardInterrupt:  # Typer's own exit 130 says nothing; a command that says more catches it first
            if CliState.debug:
                raise
            err_console.print("interrupted", markup=False)
            print_json_error("interrupted", 130)
            raise typer.Exit(130) from None
        except typer.BadParameter as exc:  # raised in a command's body: the user's input, not a crash
            if CliState.debug:
                raise
            fail(usage_error_line(exc.format_message(), exc.ctx), code=2)
        except DocgraphError as exc:
            if CliState.debug:
                raise
            fail(f"{exc} (see `docgraph documents`)" if isinstance(exc, UnknownDocumentError) else str(exc))
        except Exception as exc:
            if CliState.debug:
                raise
            fail(f"{type(exc).__name__}: {exc} (run with --debug for the traceback)")

    return wrapper


def usage_error_line(message: str, ctx: Context | None) -> str:
    """A usage error's message with where to read the command's usage: ``ctx``'s command, else the
    command running."""
    ctx = ctx or get_current_context(silent=True)
    return message.rstrip(".") + (f" (see '{ctx.command_path} --help')" if ctx is not None else "")


def fail(message: str, code: int = 1, details: dict[str, Any] | None = None) -> NoReturn:
    """One error line: the message as text (not Rich markup: a query quoted in it may hold "[/x]"),
    without escape sequences (a database may quote them back from a query). Under --json the same
    message, with ``details``, is also a JSON object on stdout, for a program reading it."""
    message = re.sub(r"\s*\n\s*", " ", message.strip())  # a server's or database's text may run over lines
    line = Text.assemble(("error:", "bold red"), " ", terminal_text(message))
    err_console.print(line, highlight=False, soft_wrap=True)
    print_json_error(message, code, details)
    raise typer.Exit(code)


def print_json_error(message: str, code: int, details: dict[str, Any] | None = None) -> None:
    """``{"error": message, "exit_code": code, **details}`` as one line on stdout, under --json."""
    if CliState.json_errors and not CliState.json_printed:  # one JSON document on stdout, never two
        record = {**(details or {}), "error": message, "exit_code": code}
        sys.stdout.write(json.dumps(finite_numbers(record), default=_json_default, ensure_ascii=False) + "\n")
        sys.stdout.flush()


def print_json(value: Any) -> None:
    """``value`` as strict JSON: NaN and infinities, which JSON lacks, as null."""
    try:
        text = json.dumps(value, indent=2, default=_json_default, ensure_ascii=False, allow_nan=False)
    except ValueError:
        text = json.dumps(finite_numbers(value), indent=2, default=_json_default, ensure_ascii=False, allow_nan=False)
    sys.stdout.write(text + "\n")
    CliState.json_printed = True


def _json_default(value: Any) -> Any:
    if hasattr(value, "tolist"):  # numpy arrays and numbers
        return finite_numbers(value.tolist())
    if isinstance(value, (set, frozenset, tuple)):
        return finite_numbers(list(value))
    return str(value)


def print_rows(rows: Sequence[dict[str, Any]], title: str | None = None) -> None:
    """Rows as a table; long cell values are shortened for the terminal."""
    if not rows:
        console.print("(no rows)")
        return
    columns = list(rows[0].keys())
    table = Table(title=title, show_lines=False)
    for column in columns:  # Text, not a string: "[bold]" in a region's text is text, not Rich markup
        table.add_column(Text(str(column)), overflow="fold")
    for row in rows:
        table.add_row(*(Text(_cell(row.get(column))) for column in columns))
    if console.is_terminal:
        console.print(table)
        return
    # to a pipe or a file (80 columns for Rich), the width the cells need: a row stays on one line
    natural = Measurement.get(console, console.options.update_width(PIPED_TABLE_MAX_WIDTH), table).maximum
    Console(file=console.file, width=natural).print(table)  # print(width=) is capped at the console's


def print_counts(counts: dict[str, int], title: str, key_name: str) -> None:
    print_rows([{key_name: key, "count": value} for key, value in sorted(counts.items())], title=title)


def _cell(value: Any, limit: int = 160) -> str:
    if isinstance(value, float):
        return _number(value)
    if isinstance(value, (dict, list)):
        text = json.dumps(value, default=_json_default, ensure_ascii=False)
    else:
        text = str(value)
    text = terminal_text(text)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _number(value: float) -> str:
    """Up to 6 decimals, without trailing zeros or an exponent between 1e-4 and 1e15 (a sum of
    page widths reads 41680, a score 0.812346); the exponent form beyond, the full value in --json."""
    if not math.isfinite(value):
        return str(value)
    if value == 0 or PLAIN_NUMBERS[0] <= abs(value) < PLAIN_NUMBERS[1]:
        return f"{value:.6f}".rstrip("0").rstrip(".")
    return f"{value:.6g}"


# Terminal escape sequences (OSC: titles, hyperlinks; CSI: colours, cursor moves; DCS and the like),
# then any other C0 or C1 control character but newline and tab: text from a model or a PDF must
# not drive the reader's terminal.
_ESCAPES = re.compile(
    r"\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC ... BEL or ST
    r"|(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]"  # CSI
    r"|\x1b[P^_X][^\x1b]*(?:\x1b\\)?"  # DCS, PM, APC, SOS ... ST
    r"|\x1b[ -/]*[0-~]?"  # any other escape
)
_CONTROL = {code: None for code in [*range(0x00, 0x20), 0x7F, *range(0x80, 0xA0)] if chr(code) not in "\n\t"}


def terminal_text(text: str) -> str:
    """``text`` safe to print to a terminal: escape sequences and other control characters removed
    (newlines and tabs kept)."""
    return _ESCAPES.sub("", text).translate(_CONTROL)


_COMPLETE_ESCAPE = re.compile(
    r"\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"  # OSC, terminated
    r"|(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]"  # CSI with its final byte
    r"|\x1b[P^_X][^\x1b]*\x1b\\"  # DCS, PM, APC, SOS, terminated
    r"|\x1b[ -/]*[0-OQ-WYZ\\`-~]"  # any other escape with its final byte
)
_LONGEST_HELD = 512  # an escape sequence unfinished after this many characters is not one


class TerminalStream:
    """Streamed text made safe piece by piece: an escape sequence cut between two pieces is held
    back until it is complete, then dropped whole."""

    def __init__(self) -> None:
        self.pending = ""

    def feed(self, piece: str) -> str:
        text = self.pending + piece
        start = max(text.rfind("\x1b"), text.rfind("\x9b"))
        tail = text[start:] if start >= 0 else ""
        if tail and len(tail) < _LONGEST_HELD and not _COMPLETE_ESCAPE.match(tail):
            self.pending, text = tail, text[:start]
        else:
            self.pending = ""
        return terminal_text(text)

    def close(self) -> str:
        rest, self.pending = self.pending, ""
        return terminal_text(rest)

    def write(self, piece: str) -> None:
        """The piece's safe text, written at once: Ctrl-C landing inside Rich's buffered print
        lost the words or wrote them twice, and the line it cuts must end whole."""
        self._put(self.feed(piece))

    def end_line(self) -> None:
        self._put(self.close() + "\n")

    @staticmethod
    def _put(text: str) -> None:
        console.file.write(text)
        console.file.flush()

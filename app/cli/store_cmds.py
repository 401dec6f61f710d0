"""Commands over the store itself: cypher, stats, schema, store status/stop."""

from __future__ import annotations

import math
from typing import Annotated, Any

import typer

from docgraph.app.cli.common import (
    JsonOption,
    StoreOption,
    console,
    handles_errors,
    note_other_graphs,
    opened_store,
    print_counts,
    print_json,
    print_rows,
    settings_for,
)
from docgraph.app.jobs.documents import list_documents
from docgraph.app.llm.cypher_guard import unsupplied_parameters
from docgraph.app.stores import falkordb_server
from docgraph.app.stores.kept_copies import copies_locked, drop_unused_copies, kept_copies_dir, unused_copies
from docgraph.app.stores.query_errors import query_problem
from docgraph.app.stores.schema import load_graph_schema
from docgraph.app.stores.url import parse_store_url
from docgraph.errors import ConfigError, StoreError

store_app = typer.Typer(
    help="The local FalkorDB server that docgraph runs for you, and a health check of a FalkorDB graph.",
    no_args_is_help=True,
)


@handles_errors
def cypher_command(
    query: Annotated[str, typer.Argument(help="A Cypher query.")],
    param: Annotated[
        list[str] | None,
        typer.Option(
            "--param",
            "-p",
            help="Query parameter k=v (repeatable); v is read as JSON when it is JSON (2024 a number, [1, 2] a "
            "list, '\"2024\"' the text), else as text.",
        ),
    ] = None,
    write: Annotated[bool, typer.Option("--write", help="Allow the query to write.")] = False,
    json_out: JsonOption = False,
    store: StoreOption = None,
) -> None:
    """Run a Cypher query: read-only (enforced by the database) unless --write."""
    params = parse_params(param or [])
    if not query.strip():
        raise ConfigError("the query is empty")
    with opened_store(store, schema=write) as (graph_store, _):
        try:
            rows = graph_store.write(query, params) if write else graph_store.read(query, params)
        except StoreError as error:  # the database's text, as the UI's Cypher page says it
            readable = readable_error(str(error), query, params)
            if readable is None:
                raise
            raise type(error)(readable) from error
        if not rows:
            note_other_graphs(graph_store)
    if json_out:
        print_json(rows)
    else:
        print_rows(rows)


def readable_error(error: str, query: str, params: dict[str, Any]) -> str | None:
    """One line: where the parser stopped (``Syntax error at line 1, column 9: ...``), or which
    parameters the query uses that no --param gave; None when the database's text says it already."""
    problem = query_problem(error)
    if problem.line is not None:
        return problem.summary
    missing = unsupplied_parameters(error, query, params)
    if not missing:
        return None
    named = ", ".join(f"${name}" for name in missing)
    return f"the query uses {named}, which no --param gives (--param {missing[0]}=VALUE)"


def parse_params(pairs: list[str]) -> dict[str, Any]:
    """``k=v`` pairs; values that parse as JSON numbers/booleans/lists keep that type, others are strings."""
    import json

    params: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"--param takes key=value, got {pair!r}")
        try:
            params[key.strip()] = _database_value(key.strip(), json.loads(value, parse_constant=str))
        except json.JSONDecodeError:
            params[key.strip()] = value
    return params


INT64 = 2**63


def _database_value(key: str, value: Any) -> Any:
    """``value`` when both databases take it as it is: not an integer past 64 bits (clamped, or
    refused with an unrelated message) nor a float past double (1e400 reads as infinity)."""
    if isinstance(value, list):
        return [_database_value(key, item) for item in value]
    if isinstance(value, dict):
        return {name: _database_value(key, item) for name, item in value.items()}
    if isinstance(value, int) and not isinstance(value, bool) and not -INT64 <= value < INT64:
        raise ConfigError(f"--param {key}: {value} is past the 64-bit integers a database stores")
    if isinstance(value, float) and not math.isfinite(value):
        raise ConfigError(f"--param {key}: the number is past what a double holds")
    return value


@handles_errors
def stats_command(json_out: JsonOption = False, store: StoreOption = None) -> None:
    """Node counts per label, relationship counts per type, and the documents."""
    with opened_store(store) as (graph_store, _):
        counts = graph_store.counts()
        documents = list_documents(graph_store)
        url = graph_store.url
        if not documents:
            note_other_graphs(graph_store)
    if json_out:
        print_json(
            {"store": url, "labels": counts.labels, "relationships": counts.relationship_types, "documents": documents}
        )
        return
    console.print(f"store: {url}")
    print_counts(counts.labels, "Nodes", "label")
    print_counts(counts.relationship_types, "Relationships", "type")
    print_rows(documents, title="Documents")


@handles_errors
def schema_command(json_out: JsonOption = False) -> None:
    """Print the graph schema docgraph writes to every store: labels, properties and relationships."""
    schema = load_graph_schema()
    if json_out:
        print_json(schema.to_dict())
    else:
        console.print(schema.to_text(), highlight=False, markup=False)


@store_app.command("status")
@handles_errors
def store_status(json_out: JsonOption = False, store: StoreOption = None) -> None:
    """Whether the local FalkorDB server runs, its pid, socket and memory."""
    home = local_home(store)
    status = falkordb_server.status(home)
    if json_out:
        print_json(status.to_dict())
    else:
        for key, value in status.to_dict().items():
            console.print(f"{key}: {value}")


@store_app.command("stop")
@handles_errors
def store_stop(json_out: JsonOption = False, store: StoreOption = None) -> None:
    """Stop the local FalkorDB server (data stays on disk; it restarts on next use)."""
    home = local_home(store)
    stopped = falkordb_server.stop(home)
    if json_out:
        print_json({"stopped": stopped, "home": str(home)})
    else:
        console.print("stopped" if stopped else "not running")


@store_app.command("check")
@handles_errors
def store_check(
    repair: Annotated[
        bool,
        typer.Option(
            "--repair",
            help="Clear the ghost nodes, rebuild stale full-text indexes and remove kept PDF copies no document "
            "uses (with nothing else writing).",
        ),
    ] = False,
    json_out: JsonOption = False,
    store: StoreOption = None,
) -> None:
    """Look for ghost nodes, deleted nodes that FalkorDB 4.16 still lists, full-text indexes whose
    scores drifted, and kept PDF copies that no document uses (an ingest or delete cut off): exit 1
    if any; --repair mends them."""
    from docgraph.app.stores.falkordb_store import FalkorDBStore

    with opened_store(store) as (graph_store, settings):
        if not isinstance(graph_store, FalkorDBStore):
            raise ConfigError(f"`docgraph store check` looks for FalkorDB ghost nodes; the store is {graph_store.url}")
        repaired = graph_store.repair_ghost_nodes() if repair else {}
        rebuilt = list(graph_store.stale_fulltext_indexes()) if repair else []
        if rebuilt:
            graph_store.refresh_fulltext(rebuilt)
        files_dir = kept_copies_dir(settings.home, graph_store)
        with copies_locked(files_dir):
            removed = drop_unused_copies(graph_store, files_dir) if repair else []
            unused = unused_copies(graph_store, files_dir)
        ghosts, stale = graph_store.ghost_nodes(), graph_store.stale_fulltext_indexes()
        url = graph_store.url
    if json_out:
        print_json(
            {
                "store": url,
                "ok": not ghosts and not stale and not unused,
                "ghost_nodes": ghosts,
                "repaired": repaired,
                "stale_fulltext_indexes": {label: {"entries": e, "nodes": n} for label, (e, n) in stale.items()},
                "rebuilt_fulltext_indexes": rebuilt,
                "unused_copies": unused,
                "removed_copies": removed,
            }
        )
    elif not ghosts and not stale and not unused:
        cleared = f" ({sum(repaired.values())} cleared)" if repaired else ""
        mended = f" ({', '.join(rebuilt)} rebuilt)" if rebuilt else ""
        swept = f", {len(removed)} unused PDF copies removed" if removed else ""
        console.print(f"ok: no ghost nodes{cleared}, full-text indexes up to date{mended}{swept} in {url}")
    problems = []
    if ghosts:
        listed = ", ".join(f"{label} {count}" for label, count in ghosts.items())
        problems.append(
            f"{sum(ghosts.values())} ghost nodes ({listed}): deleted nodes that FalkorDB 4.16 still "
            "lists under their labels, left by a delete or replace before docgraph worked around it"
        )
    if stale:
        listed = ", ".join(f"{label}: {e:,} entries for {n:,} nodes" for label, (e, n) in stale.items())
        problems.append(
            f"stale full-text indexes ({listed}; nodes changed or deleted since an index was built lower its scores)"
        )
    if unused:
        problems.append(f"{len(unused)} kept PDF copies no document uses (an ingest or a delete cut off)")
    if problems:
        raise StoreError(f"{url} holds {'; and '.join(problems)}: mend them with `docgraph store check --repair`")


def local_home(store: str | None) -> Any:
    settings = settings_for(store)
    url = parse_store_url(settings.store_url, settings)
    if url.kind != "falkordb-local":
        raise ConfigError(f"`docgraph store` manages the local FalkorDB server; the store is {url.redacted()}")
    return url.path

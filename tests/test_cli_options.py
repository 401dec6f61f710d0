"""The command line's options and commands as typed: bad, out of range, mistyped or missing, each
refused in one line before anything runs; help that names what there is."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from docgraph.app.retrieval.registry import RETRIEVER_NAMES
from tests.cli_helpers import SAMPLE, run


def test_help_names_every_retriever_variant_and_the_ray_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "400")  # one line per option: names are not broken across lines
    for command, option in (("eval", "--variant"), ("ask", "--retriever")):
        code, out, _ = run(command, "--help")
        line = next(line for line in out.splitlines() if option in line)
        assert code == 0 and all(name in line for name in RETRIEVER_NAMES), (command, line)
    code, out, _ = run("ingest", "--help")
    assert code == 0 and "docgraph[ray]" in out  # not eaten as Rich markup


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["serve", "--store", "bogus://x", "--port", "18765"], 1, "unknown store URL scheme 'bogus'"),
        (["mcp", "--store", "bogus://x", "--json"], 1, "unknown store URL scheme 'bogus'"),
        (["cypher", "RETURN $n AS n", "-p", "n=99999999999999999999", "--json"], 1, "past the 64-bit integers"),
        (["cypher", "RETURN $n AS n", "-p", "n=[1, 1e400]", "--json"], 1, "past what a double holds"),
        (["render", "docgraph-sample", "1", "-o", "page", "--json"], 2, "--out page is not a .png file"),
        (["reembed", "--variant", "no-sim", "--checkpoint", "x.pt", "--json"], 2, "do not go together"),
        (["bench", "--workers", "1", "--variant", "hybrid", "--json"], 2, "--workers times ingest alone"),
        (
            ["eval", "q.jsonl", "--docs", ".", "--distractors", "d.pdf", "--scope", "document", "--json"],
            2,
            "--distractors are for --scope",
        ),
        (["ingest", "no-pdfs-here", "--json"], 2, "no PDF found in the given paths"),
        (["ask", "--json"], 2, "Missing argument 'question'"),
    ],
)
def test_bad_options_fail_in_one_line_before_anything_runs(
    cli_env: dict[str, str], tmp_path: Path, args: list[str], code: int, message: str
) -> None:
    """Each was taken and acted on (a server on a bad store answering every request with 400, a
    relink without its threshold, a clamped number written, a variant's own checkpoint swapped in
    silently), failed later with another message, or was reported as a crash."""
    (tmp_path / "no-pdfs-here").mkdir()
    os.chdir(tmp_path)
    before = run("stats", "--json")[1]
    exit_code, out, err = run(*args)
    assert exit_code == code and message in err and len(err.strip().splitlines()) == 1, err
    assert "--debug" not in err and run("stats", "--json")[1] == before
    if "--json" in args and args[0] != "mcp":  # a program reading the JSON reads the error there too
        assert json.loads(out) == {"error": err.removeprefix("error: ").strip(), "exit_code": code}
    else:  # over stdio, stdout is the MCP protocol's
        assert out == ""
    if code == 2:  # bad usage says where to read the command's usage, as click's own errors do
        assert f"(see 'docgraph {args[0]} --help')" in err, err


def test_numeric_options_out_of_range_are_refused(cli_env: dict[str, str]) -> None:
    for args in (
        ["ui", "--port", "70000"],
        ["render", "x", "1", "--dpi", "0"],
        ["bench", "--queries", "0"],
        ["relink", "--k", "3", "--min-score", "nan"],
        ["relink", "--k", "3", "--min-score", "5"],
    ):
        exit_code, _, err = run(*args)
        assert exit_code == 2 and "Invalid value" in err and len(err.strip().splitlines()) == 1, (args, err)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["ingest", "--bogus"], "error: No such option: --bogus (see 'docgraph ingest --help')"),
        (["ask"], "error: Missing argument 'question' (see 'docgraph ask --help')"),
        (["ask", "q", "--k", "abc"], "error: Invalid value for '--k'"),
        (["retrieve", "q"], "error: No such command 'retrieve'"),
        (["store", "nosuch"], "error: No such command 'nosuch' (see 'docgraph store --help')"),
        # click gives a missing option value no command: the hint named `docgraph --help`
        (["ask", "q", "--k"], "error: Option '--k' requires an argument (see 'docgraph ask --help')"),
        (["store", "status", "--bogus"], "error: No such option: --bogus (see 'docgraph store status --help')"),
        (
            ["keys", "create", "--role"],
            "error: Option '--role' requires an argument (see 'docgraph keys create --help')",
        ),
    ],
)
def test_mistyped_commands_and_options_are_one_error_line(
    cli_env: dict[str, str], args: list[str], message: str
) -> None:
    """Click's usage errors came as a usage line, a hint and the message in a five-line box."""
    exit_code, out, err = run(*args)
    assert exit_code == 2 and out == "" and err.startswith(message) and len(err.strip().splitlines()) == 1, err


def test_a_bare_command_group_still_shows_its_help(cli_env: dict[str, str]) -> None:
    exit_code, out, err = run("store")
    assert "Usage: docgraph store" in out + err and "check" in out + err and "error:" not in err, (exit_code, err)


def test_a_mistyped_local_store_is_not_made_by_a_command_that_reads(cli_env: dict[str, str], tmp_path: Path) -> None:
    """stats and store check on a path holding no store made an empty one there, left a server
    running on it and reported success."""
    missing = tmp_path / "no" / "store"
    for args in (["stats"], ["store", "check"], ["documents"]):
        code, out, err = run(*args, "--store", f"falkordb-local://{missing}", "--json")
        assert code == 1 and f"no docgraph store at {missing}" in err, (args, err)
        assert json.loads(out)["error"] == err.removeprefix("error: ").strip()
    assert not (tmp_path / "no").exists()


def test_a_graph_without_documents_names_the_graphs_of_the_server_that_have_some(
    cli_env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A mistyped DOCGRAPH_GRAPH read a new, empty graph: "(no rows)", or "no documents yet", and
    nothing said that the documents were in another graph."""
    assert run("ingest", str(SAMPLE), "--no-embed")[0] == 0
    stored = cli_env["DOCGRAPH_GRAPH"]
    code, _, err = run("documents")
    assert code == 0 and "note: graph" not in err
    typo = f"{stored}_typo"
    monkeypatch.setenv("DOCGRAPH_GRAPH", typo)
    commands = [
        ["documents"],
        ["stats", "--json"],
        ["ask", "When does the zoo open?"],
        ["cypher", "MATCH (d) RETURN d"],
    ]
    for command in commands:
        code, _, err = run(*command)
        assert code == 0, err
        [note] = [line for line in err.splitlines() if line.startswith("note: graph")]
        assert note.startswith(f"note: graph '{typo}' holds no documents; on this server "), note
        assert f"'{stored}'" in note and note.endswith("(choose with DOCGRAPH_GRAPH, or --store URL?graph=NAME)")

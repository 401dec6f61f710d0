"""The command line's error lines for bad input: one line each, saying what to mend."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli_helpers import run


@pytest.mark.parametrize(
    ("query", "params", "said"),
    [
        ("MATCH (n", [], "error: Syntax error at line 1, column 9: Invalid input at end of input: expected a label"),
        ("RETURN $x, $y", ["-p", "y=1"], "error: the query uses $x, which no --param gives (--param x=VALUE)"),
        ("  ", [], "error: the query is empty"),
    ],
)
def test_a_bad_query_is_said_as_people_read_it(
    cli_env: dict[str, str], query: str, params: list[str], said: str
) -> None:
    """It was FalkorDB's raw text ("errMsg: ... errCtx: MATCH (n errCtxOffset: 8"), "Missing
    parameters" without a name, and "Error: empty query."""
    code, out, err = run("cypher", query, *params)
    assert (code, out) == (1, "")
    assert err.startswith(said) and err.count("\n") == 1, err


def test_a_docgraph_toml_that_is_not_toml_is_named(
    cli_env: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "docgraph.toml").write_text("store = \n")
    monkeypatch.chdir(tmp_path)
    code, _, err = run("documents")
    assert code == 1
    assert err == f"error: docgraph.toml in {tmp_path} is not valid TOML: Invalid value (at line 1, column 9)\n"

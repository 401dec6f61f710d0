"""What the command line writes: to a pipe, to a terminal, under --json, with library and model
messages kept off its output; a real local FalkorDB, Typer's runner and real subprocesses."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from docgraph.app.cli.main import show_model_notes
from tests.cli_helpers import DOCGRAPH, PDFS, SAMPLE, run
from tests.llm_server import Reply, ScriptedLLMServer
from tests.ui_helpers import free_port


def test_reports_to_a_pipe_keep_each_line_whole(cli_env: dict[str, str], tmp_path: Path) -> None:
    """Rich wraps at 80 columns when it writes to no terminal: a failed file's one line came in two."""
    env = {key: value for key, value in {**os.environ, **cli_env}.items() if key not in ("COLUMNS", "LINES")}
    broken = tmp_path / "a-rather-long-file-name-for-a-broken-water-report.pdf"
    broken.write_bytes((PDFS / "water-report.pdf").read_bytes()[:30000])
    done = subprocess.run(
        [str(DOCGRAPH), "ingest", str(broken), "--no-embed"], env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 1
    assert f"failed: {broken.name}: corrupt or truncated PDF, no pages could be recovered\n" in done.stderr


MUPDF_MESSAGE = """
import sys, pymupdf
from docgraph.app.cli.main import quiet_library_logs
import docgraph.ingest.pdf.api  # routes MuPDF's messages to the "pymupdf" logger
quiet_library_logs(keep=sys.argv[1] == "keep")
pymupdf.message("unhandled font type ''")  # what MuPDF says, eight times, of a truncated zoo.pdf
"""


@pytest.mark.parametrize("keep", [False, True], ids=["command", "debug-or-server"])
def test_mupdf_messages_stay_out_of_a_command_s_output(keep: bool) -> None:
    """A damaged PDF's one "failed:" line came after MuPDF's own lines; --debug and servers keep them."""
    done = subprocess.run(
        [sys.executable, "-c", MUPDF_MESSAGE, "keep" if keep else "quiet"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0 and done.stdout == ""
    assert done.stderr == ("unhandled font type ''\n" if keep else ""), done.stderr


def test_tables_to_a_pipe_keep_each_row_on_one_line(cli_env: dict[str, str]) -> None:
    """Rich drew tables 80 columns wide to a pipe, folding each long cell over several lines."""
    env = {key: value for key, value in {**os.environ, **cli_env}.items() if key not in ("COLUMNS", "LINES")}
    first, second = " ".join(["penguins"] * 12), " ".join(["herring"] * 10)
    query = f"RETURN '{first}' AS first, '{second}' AS second"
    done = subprocess.run([str(DOCGRAPH), "cypher", query], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    rows = [line for line in done.stdout.splitlines() if "penguins" in line or "herring" in line]
    assert len(rows) == 1 and first in rows[0] and second in rows[0], done.stdout


def test_table_cells_are_shown_as_stored(cli_env: dict[str, str]) -> None:
    """Bracketed text in a region was read as Rich markup and vanished; a sum of page widths
    printed as 4.168e+04."""
    query = (
        "RETURN '• [asn1_decode_simple_der], page 22, [bold]x[/bold]' AS `[red]text`, "
        "41679.99999999999 AS width, 0.8123456789 AS score, 1e-07 AS tiny"
    )
    code, out, _ = run("cypher", query)
    assert code == 0
    assert "• [asn1_decode_simple_der], page 22, [bold]x[/bold]" in out and "[red]text" in out
    assert [cell.strip() for cell in out.splitlines()[3].split("│")[2:5]] == ["41680", "0.812346", "1e-07"]


def test_an_error_after_progress_to_a_pipe_is_the_first_line(cli_env: dict[str, str], tmp_path: Path) -> None:
    """The progress display's closing left a blank line on stderr before the error."""
    questions = tmp_path / "questions.jsonl"
    question = {"id": "q1", "question": "What is one?", "gold": "RETURN 1 AS n"}  # a gold that finds something
    questions.write_text(json.dumps({**question, "type": "count", "ordered": False}) + "\n")
    nowhere = {"DOCGRAPH_LLM_BASE_URL": f"http://127.0.0.1:{free_port()}/v1", "DOCGRAPH_LLM_API_KEY": "k"}
    env = {**os.environ, **cli_env, **nowhere, "DOCGRAPH_LLM_MODEL": "m"}
    store = f"falkordb-local://{cli_env['DOCGRAPH_HOME']}?graph={cli_env['DOCGRAPH_GRAPH']}"
    command = [str(DOCGRAPH), "eval-cypher", str(questions), "--store", store]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 1
    assert done.stderr.startswith("error: the LLM endpoint") and done.stderr.count("\n") == 1, done.stderr


def test_reembed_names_what_it_covered_in_words(cli_env: dict[str, str]) -> None:
    """Its text output said "doc_id: None" for the whole store."""
    code, _, err = run("ingest", str(SAMPLE), "--no-embed")
    assert code == 0, err
    code, out, err = run("reembed")
    assert code == 0 and out.strip().endswith("doc_id: every document"), (out, err)
    code, out, err = run("reembed", "--json")
    assert code == 0 and json.loads(out)["doc_id"] is None, err


def test_model_notes_reach_the_current_stderr_once(capsys: pytest.CaptureFixture[str]) -> None:
    show_model_notes()
    show_model_notes()  # every command runs the callback; the note must still print once
    logging.getLogger("docgraph.models").info("exporting the encoder to ONNX (%s), once: %s", "fp32", "/cache/x")
    assert capsys.readouterr().err == "note: exporting the encoder to ONNX (fp32), once: /cache/x\n"


def test_model_output_reaches_the_terminal_without_control_characters(cli_env: dict[str, str]) -> None:
    assert run("ingest", str(SAMPLE), "--no-embed")[0] == 0
    hostile = (
        "\x1b]0;owned\x07\x1b]8;;http://evil.example/\x1b\\The penguins\x1b]8;;\x1b\\ are fed at "
        "\x1b[31m10:30\x1b[0m and 15:00.\x9b2J [docgraph-sample p.1 #r7]"
    )
    route = json.dumps({"route": "retrieve", "reason": "one fact", "sub_questions": []})
    with ScriptedLLMServer() as server:
        server.add(route, Reply(hostile, tokens=[hostile[:30], hostile[30:70], hostile[70:]]))
        env = {**os.environ, **cli_env, "OPENAI_BASE_URL": server.base_url, "OPENAI_API_KEY": "k"}
        env["DOCGRAPH_LLM_MODEL"] = "scripted"
        done = subprocess.run(
            [str(DOCGRAPH), "ask", "When are the penguins fed?", "--retriever", "bm25-region"],
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
    assert done.returncode == 0, done.stderr
    assert "The penguins are fed at 10:30 and 15:00." in done.stdout  # streamed, then kept
    controls = [c for c in done.stdout + done.stderr if (ord(c) < 32 and c not in "\n\t") or 0x7F <= ord(c) < 0xA0]
    assert controls == []


def test_pdf_library_messages_stay_off_stdout() -> None:
    # MuPDF's messages (a damaged file's "repairing", a missing font) must not break `--json` output.
    code = "import docgraph.ingest.pdf.api, pymupdf; pymupdf.message('MuPDF warning: repairing')"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stdout == ""
    assert "MuPDF warning: repairing" in done.stderr


def test_the_progress_line_names_the_stage_its_counts_belong_to() -> None:
    from rich.text import Text

    from docgraph.app.cli.ingest_cmds import stage_description

    # rich read "[embed]" as markup and dropped it: the line showed "manual.pdf 120/300" alone.
    assert Text.from_markup(stage_description("manual[2].pdf", "embed")).plain == "manual[2].pdf [embed]"


def test_ingest_json_on_a_terminal_still_shows_its_progress(cli_env: dict[str, str], tmp_path: Path) -> None:
    """With --json the progress was off altogether: a 134-page ingest sat silent for 27 s. On a
    terminal's stderr the bars show; stdout is the JSON alone."""
    import pty

    pdf = tmp_path / "progress-check.pdf"
    pdf.write_bytes(SAMPLE.read_bytes())
    leader, follower = pty.openpty()
    try:
        done = subprocess.run(
            [str(DOCGRAPH), "ingest", str(pdf), "--no-embed", "--json"],
            env={**os.environ, **cli_env, "COLUMNS": "120"},
            stdout=subprocess.PIPE,
            stderr=follower,
            text=True,
            timeout=300,
        )
        os.close(follower)
        follower = -1
        drawn = b""
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the terminal's other end is closed and read out
                break
            if not chunk:
                break
            drawn += chunk
    finally:
        os.close(leader)
        if follower >= 0:
            os.close(follower)
    assert done.returncode == 0 and json.loads(done.stdout)[0]["status"] == "ingested"
    assert b"progress-check.pdf" in drawn and b"documents" in drawn, drawn[-500:]

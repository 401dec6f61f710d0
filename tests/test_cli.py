"""The command line, through Typer's runner and as a real subprocess, on a real local FalkorDB."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import numpy as np
import pymupdf
import pytest
from typer.testing import CliRunner

from docgraph.app.cli.common import print_json
from docgraph.app.cli.main import app, show_model_notes
from docgraph.app.pipeline.ingest_pipeline import IngestPipeline
from docgraph.app.pipeline.reports import IngestReport
from docgraph.app.pipeline.stages import ProgressFn
from docgraph.app.retrieval.registry import RETRIEVER_NAMES
from docgraph.errors import IngestInterrupted
from tests.llm_server import Reply, ScriptedLLMServer
from tests.ui_helpers import free_port

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "samples" / "docgraph-sample.pdf"
PDFS = ROOT / "tests" / "data" / "pdfs"
DOCGRAPH = Path(sys.executable).with_name("docgraph")


@pytest.fixture
def cli_env(local_home: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """A fresh graph on the shared test server, chosen through the environment as a user would."""
    env = {
        "DOCGRAPH_HOME": str(local_home),
        "DOCGRAPH_STORE": "",
        "DOCGRAPH_GRAPH": f"cli_{uuid.uuid4().hex[:8]}",
    }
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    return env


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_cypher_return_one_needs_no_setup(cli_env: dict[str, str]) -> None:
    code, out, _ = run("cypher", "RETURN 1 AS one", "--json")
    assert code == 0
    assert json.loads(out) == [{"one": 1}]


def test_odd_numbers_and_odd_error_texts_come_out_as_plain_json_and_text(
    cli_env: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    """--json printed NaN and Infinity, which JSON parsers refuse; an error quoting a query with
    "[/x]" in it was read as Rich markup (a traceback), and one with an escape sequence wrote it raw."""
    code, out, _ = run("cypher", "RETURN 0.0 / 0.0 AS nan, 1.0 / 0.0 AS inf", "--json")
    assert code == 0 and "NaN" not in out and "Infinity" not in out
    assert json.loads(out, parse_constant=lambda name: pytest.fail(f"{name} in --json")) == [{"nan": None, "inf": None}]
    print_json({"v": np.float32("nan"), "a": np.array([1.0, np.inf]), "s": (float("nan"),)})
    assert json.loads(capsys.readouterr().out) == {"v": None, "a": [1.0, None], "s": [None]}
    code, out, err = run("cypher", "RETURN `[/x]\x1b[31m`")  # the database's error quotes the name
    assert code == 1 and err.startswith("error: ") and "'[/x]" in err and "\x1b" not in err


def test_cypher_params_are_typed(cli_env: dict[str, str]) -> None:
    code, out, _ = run("cypher", "RETURN $n + 1 AS n, $s AS s", "--param", "n=41", "--param", "s=abc", "--json")
    assert code == 0
    assert json.loads(out) == [{"n": 42, "s": "abc"}]


def test_write_through_read_path_is_refused_and_writes_nothing(cli_env: dict[str, str]) -> None:
    code, _, err = run("cypher", "CREATE (:Intruder {name: 'x'})")
    assert code == 1
    assert "read-only" in err.lower()
    assert "Traceback" not in err
    code, out, _ = run("cypher", "MATCH (n:Intruder) RETURN count(n) AS n", "--json")
    assert json.loads(out) == [{"n": 0}]
    code, _, _ = run("cypher", "CREATE (:Intruder {name: 'x'})", "--write")
    assert code == 0
    code, out, _ = run("cypher", "MATCH (n:Intruder) RETURN count(n) AS n", "--json")
    assert json.loads(out) == [{"n": 1}]


def test_syntax_error_is_one_line(cli_env: dict[str, str]) -> None:
    code, out, err = run("cypher", "MATCH (n RETURN n")
    assert code == 1
    assert err.strip().startswith("error:")
    assert len(err.strip().splitlines()) <= 2  # the line may wrap once in a narrow terminal
    assert "Traceback" not in err + out


@pytest.mark.parametrize(
    ("url", "expected"),
    [("ftp://nowhere", "store url"), ("falkordb://127.0.0.1:1", "127.0.0.1:1"), ("neo4j://127.0.0.1:1", "127.0.0.1:1")],
)
def test_bad_or_unreachable_store_is_one_clear_line(cli_env: dict[str, str], url: str, expected: str) -> None:
    """In a process of its own: the Neo4j driver's log line reached stderr through Python's
    last-resort handler, before the error line."""
    env = {**os.environ, **cli_env}
    done = subprocess.run(
        [DOCGRAPH, "cypher", "RETURN 1", "--store", url], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 1 and expected in done.stderr.lower()
    assert done.stderr.startswith("error:") and len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_ingest_documents_render_delete(cli_env: dict[str, str], tmp_path: Path) -> None:
    code, out, err = run("ingest", str(SAMPLE), "--no-embed", "--json")
    assert code == 0, err
    [report] = json.loads(out)
    assert report["status"] == "ingested"
    assert report["pages"] == 3
    assert report["sections"] == 6
    assert report["edges"]["HAS_NEXT"] > 0 and report["edges"]["CAPTION_OF"] >= 2

    code, out, _ = run("ingest", str(SAMPLE), "--no-embed", "--json")
    assert json.loads(out)[0]["status"] == "unchanged"
    code, out, err = run("ingest", str(SAMPLE), "--no-embed", "--force", "--json")  # rebuilt all the same
    assert code == 0, err
    [forced] = json.loads(out)
    assert forced["status"] == "replaced" and forced["doc_id"] == report["doc_id"]
    code, out, _ = run("cypher", "MATCH (r:Region) RETURN count(r) AS n", "--json")
    [count] = json.loads(out)
    assert count["n"] == report["regions"]  # the rewrite left no second copy behind

    code, out, _ = run("documents", "--json")
    [doc] = json.loads(out)
    assert doc["doc_id"] == report["doc_id"] and doc["pages"] == 3

    code, out, _ = run("stats", "--json")
    stats = json.loads(out)
    assert stats["labels"]["Page"] == 3 and stats["labels"]["Section"] == 6
    assert stats["labels"]["Region"] == report["regions"]

    png = tmp_path / "p2.png"
    code, out, err = run("render", doc["doc_id"], "2", "--out", str(png))
    assert code == 0, err
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    code, _, _ = run("delete", doc["doc_id"])
    assert code == 0
    code, out, _ = run("stats", "--json")
    assert json.loads(out)["labels"].get("Region", 0) == 0


def test_bad_file_fails_alone_and_leaves_graph_unchanged(cli_env: dict[str, str], tmp_path: Path) -> None:
    fake = tmp_path / "notes.pdf"
    fake.write_text("this is not a PDF")
    code, out, _ = run("ingest", str(fake), str(SAMPLE), "--no-embed", "--json")
    assert code == 1
    reports = {Path(r["file"]).name: r for r in json.loads(out)}
    assert reports["notes.pdf"]["status"] == "failed" and reports["notes.pdf"]["doc_id"] == "notes"  # was ""
    assert "notes.pdf" in reports["notes.pdf"]["error"]
    assert reports[SAMPLE.name]["status"] == "ingested"
    code, out, _ = run("documents", "--json")
    assert [d["file_name"] for d in json.loads(out)] == [SAMPLE.name]


def test_a_file_named_twice_is_ingested_once_with_one_report(cli_env: dict[str, str], tmp_path: Path) -> None:
    """Its folder and the file itself: both reports said "unchanged", though it was just ingested."""
    (tmp_path / "fold").mkdir()
    pdf = tmp_path / "fold" / "okapi.pdf"
    pdf.write_bytes(SAMPLE.read_bytes())
    code, out, _ = run(
        "ingest", str(tmp_path / "fold"), str(pdf), f"{tmp_path}/fold/../fold/okapi.pdf", "--no-embed", "--json"
    )
    assert code == 0 and [(r["file"], r["status"]) for r in json.loads(out)] == [(str(pdf), "ingested")]


def test_files_that_would_share_one_document_id_fail_and_the_others_still_ingest(
    cli_env: dict[str, str], tmp_path: Path
) -> None:
    """Neither of the clashing files is written (one would replace the other), and one clash in a
    folder no longer refuses the whole library."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first, second = tmp_path / "a" / "Zoo Manual.pdf", tmp_path / "b" / "zoo-manual.pdf"
    first.write_bytes(SAMPLE.read_bytes())
    second.write_bytes((ROOT / "tests" / "data" / "pdfs" / "water-report.pdf").read_bytes())
    (tmp_path / "other.pdf").write_bytes(SAMPLE.read_bytes())
    code, out, err = run("ingest", str(tmp_path), "--no-embed", "--json")
    reports = {Path(r["file"]).name: r for r in json.loads(out)}
    assert code == 1 and reports["other.pdf"]["status"] == "ingested", err
    for name in ("Zoo Manual.pdf", "zoo-manual.pdf"):
        assert reports[name]["status"] == "failed"
        assert "would all be stored as 'zoo-manual', one replacing the other: rename them" in reports[name]["error"]
    code, out, _ = run("documents", "--json")
    assert [row["doc_id"] for row in json.loads(out)] == ["other"]  # neither replacing the other


def test_copies_of_one_file_in_two_folders_are_one_document_and_hidden_files_are_skipped(
    cli_env: dict[str, str], tmp_path: Path
) -> None:
    """A byte-identical copy in an archive folder made both files fail, every run, as "one replacing
    the other"; a macOS ``._manual.pdf`` resource file in the folder failed as "not a PDF"."""
    library = tmp_path / "library"
    (library / "archive").mkdir(parents=True)
    (library / ".Trash").mkdir()
    for folder in (library, library / "archive", library / ".Trash"):
        (folder / "manual.pdf").write_bytes(SAMPLE.read_bytes())
    (library / "._manual.pdf").write_bytes(b"\x00\x05\x16\x07 resource fork")
    code, out, err = run("ingest", str(library), "--no-embed", "--json")
    assert code == 0, err
    statuses = [(Path(r["file"]).relative_to(library).as_posix(), r["status"]) for r in json.loads(out)]
    assert statuses == [("archive/manual.pdf", "ingested"), ("manual.pdf", "unchanged")]
    code, out, _ = run("documents", "--json")
    assert [row["doc_id"] for row in json.loads(out)] == ["manual"]
    code, out, _ = run("ingest", str(library / "._manual.pdf"), "--no-embed", "--json")  # named alone: read
    assert code == 1 and json.loads(out)[0]["status"] == "failed"


def test_ingest_links_regions_to_their_like_in_other_documents(cli_env: dict[str, str], tmp_path: Path) -> None:
    copy = tmp_path / "sample-copy.pdf"
    copy.write_bytes(SAMPLE.read_bytes())
    code, out, err = run("ingest", str(SAMPLE), "--json")
    assert code == 0, err
    assert json.loads(out)[0]["stats"].get("corpus_similarity_edges") is None  # off by default
    code, out, err = run("ingest", str(copy), "--similar-elsewhere", "2", "--json")
    assert code == 0, err
    [report] = json.loads(out)
    assert report["stats"]["corpus_similarity_edges"] > 0
    # Each region of the copy is linked first to its twin in the original, at cosine 1.
    query = (
        "MATCH (a:Region {doc_id: 'sample-copy'})-[e:IS_SIMILAR {cross_document: true}]->(b:Region) "
        "WITH a, max(e.score) AS best MATCH (a)-[e:IS_SIMILAR {cross_document: true}]->(b:Region) "
        "WHERE e.score = best RETURN a.text = b.text AND b.doc_id = 'docgraph-sample' AS twin, best"
    )
    code, out, _ = run("cypher", query, "--json")
    rows = json.loads(out)
    assert rows and all(row["twin"] and row["best"] > 0.999 for row in rows)
    # Ingested again without the flag (a folder re-run), it is kept with its links: it was rebuilt,
    # and its links with the other document dropped.
    code, out, err = run("ingest", str(copy), "--json")
    assert code == 0, err
    [again] = json.loads(out)
    assert again["status"] == "unchanged" and again["notes"] == [
        "stored with links to other documents (--similar-elsewhere), kept as it is: re-reading it without "
        "them would drop those links (--force does that)"
    ]
    code, out, _ = run("cypher", query, "--json")
    assert json.loads(out) == rows

    code, _, err = run("ingest", str(copy), "--similar-elsewhere", "-1")
    assert code != 0 and "--similar-elsewhere" in err

    # Relinked with k = 1, every region of either document keeps only its twin.
    code, _, err = run("relink")
    assert code != 0 and "--k" in err  # no k given, none configured: nothing is removed by mistake
    code, out, err = run("relink", "--k", "1", "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["documents"] == 2 and 0 < report["links_after"] < report["links_before"]
    twins = (
        "MATCH (a:Region)-[e:IS_SIMILAR {cross_document: true}]->(b:Region) "
        "RETURN a.text = b.text AS twin, e.score AS s"
    )
    code, out, _ = run("cypher", twins, "--json")
    rows = json.loads(out)
    assert len(rows) == report["links_after"] and all(row["twin"] and row["s"] > 0.999 for row in rows)


def test_eval_with_a_baseline_reports_won_and_lost_questions(cli_env: dict[str, str], tmp_path: Path) -> None:
    questions = tmp_path / "questions.jsonl"
    question = {"id": "z1", "doc": SAMPLE.name, "question": "When are the penguins fed?", "pages": [1], "type": "local"}
    questions.write_text(json.dumps(question) + "\n")
    store = f"falkordb-local://{cli_env['DOCGRAPH_HOME']}?graph={cli_env['DOCGRAPH_GRAPH']}"
    common = [str(questions), "--docs", str(SAMPLE.parent), "--store", store, "--variant", "hybrid"]
    code, out, err = run("eval", *common, "--baseline", "dense-region", "--json")
    assert code == 0, err
    report = json.loads(out)
    assert list(report["variants"]) == ["hybrid", "dense-region"]
    paired = report["paired"]
    assert paired["baseline"] == "dense-region" and list(paired["variants"]) == ["hybrid"]
    hybrid_hit = report["variants"]["hybrid"]["recall@1"] == 1.0
    dense_hit = report["variants"]["dense-region"]["recall@1"] == 1.0
    at_1 = paired["variants"]["hybrid"]["all"]["recall@1"]
    assert at_1["wins"] == (["z1"] if hybrid_hit and not dense_hit else [])
    assert at_1["losses"] == (["z1"] if dense_hit and not hybrid_hit else [])
    assert list(paired["variants"]["hybrid"]["by_type"]) == ["local"]

    code, out, err = run("eval", *common, "--baseline", "dense-region", "--misses", "--json")
    assert code == 0, err
    assert (report["ingested"], json.loads(out)["ingested"]) == ([SAMPLE.name], [])  # stored as it would be built
    misses = {name: [miss["id"] for miss in v["misses"]] for name, v in json.loads(out)["variants"].items()}
    assert misses == {"hybrid": [] if hybrid_hit else ["z1"], "dense-region": [] if dense_hit else ["z1"]}
    code, out, err = run("eval", *common, "--misses")
    assert code == 0 and "missed at R@1" in out

    code, out, err = run("eval", *common, "--baseline", "no-such")
    assert code == 1 and "unknown retriever 'no-such'" in err and "Traceback" not in err + out


def test_schema_lists_labels_and_relationships(cli_env: dict[str, str]) -> None:
    code, out, _ = run("schema")
    assert code == 0
    for name in ("Document", "Page", "Section", "Region", "HAS_NEXT", "IS_UNDER", "REF", "CAPTION_OF"):
        assert name in out
    code, out, err = run("schema", "--store", "bolt://elsewhere:7687")  # one schema for every store: refused
    assert code != 0 and "--store" in err + out


def test_subprocess_cypher_and_store_status(cli_env: dict[str, str]) -> None:
    env = {**os.environ, **cli_env}
    done = subprocess.run(
        [str(DOCGRAPH), "cypher", "RETURN 1 AS one", "--json"], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [{"one": 1}]
    done = subprocess.run(
        [str(DOCGRAPH), "store", "status", "--json"], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["running"] is True


def test_subprocess_error_exit_code_without_traceback(cli_env: dict[str, str]) -> None:
    env = {**os.environ, **cli_env}
    done = subprocess.run(
        [str(DOCGRAPH), "cypher", "RETURN", "--json"], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert done.stderr.startswith("error:")


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


def test_a_cypher_parameter_is_json_when_it_reads_as_json(
    cli_env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A document id of digits must be quoted, as the help says: 2024 is a number."""
    monkeypatch.setenv("COLUMNS", "400")  # the help's option on one line
    for given, value in (("2024", 2024), ('"2024"', "2024"), ("manual", "manual")):
        code, out, err = run("cypher", "RETURN $doc AS doc", "--param", f"doc={given}", "--json")
        assert code == 0 and json.loads(out) == [{"doc": value}], err
    code, out, _ = run("cypher", "--help")
    assert "'\"2024\"' the text" in " ".join(out.split())


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


def test_ctrl_c_once_every_document_was_under_way_still_exits_130(
    cli_env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """With workers, Ctrl-C while every document was under way lets them finish: that exited 0."""
    ingest_many = IngestPipeline.ingest_many

    def finished_then_interrupted(self: IngestPipeline, paths: Any, *args: Any, **kwargs: Any) -> list[IngestReport]:
        raise IngestInterrupted(ingest_many(self, paths, *args, **kwargs), [])

    monkeypatch.setattr(IngestPipeline, "ingest_many", finished_then_interrupted)
    code, out, err = run("ingest", str(SAMPLE), "--no-embed")
    assert code == 130 and out.startswith("docgraph-sample ingested: 3 pages"), (out, err)
    assert err.splitlines()[-1] == "interrupted: every document ended"


def test_ctrl_c_reports_the_documents_that_landed_and_names_the_rest(
    cli_env: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reports of documents already written were lost, and nothing said which were not."""
    first, second = tmp_path / "first.pdf", tmp_path / "second.pdf"
    first.write_bytes(SAMPLE.read_bytes())
    second.write_bytes((PDFS / "xts-p6.pdf").read_bytes())
    ingest = IngestPipeline.ingest

    def interrupted_at_the_second(
        self: IngestPipeline,
        path: Path,
        progress: ProgressFn | None = None,
        uploaded_as: str = "",
        replace: bool = False,
    ) -> IngestReport:
        if path.name == "second.pdf":
            raise KeyboardInterrupt  # Ctrl-C while it is read
        return ingest(self, path, progress, uploaded_as, replace)

    monkeypatch.setattr(IngestPipeline, "ingest", interrupted_at_the_second)
    code, out, err = run("ingest", str(first), str(second), "--no-embed")
    assert code == 130
    assert out.startswith("first ingested: 3 pages")
    assert "interrupted: not ingested: second.pdf (run the command again for them)" in err.splitlines()
    code, out, err = run("ingest", str(first), str(second), "--no-embed", "--json")
    assert code == 130 and [report["status"] for report in json.loads(out)] == ["unchanged", "not_ingested"]
    code, out, _ = run("documents", "--json")
    assert [document["doc_id"] for document in json.loads(out)] == ["first"]


def test_pdfs_in_linked_folders_are_found_once(cli_env: dict[str, str], tmp_path: Path) -> None:
    """A library's linked shelves were skipped: "no PDF found in the given paths"."""
    shelf, library = tmp_path / "shelf", tmp_path / "library"
    shelf.mkdir()
    library.mkdir()
    (shelf / "xts.pdf").write_bytes((PDFS / "xts-p6.pdf").read_bytes())
    (library / "shelf").symlink_to(shelf)
    (library / "back-up").symlink_to(library)  # a loop ends where it began
    (library / "same-shelf").symlink_to(shelf)  # and a second way to the same file
    code, out, err = run("ingest", str(shelf), str(library), "--no-embed", "--json")
    assert code == 0, err
    assert [(report["doc_id"], report["status"]) for report in json.loads(out)] == [("xts", "ingested")]


def test_a_copy_under_another_name_is_reported_as_holding_stored_content(
    cli_env: dict[str, str], tmp_path: Path
) -> None:
    """It was stored a second time without a word: the same PDF, under another name, is another document."""
    original, copy = tmp_path / "manual.pdf", tmp_path / "manual-copy.pdf"
    original.write_bytes((PDFS / "xts-p6.pdf").read_bytes())
    copy.write_bytes(original.read_bytes())
    code, out, err = run("ingest", str(original), "--no-embed")
    assert code == 0, err
    code, out, err = run("ingest", str(copy), "--no-embed", "--json")
    assert code == 0, err
    assert json.loads(out)[0]["stats"]["same_content_as"] == ["manual"]
    code, out, err = run("ingest", str(copy), "--no-embed", "--force")
    assert "  the same content is stored as manual (another name, another document)" in out.splitlines()


def test_a_file_stored_under_the_id_an_older_release_gave_its_name_is_named_and_not_guessed(
    cli_env: dict[str, str], tmp_path: Path
) -> None:
    """Ids of names with letters an id cannot spell changed (Straße.pdf: strae, now strae-58a377):
    the same file ingested again was "another name, another document", and `delete Straße.pdf`
    deleted one of the two, whichever the store listed first."""
    old = tmp_path / "old" / "strae.pdf"
    old.parent.mkdir()
    old.write_bytes(SAMPLE.read_bytes())
    assert run("ingest", str(old), "--no-embed")[0] == 0
    rename = "MATCH (d:Document {doc_id: 'strae'}) SET d.file_name = 'Straße.pdf'"  # as the older release stored it
    assert run("cypher", "--write", rename)[0] == 0
    current = tmp_path / "Straße.pdf"
    current.write_bytes(SAMPLE.read_bytes())
    code, out, err = run("ingest", str(current), "--no-embed", "--json")
    assert code == 0, err
    [report] = json.loads(out)
    assert report["doc_id"] != "strae" and report["stats"]["same_file_stored_as"] == ["strae"]
    code, out, _ = run("ingest", str(current), "--no-embed", "--force")
    assert (
        "  this file is stored as strae too, the id an older docgraph gave its name: "
        "`docgraph delete strae` removes that copy"
    ) in out.splitlines()

    code, out, err = run("delete", "Straße.pdf", "--json")
    assert code == 1 and json.loads(out)["error"] == (
        f"'Straße.pdf' is the file name of 2 documents (strae, {report['doc_id']}): name one by its id "
        "(see `docgraph documents`)"
    )
    assert run("delete", "strae")[0] == 0
    code, out, _ = run("delete", "Straße.pdf", "--json")
    assert code == 0 and json.loads(out)["doc_id"] == report["doc_id"]


def test_a_renamed_file_is_told_apart_from_a_copy_and_documents_say_whose_file_is_gone(
    cli_env: dict[str, str], tmp_path: Path
) -> None:
    """A renamed file became a second document beside the first, "another name, another document",
    and nothing listed where documents came from or that a file had gone: a library filled with
    documents of files long renamed."""
    notes = tmp_path / "notes.pdf"
    notes.write_bytes(SAMPLE.read_bytes())
    assert run("ingest", str(notes), "--no-embed")[0] == 0
    code, out, _ = run("documents", "--json")
    [row] = json.loads(out)
    assert (row["source_path"], row["source_found"]) == (str(notes.resolve()), True)
    assert len(row["sha256"]) == 64 and row["build"]

    renamed = notes.rename(tmp_path / "lion-notes.pdf")
    code, out, err = run("ingest", str(renamed), "--no-embed")
    assert code == 0, err
    assert (
        "  the same content is stored as notes, whose file is gone from where it was read: if this is that "
        "file renamed, `docgraph delete notes` removes the old document"
    ) in out.splitlines()
    code, out, err = run("documents")
    assert code == 0 and str(notes) not in out  # the table keeps to the listing
    assert err.splitlines() == [
        "note: 1 document(s) were read from a file that is gone: notes (`docgraph documents --json` gives each "
        "source_path)"
    ]
    code, out, _ = run("documents", "--json")
    assert {row["doc_id"]: row["source_found"] for row in json.loads(out)} == {"lion-notes": True, "notes": False}


def test_a_link_pointed_at_each_new_edition_stays_its_documents_file(cli_env: dict[str, str], tmp_path: Path) -> None:
    """The document of ``manual-latest.pdf -> v1/manual.pdf`` recorded v1's path, so pointing the link
    at v2 and ingesting the same path again was refused as "another file" (--replace every time)."""
    for edition, source in (("v1", SAMPLE), ("v2", PDFS / "xts-p6.pdf")):
        (tmp_path / edition).mkdir()
        (tmp_path / edition / "manual.pdf").write_bytes(source.read_bytes())
    latest = tmp_path / "manual-latest.pdf"
    latest.symlink_to(Path("v1") / "manual.pdf")
    code, out, err = run("ingest", str(latest), "--no-embed", "--json")
    assert code == 0 and json.loads(out)[0]["status"] == "ingested", err
    code, out, _ = run("documents", "--json")
    assert json.loads(out)[0]["source_path"] == str(latest)

    latest.unlink()
    latest.symlink_to(Path("v2") / "manual.pdf")
    code, out, err = run("ingest", str(latest), "--no-embed", "--json")
    assert code == 0, out + err
    assert [(r["doc_id"], r["status"]) for r in json.loads(out)] == [("manual-latest", "replaced")]
    # another file of that name is still refused
    (tmp_path / "elsewhere").mkdir()
    other = tmp_path / "elsewhere" / "manual-latest.pdf"
    other.write_bytes(SAMPLE.read_bytes())
    code, out, _ = run("ingest", str(other), "--no-embed", "--json")
    assert code == 1 and "would replace the stored document 'manual-latest'" in json.loads(out)[0]["error"]


def test_reading_commands_write_no_schema(cli_env: dict[str, str]) -> None:
    """Reads must work with a read-only account: they create no index or constraint."""
    for args in (("stats", "--json"), ("documents", "--json"), ("cypher", "RETURN 1", "--json")):
        code, _, err = run(*args)
        assert code == 0, err
    code, out, err = run("ask", "When are the penguins fed?", "--json")  # nothing stored: nothing found
    assert code == 0, err
    assert json.loads(out)["evidence"] == [] and json.loads(out)["citations"] == []
    assert json.loads(out)["answer"].startswith("The store holds no documents yet: ingest PDFs first")
    code, out, err = run("ask", "  ")
    assert code == 1 and err.strip() == "error: the question is empty" and out == ""
    code, out, err = run("ask", "When are the penguins fed?", "--doc", "nothing-here")
    assert code == 1 and err.strip() == "error: no document 'nothing-here' in the store (see `docgraph documents`)"
    code, out, _ = run("cypher", "CALL db.indexes() YIELD label RETURN count(label) AS n", "--json")
    assert json.loads(out) == [{"n": 0}]
    code, _, err = run("ingest", str(SAMPLE), "--no-embed")
    assert code == 0, err
    for refused in (["--retriever", "nosuch"], ["--k", "0"], ["--cypher"]):  # the LLM note came first
        code, out, err = run("ask", "When are the penguins fed?", *refused)
        assert code != 0 and len(err.strip().splitlines()) == 1 and err.startswith("error: "), (refused, err)
    code, out, _ = run("cypher", "CALL db.indexes() YIELD label RETURN count(label) AS n", "--json")
    assert json.loads(out)[0]["n"] > 0


def test_model_notes_reach_the_current_stderr_once(capsys: pytest.CaptureFixture[str]) -> None:
    show_model_notes()
    show_model_notes()  # every command runs the callback; the note must still print once
    logging.getLogger("docgraph.models").info("exporting the encoder to ONNX (%s), once: %s", "fp32", "/cache/x")
    assert capsys.readouterr().err == "note: exporting the encoder to ONNX (fp32), once: /cache/x\n"


HEAVY_MODULES = ("torch", "transformers", "sentence_transformers", "openai", "neo4j", "pymupdf")
RUN_AND_LIST_MODULES = """
import json, sys
from docgraph.app.cli.main import app
code = 0
try:
    app(json.loads(sys.argv[1]))
except SystemExit as stop:
    code = stop.code if isinstance(stop.code, int) else 1
print(json.dumps(sorted(set(sys.argv[2:]) & set(sys.modules))), file=sys.stderr)
sys.exit(code)
"""


def run_listing_modules(cli_env: dict[str, str], args: list[str], modules: tuple[str, ...]) -> tuple[str, list[str]]:
    """Run the CLI in a fresh interpreter; its stdout, and which of ``modules`` it imported."""
    env = {**os.environ, **cli_env, "OPENAI_BASE_URL": "", "OPENAI_API_KEY": ""}
    done = subprocess.run(
        [sys.executable, "-c", RUN_AND_LIST_MODULES, json.dumps(args), *modules],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout, json.loads(done.stderr.strip().splitlines()[-1])


def test_asking_loads_no_model_library_beyond_onnxruntime(cli_env: dict[str, str]) -> None:
    # A question on the local store needs the ONNX encoder only: not torch, transformers, the
    # OpenAI SDK without an endpoint, the Neo4j driver or PyMuPDF (each costs seconds to import).
    code, _, err = run("ingest", str(SAMPLE), "--json")  # this also makes the encoder's export if needed
    assert code == 0, err
    out, loaded = run_listing_modules(cli_env, ["ask", "When are the penguins fed?", "--json"], HEAVY_MODULES)
    assert "10:30" in json.loads(out)["answer"]
    assert loaded == []


def test_an_unchanged_reingest_without_embeddings_loads_no_torch(cli_env: dict[str, str]) -> None:
    # An unchanged file is a no-op write plus a look at its stored build (app.pipeline.gnn_store): nothing
    # there needs the GNN's torch.
    args = ["ingest", str(SAMPLE), "--no-embed", "--json"]
    for expected in ("ingested", "unchanged"):
        out, loaded = run_listing_modules(cli_env, args, ("torch",))
        assert json.loads(out)[0]["status"] == expected
        assert loaded == []


def test_training_on_a_missing_or_broken_pdf_is_one_clear_line(cli_env: dict[str, str], tmp_path: Path) -> None:
    missing = tmp_path / "no-such-folder"
    code, _, err = run("train-gnn", "--docs", str(missing), "--out", str(tmp_path / "gnn.pt"))
    assert (code, err) == (1, f"error: {missing}: no such file\n")
    folder = tmp_path / "pdfs"
    folder.mkdir()
    (folder / "fake.pdf").write_text("not a pdf")
    code, _, err = run("train-gnn", "--docs", str(folder), "--out", str(tmp_path / "gnn.pt"))
    assert (code, err) == (1, "error: fake.pdf: not a PDF (no %PDF- header)\n")
    assert not (tmp_path / "gnn.pt").exists()


def test_training_refuses_where_no_checkpoint_can_go_before_reading_anything(
    cli_env: dict[str, str], tmp_path: Path
) -> None:
    """A folder for --out, a file in its path and --epochs 0 failed only after every PDF was read and
    embedded (and, for --out, trained on)."""
    docs = tmp_path / "pdfs"
    docs.mkdir()
    (docs / "fake.pdf").write_text("not a pdf")  # read first, it would fail: the refusals come before
    blocking = tmp_path / "notes.txt"
    blocking.write_text("a file")
    for command in ("train-gnn", "train-reranker"):
        code, _, err = run(command, "--docs", str(docs), "--out", str(tmp_path))
        assert (code, err) == (
            1,
            f"error: --out {tmp_path} is a folder: name the checkpoint file (for example {tmp_path / 'model.pt'})\n",
        )
        code, _, err = run(command, "--docs", str(docs), "--out", str(blocking / "gnn.pt"))
        assert (code, err) == (1, f"error: --out {blocking / 'gnn.pt'}: {blocking} is a file, not a folder\n")
        code, _, err = run(command, "--docs", str(docs), "--epochs", "0")
        assert code == 1 and err.startswith("error: --epochs") and "must be at least 1" in err


def test_new_checkpoints_of_one_second_are_two_files(tmp_path: Path) -> None:
    """Two train-gnn runs started in one second both saved to rgcn-<time>.pt, the second over the first."""
    from docgraph.app.cli.model_cmds import new_checkpoint
    from docgraph.app.config import Settings

    settings = Settings(home=tmp_path, store="")
    named = {new_checkpoint(settings, "rgcn") for _ in range(5)}
    assert len(named) == 5 and all(path.is_absolute() and path.parent == tmp_path / "checkpoints" for path in named)


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


def test_help_names_every_retriever_variant_and_the_ray_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "400")  # one line per option: names are not broken across lines
    for command, option in (("eval", "--variant"), ("ask", "--retriever")):
        code, out, _ = run(command, "--help")
        line = next(line for line in out.splitlines() if option in line)
        assert code == 0 and all(name in line for name in RETRIEVER_NAMES), (command, line)
    code, out, _ = run("ingest", "--help")
    assert code == 0 and "docgraph[ray]" in out  # not eaten as Rich markup


def test_another_file_of_a_stored_name_replaces_it_only_when_told(cli_env: dict[str, str], tmp_path: Path) -> None:
    """The API and the UI refuse a different file under a stored name unless told to replace it;
    the CLI replaced the document read from /a/report.pdf with /b/report.pdf without a word."""
    first, other = tmp_path / "a" / "report.pdf", tmp_path / "b" / "report.pdf"
    first.parent.mkdir()
    other.parent.mkdir()
    first.write_bytes(SAMPLE.read_bytes())
    doc = pymupdf.open(SAMPLE)
    doc[0].insert_text((72, 40), "Another edition", fontsize=9)
    doc.save(other)
    assert run("ingest", str(first), "--no-embed", "--json")[0] == 0

    fresh = pymupdf.open()
    fresh.new_page().insert_text((72, 72), "A note of its own", fontsize=11)
    fresh.save(other.parent / "note.pdf")
    code, out, err = run("ingest", str(other), str(other.parent / "note.pdf"), "--no-embed", "--json")
    refused, noted = json.loads(out)
    assert code == 1 and refused["status"] == "failed" and noted["status"] == "ingested"  # the others still ingest
    assert refused["doc_id"] == "report"  # the stored document the refusal left as it was
    assert f"{other} would replace the stored document 'report', read from another file ({first})" in refused["error"]
    code, out, _ = run("ingest", str(other), "--no-embed", "--replace", "--json")
    assert code == 0 and json.loads(out)[0]["status"] == "replaced"
    # The file it was read from, changed there, updates its document as before.
    changed = pymupdf.open(other)
    changed[0].insert_text((72, 30), "Revised", fontsize=9)
    changed.save(tmp_path / "revised.pdf")
    other.write_bytes((tmp_path / "revised.pdf").read_bytes())
    code, out, err = run("ingest", str(other), "--no-embed", "--json")
    assert code == 0 and json.loads(out)[0]["status"] == "replaced", err


def test_a_stored_file_found_unchanged_elsewhere_is_read_from_there(cli_env: dict[str, str], tmp_path: Path) -> None:
    """A folder moved (or a copy ingested with --replace) is skipped as unchanged; the document kept
    the old path, so the next change of the file where it now is was refused as another file's. A
    copy beside a file that is still there (an upload of the same content) does not take it over."""
    edition = pymupdf.open(SAMPLE)
    edition[0].insert_text((72, 30), "Revised", fontsize=9)
    edition.save(tmp_path / "revised.pdf")
    files = {name: tmp_path / name / "report.pdf" for name in ("a", "b", "c", "d")}
    for path in files.values():
        path.parent.mkdir()
    files["a"].write_bytes(SAMPLE.read_bytes())
    assert run("ingest", str(files["a"]), "--no-embed", "--json")[0] == 0

    def status(name: str, *flags: str) -> str:
        code, out, err = run("ingest", str(files[name]), "--no-embed", "--json", *flags)
        report = json.loads(out)[0] if out else {"status": f"exit {code}", "error": err}
        return f"{report['status']} {report['error']}".strip()

    files["b"].write_bytes(SAMPLE.read_bytes())  # a copy, ingested with --replace: b is its file now
    code, out, err = run("ingest", str(files["b"]), "--no-embed", "--replace")
    assert code == 0 and "report unchanged" in out and "edges:" not in out, err  # no empty edges line
    files["b"].write_bytes((tmp_path / "revised.pdf").read_bytes())
    assert status("b") == "replaced"
    files["c"].write_bytes(files["b"].read_bytes())  # b's folder moved to c
    files["b"].unlink()
    assert status("c") == "unchanged"
    files["c"].write_bytes(SAMPLE.read_bytes())
    assert status("c") == "replaced"
    files["d"].write_bytes(files["c"].read_bytes())  # a copy while c is there: c stays the file
    assert status("d") == "unchanged"
    files["d"].write_bytes((tmp_path / "revised.pdf").read_bytes())
    assert "would replace the stored document 'report'" in status("d")


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


def test_a_path_through_a_linked_folder_and_back_records_the_file_read(cli_env: dict[str, str], tmp_path: Path) -> None:
    """``shelf/../manual.pdf`` with shelf a link elsewhere recorded ``./manual.pdf`` (the spelling
    made absolute), another file than the one read."""
    (tmp_path / "elsewhere" / "shelf").mkdir(parents=True)
    read = tmp_path / "elsewhere" / "manual.pdf"
    read.write_bytes(SAMPLE.read_bytes())
    (tmp_path / "shelf").symlink_to(tmp_path / "elsewhere" / "shelf")
    code, out, err = run("ingest", f"{tmp_path}/shelf/../manual.pdf", "--no-embed")
    assert code == 0, err
    code, out, _ = run("documents", "--json")
    [row] = json.loads(out)
    assert (row["source_path"], row["source_found"]) == (str(read), True)

"""The command line, through Typer's runner and as a real subprocess, on a real local FalkorDB:
Cypher, ingest, eval, schema, training, and which libraries a command loads."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from docgraph.app.cli.common import print_json
from tests.cli_helpers import DOCGRAPH, SAMPLE, run


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

"""`docgraph ingest` stopped by SIGTERM (a service manager, `timeout`): as with Ctrl-C, the reports
of the documents that ended are printed and the others named, and --json lists every file."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from docgraph.app.resources import SAMPLES_DIR
from docgraph.app.stores.falkordb_store import FalkorDBStore

DOCGRAPH = Path(sys.executable).with_name("docgraph")
PDFS = Path(__file__).parent / "data" / "pdfs"
WAIT_S = 300


def stored(store: FalkorDBStore) -> list[str]:
    return [str(row["doc_id"]) for row in store.read("MATCH (d:Document) RETURN d.doc_id AS doc_id")]


def test_sigterm_reports_what_ended_and_lists_every_other_file_in_json(
    falkordb_store: FalkorDBStore, local_home: Path, tmp_path: Path
) -> None:
    """SIGTERM ended the command with nothing on stdout or stderr (exit 143): no JSON for a script."""
    files = [tmp_path / "a-first.pdf", tmp_path / "b-second.pdf", tmp_path / "c-third.pdf", tmp_path / "d-fourth.pdf"]
    shutil.copyfile(SAMPLES_DIR / "docgraph-sample.pdf", files[0])
    for source, target in zip(("acm-draft-p2.pdf", "apssamp.pdf", "gnutls-p119.pdf"), files[1:], strict=True):
        shutil.copyfile(PDFS / source, target)
    env = {**os.environ, "DOCGRAPH_HOME": str(local_home), "DOCGRAPH_GRAPH": falkordb_store.graph_name}
    env["DOCGRAPH_STORE"] = ""
    command = [str(DOCGRAPH), "ingest", *map(str, files), "--workers", "1", "--json"]
    ingest = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + WAIT_S
        while "a-first" not in stored(falkordb_store) and ingest.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        ingest.send_signal(signal.SIGTERM)  # the second file is being read, the last is not started
        out, err = ingest.communicate(timeout=WAIT_S)
    finally:
        ingest.kill()
    assert ingest.returncode == 128 + signal.SIGTERM, err
    reports = json.loads(out)
    # a-first is stored: reported as ingested, or (a signal just after its write) not ended
    assert Path(reports[0]["file"]).name == "a-first.pdf" and reports[0]["status"] in ("ingested", "not_ingested")
    assert sorted(Path(report["file"]).name for report in reports) == sorted(path.name for path in files)
    last = next(report for report in reports if report["file"] == str(files[-1]))
    assert last["status"] == "not_ingested" and last["doc_id"] == "d-fourth"
    assert last["error"] == "interrupted: run the command again for it (a file stored already is found unchanged)"
    assert "terminated: not ingested: " in err and "d-fourth.pdf" in err.splitlines()[-1]
    assert "d-fourth" not in stored(falkordb_store)

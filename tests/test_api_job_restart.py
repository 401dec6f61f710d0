"""Ingest jobs outlive the API server: a job cut short by a kill runs again after a restart."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx

from docgraph.app.api.job_store import JobStore
from docgraph.app.api.jobs import JobManager
from docgraph.app.pipeline.stages import IngestPipeline
from tests.conftest import fresh_graph_name
from tests.ui_helpers import wait_for_json

PDF = Path(__file__).parent / "data" / "pdfs" / "water-report.pdf"
SERVE = "import typer; from docgraph.app.cli.serve_cmds import serve_command; typer.run(serve_command)"


def start_server(env: dict[str, str], port: int) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", SERVE, "--port", str(port)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def finished_job(base: str, job_id: str, timeout_s: float = 300) -> dict[str, Any]:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        job: dict[str, Any] = httpx.get(f"{base}/jobs/{job_id}", timeout=10).json()
        if job.get("status") in ("succeeded", "failed"):
            return job
        time.sleep(0.5)
    raise AssertionError(f"job {job_id} did not finish within {timeout_s:.0f}s")


def test_a_job_cut_short_by_a_killed_server_runs_again_after_a_restart(local_home: Path) -> None:
    env = {**os.environ, "DOCGRAPH_HOME": str(local_home), "DOCGRAPH_GRAPH": fresh_graph_name(), "DOCGRAPH_STORE": ""}
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    first = start_server(env, port)
    try:
        wait_for_json(f"{base}/health", first)
        with PDF.open("rb") as handle:
            upload = {"file": (PDF.name, handle, "application/pdf")}
            accepted = httpx.post(f"{base}/documents", files=upload, timeout=60)
        assert accepted.status_code == 202
        job_id = accepted.json()["job_id"]
    finally:
        first.send_signal(signal.SIGKILL)  # mid-job: no shutdown, no cleanup
        first.communicate(timeout=30)

    second = start_server(env, port)
    try:
        wait_for_json(f"{base}/health", second)
        job = finished_job(base, job_id)
        documents = httpx.get(f"{base}/documents", timeout=30).json()
    finally:
        second.terminate()
        second.communicate(timeout=60)
    assert job["status"] == "succeeded", job["error"]
    assert job["file_name"] == PDF.name and job["report"]["pages"] == 9
    assert [d["file_name"] for d in documents] == [PDF.name]


def test_a_job_whose_upload_is_gone_fails_with_a_reason_after_a_restart(tmp_path: Path) -> None:
    store = JobStore(tmp_path / "jobs.sqlite", kept=10)
    upload = tmp_path / "uploads" / "gone" / "manual.pdf"
    record = {"job_id": "j1", "file_name": "manual.pdf", "status": "running", "stage": "embed"}
    store.save("j1", "2026-11-27T00:00:00+00:00", {**record, "path": str(upload), "embed": True, "force": False})
    store.save("j0", "2026-11-26T00:00:00+00:00", {**record, "job_id": "j0", "status": "succeeded", "path": "x"})

    def no_pipeline(embed: bool, force: bool, path: Path) -> IngestPipeline:
        raise AssertionError("a job without its upload must not run")

    manager = JobManager(no_pipeline, store)
    try:
        gone, done = manager.get("j1"), manager.get("j0")
    finally:
        manager.shutdown()
    assert gone.status == "failed" and "upload is gone" in gone.error
    assert done.status == "succeeded"
    assert [r["status"] for r in JobStore(tmp_path / "jobs.sqlite", kept=10).load()] == ["succeeded", "failed"]

"""Ingest on a real local Ray cluster (``ray start --head``, two CPUs: two worker processes at once)."""

from __future__ import annotations

import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from docgraph.app.pipeline.build import build_ingest_pipeline
from docgraph.app.pipeline.execution.ray_driver import RayDriverProcess
from docgraph.app.pipeline.worker import WorkerSpec
from docgraph.app.stores.falkordb_store import FalkorDBStore
from tests.conftest import fresh_graph_name, local_settings
from tests.test_parallel_ingest import FILES, assert_same_graph, second_store, windowed

# Ray reads these when it is imported: this process, the cluster's driver, keeps to the loopback
# address it is given and authenticates with the cluster's token.
RAY_FOLDER = Path(tempfile.mkdtemp(prefix="rt", dir="/tmp"))  # Ray's socket paths must stay short
TOKEN = RAY_FOLDER / "auth_token"
TOKEN.write_text(secrets.token_hex(32))
TOKEN.chmod(0o600)
RAY_ENV = {
    "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0",
    "RAY_AUTH_MODE": "token",
    "RAY_AUTH_TOKEN_PATH": str(TOKEN),
}
os.environ.update(RAY_ENV)
pytest.importorskip("ray")

__all__ = ["second_store"]  # the fixture, shared with test_parallel_ingest
RAY = Path(sys.executable).parent / "ray"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(scope="module")
def ray_address() -> Iterator[str]:
    """A one-node cluster on 127.0.0.1 with token authentication, stopped afterwards."""
    folder = RAY_FOLDER
    port = free_port()
    start = [str(RAY), "start", "--head", "--node-ip-address=127.0.0.1", f"--port={port}", "--num-cpus=2"]
    start += [f"--object-store-memory={512 * 2**20}", "--include-dashboard=false", "--disable-usage-stats"]
    start += [f"--temp-dir={folder}"]
    env = {**os.environ, **RAY_ENV, "DOCGRAPH_THREADS": "1"}
    subprocess.run(start, check=True, capture_output=True, timeout=120, env=env)
    try:
        yield f"127.0.0.1:{port}"
    finally:
        subprocess.run([str(RAY), "stop", "--force"], capture_output=True, timeout=120)
        shutil.rmtree(folder, ignore_errors=True)


def test_a_ray_cluster_builds_the_same_graph_as_this_process(
    ray_address: str, falkordb_store: FalkorDBStore, second_store: FalkorDBStore, local_home: Path
) -> None:
    settings = local_settings(local_home, "unused")
    local = build_ingest_pipeline(falkordb_store, settings).ingest_many(FILES)
    tasks = RayDriverProcess(WorkerSpec(settings, settings.reader), ray_address)
    try:
        assert tasks.workers == 2
        on_ray = windowed(build_ingest_pipeline(second_store, settings, tasks=tasks), pages=2).ingest_many(FILES)
        stats = tasks.stats()
    finally:
        tasks.close()

    assert [r.status for r in on_ray] == ["ingested"] * len(FILES), [r.error for r in on_ray]
    assert [(r.doc_id, r.nodes, r.edges) for r in on_ray] == [(r.doc_id, r.nodes, r.edges) for r in local]
    assert_same_graph(falkordb_store, second_store)
    assert len(stats) == 2  # both of the cluster's worker processes took tasks
    assert all(worker.tasks > 0 and worker.peak_rss_mb > 0 for worker in stats)


def test_a_bad_file_fails_alone_on_ray(ray_address: str, falkordb_store: FalkorDBStore, local_home: Path) -> None:
    broken = local_home / "broken.pdf"
    broken.write_bytes(b"%PDF-1.7\nnot really a PDF")
    settings = local_settings(local_home, "unused")
    tasks = RayDriverProcess(WorkerSpec(settings, settings.reader), ray_address)
    try:
        reports = build_ingest_pipeline(falkordb_store, settings, tasks=tasks).ingest_many([broken, FILES[-1]])
    finally:
        tasks.close()
    assert [r.status for r in reports] == ["failed", "ingested"]
    assert reports[0].error.startswith("broken.pdf: ")
    assert "Traceback" not in reports[0].error


@pytest.mark.parametrize(
    ("address", "reason"),
    [
        ("nosuchhost.invalid:18799", "no host 'nosuchhost.invalid'"),
        ("127.0.0.1:{held}", "nothing answers there (Connection refused)"),
    ],
)
def test_a_cluster_address_nothing_answers_at_is_refused_in_one_line(
    address: str, reason: str, tmp_path: Path, local_home: Path
) -> None:
    """It took Ray's whole minute of retries, with its own log lines, before the one-line error."""
    with socket.socket() as held:  # bound, never listening: refused, and no other server can take the port
        held.bind(("127.0.0.1", 0))
        address = address.format(held=held.getsockname()[1])
        refused_at(address, reason, tmp_path, local_home)


def test_a_module_named_docgraph_where_it_runs_does_not_shadow_the_driver(tmp_path: Path, local_home: Path) -> None:
    """`ingest --ray` ran its driver as `python -m`, which put the working directory first on the
    path: a docgraph.py there gave "No module named 'docgraph.app'". The driver process is spawned
    with this one's path, as the worker processes are."""
    (tmp_path / "here").mkdir()
    (tmp_path / "here" / "docgraph.py").write_text("")
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        address = f"127.0.0.1:{held.getsockname()[1]}"
        refused_at(address, "nothing answers there", tmp_path, local_home, cwd=tmp_path / "here")


def refused_at(address: str, reason: str, tmp_path: Path, local_home: Path, cwd: Path | None = None) -> None:
    docgraph = Path(sys.executable).with_name("docgraph")
    store = f"falkordb-local://{local_home}?graph={fresh_graph_name()}"  # a home of its own would start a server
    env = {**os.environ, "DOCGRAPH_HOME": str(tmp_path), "DOCGRAPH_STORE": store}
    sample = Path(__file__).resolve().parent.parent / "samples" / "docgraph-sample.pdf"
    command = [str(docgraph), "ingest", str(sample), "--ray", address]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120, cwd=cwd)
    assert done.returncode == 1
    assert done.stderr.startswith(f"error: cannot join the Ray cluster at {address}: {reason}")
    assert len(done.stderr.splitlines()) == 1, done.stderr


def test_the_cluster_s_error_messages_go_to_standard_error(
    capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A dead worker's "(raylet) A worker died ..." came on standard output, ahead of --json's JSON.
    Ray's listener for the cluster's errors calls print_to_stdstream by its module name."""
    import ray

    from docgraph.app.pipeline.execution.ray_cluster import _errors_to_stderr

    worker_module = ray._private.worker
    monkeypatch.setattr(worker_module, "print_to_stdstream", worker_module.print_to_stdstream)  # put back after
    _errors_to_stderr(ray)
    message = {"lines": ["A worker died or was killed while executing a task."], "pid": "raylet", "is_err": False}
    worker_module.print_to_stdstream(message, ignore_prefix=False)
    printed = capfd.readouterr()
    assert printed.out == "" and "A worker died or was killed" in printed.err


def test_an_upload_to_an_api_whose_cluster_cannot_be_joined_fails_in_one_line(local_home: Path) -> None:
    """The job said "ConfigError: cannot join ..." and the server logged a traceback for it."""
    from tests.api_helpers import SAMPLE_PDF, follow_job, served, upload

    with socket.socket() as held:  # bound, never listening: refused
        held.bind(("127.0.0.1", 0))
        address = f"127.0.0.1:{held.getsockname()[1]}"
        settings = local_settings(local_home, fresh_graph_name()).model_copy(update={"ray_address": address})
        with served(settings) as client:
            sent = upload(client, SAMPLE_PDF.read_bytes(), SAMPLE_PDF.name)
            assert sent.status_code == 202, sent.text
            ended = follow_job(client, sent.json()["job_id"])[-1]
    assert ended["status"] == "failed", ended
    assert ended["error"] == f"cannot join the Ray cluster at {address}: nothing answers there (Connection refused)"


def test_a_web_app_ingest_goes_to_the_configured_cluster(
    ray_address: str, falkordb_store: FalkorDBStore, local_home: Path
) -> None:
    """The web app ingested in its own process whatever DOCGRAPH_RAY_ADDRESS said: it goes through
    the cluster now, a short file too, and a cluster that cannot be joined is said in one line."""
    from docgraph.app.pipeline.execution.factory import SharedWorkers
    from docgraph.app.ui_support.ingest import ingest_files
    from docgraph.errors import ConfigError
    from tests.ui_helpers import SAMPLE_PDF

    settings = local_settings(local_home, falkordb_store.graph_name).model_copy(update={"ray_address": ray_address})
    workers = SharedWorkers(settings)
    try:
        tasks = workers.for_files([SAMPLE_PDF])
        assert isinstance(tasks, RayDriverProcess)
        (report,) = ingest_files(falkordb_store, settings, [SAMPLE_PDF], tasks=tasks)
        assert report.status == "ingested", report.error
        assert sum(worker.tasks for worker in tasks.stats()) >= 2  # read and built on the cluster's workers
    finally:
        workers.close()

    with socket.socket() as held:  # bound, never listening: refused
        held.bind(("127.0.0.1", 0))
        address = f"127.0.0.1:{held.getsockname()[1]}"
        refused = SharedWorkers(settings.model_copy(update={"ray_address": address}))
        with pytest.raises(ConfigError, match=re.escape(f"cannot join the Ray cluster at {address}: nothing answers")):
            refused.for_files([SAMPLE_PDF])  # the batch fails with this line (IngestRuns: run.error)

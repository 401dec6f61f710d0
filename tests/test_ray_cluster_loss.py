"""A Ray cluster that goes away during `docgraph ingest --ray`: a cluster of its own (the shared one of
test_ray_ingest stays up), its processes killed once the driver has joined it (docgraph's driver
process is spared: Ray ends it, as it would when the cluster's machine goes)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from tests.conftest import fresh_graph_name
from tests.test_parallel_ingest import FILES
from tests.test_ray_ingest import RAY, RAY_ENV, free_port

pytest.importorskip("ray")

JOINED_WAIT_S = 180.0  # the driver loads its pipeline before it joins; the suite may share the cores
EXIT_WAIT_S = 50.0  # the watch's 5 s and the documents' reports, with the suite sharing the cores
DOCGRAPH = Path(sys.executable).with_name("docgraph")


def of_cluster(pid: str, folder: Path) -> bool:
    """Whether process ``pid`` belongs to the cluster of ``folder``: named in its command line, or
    holding a file there (Ray renames its agents "ray::DashboardAgent" and the like)."""
    try:
        if str(folder).encode() in Path(f"/proc/{pid}/cmdline").read_bytes():
            return True
        fds = Path(f"/proc/{pid}/fd")
        return any(os.readlink(fd).startswith(str(folder)) for fd in fds.iterdir())
    except OSError:
        return False


def parent_of(pid: str) -> int:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[1])
    except (OSError, IndexError, ValueError):
        return -1


def kill_cluster(folder: Path, only: str = "", spare: int = 0) -> int:
    """SIGKILL the processes of the cluster whose temp folder is ``folder`` (not `ray stop`, which
    stops every cluster on the machine), or only those whose command holds ``only``, but not the
    process ``spare`` and its children (docgraph and its driver, which writes Ray's log there too);
    how many."""
    killed = 0
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        ours = int(pid) in (spare, os.getpid()) or parent_of(pid) in (spare, os.getpid())
        if only.encode() in command and not ours and of_cluster(pid, folder):
            try:
                os.kill(int(pid), signal.SIGKILL)
                killed += 1
            except ProcessLookupError:
                continue
    return killed


def said_workers(command: subprocess.Popen[str]) -> str:
    """What ``command`` wrote on standard error until it said how many workers it has (it says so
    once it has joined the cluster)."""
    said: list[str] = []

    def read() -> None:
        assert command.stderr is not None
        while line := command.stderr.readline():
            said.append(line)
            if line.rstrip().endswith(" workers"):
                return

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(JOINED_WAIT_S)
    assert said and said[-1].rstrip().endswith(" workers"), f"the command never joined: {said}"
    return "".join(said)


@contextmanager
def own_cluster() -> Iterator[tuple[Path, int, dict[str, str]]]:
    """A two-CPU cluster of its own: its temp folder, port and the environment to join it with."""
    folder = Path(tempfile.mkdtemp(prefix="rt", dir="/tmp"))  # Ray's socket paths must stay short
    port = free_port()
    start = [str(RAY), "start", "--head", "--node-ip-address=127.0.0.1", f"--port={port}", "--num-cpus=2"]
    start += [f"--object-store-memory={256 * 2**20}", "--include-dashboard=false", "--disable-usage-stats"]
    # Ray's driver waits 20 s (not its default minute) for a control service gone: the watch fails
    # the documents after 5 s of it, and the test sees which of the two came first.
    env = {**os.environ, **RAY_ENV, "DOCGRAPH_THREADS": "1", "RAY_gcs_rpc_server_reconnect_timeout_s": "20"}
    try:
        subprocess.run([*start, f"--temp-dir={folder}"], check=True, capture_output=True, timeout=120, env=env)
        yield folder, port, env
    finally:
        kill_cluster(folder)
        shutil.rmtree(folder, ignore_errors=True)


def ingest_while_the_cluster_goes(tmp_path: Path, local_home: Path, killed: str) -> tuple[int, str, str, int, str]:
    """`docgraph ingest --ray --json` on a cluster of its own, whose ``killed`` processes (all: "")
    are killed a second after the driver joined: exit status, stdout, stderr, the port and the store."""
    store = f"falkordb-local://{local_home}?graph={fresh_graph_name()}"
    with own_cluster() as (folder, port, env):
        command = [str(DOCGRAPH), "ingest", *map(str, FILES), "--ray", f"127.0.0.1:{port}", "--json"]
        env |= {"DOCGRAPH_HOME": str(tmp_path), "DOCGRAPH_STORE": store}
        driver = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            said = said_workers(driver)  # the command joined the cluster and starts its documents
            assert kill_cluster(folder, killed, spare=driver.pid) > 0
            out, err = driver.communicate(timeout=EXIT_WAIT_S)
            err = said + err
        finally:
            if driver.poll() is None:
                driver.kill()
                driver.communicate(timeout=30)
    return driver.returncode, out, err, port, store


def test_a_cluster_killed_whole_fails_its_documents_and_the_command_goes_on(tmp_path: Path, local_home: Path) -> None:
    """The whole cluster killed: Ray ends the process that joined it at once (its object store gone).
    That was the command itself: exit 1 with nothing on standard error but "2 workers". Now a driver
    process of its own ends; each document fails saying why, and the command reports them."""
    code, out, err, port, store = ingest_while_the_cluster_goes(tmp_path, local_home, killed="")
    assert code == 1, err
    reports = reports_of(out, err)
    # Ray ends the driver (its object store gone), or the watch finds the control service gone first
    lost = [f"the Ray cluster at 127.0.0.1:{port} {how}" for how in ("went away", "is gone")]
    failed = [report["error"] for report in reports if report["status"] == "failed"]
    assert all(any(said in error for said in lost) for error in failed), reports
    assert "Traceback" not in err, err
    assert_stored_as_reported(reports, tmp_path, store)


def test_a_cluster_whose_control_service_goes_fails_its_documents_at_once(tmp_path: Path, local_home: Path) -> None:
    """Its GCS killed: the driver waited a minute for it, then Ray ended it with no report. Each
    document under way or still to come now fails at once, saying why; nothing is half written."""
    code, out, err, port, store = ingest_while_the_cluster_goes(tmp_path, local_home, killed="gcs_server")
    assert code == 1, err
    reports = reports_of(out, err)
    gone = f"the Ray cluster at 127.0.0.1:{port} is gone: nothing answers there"
    assert any(gone in report["error"] for report in reports), reports
    assert "Failed to connect to GCS" not in err and "went away or failed" not in out, (out, err)
    assert_stored_as_reported(reports, tmp_path, store)


def reports_of(out: str, err: str) -> list[dict[str, str]]:
    """The command's reports: one per file, each ingested or failed (not a half of one written)."""
    assert out, err
    reports: list[dict[str, str]] = json.loads(out)
    assert len(reports) == len(FILES) and {report["status"] for report in reports} <= {"failed", "ingested"}
    assert any(report["status"] == "failed" for report in reports), reports
    return reports


def assert_stored_as_reported(reports: list[dict[str, str]], tmp_path: Path, store: str) -> None:
    listed = subprocess.run(
        [str(DOCGRAPH), "documents", "--json"],
        env={**os.environ, "DOCGRAPH_HOME": str(tmp_path), "DOCGRAPH_STORE": store},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    ingested = {report["doc_id"] for report in reports if report["status"] == "ingested"}
    assert {document["doc_id"] for document in json.loads(listed.stdout)} == ingested


@pytest.mark.parametrize("killed", ["", "gcs_server"])
def test_an_api_server_outlives_its_ray_cluster(killed: str, tmp_path: Path, local_home: Path) -> None:
    """`docgraph serve` with DOCGRAPH_RAY_ADDRESS joined the cluster itself: the cluster killed under
    an upload, Ray ended the whole server without a word. Now the upload's job fails saying why, the
    server answers, and a later upload tries the cluster afresh: with only its control service
    killed, the driver that found it gone had failed every later upload for good."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    with own_cluster() as (folder, ray_port, env):
        env |= {
            "DOCGRAPH_HOME": str(tmp_path),
            "DOCGRAPH_STORE": f"falkordb-local://{local_home}?graph={fresh_graph_name()}",
            "DOCGRAPH_RAY_ADDRESS": f"127.0.0.1:{ray_port}",
        }
        command = [str(DOCGRAPH), "serve", "--port", str(port), "--json"]
        server = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            assert server.stdout is not None and json.loads(server.stdout.readline())["url"] == url
            first = upload_to(url, FILES[0])
            wait_for_stage(url, first, "read")  # the cluster joined: its workers read the pages
            assert kill_cluster(folder, killed, spare=server.pid) > 0
            # Ray ends the driver (its object store gone), or the watch finds the control service gone first
            lost = [f"the Ray cluster at 127.0.0.1:{ray_port} {how}" for how in ("went away", "is gone")]
            assert any(said in ended_job(url, first)["error"] for said in lost)
            assert httpx.get(f"{url}/health", timeout=10).status_code == 200
            again = ended_job(url, upload_to(url, FILES[1]))["error"]
            assert f"{lost[0]} and cannot be joined again: nothing answers there" in again, again
            assert httpx.get(f"{url}/documents", timeout=10).json() == []
        finally:
            server.send_signal(signal.SIGTERM)
            _, err = server.communicate(timeout=60)
    assert server.returncode == -signal.SIGTERM, err  # shut down, then ended by the signal uvicorn re-raises
    assert "Application shutdown complete" in err, err


def upload_to(url: str, path: Path) -> str:
    """POST the PDF at ``path`` to the API at ``url``; its job's id."""
    with path.open("rb") as pdf:
        sent = httpx.post(f"{url}/documents", files={"file": (path.name, pdf, "application/pdf")}, timeout=60)
    assert sent.status_code == 202, sent.text
    job_id: str = sent.json()["job_id"]
    return job_id


def wait_for_stage(url: str, job_id: str, stage: str) -> None:
    deadline = time.monotonic() + JOINED_WAIT_S
    while time.monotonic() < deadline:
        job = httpx.get(f"{url}/jobs/{job_id}", timeout=10).json()
        assert job["status"] in ("queued", "running"), job
        if job["stage"] == stage:
            return
        time.sleep(0.1)
    raise AssertionError(f"job {job_id} did not reach {stage} in {JOINED_WAIT_S}s")


def ended_job(url: str, job_id: str) -> dict[str, str]:
    deadline = time.monotonic() + EXIT_WAIT_S
    while time.monotonic() < deadline:
        job: dict[str, str] = httpx.get(f"{url}/jobs/{job_id}", timeout=10).json()
        if job["status"] in ("succeeded", "failed", "cancelled"):
            assert job["status"] == "failed", job
            return job
        time.sleep(0.2)
    raise AssertionError(f"job {job_id} did not end in {EXIT_WAIT_S}s")

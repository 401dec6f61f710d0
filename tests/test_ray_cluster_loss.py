"""A Ray cluster that goes away during `docgraph ingest --ray`: a cluster of its own (the shared one of
test_ray_ingest stays up), its processes killed once the driver has joined it."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

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


def kill_cluster(folder: Path, only: str = "") -> int:
    """SIGKILL the processes of the cluster whose temp folder is ``folder`` (not `ray stop`, which
    stops every cluster on the machine), or only those whose command holds ``only``; how many."""
    killed = 0
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        driver = b"docgraph" in command  # it writes Ray's driver log under the folder too
        if only.encode() in command and not driver and int(pid) != os.getpid() and of_cluster(pid, folder):
            try:
                os.kill(int(pid), signal.SIGKILL)
                killed += 1
            except ProcessLookupError:
                continue
    return killed


def wait_for_driver(folder: Path, driver: subprocess.Popen[str]) -> None:
    """Until the cluster has started the driver's job (its raylet log says so)."""
    deadline = time.monotonic() + JOINED_WAIT_S
    while time.monotonic() < deadline and driver.poll() is None:
        logs = list(folder.glob("session_*/logs/raylet.out"))
        if logs and "Start install runtime environment for job" in logs[0].read_text(errors="replace"):
            return
        time.sleep(0.2)
    raise AssertionError(f"the driver never joined (exit {driver.poll()})")


def ingest_while_the_cluster_goes(tmp_path: Path, local_home: Path, killed: str) -> tuple[int, str, str, int, str]:
    """`docgraph ingest --ray --json` on a cluster of its own, whose ``killed`` processes (all: "")
    are killed a second after the driver joined: exit status, stdout, stderr, the port and the store."""
    folder = Path(tempfile.mkdtemp(prefix="rt", dir="/tmp"))  # Ray's socket paths must stay short
    port = free_port()
    start = [str(RAY), "start", "--head", "--node-ip-address=127.0.0.1", f"--port={port}", "--num-cpus=2"]
    start += [f"--object-store-memory={256 * 2**20}", "--include-dashboard=false", "--disable-usage-stats"]
    # Ray's driver waits 20 s (not its default minute) for a control service gone: the watch fails
    # the documents after 5 s of it, and the test sees which of the two came first.
    env = {**os.environ, **RAY_ENV, "DOCGRAPH_THREADS": "1", "RAY_gcs_rpc_server_reconnect_timeout_s": "20"}
    store = f"falkordb-local://{local_home}?graph={fresh_graph_name()}"
    command = [str(DOCGRAPH), "ingest", *map(str, FILES), "--ray", f"127.0.0.1:{port}", "--json"]
    try:
        subprocess.run([*start, f"--temp-dir={folder}"], check=True, capture_output=True, timeout=120, env=env)
        env |= {"DOCGRAPH_HOME": str(tmp_path), "DOCGRAPH_STORE": store}
        driver = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            wait_for_driver(folder, driver)
            time.sleep(1.0)
            assert kill_cluster(folder, killed) > 0
            out, err = driver.communicate(timeout=EXIT_WAIT_S)
        finally:
            if driver.poll() is None:
                driver.kill()
                driver.communicate(timeout=30)
    finally:
        kill_cluster(folder)
        shutil.rmtree(folder, ignore_errors=True)
    return driver.returncode, out, err, port, store


def test_a_driver_ray_ends_with_its_cluster_says_so(tmp_path: Path, local_home: Path) -> None:
    """The whole cluster killed: Ray ended the driver at once (its object store gone), exit 1 with
    nothing on standard error but "2 workers"."""
    code, out, err, port, _ = ingest_while_the_cluster_goes(tmp_path, local_home, killed="")
    assert (code, out) == (1, ""), err
    assert err.splitlines()[-1] == (
        f"error: Ray ended the ingest (exit 1): the cluster at 127.0.0.1:{port} went away or failed (its logs "
        "say why); documents written before stay stored: run the command again for the others"
    ), err


def test_a_cluster_whose_control_service_goes_fails_its_documents_at_once(tmp_path: Path, local_home: Path) -> None:
    """Its GCS killed: the driver waited a minute for it, then Ray ended it with no report. Each
    document under way or still to come now fails at once, saying why; nothing is half written."""
    code, out, err, port, store = ingest_while_the_cluster_goes(tmp_path, local_home, killed="gcs_server")
    assert code == 1, err
    assert out, err
    reports = json.loads(out)
    assert len(reports) == len(FILES) and {report["status"] for report in reports} <= {"failed", "ingested"}
    gone = f"the Ray cluster at 127.0.0.1:{port} is gone: nothing answers there"
    assert any(gone in report["error"] for report in reports), reports
    assert "Failed to connect to GCS" not in err and "Ray ended the ingest" not in err, err
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

"""Who may reach the HTTP API, against a real `docgraph serve` (uvicorn) on 127.0.0.1.

Keys are made with `docgraph keys` in a data home of the test's own (the store is the session's
local FalkorDB, named by URL), so that no other test's server starts needing keys.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from docgraph.app.api.access import allowed_hosts, host_name, required_role
from docgraph.app.auth.exposure import check_exposure, is_loopback
from docgraph.app.auth.keys import KeyStore
from docgraph.errors import ConfigError
from tests.conftest import fresh_graph_name
from tests.ui_helpers import free_port, wait_for_json

SAMPLE = Path(__file__).resolve().parent.parent / "samples" / "docgraph-sample.pdf"


def docgraph(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "DOCGRAPH_HOME": str(home)}
    return subprocess.run(
        [sys.executable, "-m", "docgraph.app.cli.main", *args], env=env, capture_output=True, text=True, timeout=120
    )


@contextmanager
def running_api(local_home: Path, home: Path, host: str = "127.0.0.1", **env_extra: str) -> Iterator[str]:
    """`docgraph serve` on a free port of ``host`` (127.0.0.1), keys in ``home``, the store a fresh graph
    of the session's local FalkorDB; yields its URL (at 127.0.0.1 for ``localhost``)."""
    home.mkdir(exist_ok=True)
    port = free_port()
    env = {
        **os.environ,
        "DOCGRAPH_HOME": str(home),
        "DOCGRAPH_STORE": f"falkordb-local://{local_home}?graph={fresh_graph_name()}",
        "OMP_THREAD_LIMIT": "1",
        **env_extra,
    }
    process = subprocess.Popen(
        [sys.executable, "-m", "docgraph.app.cli.main", "serve", "--host", host, "--port", str(port)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    url = f"http://[{host}]:{port}" if ":" in host else f"http://127.0.0.1:{port}"
    try:
        wait_for_json(f"{url}/health", process)
        yield url
    finally:
        process.terminate()
        process.communicate(timeout=30)


@pytest.fixture
def server(local_home: Path, tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """The API on 127.0.0.1: its URL and its data home (where its keys are)."""
    with running_api(local_home, tmp_path / "home") as url:
        yield url, tmp_path / "home"


def new_key(home: Path, role: str) -> str:
    done = docgraph(home, "keys", "create", "--role", role, "--name", f"a {role}")
    assert done.returncode == 0, done.stderr
    return done.stdout.strip().splitlines()[-1]  # the key is the last line


def test_without_keys_only_loopback_hosts_and_same_origin_writes_get_in(server: tuple[str, Path]) -> None:
    url, _ = server
    assert httpx.get(f"{url}/health").status_code == 200
    rebinding = httpx.get(f"{url}/documents", headers={"Host": "evil.example"})
    assert rebinding.status_code == 400 and rebinding.json()["error"]["type"] == "bad_host"
    pdf = {"file": ("zoo.pdf", SAMPLE.read_bytes(), "application/pdf")}
    foreign = httpx.post(f"{url}/documents", files=pdf, headers={"Origin": "http://evil.example"})
    assert foreign.status_code == 403 and foreign.json()["error"]["type"] == "forbidden_origin"
    assert httpx.get(f"{url}/documents", headers={"Origin": "http://evil.example"}).status_code == 200  # a read
    same = httpx.post(f"{url}/retrieve", json={"query": "penguins"}, headers={"Origin": url})
    assert same.status_code == 200


def test_localhost_is_served_on_each_address_it_names_and_ipv6_alone(local_home: Path, tmp_path: Path) -> None:
    """``--host localhost`` listens on every address the machine names for it (127.0.0.1, and ::1 where
    /etc/hosts names it too: a browser may try either); ``--host ::1`` on IPv6 alone."""
    with running_api(local_home, tmp_path / "both", host="localhost") as url:
        port = int(url.rsplit(":", 1)[1])
        named = {str(found[4][0]) for found in socket.getaddrinfo("localhost", port, type=socket.SOCK_STREAM)}
        for address in [*named, "localhost"]:
            served = f"http://[{address}]:{port}" if ":" in address else f"http://{address}:{port}"
            assert httpx.get(f"{served}/health", timeout=30).json()["status"] == "ok", served
    try:
        with socket.socket(socket.AF_INET6) as probe:
            probe.bind(("::1", 0))
    except OSError:
        pytest.skip("this machine has no IPv6 loopback")
    with running_api(local_home, tmp_path / "six", host="::1") as url:
        assert httpx.get(f"{url}/health", timeout=30).json()["status"] == "ok"
        with pytest.raises(httpx.ConnectError):
            httpx.get(f"http://127.0.0.1:{url.rsplit(':', 1)[1]}/health", timeout=30)


def test_once_a_key_exists_every_request_needs_one_of_the_right_role(server: tuple[str, Path]) -> None:
    url, home = server
    assert httpx.get(f"{url}/documents").status_code == 200  # no key yet: open (on loopback)
    reader, writer = new_key(home, "reader"), new_key(home, "writer")
    for path in ("/documents", "/health", "/openapi.json", "/docs"):
        refused = httpx.get(f"{url}{path}")
        assert refused.status_code == 401 and refused.headers["www-authenticate"] == "Bearer", path
    wrong = httpx.get(f"{url}/documents", headers={"Authorization": f"Bearer {reader[:-1]}x"})
    assert wrong.status_code == 401 and "not one of this server's" in wrong.json()["error"]["message"]
    as_reader = {"Authorization": f"Bearer {reader}"}
    as_writer = {"Authorization": f"Bearer {writer}"}
    assert httpx.get(f"{url}/documents", headers=as_reader).status_code == 200
    assert httpx.post(f"{url}/retrieve", json={"query": "penguins"}, headers=as_reader).status_code == 200
    streamed = httpx.post(f"{url}/ask/stream", json={"question": "When are the penguins fed?"}, headers=as_reader)
    assert streamed.status_code == 200 and streamed.text.endswith("}\n")  # a reader may ask, streamed too
    upload = httpx.post(
        f"{url}/documents", files={"file": ("zoo.pdf", SAMPLE.read_bytes(), "application/pdf")}, headers=as_reader
    )
    assert upload.status_code == 403 and upload.json()["error"]["type"] == "forbidden"
    assert httpx.delete(f"{url}/documents/nothing-here", headers=as_reader).status_code == 403
    assert httpx.delete(f"{url}/documents/nothing-here", headers=as_writer).status_code == 404  # let in
    assert httpx.get(f"{url}/jobs", headers=as_reader).status_code == 200
    assert httpx.delete(f"{url}/jobs/no-such-job", headers=as_reader).status_code == 403  # a cancel is a writer's
    assert httpx.delete(f"{url}/jobs/no-such-job", headers=as_writer).status_code == 404

    listed = json.loads(docgraph(home, "keys", "list", "--json").stdout)
    assert {(k["role"], k["active"]) for k in listed} == {("reader", True), ("writer", True)}
    stored = (home / "keys.json").read_text()
    assert reader not in stored and writer not in stored and reader.split("_", 2)[2] not in stored
    assert oct((home / "keys.json").stat().st_mode & 0o777) == "0o600"

    reader_id = next(k["key_id"] for k in listed if k["role"] == "reader")
    assert docgraph(home, "keys", "revoke", reader_id).returncode == 0
    revoked = httpx.get(f"{url}/documents", headers=as_reader)  # at once, in the running server
    assert revoked.status_code == 401 and f"key {reader_id} was revoked at" in revoked.json()["error"]["message"]
    assert httpx.get(f"{url}/documents", headers=as_writer).status_code == 200

    # The last key revoked (it leaked, say): the server locks rather than opening to everyone
    writer_id = next(k["key_id"] for k in listed if k["role"] == "writer")
    assert docgraph(home, "keys", "revoke", writer_id).returncode == 0
    for headers in ({}, as_writer):
        locked = httpx.get(f"{url}/documents", headers=headers)
        assert locked.status_code == 401 and "every API key is revoked" in locked.json()["error"]["message"]

    # A damaged key file (cut short by a full disk, or a hand edit) keeps everyone out, in JSON
    (home / "keys.json").write_text('{"keys": [')
    damaged = httpx.get(f"{url}/health", headers=as_writer)
    assert damaged.status_code == 500 and damaged.json()["error"]["type"] == "key_store_unreadable"


def test_behind_a_path_prefix_a_reader_still_may_not_upload_or_delete(local_home: Path, tmp_path: Path) -> None:
    """Served under a prefix (uvicorn --root-path, as behind a proxy at /dg), the role check compared
    /dg/documents with /documents: a reader's key uploaded and deleted documents."""
    home = tmp_path / "home"
    home.mkdir()
    reader, writer = new_key(home, "reader"), new_key(home, "writer")
    port = free_port()
    env = {
        **os.environ,
        "DOCGRAPH_HOME": str(home),
        "DOCGRAPH_STORE": f"falkordb-local://{local_home}?graph={fresh_graph_name()}",
        "OMP_THREAD_LIMIT": "1",
    }
    command = ["-m", "uvicorn", "--factory", "docgraph.app.api.app:create_app", "--root-path", "/dg"]
    process = subprocess.Popen(
        [sys.executable, *command, "--host", "127.0.0.1", "--port", str(port)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    url = f"http://127.0.0.1:{port}"  # the proxy in front takes /dg off; the app's paths carry it
    try:
        wait_for_json(f"{url}/health", process)  # a 401 is JSON too: it is up
        as_reader, as_writer = {"Authorization": f"Bearer {reader}"}, {"Authorization": f"Bearer {writer}"}
        pdf = {"file": ("zoo.pdf", SAMPLE.read_bytes(), "application/pdf")}
        upload = httpx.post(f"{url}/documents", files=pdf, data={"embed": "false"}, headers=as_reader)
        assert upload.status_code == 403, upload.text
        assert httpx.delete(f"{url}/documents/zoo", headers=as_reader).status_code == 403
        assert httpx.post(f"{url}/retrieve", json={"query": "penguins"}, headers=as_reader).status_code == 200
        assert httpx.delete(f"{url}/documents/zoo", headers=as_writer).status_code == 404  # let in
        accepted = httpx.post(f"{url}/documents", files=pdf, data={"embed": "false"}, headers=as_writer)
        job = accepted.json()["job_id"]  # where to follow it, as the client sees the server: the prefix too
        assert accepted.status_code == 202 and accepted.headers["location"] == f"/dg/jobs/{job}", accepted.headers
    finally:
        process.terminate()
        process.communicate(timeout=30)


def test_keys_cli_refuses_bad_input_in_one_line(tmp_path: Path) -> None:
    bad_role = docgraph(tmp_path, "keys", "create", "--role", "admin")
    assert bad_role.returncode == 1 and "unknown role 'admin'" in bad_role.stderr
    assert len(bad_role.stderr.strip().splitlines()) == 1
    unknown = docgraph(tmp_path, "keys", "revoke", "deadbeef")
    assert unknown.returncode == 1 and "no key 'deadbeef'" in unknown.stderr
    # A key file that cannot be written (a folder is in the way): no key is kept that nobody holds
    (tmp_path / "secrets").mkdir()
    unwritable = docgraph(tmp_path, "keys", "create", "--role", "writer", "--out", str(tmp_path / "secrets"), "--json")
    assert unwritable.returncode == 1 and "no key was made" in unwritable.stderr
    assert "no key was made" in json.loads(unwritable.stdout)["error"]
    assert KeyStore(tmp_path).records() == [] and list((tmp_path / "secrets").iterdir()) == []
    # --json is JSON on every path
    made = docgraph(tmp_path, "keys", "create", "--role", "writer", "--out", str(tmp_path / "key"), "--json")
    assert json.loads(made.stdout)["out"] == str(tmp_path / "key") and "key" not in json.loads(made.stdout)
    again = docgraph(tmp_path, "keys", "create", "--role", "writer", "--if-none", "--json")
    assert json.loads(again.stdout) == {"created": False, "reason": "a key is already active"}
    # --out never replaces a file: the first key's only copy, or the key store itself
    kept = (tmp_path / "key").read_text()
    for taken in (tmp_path / "key", tmp_path / "keys.json"):
        over = docgraph(tmp_path, "keys", "create", "--role", "writer", "--out", str(taken), "--json")
        assert over.returncode == 1 and f"{taken} exists" in over.stderr
        assert json.loads(over.stdout) == {"error": over.stderr.removeprefix("error: ").strip(), "exit_code": 1}
    assert (tmp_path / "key").read_text() == kept and len(KeyStore(tmp_path).records()) == 1
    # revoking again keeps when it was revoked (here a year ago)
    key_id = KeyStore(tmp_path).records()[0].key_id
    assert docgraph(tmp_path, "keys", "revoke", key_id).returncode == 0
    stored = json.loads((tmp_path / "keys.json").read_text())
    (tmp_path / "keys.json").write_text(
        json.dumps(stored).replace(KeyStore(tmp_path).records()[0].revoked_at, "2025-11-29T00:00:00+00:00")
    )
    again_revoked = json.loads(docgraph(tmp_path, "keys", "revoke", key_id, "--json").stdout)
    assert again_revoked["revoked_at"] == "2025-11-29T00:00:00+00:00"
    # a deployment's start (Dockerfile: create --if-none --out) after its key was revoked: the dead
    # key's file takes the new key, and the start goes on
    start = docgraph(tmp_path, "keys", "create", "--role", "writer", "--if-none", "--out", str(tmp_path / "key"))
    assert start.returncode == 0, start.stderr
    assert (tmp_path / "key").read_text() != kept and KeyStore(tmp_path).verify((tmp_path / "key").read_text().strip())


def test_serving_beyond_loopback_needs_a_key(tmp_path: Path) -> None:
    # Refused before anything listens, so the test binds nothing beyond 127.0.0.1.
    for command in ("serve", "ui"):
        done = docgraph(tmp_path, command, "--host", "0.0.0.0", "--port", str(free_port()))
        assert done.returncode == 1, command
        assert "no API key exists" in done.stderr and "docgraph keys create --role writer" in done.stderr
    keys = KeyStore(tmp_path)
    with pytest.raises(ConfigError):
        check_exposure("192.0.2.7", keys)
    check_exposure("127.0.0.1", keys)
    keys.create("reader")
    check_exposure("0.0.0.0", keys)  # a key guards it now
    assert is_loopback("::1") and is_loopback("localhost") and not is_loopback("example.org")


def test_roles_hosts_and_key_format_by_hand(tmp_path: Path) -> None:
    assert required_role("POST", "/documents") == "writer"
    assert required_role("DELETE", "/documents/zoo") == "writer"
    assert required_role("POST", "/ask") == required_role("GET", "/documents") == "reader"
    assert required_role("POST", "/a-route-added-later") == required_role("PUT", "/ask") == "writer"  # closed
    assert host_name("LocalHost:8000") == "localhost" and host_name("[::1]:80") == "::1"
    assert allowed_hosts("docs.example.org, ", "0.0.0.0") == {"localhost", "127.0.0.1", "::1", "docs.example.org"}
    keys = KeyStore(tmp_path)
    record, secret = keys.create("writer", "ci")
    assert keys.verify(secret) == record and keys.verify(secret + "x") is None and keys.verify("Bearer") is None
    assert record.allows("reader") and record.allows("writer")
    reader, _ = keys.create("reader")
    assert reader.allows("reader") and not reader.allows("writer")
    assert not keys.revoke(record.key_id).allows("reader")
    assert keys.verify(secret) is None


AT_ONCE = """
import sys, time
from pathlib import Path
from docgraph.app.auth.keys import KeyStore
keys = KeyStore(Path(sys.argv[1]))
time.sleep(max(0.0, float(sys.argv[2]) - time.time()))  # every process starts its change at this moment
if sys.argv[3] == "revoke":
    keys.revoke(sys.argv[4])
else:
    keys.create("reader", sys.argv[4])
"""


def change_keys_at_once(home: Path, changes: list[tuple[str, str]]) -> None:
    """Each (action, argument) in a process of its own, all at the same moment."""
    start = time.time() + 3.0  # after every process has imported docgraph
    processes = [
        subprocess.Popen([sys.executable, "-c", AT_ONCE, str(home), str(start), action, argument])
        for action, argument in changes
    ]
    assert [process.wait(timeout=60) for process in processes] == [0] * len(changes)


def test_keys_changed_by_several_processes_at_once_are_all_kept(tmp_path: Path) -> None:
    """Each rewrote the file from what it had read: of 8 keys made at once, 4 were kept, and a key
    revoked while others were made stayed active."""
    change_keys_at_once(tmp_path, [("create", f"colleague {i}") for i in range(8)])
    assert sorted(key.name for key in KeyStore(tmp_path).records()) == [f"colleague {i}" for i in range(8)]
    for round_ in range(3):
        leaked, secret = KeyStore(tmp_path).create("writer", f"leaked {round_}")
        change_keys_at_once(tmp_path, [("revoke", leaked.key_id), *[("create", f"new {round_}.{i}") for i in range(3)]])
        assert KeyStore(tmp_path).verify(secret) is None, f"round {round_}: the revoked key still gets in"
    assert len(KeyStore(tmp_path).records()) == 8 + 3 * 4


def test_concurrent_deletes_of_different_documents_all_succeed(server: tuple[str, Path]) -> None:
    url, _ = server
    names = [f"doc-{n}" for n in range(4)]
    for name in names:
        job = httpx.post(
            f"{url}/documents",
            files={"file": (f"{name}.pdf", SAMPLE.read_bytes(), "application/pdf")},
            data={"embed": "false"},
        ).json()
        for _ in range(600):
            state = httpx.get(f"{url}/jobs/{job['job_id']}").json()
            if state["status"] in ("succeeded", "failed"):
                break
            time.sleep(0.2)
        assert state["status"] == "succeeded", state
    with ThreadPoolExecutor(max_workers=len(names)) as pool:
        deleted = list(pool.map(lambda name: httpx.delete(f"{url}/documents/{name}", timeout=300), names))
    assert [response.status_code for response in deleted] == [200] * len(names), [r.text for r in deleted]
    assert httpx.get(f"{url}/documents").json() == []


HEAVY_QUERY = "UNWIND range(1, 30000) AS a UNWIND range(1, 30000) AS b WITH a, b WHERE a * b = -1 RETURN count(*) AS n"


def test_written_queries_get_a_slot_and_a_time_budget_and_leave_room_for_reads(
    local_home: Path, tmp_path: Path
) -> None:
    budget = {"DOCGRAPH_USER_QUERY_SLOTS": "1", "DOCGRAPH_USER_QUERY_TIMEOUT_S": "3"}
    with running_api(local_home, tmp_path / "home", **budget) as url, ThreadPoolExecutor(max_workers=2) as pool:
        heavy = pool.submit(httpx.post, f"{url}/cypher", json={"query": HEAVY_QUERY}, timeout=120)
        time.sleep(0.5)  # the heavy query holds the one slot now
        second = httpx.post(f"{url}/cypher", json={"query": "RETURN 1 AS one"}, timeout=120)
        read = httpx.post(f"{url}/retrieve", json={"query": "penguins"}, timeout=120)  # not a written query
        first = heavy.result()
        after = httpx.post(f"{url}/cypher", json={"query": "RETURN 1 AS one"}, timeout=120)
    assert second.status_code == 429 and second.json()["error"]["type"] == "busy"
    assert read.status_code == 200
    assert first.status_code == 504 and first.json()["error"]["type"] == "query_timeout"  # its budget, not 30 s
    assert after.status_code == 200 and after.json()["rows"] == [{"one": 1}]  # the slot is free again

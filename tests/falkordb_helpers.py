"""What the local FalkorDB server tests share: a data home whose server is stopped afterwards, and
the server processes of a socket."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from docgraph.app.stores import falkordb_server


@pytest.fixture
def home(tmp_path: Path) -> Iterator[Path]:
    yield tmp_path
    falkordb_server.stop(tmp_path)


def server_pids(socket: Path) -> list[int]:
    """Live redis-server processes listening on ``socket`` (from /proc)."""
    pids = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmdline = (proc / "cmdline").read_bytes()
        except OSError:
            continue
        if b"redis-server" in cmdline and str(socket).encode() in cmdline:
            pids.append(int(proc.name))
    return pids


def wait_dead(pid: int) -> None:
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)
    raise AssertionError(f"pid {pid} still alive")

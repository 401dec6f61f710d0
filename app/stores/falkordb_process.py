"""Processes of the local FalkorDB server, seen from outside: is a pid a live redis server, which
data directory does it serve, has it exited; and a SHUTDOWN that does not wait for its answer.
:mod:`app.stores.falkordb_server` decides when to start and stop; this only looks and signals."""

from __future__ import annotations

import contextlib
import os
import socket
import time
from pathlib import Path

POLL_S = 0.05


def serves(pid: int, data_dir: Path) -> bool:
    """Whether server ``pid`` keeps its data in ``data_dir``. A home copied while its server ran holds
    that server's pid file: taken at its word, the copy would wait on a socket nobody listens on,
    and ``store stop`` there would stop the original's server. The server runs in its ``--dir``."""
    cwd = Path("/proc") / str(pid) / "cwd"
    if not cwd.parent.is_dir():
        return True  # no procfs (macOS): a live redis server is the best evidence there is
    try:
        return Path(os.readlink(cwd)) == data_dir
    except OSError:
        return False  # gone, or someone else's


def is_server_alive(pid: int) -> bool:
    """Whether ``pid`` is a running redis server (not a zombie, nor another program reusing the pid)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return False  # someone else's process reusing the pid
    proc = Path("/proc") / str(pid)
    if not proc.is_dir():
        return True  # no procfs (macOS): a live pid is the best evidence there is
    try:
        stat = (proc / "stat").read_text()  # "pid (name) state ...": the name may hold spaces and parentheses
        name_end = stat.rindex(")")
        name, state = stat[stat.index("(") + 1 : name_end], stat[name_end + 1 :].split()[0]
        cmdline = (proc / "cmdline").read_bytes()
    except (OSError, ValueError, IndexError):
        return False
    # The name too: just after writing its pid file the server rewrites its command line (its
    # process title), and a read at that moment can find it blank.
    return state not in ("Z", "X") and (name == "redis-server" or b"redis-server" in cmdline)


def wait_exit(pid: int, timeout_s: float) -> bool:
    """Whether ``pid`` is gone (or a zombie) within ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if not is_server_alive(pid):
            return True
        time.sleep(POLL_S)
    return not is_server_alive(pid)


def send_shutdown(unix_socket: Path) -> None:
    """Send SHUTDOWN without waiting for an answer (the answer is the connection closing; redis-py
    spends seconds retrying on it).
    """
    with contextlib.suppress(OSError), socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
        connection.settimeout(5)
        connection.connect(str(unix_socket))
        connection.sendall(b"*1\r\n$8\r\nSHUTDOWN\r\n")
        connection.recv(1)  # returns when the server closes the connection (or on a refusal)


def wait_saved(pid_file: Path, pid: int, timeout_s: float) -> bool:
    """Wait until the server has removed its pid file (data saved) or exited."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if not pid_file.exists() or not is_server_alive(pid):
            return True
        time.sleep(POLL_S)
    return False

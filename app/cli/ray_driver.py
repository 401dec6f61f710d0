"""`docgraph ingest --ray` runs its Ray driver in a child process of its own.

Ray ends a driver whose cluster went away at once (its object store's connection broken: exit 1,
no word from Python, no report). The parent waits for the child and, when the child did not end
by its own exit, says what happened in one line. Everything else (output, exit status, Ctrl-C)
is the child's.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
import subprocess
import sys
from typing import Any, NoReturn

from docgraph.app.cli.common import CliState, fail

DRIVER_ENV = "DOCGRAPH_RAY_DRIVER"  # in the child: the pipe on which it says it ended by itself
ENDED_ITSELF = b"1"


def supervise_when_asked(address: str) -> None:
    """In a ``docgraph`` started from the command line: rerun it as the child and exit as it did
    (never returns). In the child: note its own end. Called in-process (a test's runner): nothing."""
    told = os.environ.get(DRIVER_ENV)
    if told is not None:
        atexit.register(_say_ended, int(told))
    elif CliState.entry_argv is not None:
        _run_as_child(CliState.entry_argv, address)


def _say_ended(fd: int) -> None:
    with contextlib.suppress(OSError):  # the parent is gone: nobody to tell
        os.write(fd, ENDED_ITSELF)


def _run_as_child(argv: list[str], address: str) -> NoReturn:
    read_end, write_end = os.pipe()
    env = {**os.environ, DRIVER_ENV: str(write_end)}
    command = [sys.executable, "-m", "docgraph.app.cli.main", *argv]
    child = subprocess.Popen(command, env=env, pass_fds=(write_end,))
    os.close(write_end)
    # Ctrl-C reaches the child too (one process group), which stops and reports; SIGTERM is passed on.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, lambda *_: child.send_signal(signal.SIGTERM))
    code = child.wait()
    with os.fdopen(read_end, "rb") as told:
        ended_itself = told.read() == ENDED_ITSELF
    if ended_itself:
        sys.exit(code)
    fail(_lost_driver_message(code, address), code=1 if code >= 0 else 128 - code)


def _lost_driver_message(code: int, address: str) -> str:
    if code < 0:
        how: Any = signal.Signals(-code).name
        ended = f"the ingest's Ray driver was killed ({how})"
    else:
        ended = f"Ray ended the ingest (exit {code}): the cluster at {address} went away or failed (its logs say why)"
    return f"{ended}; documents written before stay stored: run the command again for the others"

"""`docgraph ingest --ray` runs its Ray driver in a child process of its own.

Ray ends a driver whose cluster went away at once (its object store's connection broken: exit 1,
no word from Python, no report). The parent waits for the child and, when the child did not end
by its own exit, says what happened in one line. Everything else (output, exit status) is the
child's; the parent passes its signals on.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from typing import NoReturn

from docgraph.app.cli.common import CliState, fail

DRIVER_ENV = "DOCGRAPH_RAY_DRIVER"  # in the child: the pipe on which it says it ended by itself
ENDED_ITSELF = b"1"
PASSED_ON = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


@contextlib.contextmanager
def noting_own_exit() -> Iterator[bool]:
    """Around the whole command: in the child, yields True, ends with its parent, and says on the
    pipe that it ended by itself as the command ends (before Ray's own exit handlers, which may
    hang or crash once its cluster is gone). Elsewhere, yields False."""
    told = os.environ.pop(DRIVER_ENV, None)  # not passed on to the child's own children
    if told is None:
        yield False
        return
    from docgraph.app.pipeline.execution.processes import exit_with_parent

    exit_with_parent(os.getppid())  # a killed parent must not leave a driver writing on its own
    try:
        yield True
    finally:
        with contextlib.suppress(OSError):  # the parent is gone: nobody to tell
            os.write(int(told), ENDED_ITSELF)


def supervise_when_asked(address: str) -> None:
    """In a ``docgraph`` started from the command line (not the child): run the command again as
    the child and exit as it did (never returns). Called in-process (a test's runner): nothing."""
    if CliState.entry_argv is not None:
        _run_as_child(CliState.entry_argv, address)


def _run_as_child(argv: list[str], address: str) -> NoReturn:
    read_end, write_end = os.pipe()
    env = {**os.environ, DRIVER_ENV: str(write_end)}
    # -P: the working directory does not shadow the installed package (a docgraph.py there).
    command = [sys.executable, "-P", "-m", "docgraph.app.cli.main", *argv]
    # A process group of its own: a terminal's Ctrl-C reaches the parent only, which passes it on
    # once (twice would cut short the documents the child lets finish).
    child = subprocess.Popen(command, env=env, pass_fds=(write_end,), process_group=0)
    os.close(write_end)
    for passed in PASSED_ON:
        signal.signal(passed, lambda number, _: child.send_signal(number))
    code = child.wait()
    status = code if code >= 0 else 128 - code  # a shell's status for a process a signal ended
    with os.fdopen(read_end, "rb") as told:
        ended_itself = told.read() == ENDED_ITSELF
    if ended_itself:
        sys.exit(status)
    fail(_lost_driver_message(code, address), code=status if code < 0 else 1)


def _lost_driver_message(code: int, address: str) -> str:
    if code < 0:
        try:
            how = signal.Signals(-code).name
        except ValueError:
            how = f"signal {-code}"
        ended = f"the ingest's Ray driver was killed ({how})"
    else:
        ended = f"Ray ended the ingest (exit {code}): the cluster at {address} went away or failed (its logs say why)"
    return f"{ended}; documents written before stay stored: run the command again for the others"

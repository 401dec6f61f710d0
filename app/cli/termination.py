"""SIGTERM taken as Ctrl-C by the commands that ingest: what ended is reported, the rest named."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import typer

from docgraph.app.cli.common import err_console, print_json_error


@contextmanager
def sigterm_as_ctrl_c() -> Iterator[list[int]]:
    """SIGTERM (a service manager stopping a job, ``timeout``) taken as Ctrl-C: the reports of the
    documents that ended are printed and the others named, instead of an exit with nothing said;
    the list it gives holds the signal once received."""
    received: list[int] = []

    def interrupt(signum: int, frame: object) -> None:
        received.append(signum)
        raise KeyboardInterrupt

    if threading.current_thread() is not threading.main_thread():  # signals go to the main thread only
        yield received
        return
    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield received
    except KeyboardInterrupt:  # before or after the documents' loop (opening the store, loading models)
        if not received:
            raise
        err_console.print("terminated", markup=False)
        print_json_error("terminated", stop_code(received))
        raise typer.Exit(stop_code(received)) from None
    finally:
        signal.signal(signal.SIGTERM, previous)


def raise_if_terminated(terminated: list[int]) -> None:
    """Raise the interrupt a SIGTERM asked for again, in the main thread: when the signal landed in
    a weakref callback or a finaliser, its KeyboardInterrupt was printed and ignored there ("Exception
    ignored in ..."), and the ingest ran on to its end, exit 0, as if no signal had come."""
    if terminated and threading.current_thread() is threading.main_thread():
        raise KeyboardInterrupt


def stopped_by(terminated: list[int]) -> str:
    return "terminated" if terminated else "interrupted"


def stop_code(terminated: list[int]) -> int:
    """The exit status of a command stopped by a signal: 128 + SIGTERM's number, or Ctrl-C's 130."""
    return 128 + signal.SIGTERM if terminated else 130

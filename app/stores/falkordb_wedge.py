"""A start-up fault of FalkorDB 4.16 that docgraph detects and works around.

Now and then (8 of about 16,000 starts here) the graph module leaves its global
reader-writer lock with a reader count of -1 when it loads: the server answers PING, but the first
command that takes that lock for writing, such as the first query on a graph that does not exist
yet, waits forever in the server's main thread, and from then on the server answers nothing.
``GRAPH.INFO RunningQueries`` takes the same lock for writing and changes nothing, so asking it
right after a start tells a sound server from a wedged one before any client depends on it.
"""

from __future__ import annotations

import time
from pathlib import Path

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

PROBE_TIMEOUT_S = 10.0  # a sound server answers in milliseconds


def graph_module_answers(socket: Path) -> bool:
    """Whether the server on ``socket`` answers a command that takes the graph module's global lock."""
    # No retries: redis-py would otherwise ask again, with back-off, after each timeout.
    client = redis.Redis(unix_socket_path=str(socket), socket_timeout=PROBE_TIMEOUT_S, retry=Retry(NoBackoff(), 0))
    try:
        client.execute_command("GRAPH.INFO", "RunningQueries")  # type: ignore[no-untyped-call]
    except redis.ResponseError:
        return True  # it answered: a module without this subcommand is not the wedged one
    except redis.RedisError:
        return False
    finally:
        client.close()
    return True


def note_in_log(log_file: Path, pid: int) -> None:
    """Leave a line in the server log saying why the server of ``pid`` was killed."""
    stamp = time.strftime("%d %b %Y %H:%M:%S")
    line = (
        f"docgraph {stamp} # killed the server (pid {pid}): its graph module did not answer after start-up "
        "(FalkorDB 4.16 start-up fault: global lock left unusable); starting it again\n"
    )
    try:
        with log_file.open("a") as log:
            log.write(line)
    except OSError:
        pass  # the log is for people; a start must not fail on it

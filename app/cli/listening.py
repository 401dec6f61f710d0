"""The servers' port: taken before anything else starts, so that a port in use is one error line,
and the start record printed only once the server answers (a script may connect on reading it)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import sys
import time
from collections.abc import Callable
from typing import Any

from docgraph.app.cli.common import print_json_error
from docgraph.errors import ConfigError

STARTUP_FAILURE = 3  # uvicorn's exit status when the app did not start
UI_START_RECORD = "DOCGRAPH_UI_START_RECORD"  # `docgraph ui`'s start record: {host, port, line}
# How long a stopping server waits for the requests still open (a stalled upload, an agent's event
# stream that never ends of itself) before it cuts them off.
SHUTDOWN_GRACE_S = 30


def listening_sockets(host: str, port: int) -> list[socket.socket]:
    """Sockets bound to every address ``host`` names, as asyncio binds them under uvicorn (``localhost``
    is 127.0.0.1 and ::1 where both are named; SO_REUSEADDR; IPv6 sockets IPv6 only); a name that
    does not resolve, a port in use or an address not of this machine is a ConfigError."""
    bound: list[socket.socket] = []
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
        for family, kind, proto, _, address in dict.fromkeys(found):
            sock = socket.socket(family, kind, proto)
            bound.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            sock.bind(address)
    except OSError as error:
        for sock in bound:
            sock.close()
        reason = error.strerror or str(error)
        raise ConfigError(f"cannot listen on {host}:{port}: {reason.lower()}") from error
    return bound


def http_url(host: str, port: int) -> str:
    """The server's address as a client writes it (an IPv6 address in brackets)."""
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def check_port_free(host: str, port: int) -> None:
    """Refuse a port another server holds, before a server that binds it itself (Streamlit) starts."""
    for sock in listening_sockets(host, port):
        sock.close()


def serve_then_announce(
    app: Any,
    sockets: list[socket.socket],
    announce: Callable[[], None],
    on_stop: Callable[[], None] | None = None,
    grace_s: int | None = None,
) -> None:
    """Run ``app`` under uvicorn on the bound ``sockets``; ``announce`` once it has started (its
    lifespan run, the sockets listening). A failed start exits as uvicorn does (3), announcing
    nothing; Ctrl-C or SIGTERM calls ``on_stop`` as the server begins to stop (so that work under way
    can end), then waits for the requests still open (at most ``grace_s``, then they are cancelled);
    once shut down, Ctrl-C exits 0 and SIGTERM ends the process by its signal (uvicorn raises it
    again)."""
    import uvicorn

    class AnnouncingServer(uvicorn.Server):
        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            await super().startup(sockets=sockets)
            if self.started:
                announce()

        async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
            if on_stop is not None:
                on_stop()
            await super().shutdown(sockets=sockets)

    config = uvicorn.Config(app, log_config=None, timeout_graceful_shutdown=grace_s)
    server = AnnouncingServer(config)
    with contextlib.suppress(KeyboardInterrupt):
        server.run(sockets=sockets)
    if not server.started:
        print_json_error("the server did not start (its log on stderr says why)", STARTUP_FAILURE)
        sys.exit(STARTUP_FAILURE)


async def print_once_answering(record: str, timeout_s: float = 120.0) -> None:
    """Print the start ``record``'s line once its host and port take connections: the UI's Streamlit
    server binds its port itself, after its app has started, so that is where the line is printed."""
    wanted = json.loads(record)
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            _, writer = await asyncio.open_connection(wanted["host"], wanted["port"])
        except OSError:
            await asyncio.sleep(0.05)
            continue
        writer.close()
        sys.stdout.write(wanted["line"] + "\n")
        sys.stdout.flush()
        return

"""The servers' port: taken before anything else starts, so that a port in use is one error line,
and the start record printed only once the server answers (a script may connect on reading it)."""

from __future__ import annotations

import socket
from collections.abc import Callable
from typing import Any

from docgraph.errors import ConfigError


def listening_socket(host: str, port: int) -> socket.socket:
    """A socket bound to ``host:port`` as uvicorn binds one (SO_REUSEADDR, IPv6 for a v6 address);
    a port in use, an address not of this machine or a port it may not take is a ConfigError."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family=family)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
    except OSError as error:
        sock.close()
        reason = error.strerror or str(error)
        raise ConfigError(f"cannot listen on {host}:{port}: {reason.lower()}") from error
    except BaseException:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


def check_port_free(host: str, port: int) -> None:
    """Refuse a port another server holds, before a server that binds it itself (Streamlit) starts."""
    listening_socket(host, port).close()


def serve_then_announce(app: Any, sock: socket.socket, announce: Callable[[], None]) -> None:
    """Run ``app`` under uvicorn on the bound ``sock``; ``announce`` once it has started (its
    lifespan run, the socket listening). A failed start exits as uvicorn does, announcing nothing."""
    import uvicorn

    class AnnouncingServer(uvicorn.Server):
        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            await super().startup(sockets=sockets)
            if self.started:
                announce()

    AnnouncingServer(uvicorn.Config(app, log_config=None)).run(sockets=[sock])

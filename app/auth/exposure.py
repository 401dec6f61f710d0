"""Servers listen beyond loopback only behind keys: the check ``serve`` and ``ui`` make at start."""

from __future__ import annotations

import ipaddress

from docgraph.app.auth.keys import KeyStore
from docgraph.errors import ConfigError

NO_KEY = (
    "{host} is reachable from other machines, and no API key exists: make one first with "
    "`docgraph keys create --role writer` (then every request needs it), or listen on 127.0.0.1"
)


def check_exposure(host: str, keys: KeyStore) -> None:
    """Refuse to listen beyond loopback while no key guards the server."""
    if not is_loopback(host) and not keys.any_active():
        raise ConfigError(NO_KEY.format(host=host))


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False  # a host name: it may resolve to any address

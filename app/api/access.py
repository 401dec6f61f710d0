"""Who may reach the API: the Host allow-list, the Origin check and API keys with roles.

Checked before routing, for every request: a Host header not on the allow-list is refused (so a
DNS-rebinding page cannot reach a server on this machine); a state-changing request (POST, PUT,
PATCH, DELETE) from a browser page of a foreign origin is refused; and once any key is active,
every request needs ``Authorization: Bearer KEY`` of a role that may make it.
"""

from __future__ import annotations

import logging
from urllib.parse import urlsplit

from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from docgraph.app.api.errors import error_response, route_path
from docgraph.app.auth.keys import KeyStore, Role
from docgraph.errors import ConfigError

logger = logging.getLogger(__name__)

LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "::1")
KEY_STATE = "docgraph_key_id"  # where a request's key id is kept, in its ASGI scope's state
UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
# The state-changing requests a reader may make: questions, read-only Cypher, and the MCP server's
# session traffic (its tools only read). Every other POST, PUT, PATCH or DELETE is a writer's, so a
# route added later, or a path the app sees differently, is refused to readers, not opened to them.
READER_CHANGES = frozenset(
    {("POST", "/retrieve"), ("POST", "/ask"), ("POST", "/ask/stream"), ("POST", "/cypher"), ("POST", "/mcp")}
    | {("DELETE", "/mcp")}
)


def allowed_hosts(configured: str, listen_host: str = "") -> frozenset[str]:
    """The Host names a server answers to: loopback, the address it listens on, and the configured
    ones (``DOCGRAPH_ALLOWED_HOSTS``, comma-separated: a name a reverse proxy or DNS gives it)."""
    hosts = {*LOOPBACK_HOSTS, *(host.strip().lower() for host in configured.split(",") if host.strip())}
    if listen_host and listen_host not in ("0.0.0.0", "::"):
        hosts.add(listen_host.lower())
    return frozenset(hosts)


def required_role(method: str, path: str) -> Role:
    """``path`` as the app routes it (see ``route_path``)."""
    if method not in UNSAFE_METHODS or (method, path.rstrip("/") or "/") in READER_CHANGES:
        return "reader"
    return "writer"


def host_name(value: str) -> str:
    """``host[:port]`` or ``[v6]:port`` -> the bare, lower-case host."""
    value = value.strip().lower()
    if value.startswith("["):
        return value[1 : value.find("]")] if "]" in value else value
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value


class AccessGuard:
    """ASGI middleware applying the three checks above; refusals are the API's JSON errors."""

    def __init__(self, app: ASGIApp, keys: KeyStore, hosts: frozenset[str]) -> None:
        self.app = app
        self.keys = keys
        self.hosts = hosts

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        refusal = self.refusal(scope)
        if refusal is None:
            await self.app(scope, receive, send)
            return
        status, kind, message = refusal
        headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
        response = error_response(status, kind, message)
        if headers:
            response.headers.update(headers)
        await response(scope, receive, send)

    def refusal(self, scope: Scope) -> tuple[int, str, str] | None:
        headers = {name.decode("latin-1").lower(): value.decode("latin-1") for name, value in scope["headers"]}
        host = host_name(headers.get("host", ""))
        if host not in self.hosts:
            return 400, "bad_host", f"host {host!r} is not served here (DOCGRAPH_ALLOWED_HOSTS names the allowed ones)"
        method, path = str(scope["method"]), route_path(scope)
        origin = headers.get("origin")
        if method in UNSAFE_METHODS and origin is not None and host_name(urlsplit(origin).netloc) not in self.hosts:
            return 403, "forbidden_origin", f"requests from {origin!r} may not change anything here"
        try:
            return self.key_refusal(scope, method, path, headers.get("authorization", ""))
        except ConfigError as error:  # the key file is damaged: nobody gets in, and the log says why
            logger.error("%s", error)
            return 500, "key_store_unreadable", "the server's API keys cannot be read; its log says why"

    def key_refusal(self, scope: Scope, method: str, path: str, authorization: str) -> tuple[int, str, str] | None:
        """Why the request's key may not make it; None when it may (the key is then kept in the
        request's state, for the routes that record who asked: see :func:`key_id_of`)."""
        if not self.keys.in_use():
            return None
        scheme, _, secret = authorization.partition(" ")
        sent = scheme.lower() == "bearer" and bool(secret.strip())
        key = self.keys.verify(secret.strip()) if sent else None
        if key is None:
            if not self.keys.any_active():
                return 401, "unauthorized", "every API key is revoked: make one with `docgraph keys create`"
            if sent:
                return 401, "unauthorized", self.keys.refusal(secret.strip())
            return 401, "unauthorized", "an API key is needed: send `Authorization: Bearer KEY` (docgraph keys create)"
        role = required_role(method, path)
        if not key.allows(role):
            return 403, "forbidden", f"this needs a {role} key; key {key.key_id} is a {key.role}'s"
        scope.setdefault("state", {})[KEY_STATE] = key.key_id
        return None


def key_id_of(request: Request) -> str:
    """The id of the API key the request was let in with; "" while the server uses no keys."""
    return str(getattr(request.state, KEY_STATE, ""))

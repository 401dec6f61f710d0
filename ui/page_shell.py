"""Streamlit's page shell (index.html) served with a script that names the app's base URL.

Opened on a page's URL (``/graph``), Streamlit's frontend does not know where its server is: it
probes ``/graph/_stcore/health`` (a 404 and a console error) before ``/_stcore/health``. Its bundle
reads ``window.__streamlit.BACKEND_BASE_URL`` first when that is set, so the shell gets a script,
ahead of the bundle, that sets it to the page's URL less the page's own path segments. That holds
for ``server.baseUrlPath`` and behind a proxy that strips a path prefix alike.
"""

from __future__ import annotations

import gzip
from collections.abc import MutableMapping
from pathlib import Path
from typing import Any

from streamlit import config, file_util

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Any  # async () -> Message
Send = Any  # async (Message) -> None
AsgiApp = Any  # async (Scope, Receive, Send) -> None

# Leaves window.__streamlit unset (Streamlit's own probing) where the URL has fewer segments than
# the server saw, e.g. when a proxy rewrote it; only a number from the server goes into the page.
SCRIPT = (
    '<script>(function(){var n=%d,s=location.pathname.replace(/\\/+$/,"").split("/");'
    'if(s.length>n){window.__streamlit={BACKEND_BASE_URL:location.origin+s.slice(0,s.length-n).join("/")+"/"};}'
    "})();</script>"
)
_DROPPED = {b"content-length", b"content-encoding", b"etag", b"last-modified"}


def shell_bytes() -> bytes:
    """Streamlit's index.html as its static files serve it."""
    return (Path(file_util.get_static_dir()) / "index.html").read_bytes()


def page_segments(raw_path: str, base_url_path: str) -> int:
    """How many path segments of a request for the shell name the page, after the base path
    (``/graph`` -> 1, ``/`` -> 0, ``/base/graph`` with base path ``base`` -> 1)."""
    base = "/" + base_url_path.strip("/") if base_url_path.strip("/") else ""
    if base and (raw_path == base or raw_path.startswith(base + "/")):
        raw_path = raw_path[len(base) :]
    page = raw_path.strip("/")
    return len(page.split("/")) if page else 0


def with_base_url_script(shell: bytes, segments: int) -> bytes:
    """``shell`` with the script first in its ``<head>``, so it runs before the bundle loads."""
    at = shell.find(b"<head>")
    if at < 0:
        return shell
    at += len(b"<head>")
    return shell[:at] + (SCRIPT % segments).encode() + shell[at:]


class BaseUrlScript:
    """ASGI middleware: a GET answered with Streamlit's shell gets the shell with the script;
    every other response passes as it is (component pages included, though they are HTML too)."""

    def __init__(self, app: AsgiApp) -> None:
        self.app = app
        self.shell = shell_bytes()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "GET":
            await self.app(scope, receive, send)
            return
        await self.app(scope, receive, _ShellReply(self.shell, _segments(scope), send))


def _segments(scope: Scope) -> int:
    raw = scope.get("raw_path")
    path = raw.decode("latin-1").split("?", 1)[0] if isinstance(raw, bytes) else str(scope["path"])
    root = str(scope.get("root_path", ""))
    if root and path.startswith(root):
        path = path[len(root) :]
    return page_segments(path, str(config.get_option("server.baseUrlPath") or ""))


class _ShellReply:
    """The ``send`` of one request: holds back an HTML 200 until its body is complete, then
    sends the shell with the script (uncompressed, new length) or the response unchanged."""

    def __init__(self, shell: bytes, segments: int, send: Send) -> None:
        self.shell, self.segments, self.send = shell, segments, send
        self.start: Message | None = None
        self.body: list[bytes] = []

    async def __call__(self, message: Message) -> None:
        if message["type"] == "http.response.start" and _is_html(message):
            self.start = message
        elif self.start is None:
            await self.send(message)
        elif message["type"] != "http.response.body":  # not a body we can read: let it all pass
            await self._release(message)
        else:
            self.body.append(bytes(message.get("body", b"")))
            if not message.get("more_body", False):
                await self._finish()

    async def _release(self, message: Message) -> None:
        start, self.start = self.start, None
        await self.send(start)
        if self.body:
            await self.send({"type": "http.response.body", "body": b"".join(self.body), "more_body": True})
        await self.send(message)

    async def _finish(self) -> None:
        assert self.start is not None
        start, body = self.start, b"".join(self.body)
        if _plain(start, body) == self.shell:
            body = with_base_url_script(self.shell, self.segments)
            headers = [(k, v) for k, v in start["headers"] if k.lower() not in _DROPPED]
            start = {**start, "headers": [*headers, (b"content-length", str(len(body)).encode())]}
        await self.send(start)
        await self.send({"type": "http.response.body", "body": body, "more_body": False})


def _is_html(start: Message) -> bool:
    headers = {bytes(k).lower(): bytes(v) for k, v in start.get("headers", [])}
    return start.get("status") == 200 and headers.get(b"content-type", b"").startswith(b"text/html")


def _plain(start: Message, body: bytes) -> bytes | None:
    """The body uncompressed; None when it is in an encoding other than gzip."""
    encoding = {bytes(k).lower(): bytes(v) for k, v in start["headers"]}.get(b"content-encoding", b"identity")
    if encoding == b"identity":
        return body
    if encoding == b"gzip":
        try:
            return gzip.decompress(body)
        except (OSError, EOFError):
            return None
    return None

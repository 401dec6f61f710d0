"""The page shell's base-URL script (ui/page_shell.py), through real ASGI responses, no browser."""

from __future__ import annotations

from pathlib import Path

import pytest
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, Response
from starlette.routing import Route
from starlette.testclient import TestClient

from docgraph.ui.page_shell import BaseUrlScript, page_segments, shell_bytes

COMPONENT_PAGE = "<html><head><title>a component</title></head><body>" + "x" * 2000 + "</body></html>"


@pytest.mark.parametrize(
    ("path", "base", "segments"),
    [
        ("/", "", 0),
        ("/graph", "", 1),
        ("/a/b", "", 2),
        ("/docgraph/graph", "docgraph", 1),
        ("/docgraph", "/docgraph/", 0),
        ("/docgraphs/graph", "docgraph", 2),  # not under the base path
    ],
)
def test_the_page_part_of_a_path_leaves_the_base_path_out(path: str, base: str, segments: int) -> None:
    assert page_segments(path, base) == segments


def client(tmp_path: Path) -> TestClient:
    """Streamlit's shell for any page path, as its static files answer (gzip where asked), a
    component's HTML page and a script, behind the middleware."""
    shell = tmp_path / "index.html"
    shell.write_bytes(shell_bytes())

    async def page(request: Request) -> Response:
        if request.url.path.startswith("/component/"):
            return HTMLResponse(COMPONENT_PAGE)
        if request.url.path.endswith(".js"):
            return Response("let x = 1;" * 200, media_type="text/javascript")
        return FileResponse(shell)

    routes = [Route("/{path:path}", page, methods=["GET", "POST"])]
    middleware = [Middleware(BaseUrlScript), Middleware(GZipMiddleware, minimum_size=100)]
    return TestClient(Starlette(routes=routes, middleware=middleware))


def test_the_shell_of_a_page_names_the_base_url_and_the_rest_passes_unchanged(tmp_path: Path) -> None:
    with client(tmp_path) as http:
        graph = http.get("/graph", headers={"Accept-Encoding": "gzip"})
        assert graph.status_code == 200 and "content-encoding" not in graph.headers and "etag" not in graph.headers
        assert int(graph.headers["content-length"]) == len(graph.content) > len(shell_bytes())
        assert graph.text.index("<head><script>(function(){var n=1,") < graph.text.index('type="module"')
        assert "var n=0," in http.get("/").text and "var n=2," in http.get("/documents/extra").text
        component = http.get("/component/agraph/index.html", headers={"Accept-Encoding": "gzip"})
        assert component.headers["content-encoding"] == "gzip" and component.text == COMPONENT_PAGE
        assert "__streamlit" not in http.get("/static/js/index.js").text
        assert "__streamlit" not in http.post("/graph").text  # only a GET for a page gets the script

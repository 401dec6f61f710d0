"""The API's /docs and /redoc work offline: a real `docgraph serve` on 127.0.0.1, its pages opened
in headless Chromium with every request that leaves the server blocked."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import sync_playwright

from docgraph.app.api.docs_pages import ASSET_FILES, ASSETS_PATH, assets_folder
from tests.test_api_access import running_api
from tests.ui_helpers import CHROMIUM, CHROMIUM_FLAGS, keep_screenshot


@pytest.fixture(scope="module")
def api_url(local_home: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with running_api(local_home, tmp_path_factory.mktemp("docs-home")) as url:
        yield url


def test_the_docs_pages_name_only_assets_the_server_serves(api_url: str) -> None:
    for page in ("/docs", "/redoc"):
        html = httpx.get(f"{api_url}{page}", timeout=30).text
        urls = re.findall(r"""(?:src|href|url)\s*[=:]\s*['"]([^'"]+)['"]""", html)
        assert urls, html
        assert not [url for url in urls if url.startswith(("http:", "https:", "//"))], urls
        for url in (url for url in urls if url.startswith(ASSETS_PATH)):
            asset = httpx.get(f"{api_url}{url}", timeout=30)
            assert asset.status_code == 200 and len(asset.content) > 1000, url
    assert httpx.get(f"{api_url}{ASSETS_PATH}/../app.py", timeout=30).status_code == 404
    assert sorted(path.name for path in assets_folder().iterdir() if path.name in ASSET_FILES) == sorted(ASSET_FILES)


@pytest.mark.skipif(not CHROMIUM.exists(), reason=f"{CHROMIUM} not installed (Debian package `chromium`)")
@pytest.mark.parametrize(("page", "rendered"), [("/docs", ".opblock"), ("/redoc", "[data-section-id]")])
def test_the_docs_pages_render_in_a_browser_without_the_internet(
    api_url: str, page: str, rendered: str, tmp_path: Path
) -> None:
    outside: list[str] = []
    errors: list[str] = []
    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_FLAGS)
        tab: Any = browser.new_page(viewport={"width": 1400, "height": 1000})

        def only_the_server(route: Any) -> None:
            if route.request.url.startswith(api_url):
                route.continue_()
            else:
                outside.append(route.request.url)
                route.abort()

        tab.route("**/*", only_the_server)
        tab.on("pageerror", lambda error: errors.append(str(error)))
        tab.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
        tab.goto(f"{api_url}{page}")
        tab.wait_for_selector(rendered, timeout=60_000)
        assert tab.get_by_text("/retrieve").count() > 0  # an operation of the API is listed
        shot = tmp_path / f"api{page.replace('/', '-')}.png"
        tab.screenshot(path=str(shot))
        keep_screenshot(shot)
        browser.close()
    # ReDoc's bundle names its logo on a CDN; the page's Content-Security-Policy refuses it (the one
    # console error allowed), so the browser never asks for it.
    refused_logo = [e for e in errors if "Content Security Policy" in e and "cdn.redoc.ly" in e]
    assert outside == [] and [e for e in errors if e not in refused_logo] == []

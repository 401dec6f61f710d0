"""End to end in headless Chromium: the app on a real store with the sample PDF ingested.

Asks a question and follows its citation to the highlighted page image, runs a Cypher query with a
graph result, uploads a PDF on the Documents page and opens the Graph page; opens each page by its
own URL (under a base URL path too) without one failed request. Screenshots go to the test's tmp
dir and are copied to /tmp/ui-shots.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pymupdf
import pytest
from playwright.sync_api import expect, sync_playwright

from docgraph.app.auth.keys import KeyStore
from docgraph.app.config import Settings
from docgraph.app.jobs.documents import find_document, page_regions
from docgraph.app.jobs.render import render_page
from docgraph.app.stores.factory import open_store
from tests.ui_helpers import (
    CHROMIUM,
    CHROMIUM_FLAGS,
    SAMPLE_PDF,
    app_on,
    collect_console_errors,
    running_app,
    sample_graph,
    shoot,
    shown_image_bytes,
)

pytestmark = [
    pytest.mark.skipif(not CHROMIUM.exists(), reason=f"{CHROMIUM} not installed (Debian package `chromium`)"),
    pytest.mark.timeout(900),
]

QUESTION = "When are the penguins fed?"
LONG_S = 240_000  # ms: the first answer loads the sentence encoder in the app process


@pytest.fixture(scope="module")
def app_settings(local_home: Path) -> Iterator[Settings]:
    with sample_graph(local_home) as (_, settings):
        yield settings


@pytest.fixture(scope="module")
def app_url(app_settings: Settings, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with app_on(app_settings, tmp_path_factory) as url:
        yield url


@pytest.fixture
def page(tmp_path: Path) -> Iterator[Any]:
    with sync_playwright() as driver:
        context = driver.chromium.launch_persistent_context(
            str(tmp_path / "profile"),  # a new, empty profile
            executable_path=str(CHROMIUM),
            headless=True,
            args=CHROMIUM_FLAGS,
            viewport={"width": 1440, "height": 1800},
        )
        requested: list[str] = []
        context.on("request", lambda request: requested.append(request.url))
        problems = collect_console_errors(context)
        try:
            yield context.new_page()
        finally:
            context.close()
    # Everything the UI needs ships with it: no request may leave the machine (no CDN, no telemetry).
    outside = [
        url
        for url in requested
        if urlsplit(url).scheme in {"http", "https", "ws", "wss"} and urlsplit(url).hostname != "127.0.0.1"
    ]
    assert not outside, outside
    assert not problems, problems  # the browser console stays free of errors


def test_ask_shows_cited_answer_and_highlighted_page(page: Any, app_url: str, app_settings: Settings, tmp_path: Path):
    page.goto(app_url)
    box = page.get_by_placeholder("Ask a question about the documents")
    box.wait_for(timeout=60_000)
    page.get_by_text("Click a citation to see the page").wait_for(timeout=60_000)  # the first run is over
    box.fill(QUESTION)
    box.press("Enter")
    page.locator("[data-testid='stChatMessage']").filter(has_text=QUESTION).first.wait_for(timeout=30_000)

    first_citation = page.get_by_role("button", name=re.compile(r"^\[1\] docgraph-sample p\.\d+"))
    first_citation.wait_for(timeout=LONG_S)
    assert "10:30" in page.locator("[data-testid='stChatMessage']").last.inner_text()
    image = page.locator("[data-testid='stImage'] img").first
    image.wait_for(timeout=60_000)
    page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=image.element_handle())
    caption = page.get_by_text(re.compile(r"docgraph-sample, page \d+")).inner_text()
    page.get_by_text("Graph neighbours").wait_for(timeout=30_000)  # the evidence panel is complete
    shoot(page, tmp_path, "ask-answer.png")

    shown = shown_image_bytes(image)
    cited_page = int(re.search(r"page (\d+)", caption).group(1))  # type: ignore[union-attr]
    assert _highlighted_pixels(shown, app_settings, cited_page) > 2000

    second = page.get_by_role("button", name=re.compile(r"^\[2\] "))
    assert second.count() == 1  # the extractive answer quotes several passages
    second.click()
    # The evidence heading "**[2]** `tag`": the answer's own inline "**[2]**" marker is there
    # before the click is handled, so waiting for "[2]" alone read the previous heading's tag.
    heading = page.locator("[data-testid='stMarkdown']").filter(has_text=re.compile(r"^\[2\] .*#r"))
    heading.first.wait_for(timeout=30_000)
    tag = heading.first.locator("code").inner_text()
    text = _region_text(app_settings, tag)
    expect(page.locator("[data-testid='stText']").first).to_contain_text(text[:40], timeout=30_000)
    page.wait_for_timeout(500)  # the image may still be swapping in
    shoot(page, tmp_path, "ask-second-citation.png")


def _region_text(settings: Settings, tag: str) -> str:
    """The text of the region a citation tag (``doc p.N #rK``) names."""
    doc, page_part, ref = tag.split()
    store = open_store(settings)
    try:
        regions = page_regions(store, doc, int(page_part.removeprefix("p.")))
    finally:
        store.close()
    return next(str(r["text"]) for r in regions if str(r["region_id"]).endswith(":" + ref.removeprefix("#")))


def _highlighted_pixels(png: bytes, settings: Settings, page_number: int) -> int:
    """Pixels where the shown image differs from the same page rendered with nothing highlighted."""
    store = open_store(settings)
    try:
        document = find_document(store, "docgraph-sample")
        regions = page_regions(store, str(document["doc_id"]), page_number)
    finally:
        store.close()
    plain = render_page(SAMPLE_PDF, page_number, regions, settings.home / "plain.png")
    shown_pix, plain_pix = pymupdf.Pixmap(png), pymupdf.Pixmap(str(plain))
    assert (shown_pix.width, shown_pix.height) == (plain_pix.width, plain_pix.height)
    a, b, n = shown_pix.samples, plain_pix.samples, shown_pix.n
    return sum(1 for i in range(0, len(a), n) if a[i : i + 3] != b[i : i + 3])


def test_cypher_page_shows_rows_and_graph(page: Any, app_url: str, tmp_path: Path):
    page.goto(app_url + "/cypher")
    editor = page.get_by_label("Query (read-only: the database refuses writes)")
    editor.wait_for(timeout=60_000)
    editor.fill("MATCH (c:Caption)-[rel:CAPTION_OF]->(t:Region) RETURN c, rel, t")
    page.get_by_role("button", name="Run").click()
    page.get_by_text("2 row(s)").wait_for(timeout=60_000)
    page.get_by_text(re.compile(r"Graph \(4 nodes, 2 relationships\)")).wait_for()
    page.get_by_role("button", name="Download CSV").wait_for()
    graph_frame = page.frame_locator("iframe[title*='agraph']")
    graph_frame.locator("canvas").first.wait_for(timeout=60_000)
    page.wait_for_timeout(2500)  # let the graph layout settle for the screenshot
    shoot(page, tmp_path, "cypher-graph.png")

    editor.fill("CREATE (:Intruder {name: 'x'}) RETURN 1")
    page.get_by_role("button", name="Run").click()
    page.get_by_text(re.compile("The query failed")).wait_for(timeout=30_000)
    shoot(page, tmp_path, "cypher-write-refused.png")
    # Refused before the database sees it (a Neo4j read transaction would run it).
    editor.fill("LOAD CSV FROM 'file:///etc/passwd' AS row RETURN row")
    page.get_by_role("button", name="Run").click()
    page.get_by_text("The query failed: LOAD CSV is not allowed: queries here may only read the graph").wait_for(
        timeout=30_000
    )


def test_documents_upload_and_graph_page(page: Any, app_url: str, tmp_path: Path):
    page.goto(app_url + "/documents")
    page.get_by_text("Stored documents (1)").wait_for(timeout=60_000)
    upload = tmp_path / "harbour-zoo-copy.pdf"
    upload.write_bytes(SAMPLE_PDF.read_bytes())
    page.locator("input[type='file']").set_input_files(str(upload))
    page.get_by_role("button", name="Ingest uploaded files").click()
    page.get_by_text("The ingest goes on if you leave this page").wait_for(timeout=60_000)
    page.get_by_role("link", name="Cypher").click()  # away mid-ingest, and back: the batch went on
    page.get_by_label("Query (read-only: the database refuses writes)").wait_for(timeout=60_000)
    page.reload()  # a new session: the batch and its reports are still the (local) user's
    page.get_by_label("Query (read-only: the database refuses writes)").wait_for(timeout=60_000)
    page.get_by_role("link", name="Documents").click()
    page.get_by_text(re.compile(r"harbour-zoo-copy\.pdf → harbour-zoo-copy: ingested")).wait_for(timeout=LONG_S)
    page.get_by_text("Stored documents (2)").wait_for(timeout=30_000)
    shoot(page, tmp_path, "documents.png")

    page.goto(app_url + "/graph")
    page.get_by_text("Section tree").wait_for(timeout=60_000)
    page.locator(".docgraph-tree summary").filter(has_text="2 Feeding schedule").wait_for(timeout=30_000)
    page.frame_locator("iframe[title*='agraph']").first.locator("canvas").first.wait_for(timeout=60_000)
    page.wait_for_timeout(2500)
    shoot(page, tmp_path, "graph.png")


def test_with_keys_the_browser_signs_in_and_a_reader_sees_no_writer_actions(
    app_settings: Settings, tmp_path: Path
) -> None:
    home = tmp_path / "home"  # keys of this test's own; the store is the module's
    keys = KeyStore(home)
    _, reader = keys.create("reader", "alice")
    store_url = f"falkordb-local://{app_settings.home}?graph={app_settings.graph}"
    log = tmp_path / "app.log"
    extra = {"DOCGRAPH_STORE": store_url}
    with running_app(home, app_settings.graph, log, extra_env=extra) as url, sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_FLAGS)
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        page.goto(url + "/documents")  # a sub-page: nothing of it shows before a key
        page.get_by_text("Sign in").first.wait_for(timeout=60_000)
        assert page.get_by_text(re.compile("Stored documents")).count() == 0
        box = page.locator("input[type=password]")
        box.fill(reader + "x")
        page.get_by_role("button", name="Sign in").click()
        page.get_by_text("That key is not valid").wait_for(timeout=30_000)
        box.fill(reader)
        page.get_by_role("button", name="Sign in").click()
        page.get_by_text(re.compile(r"Signed in: reader key")).wait_for(timeout=60_000)
        # the page the URL named, not the Ask page: a bookmark still works behind a key
        page.get_by_text(re.compile(r"Stored documents \(\d+\)")).wait_for(timeout=60_000)
        assert page.url.endswith("/documents")
        page.get_by_text("needs a writer's key").wait_for(timeout=30_000)
        assert page.get_by_role("button", name="Ingest uploaded files").count() == 0
        assert page.get_by_role("button", name="Delete").count() == 0
        shoot(page, tmp_path, "signed-in-reader.png")
        browser.close()


def test_a_page_that_reaches_the_app_under_a_foreign_name_gets_nothing(app_url: str) -> None:
    # DNS rebinding: evil.example resolves to this machine; the browser sends `Host: evil.example`.
    port = urlsplit(app_url).port
    rules = "--host-resolver-rules=MAP evil.example 127.0.0.1"
    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=[*CHROMIUM_FLAGS, rules])
        page = browser.new_page()
        page.goto(f"http://evil.example:{port}/")
        page.get_by_text("This server does not answer to 'evil.example'").wait_for(timeout=60_000)
        assert page.get_by_text("Stored documents").count() == 0 and page.get_by_text("Health").count() == 0
        page.goto(f"http://localhost:{port}/")  # its own name still works
        page.get_by_text("Ask anything about the stored documents").wait_for(timeout=60_000)
        browser.close()


# What each page shows once its first run is over, and so once the frontend has found its server.
PAGE_TEXTS = {"/graph": "Section tree", "/documents": "Stored documents (", "/cypher": "Query (read-only"}


def _opened_by_its_url(page: Any, url: str, shown: str) -> list[str]:
    """Open ``url`` in ``page`` as a typed or bookmarked address; once ``shown`` is on it, the paths
    of the requests the frontend made to find its server (``…/_stcore/…``). A failed request fails."""
    failed: list[str] = []
    found: list[str] = []
    page.on("requestfailed", lambda request: failed.append(f"{request.url}: {request.failure}"))
    page.on("request", lambda request: found.append(urlsplit(request.url).path) if "/_stcore/" in request.url else 0)
    page.goto(url)
    page.get_by_text(shown).first.wait_for(timeout=60_000)
    page.wait_for_timeout(1000)  # a late probe would still be seen
    assert not failed, failed
    return found


def test_a_page_opened_by_its_url_finds_the_server_at_once(page: Any, app_url: str):
    # Streamlit's frontend looked for its server under the page's path first (/graph/_stcore/health,
    # a 404 and a console error); the page shell now names the base URL. The fixture asserts no
    # console error and no HTTP error; here no request may fail, and none look under the page.
    for path, shown in PAGE_TEXTS.items():
        fresh = page.context.new_page()  # nothing left over from the page before
        probes = _opened_by_its_url(fresh, app_url + path, shown)
        fresh.close()
        assert "/_stcore/health" in probes, probes
        assert all(probe.startswith("/_stcore/") for probe in probes), (path, probes)


def test_under_a_base_url_path_a_page_opened_by_its_url_finds_the_server_at_once(
    page: Any, app_settings: Settings, tmp_path: Path
):
    log = tmp_path / "app.log"
    with running_app(app_settings.home, app_settings.graph, log, base_path="/docgraph") as url:
        assert urlsplit(url).path == "/docgraph"
        probes = _opened_by_its_url(page, url + "/graph", PAGE_TEXTS["/graph"])
        page.locator(".docgraph-tree summary").filter(has_text="2 Feeding schedule").wait_for(timeout=30_000)
        assert "/docgraph/_stcore/health" in probes and all(p.startswith("/docgraph/_stcore/") for p in probes), probes
        page.get_by_role("link", name="Cypher").click()  # the pages' links keep the base path
        page.get_by_text(PAGE_TEXTS["/cypher"]).first.wait_for(timeout=60_000)
        assert urlsplit(page.url).path == "/docgraph/cypher"
        shoot(page, tmp_path, "base-url-path-cypher.png")
        page.close()  # before the app stops: a page left open would log its reconnection attempts

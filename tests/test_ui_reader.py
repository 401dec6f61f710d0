"""The web app as a reader uses it, in headless Chromium at 1400x1000 on two stored manuals.

Each test drives the real Streamlit server on a real store, keeps a screenshot (/tmp/ui-shots) and
ends with a browser console free of errors (the ``page`` fixture collects them).
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pymupdf
import pytest
from playwright.sync_api import expect, sync_playwright

from docgraph.app.config import Settings
from docgraph.app.jobs.documents import page_regions
from docgraph.app.stores import cypher
from docgraph.app.stores.factory import open_store
from docgraph.app.ui_support.page_images import DEFAULT_DPI
from tests.long_pdfs import long_report
from tests.ui_helpers import (
    CHROMIUM,
    CHROMIUM_FLAGS,
    SAMPLE_PDF,
    app_on,
    collect_console_errors,
    ingest_sample,
    sample_graph,
    shoot,
    shown_image_bytes,
)

pytestmark = [
    pytest.mark.skipif(not CHROMIUM.exists(), reason=f"{CHROMIUM} not installed (Debian package `chromium`)"),
    pytest.mark.timeout(900),
]

VIEWPORT = {"width": 1400, "height": 1000}
QUESTIONS = ("When are the penguins fed?", "What do animals on a special diet get?")
SECOND_DOC = "harbour-zoo-second"
# the 3-page sample alone, and 12 copies of it, were ingested between two redraws of the progress bar
UPLOAD_PAGES = 36
LONG_TITLE = "zoo: An S3 Class and Methods for Indexed Totally Ordered Observations, Second Edition"
LONG_MS = 240_000  # the first answer loads the sentence encoder in the app process
PIPELINE_STAGES = ("read", "graph", "embed", "graph_write")


@pytest.fixture(scope="module")
def app_settings(local_home: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Settings]:
    """The sample manual and a second copy of it under another name: two stored documents."""
    second = tmp_path_factory.mktemp("second") / f"{SECOND_DOC}.pdf"
    shutil.copy(SAMPLE_PDF, second)
    with sample_graph(local_home) as (_, settings):
        ingest_sample(settings, second)
        yield settings


@pytest.fixture(scope="module")
def app_url(app_settings: Settings, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with app_on(app_settings, tmp_path_factory) as url:
        yield url


@pytest.fixture
def page(tmp_path: Path) -> Iterator[Any]:
    """A 1400x1000 page; afterwards, no console error and no uncaught page error may have happened."""
    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_FLAGS)
        opened = browser.new_page(viewport=VIEWPORT)
        problems = collect_console_errors(opened)
        try:
            yield opened
        finally:
            browser.close()
    assert not problems, problems


def ask(page: Any, question: str, answers_before: int) -> Any:
    """Ask ``question``; returns the chat message holding its answer once its citations are there."""
    box = page.get_by_placeholder("Ask a question about the documents")
    box.fill(question)
    box.press("Enter")
    answers = page.locator("[data-testid='stChatMessage']").filter(
        has=page.get_by_role("button", name=re.compile(r"^\[1\] "))
    )
    expect(answers).to_have_count(answers_before + 1, timeout=LONG_MS)
    return answers.nth(answers_before)


def open_ask(page: Any, url: str) -> None:
    page.goto(url)
    page.get_by_text("Click a citation to see the page").wait_for(timeout=60_000)  # the first run is over


def evidence_heading(page: Any, number: int) -> Any:
    """The evidence panel's "[n] `tag`" line."""
    panel = page.locator(".st-key-evidence_panel")
    heading = panel.locator("[data-testid='stMarkdown']").filter(has_text=re.compile(rf"^\[{number}\] .*#r"))
    heading.first.wait_for(timeout=30_000)
    return heading.first


def shown_image(page: Any) -> bytes:
    image = page.locator(".st-key-evidence_panel [data-testid='stImage'] img").first
    image.wait_for(timeout=60_000)
    page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=image.element_handle())
    return shown_image_bytes(image)


def test_the_evidence_stays_in_view_beside_the_chat_after_several_answers(page: Any, app_url: str, tmp_path: Path):
    open_ask(page, app_url)
    ask(page, QUESTIONS[0], 0)
    second_answer = ask(page, QUESTIONS[1], 1)
    chat_height = page.evaluate("() => document.querySelector('.stMain').scrollHeight")
    assert chat_height > 1.5 * VIEWPORT["height"]  # the chat is long enough to scroll the page

    second_answer.get_by_role("button", name=re.compile(r"^\[2\] ")).click()
    tag = evidence_heading(page, 2).locator("code").inner_text()
    shown_image(page)
    page.wait_for_timeout(500)  # the image may still be swapping in
    image = page.locator(".st-key-evidence_panel [data-testid='stImage'] img").first.bounding_box()
    text = page.locator(".st-key-evidence_region_text").bounding_box()
    chat_input = page.get_by_placeholder("Ask a question about the documents").bounding_box()
    assert text["y"] >= 0 and text["y"] + text["height"] <= image["y"]  # the region's text, then its page
    assert image["y"] < VIEWPORT["height"] / 2 and image["y"] + image["height"] / 2 < chat_input["y"]
    assert image["x"] > VIEWPORT["width"] / 2  # beside the chat, not under it
    assert tag.split()[0] in {"docgraph-sample", SECOND_DOC}
    shoot(page, tmp_path, "reader-1-sticky-evidence.png")


def test_the_clicked_citation_is_drawn_apart_from_the_other_cited_regions(
    page: Any, app_url: str, app_settings: Settings, tmp_path: Path
):
    open_ask(page, app_url)
    answer = ask(page, QUESTIONS[0], 0)
    labels = [b.inner_text() for b in answer.get_by_role("button", name=re.compile(r"^\[\d\] ")).all()]
    places = [re.search(r"^\[\d\] (\S+ p\.\d+)", label).group(1) for label in labels]  # type: ignore[union-attr]
    shared = next(place for place in places if places.count(place) > 1)  # a page with several citations
    numbers = [n for n, place in enumerate(places, start=1) if place == shared]

    tags: dict[int, str] = {}
    images: dict[int, bytes] = {}
    for number in numbers:  # each in turn: the yellow follows the click
        answer.get_by_role("button", name=re.compile(rf"^\[{number}\] ")).click()
        tags[number] = evidence_heading(page, number).locator("code").inner_text()
        page.wait_for_timeout(500)  # the image may still be swapping in
        images[number] = shown_image(page)
        legend = page.locator(".docgraph-legend-page")
        expect(legend).to_contain_text(f"[{number}] the citation you clicked")
        expect(legend).to_contain_text(f"the answer's other citations on this page ({len(numbers) - 1})")
    for number in numbers:
        chosen = _yellow_share(images[number], app_settings, tags[number])
        others = [_yellow_share(images[number], app_settings, tags[n]) for n in numbers if n != number]
        assert chosen > 0.3 and max(others) < 0.02, (number, chosen, others)
    shoot(page, tmp_path, "reader-2-clicked-citation.png")


def _yellow_share(png: bytes, settings: Settings, tag: str) -> float:
    """The share of a cited region's box (``doc p.N #rK``) that is filled the chosen citation's yellow."""
    doc, page_part, ref = tag.split()
    store = open_store(settings)
    try:
        regions = page_regions(store, doc, int(page_part.removeprefix("p.")))
    finally:
        store.close()
    region = next(r for r in regions if str(r["region_id"]).endswith(":" + ref.removeprefix("#")))
    pixmap, scale = pymupdf.Pixmap(png), DEFAULT_DPI / 72
    x0, y0, x1, y1 = (round(float(v) * scale) for v in region["bbox"])
    inside = [(x, y) for y in range(y0 + 4, y1 - 4, 2) for x in range(x0 + 4, x1 - 4, 2)]
    yellow = sum(1 for x, y in inside if _is_yellow(pixmap.pixel(x, y)))
    return yellow / max(len(inside), 1)


def _is_yellow(rgb: tuple[int, ...]) -> bool:
    red, green, blue = rgb[:3]
    return red > 200 and green > 170 and blue < 170 and red - blue > 80


def test_the_graph_page_shows_a_section_tree_and_a_labelled_neighbourhood(
    page: Any, app_url: str, app_settings: Settings, tmp_path: Path
):
    page.goto(app_url + "/graph")
    tree = page.locator(".docgraph-tree")
    tree.wait_for(timeout=60_000)
    feeding = tree.locator("summary").filter(has_text="2 Feeding schedule")
    diets = tree.get_by_text("2.1 Special diets")
    expect(diets).to_be_visible()
    feeding.click()  # closes the section: its subsection goes out of sight
    expect(diets).to_be_hidden()
    feeding.click()
    expect(diets).to_be_visible()
    expect(tree).to_contain_text("p.1 · 3 regions")

    page.get_by_text(re.compile(r"^title on page 1 of docgraph-sample")).wait_for(timeout=30_000)
    page.frame_locator("iframe[title*='agraph']").first.locator("canvas").first.wait_for(timeout=60_000)
    legend = page.locator(".docgraph-legend-neighbourhood")
    expect(legend).to_contain_text("title")
    expect(legend).to_contain_text("paragraph")
    expect(legend).to_contain_text("Page")
    page.get_by_text("Each node names its document, kind and page").wait_for()
    page.locator("iframe[title*='agraph']").first.scroll_into_view_if_needed()
    page.wait_for_timeout(2500)  # let the graph layout settle for the screenshot
    shoot(page, tmp_path, "reader-3-graph.png")


def test_a_cypher_syntax_error_is_one_line_with_its_position(page: Any, app_url: str, tmp_path: Path):
    page.goto(app_url + "/cypher")
    editor = page.get_by_label("Query (read-only: the database refuses writes)")
    editor.wait_for(timeout=60_000)
    editor.fill("MATCH (n RETURN n")
    page.get_by_role("button", name="Run").click()
    alert = page.locator("[data-testid='stAlert']").filter(has_text="The query failed")
    expect(alert).to_have_text(re.compile(r"The query failed: Syntax error at line 1, column 10: Invalid input 'R'"))
    assert "errMsg" not in alert.inner_text() and "errCtx" not in alert.inner_text()
    expect(page.locator("[data-testid='stCode']").last).to_contain_text("MATCH (n RETURN n\n         ^")
    shoot(page, tmp_path, "reader-4-cypher-error.png")


def test_the_start_page_suggests_stored_topics_and_the_trace_reads_as_steps(
    page: Any, app_url: str, app_settings: Settings, tmp_path: Path
):
    open_ask(page, app_url)
    store = open_store(app_settings)
    try:
        titles = {
            str(row["title"]) for row in store.read(cypher.load("ui_example_sections", store.dialect), {"limit": 100})
        }
    finally:
        store.close()
    suggestions = page.get_by_role("button", name=re.compile(r"^What does the section “"))
    expect(suggestions.first).to_be_visible(timeout=30_000)
    for text in [button.inner_text() for button in suggestions.all()]:
        topic = re.search(r"“(.+)”", text).group(1)  # type: ignore[union-attr]
        assert any(title.endswith(topic) for title in titles), (topic, titles)
    shoot(page, tmp_path, "reader-6-suggestions.png")

    suggestions.first.click()  # asks it
    page.get_by_role("button", name=re.compile(r"^\[1\] ")).first.wait_for(timeout=LONG_MS)
    page.get_by_text("Trace: how the answer was made").first.click()
    trace = page.locator("[data-testid='stExpanderDetails']").filter(has_text="route —").first
    expect(trace).to_contain_text("retrieve — query: What does the section")
    expect(trace).to_contain_text("retriever:")
    assert "[...]" not in trace.inner_text() and "{" not in trace.inner_text()
    shoot(page, tmp_path, "reader-6-trace.png")


def test_ingest_names_its_stages_the_table_shows_every_column_and_a_failure_names_the_file_once(
    page: Any, app_url: str, tmp_path: Path
):
    # What the server sends (a quick stage's label may be replaced before the page draws it)...
    frames: list[bytes] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda data: frames.append(_as_bytes(data))))
    page.goto(app_url + "/documents")
    page.get_by_text(re.compile(r"Stored documents \(\d+\)")).wait_for(timeout=60_000)
    # ... and every label the progress bar shows, recorded in the page as it changes.
    page.evaluate(
        """() => { window.progressLabels = [];
        new MutationObserver(() => document.querySelectorAll('[data-testid=stProgress]').forEach(
            bar => window.progressLabels.push(bar.innerText))).observe(document.body,
            {subtree: true, childList: true, characterData: true}); }"""
    )
    # distinct pages enough that its stages outlast the bar's 1 s redraw; a title as long as real
    # manuals have
    upload = long_report(tmp_path / "third-manual.pdf", UPLOAD_PAGES, LONG_TITLE)
    broken = tmp_path / "broken-manual.pdf"
    broken.write_bytes(b"this is not a PDF")
    page.locator("input[type='file']").set_input_files([str(upload), str(broken)])
    page.get_by_role("button", name="Ingest uploaded files").click()
    page.get_by_text(re.compile(r"third-manual\.pdf → third-manual: ingested")).wait_for(timeout=LONG_MS)
    failure = page.locator("[data-testid='stAlert']").filter(has_text="broken-manual.pdf: failed")
    assert failure.inner_text().count("broken-manual.pdf") == 1, failure.inner_text()
    labels = page.evaluate("() => window.progressLabels")
    prefix = "Ingesting 2 file(s): third-manual.pdf: "
    shown = [label.removeprefix(prefix) for label in labels if label.startswith(prefix)]
    # The batch runs in the background and the bar is redrawn each second with the stage running
    # then: a quick stage (reading pages, the graph) may come and go between two redraws, which is
    # why either counting stage will do (tests/test_ui_support.py checks the labels of every stage).
    counted = rf"read \d+/{UPLOAD_PAGES} pages|embed \d+/\d+ regions"
    assert any(re.fullmatch(counted, label) for label in shown), labels
    sent = b"".join(frames)
    found = [re.search(rb"third-manual\.pdf: %s(?!\w)" % stage.encode(), sent) for stage in PIPELINE_STAGES]
    named = [match.start() for match in found if match]
    assert named and named == sorted(named), dict(zip(PIPELINE_STAGES, found, strict=True))  # those sent, in order

    page.get_by_text("Stored documents (3)").wait_for(timeout=30_000)
    table = page.locator("[data-testid='stDataFrame']").first
    table.wait_for(timeout=30_000)
    widths = table.locator(".dvn-scroller").evaluate("el => [el.scrollWidth, el.clientWidth]")
    assert widths[0] <= widths[1], widths  # nothing hidden to the right
    shoot(page, tmp_path, "reader-5-documents.png")


def _as_bytes(data: str | bytes) -> bytes:
    return data if isinstance(data, bytes) else data.encode()

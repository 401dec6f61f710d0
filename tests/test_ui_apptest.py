"""Each page of the Streamlit app run by streamlit.testing's AppTest on a real FalkorDB store.

The store is a graph of its own on the session's local FalkorDB (``local_home``) with the sample PDF
ingested through the real pipeline; the app reads it through DOCGRAPH_HOME / DOCGRAPH_GRAPH.
"""

from __future__ import annotations

import json
import shutil
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from docgraph.app.auth.keys import KeyStore
from docgraph.app.config import Settings
from docgraph.app.jobs.documents import list_documents
from docgraph.app.pipeline.build import build_ingest_pipeline
from docgraph.app.pipeline.reports import IngestReport
from docgraph.app.stores.base import GraphStore
from docgraph.app.stores.factory import open_store
from docgraph.app.ui_support.ingest import OverallProgress
from docgraph.ui import common
from tests.llm_server import ScriptedLLMServer, confident
from tests.ui_helpers import FOREIGN_ENV, SAMPLE_PDF, app_environment, free_port, sample_graph

APP = Path(__file__).resolve().parent.parent / "ui" / "app.py"
TIMEOUT = 240  # s: the first answer of the session loads the sentence encoder
QUESTION = "When are the penguins fed?"
DOC = "docgraph-sample"


@pytest.fixture(scope="module")
def ui_settings(local_home: Path) -> Iterator[Settings]:
    with sample_graph(local_home) as (_, settings):
        yield settings


@pytest.fixture
def ui_env(ui_settings: Settings, monkeypatch: pytest.MonkeyPatch) -> Settings:
    """The app's environment: this module's graph, no LLM endpoint, no other store."""
    for name in FOREIGN_ENV:
        monkeypatch.delenv(name, raising=False)
    for name, value in app_environment(ui_settings.home, ui_settings.graph).items():
        if name.startswith("DOCGRAPH_"):
            monkeypatch.setenv(name, value)
    return ui_settings


@pytest.fixture
def store(ui_settings: Settings) -> Iterator[GraphStore]:
    graph_store = open_store(ui_settings)
    yield graph_store
    graph_store.close()


def page(view: str) -> AppTest:
    return AppTest.from_string(f"from docgraph.ui.views import {view}\n{view}.render()\n", default_timeout=TIMEOUT)


def texts(elements: object) -> str:
    return "\n".join(str(getattr(element, "value", "")) for element in elements)  # type: ignore[attr-defined]


def ingest_ended(at: AppTest) -> AppTest:
    """Show the page again until the background ingest it started has reported (at most TIMEOUT s)."""
    for _ in range(TIMEOUT):
        if at.success or at.error:
            return at
        time.sleep(1)
        at.run()
    raise AssertionError("the ingest did not end")


def no_failure(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def test_app_navigates_and_shows_health(ui_env: Settings, store: GraphStore) -> None:
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT).run()
    no_failure(at)
    assert at.title[0].value == "Ask"
    sidebar = texts(at.sidebar.markdown)
    assert "**falkordb** store connected" in sidebar
    counts = store.counts().labels
    assert f"- regions: {counts['Region']}" in sidebar and "- documents: 1" in sidebar
    assert "No LLM endpoint configured" in texts(at.sidebar.info)
    assert ui_env.graph in texts(at.sidebar.caption)


def test_an_unreachable_store_is_a_message_not_a_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOCGRAPH_STORE", f"falkordb://127.0.0.1:{free_port()}")
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT).run()
    assert not at.exception
    assert "cannot be opened" in texts(at.error)
    assert "store unavailable" in texts(at.sidebar.markdown)


def test_ask_answers_with_clickable_citations_and_evidence(ui_env: Settings, store: GraphStore) -> None:
    at = page("ask").run()
    no_failure(at)
    at.chat_input[0].set_value(QUESTION).run()
    no_failure(at)

    result = at.session_state["ask_history"][0]
    assert result.mode == "extractive" and "10:30" in result.answer and result.citations
    assert any("10:30" in m.value and "**[1]**" in m.value for m in at.markdown)
    assert "route: retrieve · answer: extractive" in texts(at.caption)
    citation_buttons = [b for b in at.button if b.key and b.key.startswith("cite-0-")]
    assert len(citation_buttons) == len(result.citations)
    assert citation_buttons[0].label.startswith(f"[1] {DOC} p.{result.citations[0].page}")

    first = result.citations[0]
    assert at.image[0].proto.imgs[0].caption == f"{DOC}, page {first.page}"
    cached = list((ui_env.home / "cache" / "pages").glob("*/*.png"))  # a folder per store
    assert any(f"-p{first.page}-" in path.name and not path.name.endswith("-plain.png") for path in cached)
    shown = texts(at.markdown)
    section = store.read(
        "MATCH (r:Region {region_id: $id})-[:IS_UNDER]->(s:Section) RETURN s.title AS title", {"id": first.region_id}
    )[0]["title"]
    assert f"section: {section}" in shown and "**Graph neighbours**" in shown

    assert len(result.citations) > 1  # the extractive answer quotes several passages
    second = result.citations[1]
    at.button(key="cite-0-2").click().run()
    no_failure(at)
    assert at.session_state["ask_selected"] == (0, 1)
    assert at.image[0].proto.imgs[0].caption == f"{DOC}, page {second.page}"
    assert at.button(key="cite-0-2").proto.type == "primary"


def test_ask_with_an_llm_shows_the_route_and_generated_cypher(
    ui_env: Settings, store: GraphStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = store.read("MATCH (t:Table {doc_id: $doc}) RETURN t.region_id AS id, t.page AS page", {"doc": DOC})[0]
    query = "MATCH (t:Table) RETURN t.region_id AS region_id, t.page AS page"
    tag = f"{DOC} p.{table['page']} #{str(table['id']).rsplit(':', 1)[-1]}"
    with ScriptedLLMServer() as server:
        server.add(
            json.dumps({"route": "cypher", "reason": "a listing", "sub_questions": []}),
            f"```cypher\n{query}\n```",
            confident(f"There is one table, on page {table['page']} [{tag}]."),
        )
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        monkeypatch.setenv("DOCGRAPH_LLM_MODEL", "scripted")
        at = page("ask").run()
        at.chat_input[0].set_value("Which tables are there?").run()
    no_failure(at)
    result = at.session_state["ask_history"][0]
    assert (result.route, result.mode) == ("cypher", "llm")
    assert "route: cypher · answer: llm" in texts(at.caption)
    assert at.code[0].value.startswith(query)
    assert any("There is one table" in m.value and "**[1]**" in m.value for m in at.markdown)
    assert at.image[0].proto.imgs[0].caption == f"{DOC}, page {table['page']}"


def test_documents_page_lists_ingests_a_folder_and_deletes(
    ui_env: Settings, store: GraphStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    at = page("documents").run()
    no_failure(at)
    assert "Ingesting a folder on the server is off" in texts(at.info)  # no DOCGRAPH_INGEST_ROOTS
    monkeypatch.setenv("DOCGRAPH_INGEST_ROOTS", str(tmp_path / "pdfs"))
    at = page("documents").run()
    assert "Stored documents (1)" in texts(at.subheader)
    assert at.dataframe[0].value["doc_id"].tolist() == [DOC]
    assert at.button(key="reembed_button") is not None  # app.pipeline.gnn offers reembed

    folder = tmp_path / "pdfs"
    folder.mkdir()
    shutil.copy(SAMPLE_PDF, folder / "zoo-copy.pdf")
    (folder / "broken.pdf").write_bytes(b"this is not a PDF")
    at.text_input(key="documents_folder").set_value(str(folder)).run()
    at.button(key="ingest_folder").click().run()
    assert not at.exception and "The ingest goes on if you leave this page" in texts(at.caption)
    assert "Ingesting 2 file(s)" in at.get("progress")[0].proto.text
    assert at.button(key="ingest_folder").disabled  # one batch at a time
    ingest_ended(at)
    assert "broken.pdf: failed" in texts(at.error)
    assert "zoo-copy.pdf → zoo-copy: ingested" in texts(at.success)
    assert sorted(at.dataframe[0].value["doc_id"].tolist()) == [DOC, "zoo-copy"]
    at.checkbox(key="ingest_force").check().run()  # rebuilds what is stored as it would be built now
    ingest_ended(at.button(key="ingest_folder").click().run())
    assert "zoo-copy.pdf → zoo-copy: replaced" in texts(at.success)

    (folder / "nowhere").write_bytes(b"")
    at.text_input(key="documents_folder").set_value(str(folder / "nowhere")).run()
    at.button(key="ingest_folder").click().run()
    assert "Reading the folder failed" in texts(at.error) and "is not a folder" in texts(at.error)
    (tmp_path / "elsewhere").mkdir()
    shutil.copy(SAMPLE_PDF, tmp_path / "elsewhere" / "secret.pdf")
    (folder / "link").symlink_to(tmp_path / "elsewhere")  # a link out of the root leads nowhere
    for outside in (tmp_path / "elsewhere", folder / ".." / "elsewhere", folder / "link", Path("~")):
        at.text_input(key="documents_folder").set_value(str(outside)).run()
        at.button(key="ingest_folder").click().run()
        assert "is not below an ingest root" in texts(at.error), outside
    assert "secret" not in [str(d) for d in store.read("MATCH (d:Document) RETURN d.doc_id AS d")]

    at.selectbox(key="delete_doc").set_value("zoo-copy").run()
    assert at.button(key="delete_button").disabled
    at.checkbox(key="delete_sure-0").check().run()
    at.button(key="delete_button").click().run()
    no_failure(at)
    assert "Deleted zoo-copy" in texts(at.success)
    assert at.dataframe[0].value["doc_id"].tolist() == [DOC]
    # the next document is selected now: the box is unticked again, so one more click deletes nothing
    assert not at.checkbox(key="delete_sure-1").value and at.button(key="delete_button").disabled
    assert store.read("MATCH (n {doc_id: 'zoo-copy'}) RETURN count(n) AS n")[0]["n"] == 0


def test_cypher_page_runs_examples_and_refuses_writes(ui_env: Settings, store: GraphStore) -> None:
    at = page("cypher_page").run()
    no_failure(at)
    example = next(o for o in at.selectbox(key="cypher_example").options if o.startswith("Which paragraphs run on"))
    at.selectbox(key="cypher_example").set_value(example).run()
    assert "HAS_NEXT" in at.text_area(key="cypher_query").value
    at.button(key="cypher_run").click().run()
    no_failure(at)
    assert "1 row(s)" in texts(at.caption)
    assert at.dataframe[0].value["pages"].tolist() == ["[1, 2]"]
    assert at.download_button(key="cypher_csv") is not None
    assert "Graph (2 nodes, 1 relationships)" in texts(at.subheader)

    # The worked examples name a document "report": asked of a stored one instead, saying so
    outline = next(o for o in at.selectbox(key="cypher_example").options if o.startswith("What are the sections"))
    at.selectbox(key="cypher_example").set_value(outline).run()
    assert "{doc_id: 'docgraph-sample'}" in at.text_area(key="cypher_query").value
    said = "The example's document 'report' is not stored: it asks about 'docgraph-sample' instead."
    assert said in texts(at.caption)
    at.button(key="cypher_run").click().run()
    no_failure(at)
    assert at.dataframe[0].value["title"].tolist()[:2] == ["1 Introduction", "1.1 Scope"]

    at.text_area(key="cypher_query").set_value("MATCH (d:Document {doc_id: $doc}) RETURN d.page_count AS pages").run()
    at.text_area(key="cypher_params").set_value(json.dumps({"doc": DOC})).run()
    at.button(key="cypher_run").click().run()
    no_failure(at)
    assert at.dataframe[0].value["pages"].tolist() == [3]
    assert not any(s.value.startswith("Graph (") for s in at.subheader)

    at.text_area(key="cypher_params").set_value("{doc:").run()
    at.button(key="cypher_run").click().run()
    assert "not valid JSON" in texts(at.error)

    at.text_area(key="cypher_params").set_value("{}").run()  # FalkorDB said "Missing parameters" alone
    at.button(key="cypher_run").click().run()
    assert 'it uses $doc, which the parameters do not give (e.g. {"doc": ...})' in texts(at.error)

    before = store.counts().labels
    at.text_area(key="cypher_params").set_value("{}").run()
    at.text_area(key="cypher_query").set_value("CREATE (:Intruder {name: 'x'}) RETURN 1 AS one").run()
    at.button(key="cypher_run").click().run()
    assert not at.exception
    assert "The query failed" in texts(at.error)
    assert store.counts().labels == before and "Intruder" not in before

    # A huge result is kept to its first rows in the session, saying so (a million stayed: 1.3 GB)
    at.text_area(key="cypher_query").set_value("UNWIND range(1, 50003) AS x RETURN x").run()
    at.button(key="cypher_run").click().run()
    no_failure(at)
    assert "The query returned 50,003 rows; the first 50,000 are kept here." in texts(at.warning)
    assert "50000 row(s)" in texts(at.caption) and len(at.session_state["cypher_rows"]) == 50_000

    # A graph too large for the browser's layout (9,823 relationships took it minutes) is drawn in part
    chain = (
        "UNWIND range(1, 400) AS i RETURN {id: i, labels: ['Region'], properties: {kind: 'paragraph'}} AS n, "
        "{id: 1000 + i, type: 'HAS_NEXT', start: i, end: i + 1} AS r"
    )
    at.text_area(key="cypher_query").set_value(chain).run()
    at.button(key="cypher_run").click().run()
    no_failure(at)
    assert "Graph (401 nodes, 400 relationships)" in texts(at.subheader)
    drawn = "Drawn: the first 300 nodes and the 299 relationships between them. Add LIMIT or SKIP to draw others."
    assert drawn in texts(at.caption)


def test_graph_page_shows_section_tree_and_neighbourhood(ui_env: Settings) -> None:
    at = page("graph").run()
    no_failure(at)
    assert at.selectbox(key="graph_doc").value == DOC
    tree = "\n".join(element.proto.body for element in at.get("html"))
    feeding = tree.index("<summary>2 Feeding schedule")
    assert tree.index("2.1 Special diets", feeding) < tree.index("</details>", feeding)  # under its parent

    section_box = at.selectbox(key=f"graph_section-{DOC}")
    section_box.select_index(section_box.options.index("2.1 Special diets")).run()
    no_failure(at)
    region_box = next(s for s in at.selectbox if s.key and s.key.startswith("graph_region-"))
    panda = next(i for i, label in enumerate(region_box.options) if "p.1 paragraph: Animals on a special diet" in label)
    region_box.select_index(panda).run()
    no_failure(at)
    assert f"**paragraph** on page 1 of {DOC} · 2 Feeding schedule › 2.1 Special diets" in texts(at.markdown)
    assert "red panda Mei" in texts(at.caption)


def test_with_keys_the_app_asks_for_one_and_shows_writer_actions_to_writers_only(
    ui_env: Settings, store: GraphStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Keys in a data home of this test's own; the store stays the module's.
    monkeypatch.setenv("DOCGRAPH_STORE", f"falkordb-local://{ui_env.home}?graph={ui_env.graph}")
    monkeypatch.setenv("DOCGRAPH_HOME", str(tmp_path))
    keys = KeyStore(tmp_path)
    _, reader = keys.create("reader", "alice")
    writer_record, writer = keys.create("writer", "bob")

    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT).run()
    no_failure(at)
    assert [t.value for t in at.title] == ["Sign in"]  # nothing else before a key
    assert "store connected" not in texts(at.sidebar.markdown)
    at.text_input(key="signin_input").set_value(reader + "x")
    at.button[0].click().run()
    assert "not valid" in texts(at.error) and [t.value for t in at.title] == ["Sign in"]

    at.text_input(key="signin_input").set_value(reader)
    at.button[0].click().run()
    no_failure(at)
    assert at.title[0].value == "Ask" and "Signed in: reader key" in texts(at.sidebar.caption)

    documents = page("documents")
    documents.session_state["signin_key"] = reader
    documents.run()
    no_failure(documents)
    assert "Stored documents (1)" in texts(documents.subheader)
    assert "Add documents" not in texts(documents.subheader)  # no upload, folder, delete or reembed
    assert "needs a writer's key" in texts(documents.caption)
    with pytest.raises(KeyError):
        documents.button(key="delete_button")

    documents = page("documents")
    documents.session_state["signin_key"] = writer
    documents.run()
    no_failure(documents)
    assert "Add documents" in texts(documents.subheader) and documents.button(key="delete_button") is not None

    keys.revoke(writer_record.key_id)  # a revoked key signs its session out at the next run
    documents.run()
    assert "Sign in" in [t.value for t in documents.title] and "Add documents" not in texts(documents.subheader)


def test_revoking_every_key_locks_the_app_and_a_damaged_key_file_is_one_line(
    ui_env: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the last key revoked the app opened to anyone, as a writer (the API locks); a damaged
    keys.json showed a traceback naming the server's paths."""
    monkeypatch.setenv("DOCGRAPH_STORE", f"falkordb-local://{ui_env.home}?graph={ui_env.graph}")
    monkeypatch.setenv("DOCGRAPH_HOME", str(tmp_path))
    keys = KeyStore(tmp_path)
    record, _ = keys.create("writer", "bob")
    keys.revoke(record.key_id)
    documents = page("documents")
    documents.run()
    assert "Sign in" in [t.value for t in documents.title] and "Add documents" not in texts(documents.subheader)
    assert not documents.dataframe
    app = AppTest.from_file(str(APP), default_timeout=TIMEOUT).run()
    assert [t.value for t in app.title] == ["Sign in"]

    (tmp_path / "keys.json").write_text('{"keys": [')
    app = AppTest.from_file(str(APP), default_timeout=TIMEOUT).run()
    assert not app.exception and not app.title  # nothing of the app, and no traceback
    assert [e.value for e in app.error] == [
        "The server's key file cannot be read, so nobody can sign in (the server's log says why)."
    ]


def test_signing_out_takes_the_conversation_with_it_and_the_scope_outlives_other_users_changes(
    ui_env: Settings, store: GraphStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The next key signed in on the tab saw the last one's answers and query rows; and the Ask
    page's document went back to "All documents", unsaid, whenever anyone added or deleted one."""
    monkeypatch.setenv("DOCGRAPH_STORE", f"falkordb-local://{ui_env.home}?graph={ui_env.graph}")
    monkeypatch.setenv("DOCGRAPH_HOME", str(tmp_path))
    _, reader = KeyStore(tmp_path).create("reader", "alice")
    at = AppTest.from_file(str(APP), default_timeout=TIMEOUT)
    at.session_state["signin_key"] = reader
    at.run()
    document_box = next(box for box in at.selectbox if box.label == "Document")
    document_box.select(DOC).run()
    at.chat_input[0].set_value(QUESTION).run()
    no_failure(at)
    assert at.session_state["ask_history"] and at.session_state["ask_scope"] == DOC

    shutil.copy(SAMPLE_PDF, tmp_path / "another.pdf")  # another user's ingest changes the list of documents
    report = build_ingest_pipeline(store, ui_env).ingest(tmp_path / "another.pdf")
    assert report.status == "ingested"
    try:
        at.run()
        assert next(box for box in at.selectbox if box.label == "Document").value == DOC
        store.delete_document(DOC)  # ... and the chosen document goes: said, not silently widened
        at.run()
        assert f"'{DOC}' is no longer stored" in texts(at.warning)
        assert next(box for box in at.selectbox if box.label == "Document").value == "All documents"
    finally:
        store.delete_document("another")
        build_ingest_pipeline(store, ui_env).ingest(SAMPLE_PDF)  # the module's graph as it was

    at.button(key="signout_button").click().run()
    assert [t.value for t in at.title] == ["Sign in"]
    assert "ask_history" not in at.session_state and "ask_scope" not in at.session_state


def test_a_document_another_user_is_ingesting_is_not_deleted_and_readers_see_the_ingest(
    ui_env: Settings, store: GraphStore, tmp_path: Path
) -> None:
    """The delete said "Deleted" and the running batch then stored the document again; and only
    writers were told that an ingest ran."""
    gate = threading.Event()

    def held(progress: OverallProgress) -> list[IngestReport]:
        progress(0.4, f"{DOC}.pdf: read 1/3 pages")
        gate.wait(60)
        return []

    run = common.ingest_runs().start("key someone", [tmp_path / f"{DOC}.pdf"], held)  # the app's registry
    try:
        documents = page("documents")
        documents.run()
        documents.selectbox(key="delete_doc").select(DOC)
        documents.checkbox(key="delete_sure-0").check().run()
        documents.button(key="delete_button").click().run()
        assert f"{DOC} is being ingested ({DOC}.pdf: read 1/3 pages): delete it once that ends." in texts(
            documents.error
        )
        assert DOC in [str(row["doc_id"]) for row in list_documents(store)]
        # drawn apart from the writer's upload controls, so a reader's page shows it too
        assert f"Another user is ingesting 1 file(s): {DOC}.pdf: read 1/3 pages" in texts(documents.caption)
    finally:
        gate.set()
    for _ in range(100):
        if common.ingest_runs().collect("key someone"):
            break
        time.sleep(0.1)
    assert run.finished

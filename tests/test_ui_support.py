"""The UI's plain-Python support (app/ui_support) on a real store with the sample PDF ingested."""

from __future__ import annotations

import csv
import io
import math
import re
from collections.abc import Iterator
from pathlib import Path

import markdown_it
import pymupdf
import pytest

from docgraph.app.config import Settings
from docgraph.app.jobs.render import KIND_COLOURS, rgb_hex
from docgraph.app.llm.answer import AnswerResult
from docgraph.app.llm.citations import Citation
from docgraph.app.llm.service import ask
from docgraph.app.pipeline.build import build_ingest_pipeline
from docgraph.app.pipeline.embedding import configured_encoder
from docgraph.app.pipeline.reports import IngestReport
from docgraph.app.retrieval.registry import make_retriever
from docgraph.app.stores import cypher
from docgraph.app.stores.base import GraphStore
from docgraph.app.stores.falkordb_store import FalkorDBStore
from docgraph.app.stores.page_cache import page_cache_dir
from docgraph.app.stores.query_errors import query_problem
from docgraph.app.ui_support.answers import (
    markdown_text,
    numbered_answer,
    page_highlights,
    route_summary,
    safe_markdown,
    streamed_answer,
    trace_lines,
)
from docgraph.app.ui_support.evidence import MAX_SIMILAR_SHOWN, SIMILAR_RELATIONS, region_evidence
from docgraph.app.ui_support.examples import ANALYST_DIR, example_questions, load_examples
from docgraph.app.ui_support.graph_view import (
    LABEL_COLOURS,
    MAX_SIMILAR_DRAWN,
    graph_from_rows,
    group_colour,
    legend,
    neighbourhood_view,
    section_tree,
)
from docgraph.app.ui_support.health import store_health, unavailable_health
from docgraph.app.ui_support.ingest import (
    file_fraction,
    folder_pdfs,
    ingest_files,
    progress_label,
    report_line,
    save_upload,
)
from docgraph.app.ui_support.page_images import page_image
from docgraph.app.ui_support.tables import display_rows, parse_params, rows_to_csv
from docgraph.errors import ConfigError, QuerySyntaxError, RegionNotFoundError
from docgraph.ingest.structure.ids import doc_id_for
from tests.ui_helpers import SAMPLE_PDF, sample_graph

DOC = "docgraph-sample"


@pytest.fixture(scope="module")
def sample(local_home: Path) -> Iterator[tuple[GraphStore, Settings]]:
    with sample_graph(local_home) as opened:
        yield opened


def region_with(store: GraphStore, words: str) -> str:
    rows = store.read(
        "MATCH (r:Region {doc_id: $doc}) WHERE r.text CONTAINS $words RETURN r.region_id AS id ORDER BY id",
        {"doc": DOC, "words": words},
    )
    assert rows, words
    return str(rows[0]["id"])


def test_evidence_has_section_path_and_typed_neighbours(sample: tuple[GraphStore, Settings]) -> None:
    store, _ = sample
    part_one = region_with(store, "red panda Mei")  # runs on to page 2
    evidence = region_evidence(store, part_one)
    assert evidence.section_path == ["2 Feeding schedule", "2.1 Special diets"]
    relations = {n.relation: n for n in evidence.evidence_neighbours()}
    assert relations["continues on"].page == 2 and relations["continues on"].kind == "paragraph"
    assert "in" not in relations and "on page" not in relations  # structure is the graph view's business

    table = region_evidence(store, region_with(store, "Penguin beach"))
    shown = {n.relation: n for n in table.evidence_neighbours()}
    assert shown["caption"].text.startswith("Table 1")
    assert shown["referred by"].ref_label == "Table 1"
    assert "*caption*" in shown["caption"].summary()

    with pytest.raises(RegionNotFoundError):
        region_evidence(store, "no-such-region")


def test_evidence_lists_a_few_similar_regions_once_each(sample: tuple[GraphStore, Settings]) -> None:
    store, _ = sample
    evidence = region_evidence(store, region_with(store, "red panda Mei"))
    similar_edges = [n for n in evidence.neighbours if n.type == "IS_SIMILAR"]
    assert len({n.key for n in similar_edges}) > MAX_SIMILAR_SHOWN  # the kNN graph has more, both ways
    shown = [n.key for n in evidence.evidence_neighbours() if n.relation == "similar"]
    assert len(shown) == MAX_SIMILAR_SHOWN == len(set(shown))


def test_neighbourhood_and_section_tree_views(sample: tuple[GraphStore, Settings]) -> None:
    store, _ = sample
    table_id = region_with(store, "Penguin beach")
    view = neighbourhood_view(region_evidence(store, table_id))
    caption = next(node for node in view.nodes.values() if node.group == "caption")
    assert any(e.source == caption.id and e.target == table_id and e.label == "caption" for e in view.edges)
    assert {"Section", "Page"} <= {node.group for node in view.nodes.values()}

    sections = store.read(cypher.load("ui_section_tree", store.dialect), {"doc_id": DOC})
    tree = section_tree(sections)
    top = ["1 Introduction", "2 Feeding schedule", "3 Enclosures", "4 Visitor safety"]
    assert [branch.title for branch in tree] == top
    assert [child.summary for child in tree[1].children] == ["2.1 Special diets (p.1, 3 regions)"]


def test_query_results_become_graph_table_and_csv(sample: tuple[GraphStore, Settings]) -> None:
    store, _ = sample
    query = (ANALYST_DIR / "paragraph_chain.cypher").read_text()
    rows = store.read(query)
    assert [row["pages"] for row in rows] == [[1, 2]]
    view = graph_from_rows(rows)
    assert len(view.nodes) == 2 and [e.label for e in view.edges] == ["HAS_NEXT"]
    assert all(node.group == "paragraph" for node in view.nodes.values())

    shown = display_rows(rows)
    assert shown[0]["chain"] == "path: 2 nodes, 1 relationships"
    assert shown[0]["pages"] == "[1, 2]"

    nodes = store.read("MATCH (r:Region {doc_id: $doc}) RETURN r LIMIT 1", {"doc": DOC})
    assert "[384 numbers]" not in display_rows(nodes)[0]["r"]  # vectors are left out of a node's cell
    assert "embedding" not in display_rows(nodes)[0]["r"]
    parsed = list(csv.DictReader(io.StringIO(rows_to_csv(nodes))))
    assert len(parsed[0]["r"]) > 1000  # the CSV keeps everything, the vector included


def test_display_rows_turns_mixed_columns_into_text() -> None:
    rows = [{"number": 1, "x": None}, {"number": "2.1", "x": [0.5] * 20}]
    assert display_rows(rows) == [{"number": "1", "x": None}, {"number": "2.1", "x": "[20 numbers]"}]
    assert rows_to_csv(rows).splitlines() == ["number,x", "1,", "2.1," + '"' + str([0.5] * 20) + '"']


def test_parse_params() -> None:
    assert parse_params("  ") == {}
    assert parse_params('{"doc": "a", "page": 3}') == {"doc": "a", "page": 3}
    with pytest.raises(ConfigError, match="not valid JSON"):
        parse_params("{doc: 1}")
    with pytest.raises(ConfigError, match="JSON object"):
        parse_params("[1, 2]")


def test_every_example_and_analyst_query_runs_read_only(sample: tuple[GraphStore, Settings]) -> None:
    store, _ = sample
    examples = load_examples()
    names = {example.name for example in examples}
    assert {"tables_in_section", "paragraph_chain", "figure_references", "pages_per_document"} <= names
    assert all(example.question and not example.query.startswith("// question:") for example in examples)
    for example in examples:
        store.read(example.query)  # raises on a syntax error or a write
    by_name = {example.name: example for example in examples}
    tables = store.read(by_name["tables_in_section"].query)
    assert [(r["section"], r["caption"]) for r in tables] == [
        ("3 Enclosures", "Table 1: Enclosure sizes and number of animals.")
    ]
    references = store.read(by_name["figure_references"].query)
    assert {r["cited_as"] for r in references} == {"Figure 1"} and len(references) == 2


def test_page_images_are_rendered_once_with_highlights(sample: tuple[GraphStore, Settings]) -> None:
    store, settings = sample
    cited = region_with(store, "penguins are fed")
    highlighted = page_image(store, settings, DOC, 1, {cited})
    plain = page_image(store, settings, DOC, 1)
    assert highlighted != plain and highlighted.parent == page_cache_dir(settings.home, store)
    stamp = highlighted.stat().st_mtime_ns
    assert page_image(store, settings, DOC, 1, [cited]) == highlighted
    assert highlighted.stat().st_mtime_ns == stamp  # served from the cache, not drawn again
    a, b = pymupdf.Pixmap(str(highlighted)), pymupdf.Pixmap(str(plain))
    assert a.samples != b.samples


def test_health_of_a_live_and_an_unreachable_store(sample: tuple[GraphStore, Settings]) -> None:
    store, settings = sample
    health = store_health(store, settings)
    assert health.ok and health.status == "connected" and health.store_kind == "falkordb"
    assert health.documents == 1 and f"regions: {store.counts().labels['Region']}" in health.count_lines()
    assert not health.llm_configured and "no LLM endpoint configured" in health.llm

    down = unavailable_health(
        Settings(home=settings.home, store="neo4j://neo4j:s3cret@db:7687"), RuntimeError("refused")
    )
    assert (down.ok, down.status, down.store_kind, down.error) == (False, "unavailable", "neo4j", "refused")
    assert "s3cret" not in down.store_url and "db:7687" in down.store_url


def test_ingest_helpers(sample: tuple[GraphStore, Settings], tmp_path: Path) -> None:
    store, settings = sample
    saved = save_upload("../../etc/My Report (final).PDF", b"%PDF-1.4", tmp_path / "uploads")
    again = save_upload("My Report (final).PDF", b"%PDF-1.7", tmp_path / "uploads")  # the same name
    assert saved.name == again.name == "My Report (final).PDF" and saved != again
    assert [save_upload(n, b"", tmp_path / "uploads").name for n in (".x.pdf", "a\x00b", "..")] == [
        "x.pdf",
        "a_b.pdf",
        "upload.pdf",
    ]
    long = save_upload("報" * 150 + ".pdf", b"%PDF-1.4", tmp_path / "uploads")  # 450 bytes: too long a name
    assert long.is_file() and long.name.startswith("報") and len(long.name.encode()) <= 255
    assert saved.parent.parent == again.parent.parent == tmp_path / "uploads"
    assert (saved.read_bytes(), again.read_bytes()) == (b"%PDF-1.4", b"%PDF-1.7")  # neither overwrote the other
    with pytest.raises(ConfigError, match="not a folder"):
        folder_pdfs(str(tmp_path / "missing"), [tmp_path])
    with pytest.raises(ConfigError, match="is off"):
        folder_pdfs(str(tmp_path), [])
    with pytest.raises(ConfigError, match="not below an ingest root"):
        folder_pdfs(str(tmp_path), [tmp_path / "uploads"])

    steps = [file_fraction(stage, done, 4) for stage in ("read", "embed") for done in (0, 4)]
    assert steps == sorted(steps) and steps[-1] <= 1.0 and file_fraction("done", 1, 1) == 1.0

    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"not a pdf at all")
    seen: list[tuple[float, str]] = []
    reports = ingest_files(store, settings, [broken, SAMPLE_PDF], progress=lambda f, t: seen.append((f, t)), force=True)
    assert [r.status for r in reports] == ["failed", "replaced"]
    assert seen[-1][0] == 1.0 and any("read" in text for _, text in seen)
    embedded = [text for _, text in seen if re.fullmatch(r"docgraph-sample\.pdf: embed \d+/\d+ regions", text)]
    assert embedded and embedded[-1].endswith(" 26/26 regions"), seen  # the embed stage counts its regions
    assert [r.status for r in ingest_files(store, settings, [SAMPLE_PDF])] == ["unchanged"]

    # Two files that would be stored under one id: refused alone; a name of spaces gets a hash id
    same_id = tmp_path / "batch" / "Docgraph Sample.pdf"
    same_id.parent.mkdir()
    same_id.write_bytes(SAMPLE_PDF.read_bytes() + b"\n% another edition\n")
    nameless = tmp_path / "batch" / " .pdf"  # (a name in another script gets an id of its own: test_odd_pdfs)
    nameless.write_bytes(SAMPLE_PDF.read_bytes())
    batch = ingest_files(store, settings, [SAMPLE_PDF, same_id, nameless])
    assert [r.status for r in batch] == ["unchanged", "failed", "ingested"]
    assert "docgraph-sample.pdf in this batch is stored as 'docgraph-sample' too" in batch[1].error
    assert batch[2].doc_id == doc_id_for(" .pdf")
    store.delete_document(batch[2].doc_id)
    # A copy of a stored file in another folder is that document (it was refused as "rename one")
    copy = tmp_path / "archive" / "docgraph-sample.pdf"
    copy.parent.mkdir()
    copy.write_bytes(SAMPLE_PDF.read_bytes())
    assert [r.status for r in ingest_files(store, settings, [SAMPLE_PDF, copy])] == ["unchanged", "unchanged"]


def test_numbered_answers_and_highlights() -> None:
    cite = Citation("d@1:p2:r3", "d", 2, (0.0, 0.0, 1.0, 1.0), "table", "d p.2 #r3")
    other = Citation("d@1:p1:r1", "d", 1, (0.0, 0.0, 1.0, 1.0), "paragraph", "d p.1 #r1")
    result = AnswerResult("q", answer="One table [d p.2 #r3], see also [d p.1 #r1][d p.2 #r3].")
    result.citations = [cite, other]
    result.timings["total"] = 1.25
    assert numbered_answer(result) == "One table **[1]**, see also **[2]** **[1]**."
    assert page_highlights([cite, other], "d", 2) == {"d@1:p2:r3"}
    assert route_summary(result) == "route: retrieve · answer: extractive · 1.2s"


def test_quoted_evidence_is_shown_as_written_and_model_dollars_are_no_formula() -> None:
    """An extractive answer quoting R code was set as a formula ("Journals$age … Journals$"), and C
    code's "char * name … int * n" as emphasis."""
    rendered = markdown_it.MarkdownIt("commonmark").render
    cite = Citation("d@1:p2:r3", "d", 2, (0.0, 0.0, 1.0, 1.0), "code", "d p.2 #r3")
    quotes = "1. “R> Journals$age <- 2000 - Journals$foundingyear” [d p.2 #r3]\n2. “char * name; int * n” [d p.2 #r3]"
    extractive = AnswerResult("q", answer=quotes)
    extractive.citations = [cite]
    shown = numbered_answer(extractive)
    assert shown.count(" **[1]**") == 2 and "\\$age" in shown and "\\$foundingyear" in shown
    html = rendered(shown)
    assert "<ol>" in html and "<em>" not in html and "Journals$age &lt;- 2000 - Journals$foundingyear" in html
    assert "char * name; int * n" in html

    model = AnswerResult("q", answer="Tickets cost $5 to $10 (**adults**), see `Journals$age` [d p.2 #r3].", mode="llm")
    model.citations = [cite]
    shown = numbered_answer(model)  # Streamlit sets an unescaped pair of dollars as LaTeX
    assert "\\$5 to \\$10" in shown and "`Journals$age`" in shown and shown.endswith(" **[1]**.")
    # code blocks and double-backtick spans are shown as written too; a dollar escaped already stays so
    fenced = AnswerResult("q", answer="```r\nx$age <- 1\n```\n``a$b`` costs \\$3 and $4", mode="llm")
    assert safe_markdown(fenced.answer) == "```r\nx$age <- 1\n```\n``a$b`` costs \\$3 and \\$4"
    html = rendered(shown)
    assert "$5 to $10" in html and "<strong>adults</strong>" in html and "<code>Journals$age</code>" in html


def test_a_quoted_listing_keeps_its_lines_and_indents() -> None:
    """A code quote's lines ran into one line on the page ("{ return 0; }"), its indents gone."""
    cite = Citation("d@1:p2:r3", "d", 2, (0.0, 0.0, 1.0, 1.0), "code", "d p.2 #r3")
    answer = "Nearest:\n\n1. “int main(void)\n{\n    return 0;\n}” [d p.2 #r3]\n2. “Text.” [d p.2 #r3]"
    extractive = AnswerResult("q", answer=answer)
    extractive.citations = [cite]
    html = markdown_it.MarkdownIt("commonmark").render(numbered_answer(extractive))
    assert "“int main(void)<br />\n{<br />\n\u00a0\u00a0\u00a0\u00a0return 0;<br />\n}”" in html
    assert html.count("<li>") == 2 and html.startswith("<p>Nearest:</p>")


def test_node_label_colours_stand_apart_from_every_kind_colour() -> None:
    """Page was #8c8c8c beside page_header's #999999 in one legend, Section #e67300 beside
    section_header's #e64c00, Document #444444 beside code's #4c4c4c."""

    def rgb(colour: str) -> tuple[int, ...]:
        return tuple(int(colour[i : i + 2], 16) for i in (1, 3, 5))

    kinds = {kind: rgb(rgb_hex(colour)) for kind, colour in KIND_COLOURS.items()}
    labels = {label: rgb(group_colour(label)) for label in LABEL_COLOURS}
    for label, colour in labels.items():
        others = {**kinds, **{name: other for name, other in labels.items() if name != label}}
        nearest = min(others, key=lambda name: math.dist(colour, others[name]))
        assert math.dist(colour, others[nearest]) >= 80, (label, nearest)


def test_ui_command_passes_settings_through_the_environment() -> None:
    from streamlit.web.server.app_discovery import discover_asgi_app

    from docgraph.app.cli.ui_cmds import UI_SERVER, streamlit_command, ui_environment
    from docgraph.app.resources import ROOT

    env = ui_environment({"PYTHONPATH": "/elsewhere", "DOCGRAPH_GRAPH": "g"}, "neo4j://db:7687/neo4j")
    assert env["DOCGRAPH_STORE"] == "neo4j://db:7687/neo4j" and env["DOCGRAPH_GRAPH"] == "g"
    assert env["PYTHONPATH"].split(":") == [str(ROOT), "/elsewhere"]
    assert "DOCGRAPH_STORE" not in ui_environment({}, None)
    command = streamlit_command("0.0.0.0", 8501)
    assert command[1:5] == ["-m", "streamlit", "run", str(UI_SERVER)] and UI_SERVER.is_file()
    assert discover_asgi_app(UI_SERVER).import_string == "asgi:app"  # `streamlit run` serves it as an ASGI app
    assert command[command.index("--server.address") + 1] == "0.0.0.0"
    assert command[command.index("--browser.gatherUsageStats") + 1] == "false"


def test_every_kind_of_vector_property_is_left_out_of_listings() -> None:
    from docgraph.app.stores.schema import is_vector_property

    hidden = ["embedding", "gnn_embedding", "passage_embeddings", "gnn_embedding_no_sim"]
    shown = ["text", "kind", "embedding_model", "page"]
    assert [name for name in hidden + shown if is_vector_property(name)] == hidden


def test_text_from_pdfs_renders_as_written() -> None:
    """A heading, caption or question shown in Markdown: no image fetched, no link, no formula."""
    rendered = markdown_it.MarkdownIt("commonmark").render
    heading = markdown_text("Costs ![x](http://evil.example/p.png) of $5 to $10, see [here](http://a.example)")
    assert "<img" not in rendered(heading) and "<a " not in rendered(heading)
    assert "\\$5" in heading and "\\$10" in heading  # Streamlit reads an unescaped pair as LaTeX
    for text in ("# Not a heading", "1. not a list", "- not a list", "> not a quote", "*not* _emphasis_"):
        html = rendered(markdown_text(text))
        assert html.startswith("<p>") and html.count("<") == 2 and "ot" in html, (text, html)  # one plain paragraph
    assert markdown_text("docgraph-sample p.3  is  here") == "docgraph-sample p.3 is here"


def test_model_markdown_fetches_no_images_and_streaming_shows_no_citation_tags() -> None:
    hostile = 'Fed ![pixel](http://evil.example/t.png "t") at ![logo][r] 10:30 [see](http://docs.example).'
    assert safe_markdown(hostile) == "Fed pixel at logo 10:30 [see](http://docs.example)."
    pieces = ["At 10:30 [docgraph-sample p.1 #r7", "] and 15:00 [invented p.9 #r1; docgraph-sample p.2", " #r3]."]
    shown = [streamed_answer(pieces[: n + 1]) for n in range(len(pieces))]
    assert shown == ["At 10:30", "At 10:30 and 15:00", "At 10:30 and 15:00."]
    assert all("#r" not in text and "invented" not in text for text in shown)


def syntax_error(store: GraphStore, query: str) -> str:
    with pytest.raises(QuerySyntaxError) as raised:
        store.read(query, {})
    return str(raised.value)


def test_falkordb_syntax_errors_become_one_line_with_the_position(falkordb_store: FalkorDBStore) -> None:
    query = "MATCH (n RETURN n"
    problem = query_problem(syntax_error(falkordb_store, query))
    assert problem.summary.startswith("Syntax error at line 1, column 10: Invalid input 'R': expected")
    assert "errCtx" not in problem.summary and "\n" not in problem.summary
    assert problem.pointer(query) == "MATCH (n RETURN n\n         ^"

    second_line = "MATCH (n)\nRETRUN n"
    problem = query_problem(syntax_error(falkordb_store, second_line))
    assert (problem.line, problem.column) == (2, 4) and problem.pointer(second_line) == "RETRUN n\n   ^"

    unbound = query_problem(syntax_error(falkordb_store, "MATCH (n) RETURN m"))
    assert unbound.summary == "'m' not defined" and unbound.pointer("MATCH (n) RETURN m") == ""


def test_neo4j_syntax_errors_read_the_same() -> None:
    # The text str() gives for the neo4j driver's CypherSyntaxError (code, message, position, caret).
    text = (
        "{code: Neo.ClientError.Statement.SyntaxError} {message: Invalid input 'RETRUN': expected 'FOREACH' "
        "or 'RETURN' (line 2, column 1 (offset: 10))\n\"RETRUN n\"\n ^}"
    )
    problem = query_problem(text)
    assert problem.summary == "Syntax error at line 2, column 1: Invalid input 'RETRUN': expected 'FOREACH' or 'RETURN'"


def test_neighbourhood_nodes_name_document_kind_and_page_and_similar_ones_are_not_repeated(
    sample: tuple[GraphStore, Settings],
) -> None:
    store, _ = sample
    title = store.read("MATCH (r:Region {doc_id: $doc, kind: 'title'}) RETURN r.region_id AS id", {"doc": DOC})[0]
    evidence = region_evidence(store, str(title["id"]))
    view = neighbourhood_view(evidence)
    assert view.nodes[evidence.region_id].label == f"{DOC}\ntitle p.1"
    regions = [node for node in view.nodes.values() if node.group not in {"Section", "Page", "Document"}]
    assert all(node.label.startswith(f"{DOC}\n") and " p." in node.label for node in regions)
    others = {n.key for n in evidence.neighbours if n.relation not in SIMILAR_RELATIONS}
    similar = [e for e in view.edges if e.label in SIMILAR_RELATIONS]
    assert 0 < len(similar) <= MAX_SIMILAR_DRAWN and not {e.target for e in similar} & others
    assert {n.key for n in evidence.neighbours if n.relation == "similar"} & others  # there was one to skip
    listed = [n.key for n in evidence.evidence_neighbours()]
    assert len(listed) == len(set(listed))  # the evidence panel too names each region once
    assert (group_colour("Section"), "Section") not in legend(view) and {"title", "paragraph"} <= {
        g for _, g in legend(view)
    }


def test_example_questions_come_from_the_stored_sections(sample: tuple[GraphStore, Settings]) -> None:
    store, settings = sample
    questions = example_questions(store)
    assert len(questions) == 3 and all(q.startswith("What does the section “") for q in questions)
    assert questions[0] == "What does the section “Special diets” say?"  # the fullest of several words
    # Each is answered: naming the document's id in them ("What does docgraph-sample say about …")
    # made every one abstain, the first answer a new user saw.
    retriever = make_retriever("hybrid", store, configured_encoder(settings), settings=settings)
    for question in questions:
        result = ask(question, store, settings, retriever)
        assert not result.abstained and result.evidence[0].doc_id == DOC, question


def test_trace_progress_and_failures_read_as_sentences(tmp_path: Path) -> None:
    result = AnswerResult("q")
    result.note("route", route="retrieve", by="rules", reason="a question", sub_questions=[])
    result.note("retrieve", query="When?", retriever="hybrid", hits=[f"d@1:p1:r{i}" for i in range(7)])
    lines = trace_lines(result.trace)
    assert lines[0] == "**route** — route: retrieve; by: rules; reason: a question"
    assert lines[1].endswith("hits: 7 (`d@1:p1:r0`, `d@1:p1:r1`, `d@1:p1:r2`, `d@1:p1:r3`, `d@1:p1:r4` and 2 more)")
    assert progress_label("a.pdf", "read", 12, 30) == "a.pdf: read 12/30 pages"
    assert progress_label("a.pdf", "embed", 120, 300) == "a.pdf: embed 120/300 regions"
    assert progress_label("a.pdf", "graph_write", 0, 0) == "a.pdf: graph_write"
    failed = IngestReport(path=tmp_path / "a.pdf", status="failed", error="a.pdf: ValueError: bad")
    assert report_line(failed) == "a.pdf: failed: ValueError: bad"


def test_a_document_without_sections_is_suggested_by_its_title(falkordb_store: FalkorDBStore, tmp_path: Path) -> None:
    """The fallback named the document's id ("What is notice about?"), a word no passage holds: it abstained."""
    pdf = tmp_path / "notice.pdf"
    with pymupdf.open() as doc:
        page = doc.new_page()
        page.insert_text((72, 72), "Aviary visiting rules: the aviary opens at nine and closes at dusk.")
        page.insert_text((72, 90), "Visitors may feed the parrots only with seed sold at the kiosk.")
        doc.set_metadata({"title": "Aviary visiting rules"})
        doc.save(pdf)
    settings = Settings(home=tmp_path / "home", graph=falkordb_store.graph_name, store="")
    assert build_ingest_pipeline(falkordb_store, settings).ingest(pdf).sections == 0
    [question] = example_questions(falkordb_store)
    assert question == "What is “Aviary visiting rules” about?"
    retriever = make_retriever("hybrid", falkordb_store, configured_encoder(settings), settings=settings)
    assert not ask(question, falkordb_store, settings, retriever).abstained

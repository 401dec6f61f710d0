"""A newsletter's lead article jumps pages: its column on page 1 stops on "Continued on page 3", and
the rest runs on page 3 under "Continued from page 1". The two parts are linked as a paragraph cut
by a page break is (HAS_NEXT {continuation}), over the page between."""

from __future__ import annotations

from pathlib import Path

import pymupdf

from docgraph.app.llm.service import ask
from docgraph.app.pipeline.build import build_ingest_pipeline
from docgraph.app.pipeline.embedding import configured_encoder
from docgraph.app.retrieval.registry import make_retriever
from docgraph.app.stores.base import GraphStore
from docgraph.ingest.graph import build_graph
from docgraph.ingest.readers.native import NativeReader
from docgraph.records import GraphBatch
from tests.llm_data import no_llm_settings

AGM = (
    "More than ninety members crowded into the Church Hall for the Annual General Meeting. The chair "
    "opened the meeting by thanking the volunteers who had kept the lunch club running all winter. "
    "Under any other business, members raised the condition of the footbridge by the weir, where two "
    "planks have rotted through. The chair promised to write to the county council, and a working"
)
REST = (
    "party will inspect the bridge on 5 April. Members also asked the committee to look again at the "
    "parking arrangements for the fete, which caused long queues on the Mill Road last year."
)
LIBRARY = (
    "The new library opened its doors on Saturday 22 February, with a children's corner, eight public "
    "computers and a quiet study room that can be booked by the hour."
)


def set_column(page: pymupdf.Page, x: float, y: float, text: str, width: float = 160) -> float:
    """Set ``text`` line by line into a column at ``x``, as a layout program does; return the y below it."""
    line = ""
    for word in text.split():
        if pymupdf.get_text_length(f"{line} {word}", fontname="tiro", fontsize=9.5) > width and line:
            page.insert_text((x, y), line, fontname="tiro", fontsize=9.5)
            y, line = y + 12, word
        else:
            line = f"{line} {word}".strip()
    page.insert_text((x, y), line, fontname="tiro", fontsize=9.5)
    return y + 12


def newsletter(path: Path, arrival: str | None, agm: str = AGM, rest: str = REST) -> Path:
    doc = pymupdf.open()
    for number in (1, 2, 3):
        page = doc.new_page(width=595, height=842)
        page.insert_text((40, 815), f"Spring 2025 | {number}", fontname="helv", fontsize=8)
        if number == 1:
            page.insert_text((40, 90), "Packed AGM backs defibrillator", fontname="tibo", fontsize=20)
            y = set_column(page, 40, 120, agm)
            page.insert_text((40, y + 4), "Continued on page 3", fontname="tiit", fontsize=8.5)
            set_column(page, 230, 120, LIBRARY)
        elif number == 2:
            page.insert_text((40, 90), "New library opens", fontname="tibo", fontsize=20)
            set_column(page, 40, 120, LIBRARY)
        else:
            page.insert_text((40, 90), "AGM backs defibrillator", fontname="tibo", fontsize=15)
            if arrival:
                page.insert_text((40, 104), arrival, fontname="tiit", fontsize=8.5)
            set_column(page, 40, 120, rest)
    doc.save(path)
    return path


def continuations(batch: GraphBatch) -> list[tuple[str, str]]:
    text = {node.key: str(node.props.get("text", "")) for node in batch.nodes if node.label == "Region"}
    return [
        (text[e.src_key].split()[-1], " ".join(text[e.dst_key].split()[:2]))
        for e in batch.edges
        if e.type == "HAS_NEXT" and e.props.get("continuation")
    ]


def test_a_jumped_article_reads_on_from_its_jump_line_to_its_rest(tmp_path: Path) -> None:
    path = newsletter(tmp_path / "spring.pdf", "Continued from page 1")
    batch = build_graph(NativeReader().read(path))
    assert continuations(batch) == [("working", "party will")]
    [jump] = [e for e in batch.edges if e.props.get("jump")]
    assert jump.props["cross_page"] is True


def test_a_bracketed_jump_with_p_reads_on_too(tmp_path: Path) -> None:
    path = newsletter(tmp_path / "spring.pdf", "(continued from p. 1)")
    assert continuations(build_graph(NativeReader().read(path))) == [("working", "party will")]


def test_a_jump_line_without_its_arrival_line_links_nothing(tmp_path: Path) -> None:
    """Without "Continued from page 1" the page's first text may be another article: no guess."""
    path = newsletter(tmp_path / "spring.pdf", None)
    assert continuations(build_graph(NativeReader().read(path))) == []


def test_a_jump_between_paragraphs_links_the_article_but_no_paragraph(tmp_path: Path) -> None:
    """Cut after a full stop, the article goes on in a new paragraph: the jump links the two
    (``jump``) without calling them one paragraph (``continuation``)."""
    agm = AGM.rsplit(" The chair", 1)[0]
    path = newsletter(tmp_path / "spring.pdf", "Continued from page 1", agm=agm, rest="The committee will " + REST[12:])
    batch = build_graph(NativeReader().read(path))
    assert continuations(batch) == []
    [jump] = [e for e in batch.edges if e.props.get("jump")]
    text = {n.key: str(n.props.get("text", "")) for n in batch.nodes if n.label == "Region"}
    assert text[jump.src_key].endswith("rotted through.") and text[jump.dst_key].startswith("The committee")


def test_an_answer_quotes_the_article_not_its_jump_line(falkordb_store: GraphStore, tmp_path: Path) -> None:
    """The newsletter review: "Continued from page 1" was quoted as an answer's second passage (it
    shares the page and words with the article's rest, and says nothing)."""
    path = newsletter(tmp_path / "spring.pdf", "Continued from page 1")
    settings = no_llm_settings(tmp_path / "home", graph=falkordb_store.graph_name, store="")
    assert build_ingest_pipeline(falkordb_store, settings).ingest(path).status == "ingested"
    falkordb_store.wait_for_indexes()
    hybrid = make_retriever("hybrid", falkordb_store, configured_encoder(settings), settings=settings)
    result = ask("When will the working party inspect the bridge?", falkordb_store, settings, hybrid, k=8)
    assert "on 5 April" in result.answer
    assert "Continued from" not in result.answer

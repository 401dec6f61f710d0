"""A developer manual as such manuals are set: running heads and page numbers, shaded code listings
(one cut by a page break), an option table, function reference entries ("int nf_close(nf_session
*s)" over an indented description) and notice boxes ("Warning" set bold over the box's text). Read
by the native reader, and asked about in a real local store with the ONNX encoder, no LLM."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pymupdf
import pytest

from docgraph.app.llm.answer import AnswerResult
from docgraph.app.llm.service import ask
from docgraph.app.pipeline.build import build_ingest_pipeline
from docgraph.app.pipeline.embedding import configured_encoder
from docgraph.app.retrieval.registry import make_retriever
from docgraph.app.stores.base import GraphStore
from docgraph.ingest.graph import build_graph
from docgraph.ingest.readers.native import NativeReader
from docgraph.records import GraphBatch
from tests.llm_data import no_llm_settings

LEFT, RIGHT, BOTTOM = 72.0, 540.0, 720.0
PROGRAM = [
    "#include <netfetch.h>",
    "",
    "int main(int argc, char **argv)",
    "{",
    "    nf_session *s = nf_open(NULL);",
    "    if (s == NULL) {",
    '        fprintf(stderr, "cannot open session\\n");',
    "        return 1;",
    "    }",
    "    nf_set_retries(s, 5);",
    '    long got = nf_fetch(s, argv[1], "out.bin");',
    "    if (got < 0) {",
    "        nf_close(s);",
    "        return 2;",
    "    }",
    "    nf_close(s);",
    "    return 0;",
    "}",
]
OPTIONS = [
    ("--output FILE", "Write the downloaded data to FILE instead of a file named after the URL."),
    ("--retries N", "Retry a failed transfer up to N times before giving up. The default is 3; 0 disables retrying."),
    ("--timeout SECS", "Abort a transfer that receives no data for SECS seconds. The default is 30."),
    ("--resume", "Continue a partial download instead of starting again from the first byte."),
]
FUNCTIONS = [
    (["int nf_close(nf_session *s)"], "Closes the session s and frees its memory. Returns 0 on success."),
    (
        ["int nf_read_config(nf_session *s, const char *path)"],
        "Reads the configuration file path and applies its settings to the session s, replacing earlier"
        " values. Returns -1 if the file cannot be opened.",
    ),
    (
        ["int nf_pause(nf_session *s)", "int nf_unpause(nf_session *s)"],  # one description for both
        "These functions hold back and let go on the transfers of the session s. They return 0 on success.",
    ),
    (["int nf_set_retries(nf_session *s, int count)"], "Sets the number of times a failed transfer is retried."),
]


class _Manual:
    """Writes the manual top down, starting a page (with its head and number) when one is full."""

    def __init__(self, doc: pymupdf.Document) -> None:
        self.doc, self.y = doc, 0.0
        self.page = self._new_page()

    def _new_page(self) -> pymupdf.Page:
        page = self.doc.new_page(width=612, height=792)
        page.insert_text((LEFT, 50), "netfetch Developer Manual", fontname="helv", fontsize=8)
        page.draw_line((LEFT, 56), (RIGHT, 56), width=0.5)
        page.insert_text((303, 750), str(self.doc.page_count), fontname="helv", fontsize=9)
        self.y = 90.0
        return page

    def text(self, text: str, font: str = "helv", size: float = 10, indent: float = 0, after: float = 6) -> None:
        words, line = text.split(), ""
        for word in [*words, ""]:
            trial = f"{line} {word}".strip()
            if word and pymupdf.get_text_length(trial, fontname=font, fontsize=size) < RIGHT - LEFT - indent:
                line = trial
                continue
            if self.y + 13 > BOTTOM:
                self.page = self._new_page()
            self.page.insert_text((LEFT + indent, self.y), line, fontname=font, fontsize=size)
            self.y, line = self.y + 13, word
        self.y += after

    def heading(self, text: str) -> None:
        self.y += 10
        self.text(text, "hebo", 14)

    def code(self, lines: list[str]) -> None:
        """A shaded listing, cut where the page is full; each part shaded on its page."""
        while lines:
            room = int((BOTTOM - self.y) // 11)
            part, lines = lines[:room], lines[room:]
            shade = pymupdf.Rect(LEFT, self.y - 11, RIGHT, self.y - 11 + 11 * len(part) + 8)
            self.page.draw_rect(shade, color=None, fill=(0.92, 0.92, 0.92))
            for line in part:
                self.page.insert_text((LEFT + 8, self.y + 2), line, fontname="cour", fontsize=9)
                self.y += 11
            if lines:
                self.page = self._new_page()
        self.y += 12

    def notice(self, label: str, text: str) -> None:
        top = self.y - 14
        self.page.insert_text((LEFT + 12, self.y + 2), label, fontname="hebo", fontsize=10)
        self.y += 15
        self.text(text, indent=12, after=0)
        self.page.draw_rect(pymupdf.Rect(LEFT, top, RIGHT, self.y), color=(0.4, 0.4, 0.4), width=0.8)
        self.y += 16


def _manual(pdf: Path) -> None:
    with pymupdf.open() as doc:
        m = _Manual(doc)
        m.text("netfetch Developer Manual", "hebo", 22, after=20)
        m.heading("1 Installing")
        m.text(
            "netfetch is a small C library and command-line tool that downloads files over HTTP. It retries"
            " failed transfers and resumes partial downloads. Build it with the usual configure script."
        )
        m.notice("Warning", "Do not install netfetch over a copy built with another TLS backend.")
        m.text("After installing, run ldconfig so that the dynamic linker finds the new shared library.")
        m.heading("2 A first program")
        m.text("The program below downloads one file. It opens a session, sets the number of retries and fetches.")
        for _ in range(16):
            m.text("Every session keeps its own settings, so threads that share nothing need no locks at all.")
        m.code(PROGRAM)
        m.text("Compile the program with cc and link it with -lnetfetch.")
        m.heading("3 Command-line options")
        m.text("The nfetch command accepts the following options.")
        for term, description in OPTIONS:
            m.page.insert_text((LEFT + 10, m.y), term, fontname="cour", fontsize=10)
            m.text(description, indent=140, after=3)
        m.heading("4 Function reference")
        for signatures, description in FUNCTIONS:
            for i, signature in enumerate(signatures, start=1):
                m.text(signature, "cour", after=3 if i == len(signatures) else 13)  # a blank line between
            m.text(description, indent=28)
        m.heading("5 Configuration file")
        m.text("A configuration file holds one setting per line. Lines starting with a hash sign are comments.")
        m.code(["# ~/.netfetchrc", "retries = 5", "timeout = 60", "resume = yes"])
        doc.save(pdf)


@pytest.fixture(scope="module")
def manual(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pdf = tmp_path_factory.mktemp("manual") / "netfetch.pdf"
    _manual(pdf)
    return pdf


@pytest.fixture(scope="module")
def graph(manual: Path) -> GraphBatch:
    return build_graph(NativeReader().read(manual))


def _regions(graph: GraphBatch) -> dict[str, dict[str, object]]:
    return {node.key: node.props for node in graph.nodes if node.label == "Region"}


def test_a_notice_label_is_no_section(graph: GraphBatch) -> None:
    """ "Warning" set bold on its own line over a notice box was a section header, and the text
    after the box ("After installing, run ldconfig ...") was filed under "Warning"."""
    titles = {node.key: node.props["title"] for node in graph.nodes if node.label == "Section"}
    assert "Warning" not in titles.values()
    regions = _regions(graph)
    under = {e.src_key: titles[e.dst_key] for e in graph.edges if e.type == "IS_UNDER" and e.dst_key in titles}
    texts = {str(props["text"]): under.get(key) for key, props in regions.items()}
    assert texts["Warning Do not install netfetch over a copy built with another TLS backend."] == "1 Installing"
    after = next(text for text in texts if text.startswith("After installing"))
    assert texts[after] == "1 Installing"


def test_a_code_listing_cut_by_a_page_break_is_continued(graph: GraphBatch) -> None:
    """The listing's part at the foot of page 1 ("int main ... {") left its rest on page 2 unlinked."""
    regions = _regions(graph)
    linked = [
        (regions[e.src_key], regions[e.dst_key])
        for e in graph.edges
        if e.type == "HAS_NEXT" and e.props.get("continuation")
    ]
    assert [(first["kind"], first["page"], rest["kind"], rest["page"]) for first, rest in linked] == [
        ("code", 1, "code", 2)
    ]
    first, rest = linked[0]
    assert "int main(int argc, char **argv)" in str(first["text"]) and str(rest["text"]).rstrip().endswith("}")


@pytest.fixture
def asked(falkordb_store: GraphStore, manual: Path, tmp_path: Path) -> Callable[[str], AnswerResult]:
    settings = no_llm_settings(tmp_path / "home", graph=falkordb_store.graph_name, store="")
    assert build_ingest_pipeline(falkordb_store, settings).ingest(manual).status == "ingested"
    falkordb_store.wait_for_indexes()
    hybrid = make_retriever("hybrid", falkordb_store, configured_encoder(settings), settings=settings)
    return lambda question: ask(question, falkordb_store, settings, hybrid)


def test_a_named_option_is_answered_from_its_item(asked: Callable[[str], AnswerResult]) -> None:
    """ "--retries" was read as the word "retries" only, which nf_set_retries and "retries = 5" hold
    too: the option table was not among the hits, and the answer abstained. Its item is quoted
    alone, not run into the next one's ("The default is 3; 0 disables retrying. --timeout SECS")."""
    result = asked("What does the --retries option do?")
    assert not result.abstained and "list" in {citation.kind for citation in result.citations}
    item = "--retries N Retry a failed transfer up to N times before giving up. The default is 3; 0 disables retrying."
    assert f"“{item}”" in result.answer
    answer = asked("What is the default of --timeout?").answer
    assert "“--timeout SECS Abort a transfer that receives no data for SECS seconds. The default is 30.”" in answer


def test_a_definition_line_is_quoted_with_its_description(asked: Callable[[str], AnswerResult]) -> None:
    """ "What does nf_close do?" quoted "int nf_close(nf_session *s)" alone: the line says nothing.
    A definition sharing its description with the next one's (texinfo's @deftypefunx) reaches it
    past that line."""
    result = asked("What does nf_close do?")
    line = next(entry for entry in result.answer.split("\n") if "int nf_close(nf_session *s)" in entry)
    assert "“Closes the session s and frees its memory." in line
    assert {citation.kind for citation in result.citations} >= {"code", "paragraph"}
    answer = asked("What does nf_pause do?").answer
    line = next(entry for entry in answer.split("\n") if "int nf_pause(nf_session *s)" in entry)
    assert "“These functions hold back and let go on the transfers of the session s." in line


def test_a_code_quote_keeps_its_lines(asked: Callable[[str], AnswerResult]) -> None:
    """A listing was quoted as one line: "# ~/.netfetchrc retries = 5 timeout = 60 resume = yes"."""
    answer = asked("What does the example configuration file ~/.netfetchrc contain?").answer
    assert "“# ~/.netfetchrc\nretries = 5\ntimeout = 60\nresume = yes”" in answer
    answer = asked("What does the first program do when nf_open returns NULL?").answer
    assert "    if (s == NULL) {\n" in answer

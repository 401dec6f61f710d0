"""An ISO- or IEC-style standard: clause numbers without a word ("5.3 Timers", "see A.2"), and
annexes whose heading is three centred lines, "Annex A" | "(normative)" | "Message encoding"; and a
whole International Standard as ISO's template exports it (made by tests/standards.py), read and
asked about as a compliance engineer asks.

Before, the status line between the label and the title cut the heading in two: "Annex A" was a
section holding only "(normative)", and A.1 and A.2 hung under a section "Message encoding" of
their own, so "What is in Annex A?" found nothing of the annex.
"""

from __future__ import annotations

from pathlib import Path

import pymupdf

from docgraph.app.llm.service import ask
from docgraph.app.retrieval.named_parts import names_parts
from docgraph.app.stores.base import GraphStore
from docgraph.app.stores.falkordb_store import FalkorDBStore
from docgraph.ingest.graph import build_graph
from docgraph.ingest.readers.native import NativeReader
from docgraph.records import GraphBatch
from tests.llm_data import ask_of_pdf, hybrid_over, no_llm_settings
from tests.standards import write_standard

WIDTH, HEIGHT, LEFT = 595, 842, 62
BODY = {
    "5.3 Timers": "Each endpoint maintains a retransmission timer, encoded as a header field (see A.2).",
    "5.4 Void": "(reserved)",
    "A.1 General": "Every message shall be encoded as a header followed by a payload.",
    "A.2 Header encoding": "The header consists of a version, a type, flags, a length and a sequence number.",
    "B.1 Exchange": "A client sends OPEN; the server answers ACCEPT.",
}


def _centred(page: pymupdf.Page, y: float, text: str, fontname: str, size: float) -> None:
    x = (WIDTH - pymupdf.get_text_length(text, fontname=fontname, fontsize=size)) / 2
    page.insert_text((x, y), text, fontname=fontname, fontsize=size)


def _clause(page: pymupdf.Page, y: float, heading: str) -> float:
    page.insert_text((LEFT, y), heading, fontname="hebo", fontsize=11)
    page.insert_text((LEFT, y + 22), BODY[heading], fontname="tiro", fontsize=11)
    return y + 56


def _annex(page: pymupdf.Page, y: float, label: str, status: str, title: str) -> float:
    _centred(page, y, label, "hebo", 12)
    _centred(page, y + 17, status, "tiro", 11)
    _centred(page, y + 34, title, "hebo", 12)
    return y + 64


def _standard(pdf: Path) -> Path:
    """A clause on its page, then the annexes: "Annex A (normative)" and "Annex B (informative)"."""
    with pymupdf.open() as doc:
        for number in (1, 2):
            page = doc.new_page(width=WIDTH, height=HEIGHT)
            page.insert_text((LEFT, 50), "ISO/IEC 99999:2025(E)", fontname="tibo", fontsize=10)
            foot = f"© ISO/IEC 2025 – All rights reserved   {number}"
            page.insert_text((LEFT, 805), foot, fontname="tiro", fontsize=8)
        first, second = doc[0], doc[1]
        _clause(first, _clause(first, 100, "5.3 Timers"), "5.4 Void")
        y = _annex(second, 100, "Annex A", "(normative)", "Message encoding")
        y = _clause(second, _clause(second, y, "A.1 General"), "A.2 Header encoding")
        _clause(second, _annex(second, y + 20, "Annex B", "(informative)", "Example exchange"), "B.1 Exchange")
        doc.save(pdf)
    return pdf


def _parents(batch: GraphBatch) -> dict[str, str]:
    titles = {n.key: n.props["title"] for n in batch.nodes if n.label == "Section"}
    under = (e for e in batch.edges if e.type == "IS_UNDER" and e.src_key in titles)
    return {titles[e.src_key]: titles.get(e.dst_key, "") for e in under}


def test_an_annex_heading_with_its_status_line_is_one_section_over_its_subclauses(tmp_path: Path) -> None:
    batch = build_graph(NativeReader().read(_standard(tmp_path / "standard.pdf")))
    sections = {n.props["title"]: n.props for n in batch.nodes if n.label == "Section"}
    annex_a = "Annex A (normative) Message encoding"
    assert sections[annex_a]["number"] == "A"
    assert "Message encoding" not in sections
    parents = _parents(batch)
    assert parents["A.1 General"] == annex_a and parents["A.2 Header encoding"] == annex_a
    assert parents["B.1 Exchange"] == "Annex B (informative) Example exchange"


def test_the_status_line_is_read_as_part_of_the_heading_and_a_clause_text_in_brackets_is_not(tmp_path: Path) -> None:
    layout = NativeReader().read(_standard(tmp_path / "standard.pdf"))
    kinds = {r.text: r.kind for page in layout.pages for r in page.regions}
    assert kinds["(normative)"] == kinds["(informative)"] == "section_header"
    assert kinds["(reserved)"] == "paragraph"


def test_see_and_a_subclause_number_refers_to_that_subclause(tmp_path: Path) -> None:
    """ISO cites a subclause by its number alone: "(see A.2)" was no reference before."""
    batch = build_graph(NativeReader().read(_standard(tmp_path / "standard.pdf")))
    titles = {n.key: n.props["title"] for n in batch.nodes if n.label == "Section"}
    timer = next(n.key for n in batch.nodes if n.label == "Region" and "(see A.2)" in n.props["text"])
    refs = [(e.props["label"], titles.get(e.dst_key)) for e in batch.edges if e.type == "REF" and e.src_key == timer]
    assert refs == [("Section A.2", "A.2 Header encoding")]


def _cites_another_rfc(pdf: Path) -> Path:
    """An RFC-style text whose sections 2 and 2.1 exist here, citing another RFC's by its tag."""
    lines = [
        ("hebo", 14, "1. Introduction"),
        ("tiro", 11, "The algorithm reuses the loss detection of Section 2.1 of [RFC9000] unchanged."),
        ("tiro", 11, "Timers follow [RFC9000], Section 2, and the window of Section 2.1 below."),
        ("hebo", 14, "2. Congestion Window"),
        ("tiro", 11, "A sender MUST NOT have more bytes in flight than the congestion window."),
        ("hebo", 12, "2.1. Initial Window"),
        ("tiro", 11, "The initial window is ten times the maximum datagram size."),
    ]
    return _lines_pdf(pdf, lines, left=72, step=30)


def test_a_section_of_a_cited_document_is_no_reference_here(tmp_path: Path) -> None:
    """ "Section 2.1 of [RFC9000]" and "[RFC9000], Section 2" name the cited RFC's sections, not this
    document's 2.1 and 2: before, both became REF edges to this document's sections."""
    batch = build_graph(NativeReader().read(_cites_another_rfc(tmp_path / "rfc.pdf")))
    titles = {n.key: n.props["title"] for n in batch.nodes if n.label == "Section"}
    refs = [(e.props["label"], titles.get(e.dst_key)) for e in batch.edges if e.type == "REF"]
    assert refs == [("Section 2.1", "2.1. Initial Window")]  # "the window of Section 2.1 below"
    assert batch.stats["external_refs"] == 2


def _artwork(pdf: Path) -> Path:
    """An RFC as xml2rfc sets it: text in Times, a state machine drawn in Courier, "Figure 1: ..."
    centred under it, and a paragraph that points to it."""
    art = [
        "+--------+  send OPEN  +-----------+",
        "| CLOSED |------------>| OPEN-SENT |",
        "+--------+             +-----------+",
    ]
    with pymupdf.open() as doc:
        page = doc.new_page(width=612, height=792)
        page.insert_text((72, 80), "3. Protocol Overview", fontname="hebo", fontsize=14)
        text = "An association moves through the states of Figure 1."
        page.insert_text((72, 110), text, fontname="tiro", fontsize=11)
        for row, line in enumerate(art):
            page.insert_text((120, 140 + 11 * row), line, fontname="cour", fontsize=9)
        page.insert_text((230, 190), "Figure 1: ETP State Machine", fontname="tiro", fontsize=10)
        page.insert_text((72, 220), "An endpoint in the OPEN-SENT state MAY resend OPEN.", fontname="tiro", fontsize=11)
        doc.save(pdf)
    return pdf


def test_a_figure_drawn_in_text_is_what_its_caption_captions_and_figure_1_refers_to(tmp_path: Path) -> None:
    """Before, the caption captioned nothing (no figure region) and "Figure 1" reached the caption."""
    batch = build_graph(NativeReader().read(_artwork(tmp_path / "rfc.pdf")))
    kinds = {n.key: n.props["kind"] for n in batch.nodes if n.label == "Region"}
    (caption_of,) = [(kinds[e.src_key], kinds[e.dst_key]) for e in batch.edges if e.type == "CAPTION_OF"]
    assert caption_of == ("caption", "code")
    refs = [kinds.get(e.dst_key) for e in batch.edges if e.type == "REF" and e.props["label"] == "Figure 1"]
    assert refs == ["code"]


def test_what_a_citation_refers_to_and_how_many_bits_a_field_has_are_answered(
    falkordb_store: FalkorDBStore, tmp_path: Path
) -> None:
    """ "What does RFC8446 refer to?" and "How many bits is the Length field?" quoted the answer
    first yet abstained: "refer" and "many" were counted words the passages must hold, as "say" or
    "mention" are not."""
    with pymupdf.open() as doc:
        page = doc.new_page(width=612, height=792)
        rows = [
            ("hebo", 14, "6. Security Considerations"),
            ("tiro", 11, "Deployments that need confidentiality MUST use keys exported from TLS 1.3 [RFC8446]."),
            ("tiro", 11, "Length: 16 bits. The size of the payload in octets, not counting the header."),
            ("hebo", 14, "7. Normative References"),
            ("tiro", 11, '[RFC8446] Rescorla, E., "The Transport Layer Security (TLS) Protocol Version 1.3",'),
            ("tiro", 11, "RFC 8446, DOI 10.17487/RFC8446, August 2018."),
        ]
        for row, (font, size, text) in enumerate(rows):
            page.insert_text((72, 80 + 24 * row), text, fontname=font, fontsize=size)
        doc.save(tmp_path / "rfc.pdf")
    hybrid = hybrid_over(falkordb_store, [tmp_path / "rfc.pdf"], tmp_path / "home")
    result = ask("What does RFC8446 refer to?", falkordb_store, no_llm_settings(tmp_path), hybrid)
    assert not result.abstained and "Transport Layer Security" in result.answer
    result = ask("How many bits is the Length field?", falkordb_store, no_llm_settings(tmp_path), hybrid)
    assert not result.abstained and "16 bits" in result.answer


def test_a_formula_wrapped_before_an_operator_stays_in_its_paragraph(tmp_path: Path) -> None:
    """A line opening "* max_datagram_size))" inside brackets the line before left open was a list
    item of its own, cut from its sentence; a real "* " list after a colon stays a list."""
    rows = [
        "The initial congestion window SHOULD be min(10 * max_datagram_size, max(14720, 2",
        "* max_datagram_size)).",
        "",
        "The sender tracks two values:",
        "* the congestion window, and",
        "* the slow start threshold.",
    ]
    with pymupdf.open() as doc:
        page = doc.new_page(width=612, height=792)
        for row, text in enumerate(rows):
            page.insert_text((72, 80 + 14 * row), text, fontname="tiro", fontsize=11)
        doc.save(tmp_path / "rfc.pdf")
    regions = [(r.kind, r.text) for p in NativeReader().read(tmp_path / "rfc.pdf").pages for r in p.regions]
    assert ("paragraph", " ".join(rows[:2])) in regions
    assert [kind for kind, text in regions if "slow start" in text] == ["list"]


def test_a_hex_error_code_is_one_word_and_quotes_its_own_row(falkordb_store: GraphStore, tmp_path: Path) -> None:
    """ "0x1F" was split like a camelCase name into "0x1" and "F", so every row from 0x10 to 0x1E
    shared a word with "What is error code 0x1F?" and the quote took 0x1A's row beside 0x1F's."""
    codes = [(f"0x{n:02X}", f"RESERVED_{n}", "reserved") for n in range(0x18, 0x1F)]
    codes.append(("0x1F", "RETX_EXHAUSTED", "retransmissions exhausted, report dropped"))
    with pymupdf.open() as doc:
        page = doc.new_page(width=595, height=842)
        page.insert_text((200, 80), "Table 3: Error codes", fontname="hebo", fontsize=10)
        for row, cells in enumerate([("Code", "Name", "Meaning"), *codes]):
            y = 90 + 16 * row
            page.draw_rect(pymupdf.Rect(100, y, 500, y + 16), width=0.5)
            for x, cell in zip((104, 164, 304), cells, strict=True):
                page.insert_text((x, y + 12), cell, fontname="helv", fontsize=9)
            for x in (160, 300):
                page.draw_line((x, y), (x, y + 16), width=0.5)
        doc.save(tmp_path / "codes.pdf")
    result = ask_of_pdf(falkordb_store, tmp_path / "codes.pdf", "What is error code 0x1F?", tmp_path)
    assert "RETX_EXHAUSTED" in result.answer and "0x1A" not in result.answer


def _notes(pdf: Path) -> Path:
    """Two clauses, each with its own NOTE 1 and NOTE 2, as ISO numbers notes afresh per clause."""
    rows = [
        ("hebo", 11, "5.3 Timers"),
        ("tiro", 11, "Each endpoint maintains a retransmission timer. The default timeout is 3 s."),
        ("tiro", 10, "NOTE 1 The retransmission timer restarts when an acknowledgement arrives."),
        ("tiro", 10, "NOTE 2 A timeout below 200 ms causes spurious retransmissions on wireless links."),
        ("hebo", 11, "6.2 Idle timeout"),
        ("tiro", 11, "An endpoint shall close an association that was idle for the idle timeout."),
        ("tiro", 10, "NOTE 1 Keep-alive messages reset the idle timer."),
        ("tiro", 10, "NOTE 2 Servers usually set the idle timeout to 300 s."),
    ]
    return _lines_pdf(pdf, rows, left=62, step=26)


def _lines_pdf(pdf: Path, lines: list[tuple[str, int, str]], left: float, step: float) -> Path:
    """One page of ``lines`` (font, size, text), one under another ``step`` apart."""
    with pymupdf.open() as doc:
        page = doc.new_page(width=612, height=792)
        for row, (font, size, text) in enumerate(lines):
            page.insert_text((left, 80 + step * row), text, fontname=font, fontsize=size)
        doc.save(pdf)
    return pdf


def test_a_note_named_by_number_is_the_part_asked_about(falkordb_store: FalkorDBStore, tmp_path: Path) -> None:
    """ "What does NOTE 2 in clause 5.3 say?" ranked the clause's other paragraphs over its NOTE 2,
    and "NOTE 2" alone named nothing: notes were found only by a heading ("Note 12 Borrowings")."""
    hybrid = hybrid_over(falkordb_store, [_notes(tmp_path / "std.pdf")], tmp_path / "home")
    top = hybrid.retrieve("What does NOTE 2 in clause 5.3 say?", 5)[0]
    assert top.text.startswith("NOTE 2 A timeout below 200 ms") and "part" in top.signals
    firsts = {hit.text[:6] for hit in hybrid.retrieve("What does NOTE 2 say?", 5)[:2]}
    assert firsts == {"NOTE 2"}  # both clauses' NOTE 2: which one is not said


REQUIREMENTS = [
    ("6 Protocol operation", []),
    (
        "6.1 General",
        [
            "This clause specifies the behaviour of both endpoints of a session; the state machine of Annex A"
            " is normative."
        ],
    ),
    (
        "6.2 Server requirements",
        [
            "The server shall accept a connection on port 4840 and shall answer each OPEN message within 2 s.",
            "The server shall close a client session that has been idle for longer than the negotiated lifetime."
            " These requirements apply to every client the server accepts.",
        ],
    ),
    (
        "6.3 Client requirements",
        [
            "The initiating endpoint shall send OPEN as its first message and shall not send any other message"
            " before it has received ACCEPT.",
            "It shall retransmit an unacknowledged request after the retransmission timeout (see 5.3), at most"
            " three times, and shall then report the session as failed.",
        ],
    ),
    (
        "7.1 Authentication",
        [
            "Both endpoints shall authenticate with X.509 certificates. Client certificates shall meet the"
            " requirements of the server's trust policy. Anonymous client sessions are not permitted.",
        ],
    ),
]


def _requirements(pdf: Path) -> Path:
    """Clauses 6 and 7 of a protocol standard, each heading over its paragraphs."""
    with pymupdf.open() as doc:
        page = doc.new_page(width=WIDTH, height=HEIGHT)
        page.insert_text((LEFT, 50), "ISO/IEC 99999:2025(E)", fontname="hebo", fontsize=10)
        page.insert_text((LEFT, 805), "© ISO/IEC 2025 – All rights reserved   7", fontname="helv", fontsize=8)
        y = 90.0
        for heading, paragraphs in REQUIREMENTS:
            page.insert_text((LEFT, y), heading, fontname="hebo", fontsize=12 if not paragraphs else 11)
            y += 22
            for text in paragraphs:
                box = pymupdf.Rect(LEFT, y - 9, WIDTH - LEFT, y + 100)
                y += 100 - page.insert_textbox(box, text, fontname="tiro", fontsize=11) + 4
            y += 14
        doc.save(pdf)
    return pdf


def test_a_heading_found_for_a_question_is_quoted_with_its_sections_text(
    falkordb_store: GraphStore, tmp_path: Path
) -> None:
    """ "What are the client requirements?" found the heading "6.3 Client requirements" first, but a
    heading alone answers nothing, so the quotes were of the paragraphs that say "client" and
    "requirements" elsewhere (6.2's, 7.1's), and 6.3's text, which says neither, came last."""
    pdf = _requirements(tmp_path / "std.pdf")
    result = ask_of_pdf(falkordb_store, pdf, "What are the client requirements?", tmp_path / "home")
    first = result.answer.splitlines()[0]
    assert first.startswith("1. “The initiating endpoint shall send OPEN")  # 6.3's text, in the heading's place


def test_a_sentence_wrapped_after_table_before_its_number_is_no_list_item(tmp_path: Path) -> None:
    """ "... one of the values of Table" | "5. Codes not listed are reserved ..." read the wrapped
    line as the list item "5.", cutting the paragraph in two; a numbered list whose item ends on
    "page" ("1. Read the first page" | "2. Turn ...") stays a list."""
    rows = [
        (
            "tiro",
            11,
            "An endpoint reports an error with an ERROR message whose code field holds one of the values of Table",
        ),
        (
            "tiro",
            11,
            "5. Codes not listed are reserved for future editions of this document and shall not be sent by an",
        ),
        ("tiro", 11, "endpoint; a receiver treats them as code 0x05."),
    ]
    steps = [("tiro", 11, "1. Read the first page"), ("tiro", 11, "2. Turn the page and read the second one.")]
    pdf = _lines_pdf(tmp_path / "std.pdf", [*rows, ("tiro", 11, ""), *steps], left=62, step=13.5)
    regions = [(r.kind, r.text[:24]) for r in NativeReader().read(pdf).pages[0].regions]
    assert regions == [
        ("paragraph", "An endpoint reports an e"),
        ("list", "1. Read the first page\n2"),
    ]


def test_a_subclause_named_by_its_number_alone_is_answered_from_its_text(
    falkordb_store: FalkorDBStore, tmp_path: Path
) -> None:
    """ "What does 5.3.2 require?" named nothing (ISO names its subclauses by number alone), so 5.1's
    "shall ... crosshead speed" came first; and "require", like "say", asks for the whole clause, read
    from its start: not its NOTE first, which says "requirement" where the clause says "shall"."""
    _answers_open_with(
        falkordb_store,
        tmp_path,
        ("What does 5.3.2 require?", "The chamber shall maintain the test temperature within ±2 °C"),
        ("What does clause 5.3.2 require?", "The chamber shall maintain the test temperature within ±2 °C"),
        ("What does 3.2 say?", "assembly of two adherends (3.1) bonded with the adhesive under test"),
        ("Summarise A.2", "Degrease the bonding surfaces with acetone"),
    )


def _answers_open_with(store: FalkorDBStore, tmp_path: Path, *cases: tuple[str, str]) -> None:
    """ISO 27318 ingested, each question's extractive answer opens by quoting its passage."""
    hybrid = hybrid_over(store, [write_standard(tmp_path / "iso.pdf")], tmp_path / "home")
    for question, opening in cases:
        answer = ask(question, store, no_llm_settings(tmp_path), hybrid).answer
        assert answer.startswith(f"1. “{opening}"), (question, answer)


def test_a_quantity_or_a_version_in_a_question_names_no_subclause() -> None:
    # a bare dotted number is a subclause where it stands as a place, not as an amount or a release
    assert names_parts("What do 5.3.1 and 5.3.2 require?") and names_parts("In 7.2, how long is the soak?")
    assert names_parts("What is A.2 about?") and names_parts("What is 5.3.2?")
    for question in (
        "Is the adherend thickness 1.6 mm?",
        "Is the crosshead speed 1.3 mm/min?",
        "Is the strength between 2.5 and 3.5?",
        "What is new in version 2.1?",
        "Does it run on Python 3.12?",
        "Is the tolerance ±0.5?",
    ):
        assert not names_parts(question), question


def test_a_note_to_entry_named_with_its_entry_is_quoted(falkordb_store: FalkorDBStore, tmp_path: Path) -> None:
    """ISO labels a terminological entry's notes "Note 1 to entry:", numbered afresh in each entry:
    "What does Note 1 to entry 3.4 say?" quoted 3.1's source line first, the words "to entry" being
    asked of the passages rather than read as the note's label."""
    _answers_open_with(
        falkordb_store,
        tmp_path,
        ("What does Note 1 to entry 3.4 say?", "Note 1 to entry: Lap-shear strength is expressed in megapascals"),
        ("What does Note 2 to entry in 3.4 say?", "Note 2 to entry: The bonded area is the overlap length"),
        ("What does Note 1 to entry 3.2 say?", "Note 1 to entry: A test specimen is tested once"),
    )


def test_a_clause_found_by_its_heading_is_quoted_from_its_text(falkordb_store: FalkorDBStore, tmp_path: Path) -> None:
    """ "What is the scope?" found the heading "1 Scope" second; a heading says nothing, and where a
    hit of its section had content (the Scope's second paragraph, ranked low) the heading was dropped
    for it, so the first quote was the Contents page and the Scope clause was not quoted at all. The
    section's hit now takes the heading's place."""
    hybrid = hybrid_over(falkordb_store, [write_standard(tmp_path / "iso.pdf")], tmp_path / "home")
    for question in ("What is the scope?", "What is the scope of ISO 27318?"):
        result = ask(question, falkordb_store, no_llm_settings(tmp_path), hybrid)
        assert result.evidence[0].section == "1 Scope", result.answer


def test_a_subclause_cited_as_the_directives_cite_it_is_a_reference(tmp_path: Path) -> None:
    """ "as specified in 5.3.2" is how ISO cites a subclause in running text (the Directives' "in
    accordance with", "given in"); only "see 5.3" was a reference before. A number with a unit after
    those words is an amount, not a subclause."""
    batch = build_graph(NativeReader().read(write_standard(tmp_path / "iso.pdf")))
    texts = {n.key: n.props.get("text") or n.props.get("title") or "" for n in batch.nodes}
    refs = {(texts[e.src_key][:16], e.props["label"], texts[e.dst_key]) for e in batch.edges if e.type == "REF"}
    assert ("Place the test s", "Section 5.3.2", "5.3.2 Temperature control") in refs
    assert ("— the test tempe", "Section 5.3", "5.3 Temperature chamber") in refs  # "(see 5.3)", as before
    amounts = _lines_pdf(
        tmp_path / "amounts.pdf", [("tiro", 11, "The gap is as specified in 2.5 mm of Table 1.")], 62, 20
    )
    assert build_graph(NativeReader().read(amounts)).stats["unresolved_refs"] == 1  # Table 1 only


def test_a_term_found_by_its_entry_is_answered_by_its_definition(falkordb_store: FalkorDBStore, tmp_path: Path) -> None:
    """An entry's heading "3.2 test specimen" holds the term, which its definition never repeats and
    its "Note 1 to entry: A test specimen ..." does: the note ranked first and was quoted before the
    definition. A heading hit's section is read from the text under it unless another of its hits
    holds more of what the question asks beyond the heading; the Scope is read from its first sentence."""
    _answers_open_with(
        falkordb_store,
        tmp_path,
        ("What is the definition of 'test specimen'?", "assembly of two adherends (3.1) bonded with the adhesive"),
        ("What is a test specimen?", "assembly of two adherends (3.1) bonded with the adhesive"),
        ("What is the definition of lap-shear strength?", "maximum force sustained by a test specimen (3.2)"),
        ("What is the scope?", "This document specifies a method for determining the lap-shear strength"),
    )


def test_a_bibliography_entry_named_by_its_number_is_quoted(falkordb_store: FalkorDBStore, tmp_path: Path) -> None:
    """ "What is bibliography reference [2]?" named nothing: the Contents page and the Normative
    references' boilerplate came first and "[1]" third. An entry named by its bracketed number, as the
    text cites it, is the entry that opens with it; an index ("array[2]") names none."""
    _answers_open_with(
        falkordb_store,
        tmp_path,
        ("What is bibliography reference [2]?", "[2] ISO 4587, Adhesives — Determination of tensile lap-shear"),
        ("What is reference [4]?", "[4] ASTM D1002, Standard Test Method"),
    )
    assert not names_parts("What is array[2]?")


def test_a_table_named_by_its_label_is_quoted_whole(falkordb_store: FalkorDBStore, tmp_path: Path) -> None:
    """ "What does Table 2 give?" quoted the header and the rows 23 and 80 °C only: the "2" of "Table 2"
    was a word to match, and every row holds "±2", so the two first rows sharing it were the quote.
    The words naming a table, like those naming a clause, say where the answer is."""
    hybrid = hybrid_over(falkordb_store, [write_standard(tmp_path / "iso.pdf")], tmp_path / "home")
    answer = ask("What does Table 2 give?", falkordb_store, no_llm_settings(tmp_path), hybrid).answer
    assert "| 23 | 10 | 1,3 | ±2 | | 80 | 15 | 1,3 | ±2 | | 150 | 20 | 1,3 | ±2 | | 250 | 30 | 1,3 | ±2 |" in answer
    answer = ask(
        "What is the soak time at 150 °C in Table 2?", falkordb_store, no_llm_settings(tmp_path), hybrid
    ).answer
    assert "… | 150 | 20 | 1,3 | ±2 |" in answer  # a row the question names still is the quote


def test_the_covers_copyright_line_is_no_heading(tmp_path: Path) -> None:
    """ISO's cover sets "© ISO 2021" bold and larger than the text at its foot: it was a section, the
    cover's last, and the text read before the Contents hung under a heading that is a notice."""
    batch = build_graph(NativeReader().read(write_standard(tmp_path / "iso.pdf")))
    titles = [n.props["title"] for n in batch.nodes if n.label == "Section"]
    kinds = {n.props["text"]: n.props["kind"] for n in batch.nodes if n.label == "Region" and n.props["page"] == 1}
    assert "© ISO 2021" not in titles and kinds["© ISO 2021"] == "paragraph"
    assert (
        "Adhesives — Determination of lap-shear strength of bonded metal assemblies at elevated temperature" in titles
    )


def test_the_standards_clauses_annexes_captions_and_references_are_read(tmp_path: Path) -> None:
    # what ISO 27318 reads right, kept so: clauses to three levels, each term entry a section of its
    # own with its definition and notes, annex subclauses under their annex, captions above tables
    # and below the figure linked, and "Table 2", "Figure A.1", "Annex A", "Clause 7" resolved
    batch = build_graph(NativeReader().read(write_standard(tmp_path / "iso.pdf")))
    parents = _parents(batch)
    assert parents["5.3.2 Temperature control"] == "5.3 Temperature chamber"
    assert parents["5.3 Temperature chamber"] == "5 Apparatus"
    assert parents["3.4 lap-shear strength"] == "3 Terms and definitions"
    assert parents["A.2 Surface preparation"] == "Annex A (normative) Preparation of test specimens"
    texts = {n.key: n.props.get("text") or n.props.get("title") or "" for n in batch.nodes}
    sections = {n.key: n.props["title"] for n in batch.nodes if n.label == "Section"}
    under = {e.src_key: sections.get(e.dst_key) for e in batch.edges if e.type == "IS_UNDER"}
    paragraphs = {n.key for n in batch.nodes if n.label == "Region" and n.props["kind"] == "paragraph"}
    notes = [texts[key][:16] for key, title in under.items() if title == "3.4 lap-shear strength" and key in paragraphs]
    assert notes == ["maximum force su", "Note 1 to entry:", "Note 2 to entry:"]
    captions = {texts[e.src_key]: texts[e.dst_key][:24] for e in batch.edges if e.type == "CAPTION_OF"}
    assert captions["Table 2 — Test conditions"].startswith("| Test temperature °C |")
    assert captions["Figure A.1 — Single-lap-joint test specimen"].startswith("l 1 2 1 Key 1 adherend")
    refs = {(texts[e.src_key][:12], e.props["label"], texts[e.dst_key][:14]) for e in batch.edges if e.type == "REF"}
    assert {
        ("Load the tes", "Table 2", "| Test tempera"),
        ("The test spe", "Figure A.1", "l 1 2 1 Key 1 "),
        ("The test spe", "Annex A", "Annex A (norma"),
        ("a) a referen", "Clause 7", "7 Procedure"),
    } <= refs


def test_a_requirement_list_and_an_annex_are_quoted_as_the_engineer_reads_them(
    falkordb_store: FalkorDBStore, tmp_path: Path
) -> None:
    # the test report's lead-in with its lettered list; an annex from its first subclause's text
    _answers_open_with(
        falkordb_store,
        tmp_path,
        ("What shall the test report include?", "The test report shall include the following information:” “a) a"),
        ("What is in Annex A?", "Test specimens shall be cut from adherends of one batch of sheet metal"),
        ("How many test specimens shall be tested?", "At least five test specimens shall be tested"),
    )

"""A document set wholly in a typewriter font (an RFC printed from its text form): its prose is
paragraphs, its headings set flush left over the indented body are sections, and only its
diagrams and listings keep their rows as code.

Before, every block was code, so the document had no sections: "Section 4.2.1" resolved to
nothing and the section tree was empty.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pymupdf

from docgraph.ingest.graph import build_graph
from docgraph.ingest.readers.native import NativeReader

HEAD = "RFC 9999                    Example Protocol                   June 2025"
DIAGRAM = [
    "    0                   1                   2                   3",
    "   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+",
    "   |Version|  Type |     Flags     |          Length               |",
    "   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+",
]
LISTING = [  # a listing: no columns, no drawing, lines broken short
    "   int send_open(int fd) {",
    "       struct etp_hdr h = { 1, 0 };",
    "       return write(fd, &h, sizeof h);",
    "   }",
]
SECTIONS = [
    ("4.  Packet Formats", "All multi-octet fields are in network byte order, as Section 4.2.1 assumes."),
    ("4.1.  Header Packet", "The header packet has the following format:"),
    ("4.2.  Reliability", "ETP recovers from loss by retransmission and detects duplicates by sequence number."),
    (
        "4.2.1.  Retransmission",
        "A sender MUST retransmit a DATA packet that has not been acknowledged within the"
        " retransmission timeout. Retransmitted packets MUST carry the same sequence number.",
    ),
    ("4.2.1.1.  Retransmission Timer", "The default timeout is 3 seconds; the RTO MUST NOT be below 200 ms."),
    ("5.  Client Requirements", "A client MUST send OPEN as its first packet, and MAY close at any time."),
]


TITLE = "The Example Transport Protocol (ETP), Version 1"


def _rfc_lines() -> list[str]:
    lines: list[str] = [" " * 14 + TITLE, ""]
    for heading, body in SECTIONS:
        lines += [heading, ""] + ["   " + row for row in textwrap.wrap(body, 69)] + [""]
        if heading.startswith("4.1."):
            lines += [*DIAGRAM, "", "                    Figure 2: ETP Header Packet", ""]
        if heading.startswith("5."):
            lines += [*LISTING, ""]
    return lines


def _rfc(pdf: Path) -> Path:
    """Two pages in 10-point Courier, 72 columns, with the running head and foot of an RFC."""
    lines = _rfc_lines()
    with pymupdf.open() as doc:
        for number, chunk in enumerate((lines[:22], lines[22:]), 1):
            page = doc.new_page(width=612, height=792)
            page.insert_text((72, 60), HEAD, fontname="cour", fontsize=10)
            for row, line in enumerate(chunk):
                page.insert_text((72, 96 + 12 * row), line, fontname="cour", fontsize=10)
            foot = f"Smith                        Standards Track                  [Page {number}]"
            page.insert_text((72, 740), foot, fontname="cour", fontsize=10)
        doc.save(pdf)
    return pdf


def test_prose_is_paragraphs_headings_are_sections_and_the_diagram_is_code(tmp_path: Path) -> None:
    layout = NativeReader().read(_rfc(tmp_path / "rfc.pdf"))
    regions = [r for page in layout.pages for r in page.regions]
    kinds = {r.text: r.kind for r in regions}
    for heading, _body in SECTIONS:
        assert kinds[" ".join(heading.split())] == "section_header"
    retransmit = next(r for r in regions if r.text.startswith("A sender MUST retransmit"))
    assert retransmit.kind == "paragraph" and "\n" not in retransmit.text
    (diagram,) = [r for r in regions if "+-+-+" in r.text]
    assert diagram.kind == "code" and diagram.text.splitlines()[2].strip() == DIAGRAM[2].strip()
    (listing,) = [r for r in regions if "send_open" in r.text]
    assert listing.kind == "code" and len(listing.text.splitlines()) == len(LISTING)
    assert layout.title == TITLE and kinds[TITLE] == "title"  # centred: a typewriter has no larger type
    assert sorted(r.kind for r in regions if "Standards Track" in r.text or "June 2025" in r.text) == [
        "page_footer",
        "page_footer",
        "page_header",
        "page_header",
    ]


def test_sections_nest_by_number_and_a_section_reference_reaches_its_section(tmp_path: Path) -> None:
    batch = build_graph(NativeReader().read(_rfc(tmp_path / "rfc.pdf")))
    sections = {n.key: n.props for n in batch.nodes if n.label == "Section"}
    by_number = {props["number"]: key for key, props in sections.items()}
    parents = {e.src_key: e.dst_key for e in batch.edges if e.type == "IS_UNDER" and e.src_label == "Section"}
    assert parents[by_number["4.2.1.1"]] == by_number["4.2.1"]
    assert parents[by_number["4.2.1"]] == by_number["4.2"]
    refs = [(e.props.get("label"), e.dst_key) for e in batch.edges if e.type == "REF"]
    assert ("Section 4.2.1", by_number["4.2.1"]) in refs

"""Section trees on hand-built layouts: numbering, font sizes, outline matching, IS_UNDER targets."""

from __future__ import annotations

from itertools import pairwise

import pytest

from docgraph.ingest.structure.heading_numbers import parse_number, title_similarity
from docgraph.ingest.types import OutlineEntry
from docgraph.records import GraphBatch, NodeRecord
from tests.test_graph_build import build, edges, key_of, layout, page, region, targets


def sections(batch: GraphBatch) -> list[NodeRecord]:
    return sorted((n for n in batch.nodes if n.label == "Section"), key=lambda n: n.props["order"])


def section_key(batch: GraphBatch, title: str) -> str:
    return next(n.key for n in sections(batch) if n.props["title"] == title)


def parent(batch: GraphBatch, label: str, key: str) -> tuple[str, str]:
    (target,) = [(e.dst_label, e.dst_key) for e in edges(batch, "IS_UNDER", label) if e.src_key == key]
    return target


@pytest.mark.parametrize(
    ("title", "number"),
    [
        ("2.3.1 Drawing", "2.3.1"),
        ("1. Introduction", "1"),
        ("Chapter 11 Graphics", "11"),
        ("Appendix A ReportLab Demos", "A"),
        ("A.1 GNU Free Documentation License", "A.1"),
        ("Section 4: Results", "4"),
        ("A. Reference card", "A"),
        ("B. Proofs of Theorem 2", "B"),
        ("A. Author, B. Author", ""),  # a paper's author line, not appendix A
        ("J. Smith and K. Lee", ""),
        ("A Copying Information", ""),
        ("3D graphics", ""),
        ("2019 annual report", ""),
        ("Introduction", ""),
    ],
)
def test_parse_number(title: str, number: str) -> None:
    assert parse_number(title) == number


def test_title_similarity_ignores_case_punctuation_and_numbering() -> None:
    assert title_similarity('2.4 The tools: the "draw" operations', "2.4 The tools: the “draw” operations") == 1.0
    assert title_similarity("ASN.1 syntax", "2.1 ASN.1 syntax") == 1.0
    assert title_similarity("Naming", "Future developments") < 0.5


def numbered_doc() -> GraphBatch:
    return build(
        layout(
            page(
                1,
                region("paragraph", "preface text", 40),
                region("section_header", "1 Introduction", 80, font_size=16),
                region("paragraph", "intro text", 100),
                region("section_header", "1.1 Scope", 140, font_size=13),
                region("section_header", "1.1.1 Details", 180, font_size=11),
                region("paragraph", "details text", 200),
                region("page_footer", "1", 760),
            ),
            page(
                2,
                region("paragraph", "more details", 40),
                region("section_header", "1.2 Limits", 80, font_size=13),
                region("section_header", "2 Method", 200, font_size=16),
                region("section_header", "Notation", 240, font_size=13),
                region("paragraph", "notation text", 260),
            ),
        )
    )


def test_levels_and_parents_from_numbering() -> None:
    batch = numbered_doc()
    found = [(n.props["title"], n.props["level"], n.props["number"], n.props["page_start"]) for n in sections(batch)]
    assert found == [
        ("1 Introduction", 1, "1", 1),
        ("1.1 Scope", 2, "1.1", 1),
        ("1.1.1 Details", 3, "1.1.1", 1),
        ("1.2 Limits", 2, "1.2", 2),
        ("2 Method", 1, "2", 2),
        ("Notation", 2, "", 2),  # unnumbered: level from its font size, like the numbered 13pt headers
    ]
    assert batch.stats["sections"] == 6 and batch.stats["section_source"] == "headers"
    key = {title: section_key(batch, title) for title, *_ in found}
    assert parent(batch, "Section", key["1 Introduction"]) == ("Document", "sample-doc")
    assert parent(batch, "Section", key["1.1.1 Details"]) == ("Section", key["1.1 Scope"])
    assert parent(batch, "Section", key["1.2 Limits"]) == ("Section", key["1 Introduction"])
    assert parent(batch, "Section", key["Notation"]) == ("Section", key["2 Method"])


def test_regions_hang_under_deepest_preceding_section() -> None:
    batch = numbered_doc()
    under = {
        text: parent(batch, "Region", key_of(batch, text))
        for text in (
            "preface text",
            "intro text",
            "details text",
            "more details",
            "notation text",
            "1.1 Scope",
            "1",
        )
    }
    assert under["preface text"] == ("Document", "sample-doc")
    assert under["intro text"] == ("Section", section_key(batch, "1 Introduction"))
    assert under["details text"] == ("Section", section_key(batch, "1.1.1 Details"))
    assert under["more details"] == ("Section", section_key(batch, "1.1.1 Details"))  # across the page break
    assert under["notation text"] == ("Section", section_key(batch, "Notation"))
    assert under["1.1 Scope"] == ("Section", section_key(batch, "1.1 Scope"))  # a header hangs under its own section
    assert under["1"] == ("Document", "sample-doc")  # page furniture is not section content


def test_sections_chain_in_document_order() -> None:
    batch = numbered_doc()
    keys = [n.key for n in sections(batch)]
    assert [(e.src_key, e.dst_key) for e in edges(batch, "HAS_NEXT", "Section")] == list(pairwise(keys))


def test_unnumbered_levels_from_font_size_ranking() -> None:
    batch = build(
        layout(
            page(
                1,
                region("title", "Big Title", 40, font_size=24),
                region("section_header", "Overview", 80, font_size=18),
                region("section_header", "Background", 120, font_size=14),
                region("section_header", "Prior work", 160, font_size=14.2),
                region("section_header", "Approach", 200, font_size=18),
                region("section_header", "Tiny heading", 240, font_size=11),
            )
        )
    )
    assert [(n.props["title"], n.props["level"]) for n in sections(batch)] == [
        ("Big Title", 1),
        ("Overview", 1),
        ("Background", 2),
        ("Prior work", 2),
        ("Approach", 1),
        ("Tiny heading", 3),
    ]
    assert parent(batch, "Section", section_key(batch, "Prior work")) == ("Section", section_key(batch, "Overview"))


def test_a_heading_wrapped_over_two_regions_is_one_section() -> None:
    batch = build(
        layout(
            page(
                1,
                region("title", "zoo: An S3 Class and Methods for Indexed Totally", 40, 57, font_size=17),
                region("title", "Ordered Observations", 60, 77, font_size=17),
                region("section_header", "1. Introduction", 120, font_size=12),
                region("section_header", "1.1. Scope", 134, font_size=12),  # numbered: its own heading
                region("section_header", "2. Method and", 160, font_size=12),
                region("section_header", "Results", 174, font_size=12),  # the next line of that heading
                region("section_header", "Background", 200, font_size=12),  # a line height away
            )
        )
    )
    assert [n.props["title"] for n in sections(batch)] == [
        "zoo: An S3 Class and Methods for Indexed Totally Ordered Observations",
        "1. Introduction",
        "1.1. Scope",
        "2. Method and Results",
        "Background",
    ]
    assert parent(batch, "Region", key_of(batch, "Results")) == ("Section", section_key(batch, "2. Method and Results"))


def test_a_bare_chapter_label_over_its_title_in_another_size_is_one_section() -> None:
    """A chapter opening "Chapter 3" over "Configuration" (set larger, a gap between) made two
    sections: an empty "Chapter 3" and an unnumbered "Configuration" holding 3.1 and 3.2."""
    batch = build(
        layout(
            page(
                1,
                region("section_header", "Chapter 2", 60, 74, font_size=14),
                region("title", "Installation", 90, 114, font_size=24),  # a first page's title
                region("paragraph", "The package installs one daemon.", 120),
                region("section_header", "Chapter 3", 200, 214, font_size=14),
                region("section_header", "Configuration", 230, 254, font_size=24),
                region("paragraph", "The daemon reads one file.", 280),
                region("section_header", "3.1 The main settings", 320, font_size=12),
                region("section_header", "Chapter 4", 400, 420, font_size=20),
                region("section_header", "Overview", 440, 452, font_size=12),  # smaller: a heading of its own
                region("paragraph", "A chapter without a title line.", 470),
            )
        )
    )
    assert [(n.props["title"], n.props["number"], n.props["level"]) for n in sections(batch)][1:] == [
        ("Chapter 3 Configuration", "3", 1),
        ("3.1 The main settings", "3.1", 2),
        ("Chapter 4", "4", 1),
        ("Overview", "", 2),
    ]
    assert sections(batch)[0].props["title"] == "Chapter 2 Installation"


def test_no_headers_and_no_outline_means_everything_under_document() -> None:
    batch = build(layout(page(1, region("paragraph", "just text", 100))))
    assert sections(batch) == [] and batch.stats["section_source"] == "none"
    assert parent(batch, "Region", key_of(batch, "just text")) == ("Document", "sample-doc")


# ---- outline -------------------------------------------------------------------------------


def outline_doc() -> GraphBatch:
    outline = [
        OutlineEntry(1, "Chapter 1 Introduction", 1),
        OutlineEntry(2, "ASN.1 syntax", 1),
        OutlineEntry(2, "Naming", 2),
        OutlineEntry(2, "Not matched anywhere", 3),
        OutlineEntry(1, "Appendix", 0),
    ]
    return build(
        layout(
            page(
                1,
                region("paragraph", "front matter", 40),
                region("section_header", "Chapter 1", 80, font_size=20),
                region("section_header", "Introduction", 100, font_size=20),
                region("paragraph", "chapter intro", 130),
                region("section_header", "1.1 ASN.1 syntax", 200, font_size=14),
                region("paragraph", "syntax text", 220),
            ),
            page(
                2,
                region("paragraph", "syntax continued", 40),
                region("paragraph", "1.2 Naming", 200, font_size=14),  # header the reader called a paragraph
                region("paragraph", "naming text", 220),
            ),
            page(3, region("paragraph", "page three text", 40)),
            outline=outline,
        ),
    )


def test_outline_gives_one_section_per_entry_with_its_levels() -> None:
    batch = outline_doc()
    found = [(n.props["title"], n.props["level"], n.props["number"], n.props["page_start"]) for n in sections(batch)]
    assert found == [
        ("Chapter 1 Introduction", 1, "1", 1),
        ("ASN.1 syntax", 2, "1.1", 1),  # number taken from the matched header
        ("Naming", 2, "1.2", 2),
        ("Not matched anywhere", 2, "", 3),
        ("Appendix", 1, "", 3),  # points nowhere: starts after the previous entry
    ]
    assert batch.stats["section_source"] == "outline"
    assert parent(batch, "Section", section_key(batch, "Naming")) == (
        "Section",
        section_key(batch, "Chapter 1 Introduction"),
    )


def test_outline_entries_anchor_at_their_matched_headers() -> None:
    batch = outline_doc()
    under = {
        t: parent(batch, "Region", key_of(batch, t))[1]
        for t in (
            "front matter",
            "Chapter 1",
            "Introduction",
            "chapter intro",
            "syntax text",
            "syntax continued",
            "1.2 Naming",
            "naming text",
        )
    }
    assert under["front matter"] == "sample-doc"
    chapter, syntax, naming = (section_key(batch, t) for t in ("Chapter 1 Introduction", "ASN.1 syntax", "Naming"))
    # "Chapter 1" + "Introduction" is one header split over two regions; it starts at the first.
    assert under["Chapter 1"] == under["Introduction"] == under["chapter intro"] == chapter
    assert under["syntax text"] == under["syntax continued"] == syntax
    assert under["1.2 Naming"] == under["naming text"] == naming


def test_unmatched_outline_entry_starts_at_top_of_its_page() -> None:
    batch = outline_doc()
    # Both the unmatched entry and the page-less one start at the top of page 3; the later wins.
    assert parent(batch, "Region", key_of(batch, "page three text")) == ("Section", section_key(batch, "Appendix"))


def test_two_unmatched_entries_on_one_page_keep_the_first_its_start() -> None:
    outline = [OutlineEntry(1, "Chapter", 1), OutlineEntry(2, "Sub one", 1), OutlineEntry(2, "Sub two", 1)]
    batch = build(
        layout(
            page(
                1,
                region("section_header", "Chapter", 40),
                region("paragraph", "body", 80),
            ),
            outline=outline,
        )
    )
    assert [n.props["page_start"] for n in sections(batch)] == [1, 1, 1]
    assert parent(batch, "Region", key_of(batch, "Chapter")) == ("Section", section_key(batch, "Chapter"))
    assert parent(batch, "Region", key_of(batch, "body")) == ("Section", section_key(batch, "Sub two"))
    assert targets(batch, "IS_UNDER", section_key(batch, "Sub two")) == [("Section", section_key(batch, "Chapter"))]


def test_headers_the_outline_does_not_list_become_subsections_of_their_entry() -> None:
    outline = [
        OutlineEntry(1, "4 Function reference", 1),
        OutlineEntry(2, "4.1 DER functions", 1),
        OutlineEntry(1, "5 Index", 2),
    ]
    batch = build(
        layout(
            page(
                1,
                region("section_header", "4 Function reference", 40, font_size=20),
                region("section_header", "4.1 DER functions", 80, font_size=16),
                region("section_header", "asn1 get octet der", 120, font_size=12),
                region("paragraph", "der: DER data to decode", 140),
                region("section_header", "4.1.2 Tag handling", 200, font_size=12),
                region("paragraph", "tag text", 220),
                region("section_header", "3. Separator", 260, font_size=12),  # a list item read as a header
                region("paragraph", "separator text", 280),
            ),
            page(2, region("section_header", "5 Index", 40, font_size=20), region("paragraph", "index text", 80)),
            outline=outline,
        )
    )
    found = [(n.props["title"], n.props["level"], n.props["number"]) for n in sections(batch)]
    assert found == [
        ("4 Function reference", 1, "4"),
        ("4.1 DER functions", 2, "4.1"),
        ("asn1 get octet der", 3, ""),
        ("4.1.2 Tag handling", 3, "4.1.2"),
        ("3. Separator", 3, ""),  # keeps no number: "3" is not below "4.1"
        ("5 Index", 1, "5"),
    ]
    der = section_key(batch, "4.1 DER functions")
    for sub in ("asn1 get octet der", "4.1.2 Tag handling", "3. Separator"):
        assert parent(batch, "Section", section_key(batch, sub)) == ("Section", der)
    assert parent(batch, "Region", key_of(batch, "der: DER data to decode")) == (
        "Section",
        section_key(batch, "asn1 get octet der"),
    )
    assert parent(batch, "Region", key_of(batch, "tag text")) == ("Section", section_key(batch, "4.1.2 Tag handling"))
    assert parent(batch, "Region", key_of(batch, "index text")) == ("Section", section_key(batch, "5 Index"))


def test_headers_before_the_first_outline_entry_are_front_matter_not_sections() -> None:
    """A paper's author names and a manual's table-of-contents pages, set bold, are read as headers;
    the outline says where the document's sections start (gnuplot's part I, on its page 21, had
    123 sections before it made of its contents pages)."""
    outline = [OutlineEntry(1, "Abstract", 1), OutlineEntry(1, "1 Introduction", 1)]
    batch = build(
        layout(
            page(
                1,
                region("title", "The Name of the Title Is Hope", 20, font_size=20),
                region("section_header", "Ben Trovato", 40, font_size=12),
                region("paragraph", "Institute for Clarity in Documentation", 60),
                region("section_header", "Lars Thørväld", 80, font_size=12),
                region("paragraph", "The Thørväld Group", 100),
                region("section_header", "ABSTRACT", 120, font_size=12),
                region("paragraph", "A clear and well-documented LaTeX document.", 140),
                region("section_header", "CCS CONCEPTS", 160, font_size=12),
                region("paragraph", "Computer systems organization", 180),
                region("section_header", "1 INTRODUCTION", 200, font_size=12),
                region("paragraph", "ACM's consolidated article template.", 220),
            ),
            outline=outline,
        )
    )
    assert [n.props["title"] for n in sections(batch)] == ["Abstract", "CCS CONCEPTS", "1 Introduction"]
    document = next(n.key for n in batch.nodes if n.label == "Document")
    assert parent(batch, "Region", key_of(batch, "The Thørväld Group")) == ("Document", document)
    assert parent(batch, "Region", key_of(batch, "Computer systems organization")) == (
        "Section",
        section_key(batch, "CCS CONCEPTS"),
    )

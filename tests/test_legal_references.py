"""References in contracts and statutes: clauses, articles, schedules, annexes and exhibits, and
those that name another document ("Section 7.3 of the Helios MSA", "Art. 28 GDPR")."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from docgraph.ingest.graph import build_graph
from docgraph.ingest.links.references import TargetIndex, find_mentions, index_clause
from docgraph.ingest.readers.native import NativeReader
from docgraph.ingest.structure.heading_numbers import parse_number
from docgraph.records import GraphBatch
from tests.test_graph_build import WHEN, edges


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("subject to clause 7.3", [("clause", "7.3")]),
        ("as set out in cl. 4.2(b)(ii)", [("clause", "4.2(b)(ii)")]),
        ("clauses 6, 8, 9, 15 and 16 shall survive", [("clause", n) for n in ("6", "8", "9", "15", "16")]),
        ("under Article 12(3)", [("article", "12(3)")]),
        ("set out in Schedule 2", [("schedule", "2")]),
        ("listed in Annex III; see Annex 2 and Annex A", [("annex", "III"), ("annex", "2"), ("annex", "A")]),
        ("the form in Exhibit B", [("exhibit", "B")]),
        ("the fee in Paragraph 4 of Schedule 3", [("paragraph", "4 of Schedule 3")]),
        ("paragraph 4 of the guide", []),
        ("gemäß Artikel 5 und Anlage 2, Ziffer 4.2", [("article", "5"), ("annex", "2"), ("clause", "4.2")]),
        ("véase el artículo 3 y la cláusula 2", [("article", "3"), ("clause", "2")]),
    ],
)
def test_find_legal_mentions(text: str, found: list[tuple[str, str]]) -> None:
    assert [(m.kind, m.number) for m in find_mentions(text) if not m.external] == found


@pytest.mark.parametrize(
    ("text", "external"),
    [
        ("Section 7.3 of the Helios MSA", True),
        ("Article 3(1) of Directive 2011/7/EU", True),
        ("Art. 28 GDPR", True),
        ("§ 5 Abs. 2 BDSG", True),
        ("§ 257 Abs. 4 HGB", True),
        ("(OJ L 48, 23.2.2011, p. 1)", True),
        ("Springer, 2011, pp. 3-4", True),
        ("clause 7.3 of this Agreement", False),
        ("Table 1 of Schedule 2", False),
        ("see Section 4.1 for details", False),
        ("on page 12, 2011 figures", False),
        # a year before a page spelled out in running text is no citation; in brackets it is
        ("Released in 2019, page 12 lists the changes", False),
        ("as shown (Lee 2019, page 4)", True),
        # a capitalised word after a number is no statute unless it is one's code
        ("SUBJECT TO CLAUSE 8 AND CLAUSE 9", False),
        ("see Section 3 FAQ for details", False),
        # a part "of" a part of this document, or of "This Guide", is this document's
        ("the bound in equation (3) of Theorem 2", False),
        ("Section 3 of This Guide", False),
    ],
)
def test_mentions_of_another_document_are_external(text: str, external: bool) -> None:
    assert [m.external for m in find_mentions(text)][:1] == [external]


def test_a_part_of_the_document_named_by_its_own_title_is_its_own() -> None:
    """The LilyPond Contributor's Guide's "section 4 of the Contributors' Guide" was external."""
    text = "See section 4 of the Contributors’ Guide and section 1.1 of the Notation Reference."
    mentions = find_mentions(text, "LilyPond Contributor’s Guide")
    assert [(m.number, m.external) for m in mentions] == [("4", False), ("1.1", True)]


@pytest.mark.parametrize(
    ("title", "number"),
    [
        ("Article 5 Sub-processors", "5"),
        ("ARTICLE XII Miscellaneous", "XII"),
        ("Annex III List of Sub-processors", "III"),
        ("SCHEDULE 2 – SERVICE LEVELS", "2"),
        ("Clause 7 Termination", "7"),
        ("§ 5 Kündigung", "5"),
        ("Part II General", "II"),
        ("Appendix B", "B"),
        ("Part of the problem", ""),
    ],
)
def test_legal_headings_are_numbered(title: str, number: str) -> None:
    assert parse_number(title) == number


def _put(page: pymupdf.Page, y: float, text: str, size: float = 10, bold: bool = False) -> None:
    rect = pymupdf.Rect(72, y, 523, y + max(3 * size, 45))
    assert page.insert_textbox(rect, text, fontsize=size, fontname="hebo" if bold else "helv") >= 0


def _contract(path: Path) -> None:
    """A contract's numbered clauses, an article, a schedule and an annex, and a footnote citing
    the Official Journal."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    _put(page, 60, "Master Services Agreement", 18, True)
    _put(page, 110, "1 Definitions", 14, True)
    _put(page, 135, "1.1 Interpretation", 12, True)
    _put(
        page,
        158,
        "The Supplier shall perform the Services subject to clause 7.3 and meet the service levels"
        " as set out in Schedule 2 of this Agreement.",
    )
    _put(page, 200, "4 Charges", 14, True)
    _put(page, 225, "4.2 Payment", 12, True)
    _put(
        page,
        248,
        "Invoices are payable as described in clause 4.2(b), and late payment interest accrues as"
        " described in Paragraph 4 of Schedule 2.",
    )
    _put(page, 290, "Article 5 Sub-processors", 14, True)
    _put(
        page,
        315,
        "The Supplier may engage only the sub-processors listed in Annex III and shall comply with Art. 28 GDPR.",
    )
    _put(
        page,
        350,
        "Approvals for any termination under Section 7.3 of the Helios MSA are given under Article 5 and clause 9.",
    )
    _put(page, 400, "7 Termination", 14, True)
    _put(page, 425, "7.3 Termination for convenience", 12, True)
    _put(page, 448, "The Customer may terminate this Agreement on ninety days' notice to the Supplier.")
    _put(page, 770, "1 Interest as defined in Directive 2011/7/EU on late payment (OJ L 48, 23.2.2011, p. 1).", 7)
    page = doc.new_page(width=595, height=842)
    css = "* {font-family: sans-serif; font-size: 14px;}"
    page.insert_htmlbox(pymupdf.Rect(72, 60, 523, 85), "<b>SCHEDULE 2 – SERVICE LEVELS</b>", css=css)
    _put(page, 85, "Availability of the Services is measured in each calendar month.")
    _put(page, 130, "Annex III List of Sub-processors", 14, True)
    _put(page, 155, "Northdata Backup AS, Oslo, Norway: offsite backup storage.")
    doc.save(path)


def _refs(batch: GraphBatch) -> list[tuple[str, str, str]]:
    """(source text start, target section title, label) of each REF edge."""
    nodes = {n.key: n for n in batch.nodes}
    return [
        (nodes[e.src_key].props["text"][:20], nodes[e.dst_key].props.get("title", e.dst_key), e.props["label"])
        for e in edges(batch, "REF")
    ]


def test_a_contract_refers_to_its_clauses_schedules_and_annexes_not_to_other_documents(tmp_path: Path) -> None:
    """A contract's "clause 7.3", "Schedule 2" and "Annex III" made no edges, its headings "Article 5",
    "SCHEDULE 2 – ..." had no number, and "Section 7.3 of the Helios MSA" (another contract) and the
    footnote's "p. 1" (the Official Journal's page) would link to this document's own 7.3 and page 1."""
    _contract(tmp_path / "msa.pdf")
    batch = build_graph(NativeReader().read(tmp_path / "msa.pdf"), WHEN)
    assert _refs(batch) == [
        ("The Supplier shall p", "7.3 Termination for convenience", "Clause 7.3"),
        ("The Supplier shall p", "SCHEDULE 2 – SERVICE LEVELS", "Schedule 2"),
        ("Invoices are payable", "4.2 Payment", "Clause 4.2(b)"),  # no 4.2(b) of its own: the clause
        ("Invoices are payable", "SCHEDULE 2 – SERVICE LEVELS", "Paragraph 4 of Schedule 2"),
        ("The Supplier may eng", "Annex III List of Sub-processors", "Annex III"),
        ("Approvals for any te", "Article 5 Sub-processors", "Article 5"),
    ]
    # Clause 9 does not exist; Section 7.3 of the MSA, Art. 28 GDPR and the Journal's page are external.
    stats = batch.stats
    assert (stats["resolved_refs"], stats["unresolved_refs"], stats["external_refs"]) == (6, 1, 3)


def _sub_clauses(path: Path) -> None:
    """A clause whose sub-clauses are paragraphs opening with their numbers, one citing another,
    and a paragraph opening with a measure."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    _put(page, 60, "9 Liability", 14, True)
    _put(page, 85, "9.1 Neither party limits its liability for death or personal injury caused by negligence.")
    _put(page, 130, "9.2 Subject to clause 9.1, the total liability of each party is limited to the charges paid.")
    _put(page, 175, "9.3 The limit in clause 9.2(b) applies to each contract year; see also clause 3.5.")
    _put(page, 220, "3.5 mm of sealant is applied to every joint of the enclosure before it is closed.")
    doc.save(path)


def test_a_sub_clause_without_a_heading_is_the_paragraph_it_opens(tmp_path: Path) -> None:
    """ "clause 9.1" resolved nowhere when 9.1 was a paragraph, not a heading; "3.5 mm" opens no clause."""
    _sub_clauses(tmp_path / "liability.pdf")
    batch = build_graph(NativeReader().read(tmp_path / "liability.pdf"), WHEN)
    nodes = {n.key: n for n in batch.nodes}
    refs = [(nodes[e.src_key].props["text"][:3], nodes[e.dst_key].props["text"][:3]) for e in edges(batch, "REF")]
    assert refs == [("9.2", "9.1"), ("9.3", "9.2")]  # 9.2(b): no 9.2.b of its own, so 9.2
    assert batch.stats["unresolved_refs"] == 1  # clause 3.5


def test_each_numbered_item_of_a_list_of_sub_clauses_is_a_target() -> None:
    index = TargetIndex()
    index_clause(index, "list-key", "list", "10.1 The Supplier shall insure.\n10.2 “Claim” means a demand.", 0)
    index_clause(index, "para-key", "paragraph", "In 10.3 Years the Supplier shall renew.", 0)
    assert sorted(index.clauses) == ["10.1", "10.2"]

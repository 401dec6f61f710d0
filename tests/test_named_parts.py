"""A question that names a part of a contract or manual by number ("What does clause 7.3 say?"):
the part's regions are candidates and rank first, though the question's words match another
clause better. A real local store, a contract made here, the ONNX encoder."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from docgraph.app.config import Settings
from docgraph.app.llm.service import ask
from docgraph.app.pipeline.build import build_ingest_pipeline
from docgraph.app.pipeline.embedding import configured_encoder
from docgraph.app.retrieval.base import Retriever
from docgraph.app.retrieval.named_parts import named_pages, named_parts, printed_number
from docgraph.app.retrieval.registry import make_retriever
from docgraph.app.stores.base import GraphStore
from docgraph.ingest.graph import build_graph
from docgraph.ingest.readers.native import NativeReader
from tests.llm_data import no_llm_settings
from tests.slide_decks import write_deck

CLAUSES = [
    ("1. Definitions", ['1.1 "Services" means the managed hosting services described in Schedule 1.']),
    ("2. Term", ["2.1 This Agreement continues for an initial term of thirty-six months."]),
    ("3. Services", ["3.1 The Supplier shall provide the Services with reasonable skill and care."]),
    (
        "4. Charges and Payment",
        [
            "4.1 The Customer shall pay the charges set out in Schedule 3 monthly in arrears.",
            "4.2 The Supplier shall invoice on the first Business Day of each month, and the Customer shall pay"
            " each undisputed invoice within thirty days of receipt.",
        ],
    ),
    (
        "5. Confidentiality",
        [
            "5.1 Each party shall keep the other party's confidential information secret.",
            "5.2 The obligations in this clause survive termination of this Agreement for five years.",
        ],
    ),
    (
        "6. Termination",
        [
            "6.1 Either party may terminate this Agreement by written notice for a material breach not"
            " remedied within thirty days.",
            "6.2 Either party may terminate this Agreement at once if the other party becomes insolvent.",
            "6.3 The Customer may terminate this Agreement for convenience on one hundred and eighty days'"
            " written notice, on payment of the early termination fee in Schedule 3.",
        ],
    ),
    (
        "7. Liability",
        [
            "7.1 Neither party limits its liability for death or personal injury caused by its negligence.",
            "7.2 Subject to clause 7.1, each party's total liability in each contract year is limited to one"
            " hundred and fifty per cent of the charges paid in that year.",
        ],
    ),
]
SCHEDULES = [
    ("SCHEDULE 1 - SERVICES", "The Supplier hosts the warehouse system in two data centres."),
    ("SCHEDULE 2 - SERVICE LEVELS", "Availability is at least 99.9 per cent in each calendar month."),
    ("SCHEDULE 3 - CHARGES", "The monthly charge is twelve thousand pounds."),
]


def _contract(pdf: Path) -> None:
    """Numbered clauses whose sub-clauses are paragraphs opening with their numbers (no heading of
    their own), then a page per schedule."""
    with pymupdf.open() as doc:
        page = doc.new_page(width=595, height=842)
        y = 60.0
        page.insert_text((72, y), "MANAGED HOSTING SERVICES AGREEMENT", fontname="hebo", fontsize=16)
        for heading, paragraphs in CLAUSES:
            y += 34
            page.insert_text((72, y), heading, fontname="hebo", fontsize=12)
            for text in paragraphs:
                rect = pymupdf.Rect(72, y + 8, 523, y + 60)
                assert page.insert_textbox(rect, text, fontname="helv", fontsize=10) >= 0
                y += 14 * (1 + len(text) // 90) + 8
        for heading, text in SCHEDULES:
            page = doc.new_page(width=595, height=842)
            page.insert_text((72, 60), heading, fontname="hebo", fontsize=14)
            page.insert_text((72, 90), text, fontname="helv", fontsize=10)
        doc.save(pdf)


@pytest.mark.parametrize(
    ("question", "parts"),
    [
        ("What does clause 7.3 say?", [("clause", "7.3")]),
        ("Summarise Schedule 2 and Article 5.", [("schedule", "2"), ("article", "5")]),
        ("In Section 4.1, which port is used?", [("section", "4.1")]),
        ("What does Section 7.3 of the Helios MSA say?", []),  # another document's part
        ("What does Figure 3 show?", []),  # a label: app.retrieval.labels
        # a part that refers elsewhere: the answer is where it points (references are followed)
        ("Section 2.2 defers the details to a later section. How is yearmon defined?", []),
    ],
)
def test_named_parts(question: str, parts: list[tuple[str, str]]) -> None:
    assert [(m.kind, m.number) for m in named_parts(question)] == parts


def test_a_part_of_a_document_named_by_its_title_is_that_documents() -> None:
    question = "What does clause 7.3 of the Agreement say?"
    assert [m.number for m in named_parts(question, "Managed Hosting Services Agreement")] == ["7.3"]
    assert named_parts(question, "Data Processing Addendum") == []  # the main agreement's clause


@pytest.fixture
def contract_hybrid(falkordb_store: GraphStore, tmp_path: Path) -> Retriever:
    settings = Settings(home=tmp_path / "home", graph=falkordb_store.graph_name, store="")
    _contract(tmp_path / "msa.pdf")
    assert build_ingest_pipeline(falkordb_store, settings).ingest(tmp_path / "msa.pdf").status == "ingested"
    falkordb_store.wait_for_indexes()
    return make_retriever("hybrid", falkordb_store, configured_encoder(settings), settings=settings)


def test_a_named_clause_ranks_first_though_another_says_clause(contract_hybrid: Retriever) -> None:
    """ "What does clause 6.3 say?" quoted 5.2 ("The obligations in this clause ..."): no region
    holds "6.3" but as its number, and nothing looked the number up."""
    top = contract_hybrid.retrieve("What does clause 6.3 say?", 5)[0]
    assert top.text.startswith("6.3 The Customer may terminate") and "part" in top.signals
    top = contract_hybrid.retrieve("What is in clause 4.2?", 5)[0]
    assert top.text.startswith("4.2 The Supplier shall invoice")
    # a clause with a heading: its sub-clauses; a schedule: its page
    assert contract_hybrid.retrieve("What does clause 5 cover?", 5)[0].text.startswith("5.")
    assert contract_hybrid.retrieve("What does Schedule 2 say?", 5)[0].page == 3


def test_another_documents_clause_gains_nothing(contract_hybrid: Retriever) -> None:
    hits = contract_hybrid.retrieve("What does clause 6.3 of the Helios MSA say?", 20)
    assert hits and not [hit for hit in hits if "part" in hit.signals]
    # "the Agreement" is this one, by its title
    top = contract_hybrid.retrieve("What does clause 6.3 of the Agreement say?", 5)[0]
    assert top.text.startswith("6.3 The Customer may terminate") and "part" in top.signals


def _statements(pdf: Path) -> None:
    """A report's prose citing its notes, then the notes, each under a heading "Note N ..."."""
    with pymupdf.open() as doc:
        page = doc.new_page(width=595, height=842)
        page.insert_text((72, 60), "Northwind Group Annual Report", fontname="hebo", fontsize=16)
        prose = (
            "Revenue grew by 7 per cent, mostly in road freight (Note 5). Net debt fell to 212 million pounds"
            " after the bond was repaid; the terms of the remaining loans are in Note 12."
        )
        assert page.insert_textbox(pymupdf.Rect(72, 90, 523, 160), prose, fontname="helv", fontsize=10) >= 0
        page = doc.new_page(width=595, height=842)
        notes = [
            ("Note 5 Revenue", "Revenue is recognised when goods are delivered to the customer."),
            ("Note 12 Borrowings", "The revolving credit facility of 300 million pounds matures in 2029."),
        ]
        y = 60.0
        for heading, text in notes:
            page.insert_text((72, y), heading, fontname="hebo", fontsize=12)
            page.insert_text((72, y + 20), text, fontname="helv", fontsize=10)
            y += 60
        doc.save(pdf)


def test_a_financial_statements_notes_are_referred_to_and_asked_about(
    falkordb_store: GraphStore, tmp_path: Path
) -> None:
    """ "Note 12" linked nowhere, and "What does Note 12 say?" was answered from the contents."""
    _statements(tmp_path / "report.pdf")
    batch = build_graph(NativeReader().read(tmp_path / "report.pdf"))
    titles = {n.key: n.props.get("title") for n in batch.nodes if n.label == "Section"}
    assert sorted(titles[e.dst_key] for e in batch.edges if e.type == "REF") == ["Note 12 Borrowings", "Note 5 Revenue"]
    settings = Settings(home=tmp_path / "home", graph=falkordb_store.graph_name, store="")
    assert build_ingest_pipeline(falkordb_store, settings).ingest(tmp_path / "report.pdf").status == "ingested"
    falkordb_store.wait_for_indexes()
    hybrid = make_retriever("hybrid", falkordb_store, configured_encoder(settings), settings=settings)
    top = hybrid.retrieve("What does Note 12 say?", 5)[0]
    assert top.page == 2 and "part" in top.signals and ("credit facility" in top.text or "Borrowings" in top.text)


def test_a_named_page_is_the_one_counted_so_and_the_one_printed_so(falkordb_store: GraphStore, tmp_path: Path) -> None:
    """ "What is on page 3?" ranked a page-1 paragraph first (its words name nothing the dense and
    GNN scores could tell apart) and abstained. A report with an unnumbered cover: its third page
    prints "2", its fourth "3"; both page 3s are the part asked about, and come first."""
    with pymupdf.open() as doc:
        doc.new_page(width=595, height=842).insert_text((72, 300), "Fleet Report 2024", fontname="hebo", fontsize=24)
        texts = [
            "The fleet grew to 84 vehicles, twelve of them electric vans.",
            "Fuel costs rose by 6 per cent, offset by new route planning.",
            "We handled 12,400 shipments in the third quarter.",
        ]
        for printed, text in enumerate(texts, start=1):
            page = doc.new_page(width=595, height=842)
            page.insert_text((72, 100), text, fontname="helv", fontsize=10)
            page.insert_text((290, 815), f"Page {printed}", fontname="helv", fontsize=8)
        doc.save(tmp_path / "fleet.pdf")
    settings = Settings(home=tmp_path / "home", graph=falkordb_store.graph_name, store="")
    assert build_ingest_pipeline(falkordb_store, settings).ingest(tmp_path / "fleet.pdf").status == "ingested"
    falkordb_store.wait_for_indexes()
    hybrid = make_retriever("hybrid", falkordb_store, configured_encoder(settings), settings=settings)
    hits = hybrid.retrieve("What is on page 3?", 5)
    assert {hit.page for hit in hits[:2]} == {3, 4} and all("part" in hit.signals for hit in hits[:2])
    result = ask("What is on page 3?", falkordb_store, no_llm_settings(tmp_path), hybrid)
    assert not result.abstained and "Fuel costs rose" in result.answer


@pytest.mark.parametrize(
    ("text", "number"), [("12", 12), ("Page 12", 12), ("Page 12 of 40", 12), ("- 12 -", 12), ("Chapter 2", None)]
)
def test_the_number_a_running_foot_prints(text: str, number: int | None) -> None:
    assert printed_number(text) == number


def test_a_named_slide_is_the_decks_page_so_counted(falkordb_store: GraphStore, tmp_path: Path) -> None:
    """ "What is on slide 3?" abstained over a lecture deck: "slide" named no part, though a deck's
    own "see slide 3" refers to its third page. In a deck (every page landscape) it names that page;
    elsewhere "slide" stays a word ("slide 3 mm along the rail")."""
    slides = [
        ("Process States", "A process moves through five states during its lifetime."),
        ("Scheduling Criteria", "Throughput counts the processes completed per time unit."),
        ("Round Robin", "Each process gets a small unit of CPU time, the time quantum."),
        ("Summary", "Round robin gives good response time if the quantum is chosen well."),
    ]
    write_deck(tmp_path / "deck.pdf", slides)
    settings = Settings(home=tmp_path / "home", graph=falkordb_store.graph_name, store="")
    assert build_ingest_pipeline(falkordb_store, settings).ingest(tmp_path / "deck.pdf").status == "ingested"
    falkordb_store.wait_for_indexes()
    hybrid = make_retriever("hybrid", falkordb_store, configured_encoder(settings), settings=settings)
    hits = hybrid.retrieve("What is on slide 3?", 5)
    assert hits[0].page == 3 and "part" in hits[0].signals
    result = ask("What is on slide 3?", falkordb_store, no_llm_settings(tmp_path), hybrid)
    assert not result.abstained and "time quantum" in result.answer
    assert named_pages("What is on slide 3?", slides=True) == [3]
    assert named_pages("Move the carriage slide 3 mm along the rail.", slides=False) == []

"""A question that names one stored document among many alike ("What is the total of invoice 1043?"
of a store of invoices): the named document's regions rank first, scored on the question's other
words. A real local store, invoices made here, the ONNX encoder."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from docgraph.app.retrieval.hybrid import HybridRetriever
from docgraph.app.retrieval.named_documents import naming_words
from docgraph.app.stores.falkordb_store import FalkorDBStore
from tests.llm_data import SAMPLE_PDF, hybrid_over
from tests.test_book_index import _book

INVOICES = {  # number -> (date, items as (description, quantity, unit price))
    1029: ("02/03/2026", [("A4 copier paper, box of 5 reams", 20, 21.50), ("Ring binders, pack of 10", 4, 9.80)]),
    1038: ("05/03/2026", [("Toner cartridge, black", 6, 48.00), ("Staples, box of 5000", 12, 1.90)]),
    1043: ("14/03/2026", [("A4 copier paper, box of 5 reams", 40, 21.50), ("Toner cartridge, black", 6, 48.00)]),
    1051: ("27/03/2026", [("C5 envelopes, box of 500", 10, 12.75), ("Desk organiser", 2, 13.10)]),
}


def _invoice(pdf: Path, number: int) -> None:
    """A one-page supplier invoice: letterhead, title, number and dates, items, totals, terms."""
    date, items = INVOICES[number]
    subtotal = sum(quantity * price for _, quantity, price in items)
    with pymupdf.open() as doc:
        page = doc.new_page(width=595, height=842)
        page.insert_text((72, 60), "Brightwater Supplies", fontname="hebo", fontsize=14)
        page.insert_text((72, 76), "Unit 7, Meadow Trading Estate, Reading RG2 0QX", fontname="helv", fontsize=9)
        page.insert_text((400, 110), "INVOICE", fontname="hebo", fontsize=20)
        page.insert_text((72, 150), f"Invoice No. {number}   Invoice Date {date}", fontname="helv", fontsize=10)
        page.insert_text((72, 164), "Customer ID HP-0042   Due in 30 days", fontname="helv", fontsize=10)
        y = 210.0
        for heading, x in (("Description", 72), ("Qty", 330), ("Unit Price", 390), ("Amount", 480)):
            page.insert_text((x, y), heading, fontname="hebo", fontsize=10)
        for description, quantity, price in items:
            y += 18
            for text, x in ((description, 72), (str(quantity), 330), (f"{price:.2f}", 390)):
                page.insert_text((x, y), text, fontname="helv", fontsize=10)
            page.insert_text((480, y), f"{quantity * price:.2f}", fontname="helv", fontsize=10)
        totals = f"Subtotal {subtotal:.2f}   VAT 20% {subtotal * 0.2:.2f}   Total GBP {subtotal * 1.2:.2f}"
        page.insert_text((250, y + 50), totals, fontname="hebo", fontsize=10)
        terms = f"Payment terms: 30 days net. Please quote invoice number {number} with your payment."
        page.insert_text((72, y + 100), terms, fontname="helv", fontsize=9)
        doc.save(pdf)


@pytest.fixture
def invoices_hybrid(falkordb_store: FalkorDBStore, tmp_path: Path) -> HybridRetriever:
    for number in INVOICES:
        _invoice(tmp_path / f"invoice-{number}.pdf", number)
    return hybrid_over(falkordb_store, [tmp_path / f"invoice-{number}.pdf" for number in INVOICES], tmp_path / "home")


def test_the_named_invoices_total_comes_first(invoices_hybrid: HybridRetriever) -> None:
    """The invoice's own lines holding "1043" came first, then other invoices' totals; its totals
    were not among the first three."""
    hits = invoices_hybrid.retrieve("What is the total of invoice 1043?", 5)
    assert [hit.doc_id for hit in hits[:3]] == ["invoice-1043"] * 3
    assert any("Total GBP 1377.60" in hit.text for hit in hits[:2])
    assert "named_document" in hits[0].signals


def test_words_that_name_every_document_or_none_name_none(invoices_hybrid: HybridRetriever) -> None:
    corpus = invoices_hybrid.corpus
    assert corpus.named_documents("What is the total of invoice 1043?").doc_ids == {"invoice-1043"}
    assert corpus.named_documents("What is the total of invoice 1043?").unnamed == "What is the total of"
    assert not corpus.named_documents("Which INVOICE is the largest?").doc_ids  # every one's title
    assert not corpus.named_documents("What is the total of invoice 9999?").doc_ids
    assert not corpus.named_documents("What is the total of invoice 1043?", "invoice-1043").doc_ids  # one in scope


def test_naming_words_are_written_as_names() -> None:
    assert naming_words("What is Northgate's VAT number for invoice 1043?") == {"northgate", "vat", "1043"}
    assert naming_words("Which Python release does ReportLab 3.6.12 need?") == {"python", "reportlab", "3.6.12"}
    assert naming_words("What does Table 3 of the Guide show on page 5?") == {"guide"}  # labels name parts
    assert naming_words("How is asn1_der_decoding used?") == {"asn1_der_decoding"}
    # a number of one or two digits names too many things: a store's "Gutenprint 5.2 User's Manual"
    assert naming_words("What are the 5 stages of lecture 12?") == set()


def test_a_subject_that_names_a_book_still_finds_its_passage(falkordb_store: FalkorDBStore, tmp_path: Path) -> None:
    """A book filed under its subject: "Luther" names it and lifts its regions, and stays in the
    question. Dropped with the invoice numbers before, it left "Where is Luther discussed?" to rank
    the book's index lists without it, the Zwingli entry first."""
    book = tmp_path / "luther-and-the-printers.pdf"
    _book(book)
    hybrid = hybrid_over(falkordb_store, [book, SAMPLE_PDF], tmp_path / "home")
    named = hybrid.corpus.named_documents("Where is Luther discussed?")
    assert named.doc_ids == {"luther-and-the-printers"}
    assert named.unnamed == "Where is Luther discussed?"
    hits = hybrid.retrieve("Where is Luther discussed?", 3)
    assert "Luther, Martin, 12, 45-47, 103" in hits[0].text.split("\n")

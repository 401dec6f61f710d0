"""An invoice's fields, totals and addresses read as labels with their values ("Due Date 13/04/2026").

Accounting software sets each field as a short label with its value ems to its right, flush right;
MuPDF returns the two as pieces too far apart to be one line. Before they were joined, the labels
were read as one column of bare paragraphs and the values as another, and an extractive answer to
"When is invoice 1043 due?" quoted "Invoice Date" alone.
"""

from __future__ import annotations

from pathlib import Path

import pymupdf

from docgraph.app.stores.falkordb_store import FalkorDBStore
from docgraph.ingest.readers.native import NativeReader
from tests.llm_data import ask_of_pdf

FIELDS = [
    ("Invoice No.", "1043"),
    ("Invoice Date", "14/03/2026"),
    ("Due Date", "13/04/2026"),
    ("Customer ID", "HP-0042"),
]
ADDRESSES = [(50, "Bill To", ["Harbour & Pine Ltd", "14 Quay Street"]), (300, "Ship To", ["Warehouse 2", "Dock Road"])]
ITEMS = [["Item", "Qty", "Amount"], ["A4 copier paper", "40", "860.00"], ["Toner cartridge", "6", "288.00"]]
TOTALS = [("Subtotal", "1,170.80"), ("VAT 20%", "234.16"), ("Total GBP", "1,404.96")]


def _right(page: pymupdf.Page, x_right: float, y: float, text: str, font: str = "helv") -> None:
    width = pymupdf.get_text_length(text, fontname=font, fontsize=9)
    page.insert_text((x_right - width, y), text, fontsize=9, fontname=font)


def invoice(out: Path) -> Path:
    """A one-page invoice: its fields at the top right (bold labels, values flush right), the
    bill-to and ship-to blocks side by side, a ruled item table, the totals flush right under it
    (the "Total" row bold) and the payment terms."""
    with pymupdf.open() as doc:
        page = doc.new_page(width=595, height=842)
        page.insert_text((50, 62), "Brightwater Supplies", fontsize=14, fontname="hebo")
        _right(page, 545, 62, "INVOICE", "hebo")
        for row, (label, value) in enumerate(FIELDS):
            page.insert_text((380, 110 + 13 * row), label, fontsize=9, fontname="hebo")
            _right(page, 545, 110 + 13 * row, value)
        for x, title, _ in ADDRESSES:  # the row of labels first, as a report writer sets its rows
            page.insert_text((x, 190), title, fontsize=9, fontname="hebo")
        for x, _, lines in ADDRESSES:
            for row, line in enumerate(lines):
                page.insert_text((x, 203 + 11 * row), line, fontsize=9)
        page.draw_rect(pymupdf.Rect(50, 240, 545, 288), width=0.7)
        for row, cells in enumerate(ITEMS):
            page.draw_line((50, 256 + 16 * row), (545, 256 + 16 * row), width=0.5)
            page.insert_text((54, 251 + 16 * row), cells[0], fontsize=9)
            _right(page, 376, 251 + 16 * row, cells[1])
            _right(page, 541, 251 + 16 * row, cells[2])
        for x in (330, 380):
            page.draw_line((x, 240), (x, 288), width=0.5)
        for row, (label, value) in enumerate(TOTALS):
            font = "hebo" if label.startswith("Total") else "helv"
            _right(page, 460, 310 + 13 * row, label, font)
            _right(page, 541, 310 + 13 * row, value, font)
        page.insert_text((50, 380), "Payment terms: 30 days net from invoice date.", fontsize=9)
        doc.save(out)
    return out


def _texts(path: Path) -> list[str]:
    regions = sorted(NativeReader().read(path).pages[0].regions, key=lambda r: r.order)
    return [r.text for r in regions]


def test_each_field_reads_with_its_value_in_one_region(tmp_path: Path) -> None:
    texts = _texts(invoice(tmp_path / "invoice.pdf"))
    fields = " ".join(f"{label} {value}" for label, value in FIELDS)
    assert fields in texts
    assert "Due Date" not in texts and "13/04/2026" not in texts


def test_the_totals_read_with_their_labels_the_bold_total_among_them(tmp_path: Path) -> None:
    path = invoice(tmp_path / "invoice.pdf")
    totals = " ".join(f"{label} {value}" for label, value in TOTALS)
    assert totals in _texts(path)
    kinds = {r.text: r.kind for r in NativeReader().read(path).pages[0].regions}
    assert kinds[totals] == "paragraph"  # not a heading "Total GBP 1,404.96" over the payment terms


def test_side_by_side_addresses_read_each_under_its_own_label(tmp_path: Path) -> None:
    """Not one heading "Bill To Ship To" over two unnamed addresses."""
    regions = NativeReader().read(invoice(tmp_path / "invoice.pdf")).pages[0].regions
    texts = [r.text for r in regions]
    assert "Bill To Harbour & Pine Ltd 14 Quay Street" in texts
    assert "Ship To Warehouse 2 Dock Road" in texts
    assert not any("Bill To Ship To" in text for text in texts)
    assert [r.kind for r in regions].count("table") == 1


def test_the_extractive_answer_finds_the_ship_to_address(falkordb_store: FalkorDBStore, tmp_path: Path) -> None:
    pdf = invoice(tmp_path / "invoice.pdf")
    result = ask_of_pdf(falkordb_store, pdf, "What is the ship-to address of the invoice?", tmp_path)
    assert "Ship To Warehouse 2 Dock Road" in result.answer


def test_the_extractive_answer_quotes_the_due_date(falkordb_store: FalkorDBStore, tmp_path: Path) -> None:
    result = ask_of_pdf(falkordb_store, invoice(tmp_path / "invoice.pdf"), "When is invoice 1043 due?", tmp_path)
    assert "Due Date 13/04/2026" in result.answer


def test_a_bold_balance_row_alone_is_no_heading(tmp_path: Path) -> None:
    """A statement's closing row, bold, label and amount apart: read as one paragraph, so it neither
    heads the notes under it nor drops out of extractive answers as a section title."""
    with pymupdf.open() as doc:
        page = doc.new_page(width=595, height=842)
        page.insert_text((50, 62), "Statement of account", fontsize=14, fontname="hebo")
        intro = "The invoices, credit notes and payments of March are listed in date order."
        page.insert_text((50, 100), intro, fontsize=9)
        _right(page, 460, 130, "Balance due at 31/03/2026", "hebo")
        _right(page, 541, 130, "2,109.60", "hebo")
        page.insert_text((50, 160), "Please pay the balance due by bank transfer.", fontsize=9)
        doc.save(tmp_path / "statement.pdf")
    regions = NativeReader().read(tmp_path / "statement.pdf").pages[0].regions
    assert ("paragraph", "Balance due at 31/03/2026 2,109.60") in [(r.kind, r.text) for r in regions]


def test_a_row_of_labels_each_over_its_value_reads_as_one_paragraph_of_fields(tmp_path: Path) -> None:
    """Labels set over their values ("Due Date" over "30/04/2026"): not a row of labels and a row of
    values that no longer say which date is which."""
    labels = ["Invoice No.", "Invoice Date", "Due Date", "Terms"]
    values = ["K-2026-0311", "31/03/2026", "30/04/2026", "30 days net"]
    with pymupdf.open() as doc:
        page = doc.new_page(width=595, height=842)
        page.insert_text((50, 60), "Kestrel Ltd", fontsize=16, fontname="hebo")
        for column, label in enumerate(labels):  # the row of labels, then the row of values
            page.insert_text((50 + 120 * column, 110), label, fontsize=8, fontname="hebo")
        for column, value in enumerate(values):
            page.insert_text((50 + 120 * column, 123), value, fontsize=10)
        page.insert_text((50, 160), "Managed IT services for March 2026, as agreed.", fontsize=10)
        doc.save(tmp_path / "fields.pdf")
    regions = NativeReader().read(tmp_path / "fields.pdf").pages[0].regions
    fields = " ".join(f"{label} {value}" for label, value in zip(labels, values, strict=True))
    assert ("paragraph", fields) in [(r.kind, r.text) for r in regions]


def _fields_written_column_by_column(out: Path, labels: list[str], values: list[str], bold: bool) -> Path:
    """All the labels written first, then all the values: MuPDF gives them as two blocks."""
    with pymupdf.open() as doc:
        page = doc.new_page(width=595, height=842)
        page.insert_text((50, 60), "Orchard Cleaning Services", fontsize=16, fontname="hebo")
        for row, label in enumerate(labels):
            page.insert_text((360, 110 + 13 * row), label, fontsize=9, fontname="hebo" if bold else "helv")
        for row, value in enumerate(values):
            _right(page, 545, 110 + 13 * row, value)
        page.insert_text((50, 200), "Office cleaning for March 2026, twelve visits at the agreed rate.", fontsize=10)
        doc.save(out)
    return out


def test_labels_and_values_written_column_by_column_still_pair_off(tmp_path: Path) -> None:
    labels = ["Invoice No.:", "Invoice Date:", "Due Date:", "Account:"]
    values = ["2207", "02/04/2026", "02/05/2026", "HP-0042"]
    path = _fields_written_column_by_column(tmp_path / "columns.pdf", labels, values, bold=True)
    fields = " ".join(f"{label} {value}" for label, value in zip(labels, values, strict=True))
    assert fields in _texts(path)


def test_two_addresses_side_by_side_are_not_read_as_labels_and_values(tmp_path: Path) -> None:
    left = ["Harbour & Pine Ltd", "14 Quay Street", "Portsmouth PO1 3AB"]
    right = ["Brightwater Supplies", "Unit 7, Meadow Estate", "Reading RG2 0QX"]
    texts = _texts(_fields_written_column_by_column(tmp_path / "addresses.pdf", left, right, bold=False))
    assert " ".join(left) in texts and " ".join(right) in texts


def test_the_totals_are_quoted_without_the_paragraph_after_them(falkordb_store: FalkorDBStore, tmp_path: Path) -> None:
    """The totals paragraph ends in no full stop, as a manual's definition line does; it was quoted
    with the next paragraph of the page as if that were its description."""
    result = ask_of_pdf(falkordb_store, invoice(tmp_path / "invoice.pdf"), "What is the subtotal?", tmp_path)
    assert "Subtotal 1,170.80" in result.answer
    assert "Payment terms" not in result.answer

"""A listed company's annual report as its word processor exports it to PDF, for tests.

A4, an embedded sans font; a highlights page of big figures over their labels ("£412.6m" over
"Revenue, up 8%"); the chair's statement in two columns; the consolidated income statement and
balance sheet as lightly ruled tables (a rule under the header, one over each bold subtotal's
figures) with a Notes column and two year columns, negatives in brackets, the balance sheet
running over a page break without its header; notes to the accounts headed "12. Trade and other
receivables", each with its own small table; "see note 12" in the text; a running head and a page
number at the foot.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pymupdf

from tests.board_minutes import wrap

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
BOLD = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"
FONTS = {False: ("dj", FONT), True: ("djb", BOLD)}
MEASURE = {False: pymupdf.Font(fontfile=FONT), True: pymupdf.Font(fontfile=BOLD)}
LEFT, RIGHT, TOP, BOTTOM = 56.0, 539.0, 80.0, 780.0
GUTTER = 20.0
BODY = 9.5
NAVY = (0.05, 0.15, 0.35)
HEAD = "Harbourline Group plc Annual Report and Accounts 2025"
# A statement table's columns: the line item's left edge, the Notes column's centre, and the
# right edges of the 2025 and 2024 columns.
ITEM, NOTE, Y2025, Y2024 = LEFT, 330.0, 450.0, 530.0
INDENT = 10.0  # a line item under a group's label ("Current assets") is set in this far

Row = tuple[str, str, str, str, str]  # kind ("row", "bold", "total", "section"), item, note, 2025, 2024


@dataclass
class Writer:
    """A word processor's page flow: text set down the body, a new page when one is full."""

    doc: pymupdf.Document
    y: float = TOP
    pages: list[pymupdf.Page] = field(default_factory=list)

    @property
    def page(self) -> pymupdf.Page:
        return self.pages[-1]

    def new_page(self) -> None:
        self.pages.append(self.doc.new_page(width=595, height=842))
        self.y = TOP

    def room(self, height: float) -> bool:
        """A new page when ``height`` does not fit; whether one was started."""
        if self.y + height > BOTTOM:
            self.new_page()
            return True
        return False

    def put(self, x: float, text: str, size: float, bold: bool = False, color: tuple[float, ...] = (0, 0, 0)) -> None:
        name, file = FONTS[bold]
        self.page.insert_text((x, self.y + size), text, fontsize=size, fontname=name, fontfile=file, color=color)

    def right(self, x: float, text: str, size: float, bold: bool = False) -> None:
        self.put(x - MEASURE[bold].text_length(text, fontsize=size), text, size, bold)

    def heading(self, text: str, size: float = 16, after: float = 10) -> None:
        self.room(size * 3)
        self.put(LEFT, text, size, bold=True, color=NAVY)
        self.y += size * 1.3 + after

    def text(self, text: str, size: float = BODY, bold: bool = False, after: float = 7.0) -> None:
        for line in wrap(text, size, bold, RIGHT - LEFT):
            self.room(size * 1.35)
            self.put(LEFT, line, size, bold)
            self.y += size * 1.35
        self.y += after

    def finish(self, path: Path) -> Path:
        for number, page in enumerate(self.doc, start=1):
            page.insert_text((LEFT, 40), HEAD, fontsize=8, fontname="dj", fontfile=FONT, color=(0.4, 0.4, 0.4))
            page.draw_line((LEFT, 46), (RIGHT, 46), color=NAVY, width=0.5)
            label = str(number)
            width = MEASURE[False].text_length(label, fontsize=8)
            page.insert_text((RIGHT - width, 812), label, fontsize=8, fontname="dj", fontfile=FONT)
        self.doc.set_metadata({"title": HEAD, "creator": "Microsoft® Word for Microsoft 365"})
        self.doc.save(path)
        return path


HIGHLIGHTS = (
    ("£412.6m", "Revenue, up 8%"),
    ("£48.3m", "Operating profit, up 6%"),
    ("21.5p", "Total dividend per share, up 6%"),
)
CHAIR = (
    "I am pleased to report another year of progress for Harbourline. Revenue grew by 8% to £412.6 million, "
    "driven by higher volumes at our container terminals in Felixstowe and Teesport and a full year of the "
    "Humber logistics contract won in 2024.",
    "Operating profit rose to £48.3 million from £45.7 million, although higher energy and labour costs held "
    "back our margin. Finance costs increased to £12.4 million as we drew on the revolving credit facility "
    "to fund the new cold-store warehouse at Teesport.",
    "Working capital remained under close control. Trade receivables rose in line with revenue, and the "
    "average time our customers take to pay was unchanged at 42 days (see note 12).",
    "The Board is recommending a final dividend of 14.2p per share, which together with the interim "
    "dividend of 7.3p paid in October makes a total dividend of 21.5p for the year, an increase of 6%. "
    "Subject to approval at the AGM, the final dividend will be paid on 22 May 2026 to shareholders on the "
    "register on 24 April 2026. Our policy remains to grow the dividend progressively while keeping "
    "dividend cover of around two times earnings.",
    "Sarah Whitcombe stepped down from the Board in September after nine years as a non-executive "
    "director. On behalf of the Board I thank her for her wise counsel, and I welcome Daniel Osei, who "
    "joined us as Senior Independent Director.",
    "Looking ahead, our order book is strong and the Board is confident that Harbourline will make further "
    "progress in 2026.",
)
INCOME: tuple[Row, ...] = (
    ("row", "Revenue", "3", "412.6", "382.0"),
    ("row", "Cost of sales", "", "(251.8)", "(236.1)"),
    ("total", "Gross profit", "", "160.8", "145.9"),
    ("row", "Administrative expenses", "", "(112.5)", "(100.2)"),
    ("total", "Operating profit", "4", "48.3", "45.7"),
    ("row", "Finance income", "6", "0.9", "0.6"),
    ("row", "Finance costs", "6", "(12.4)", "(10.8)"),
    ("total", "Profit before taxation", "", "36.8", "35.5"),
    ("row", "Taxation", "7", "(9.2)", "(8.5)"),
    ("total", "Profit for the year", "", "27.6", "27.0"),
    ("row", "Basic earnings per share (pence)", "8", "41.2p", "40.3p"),
)
COMPREHENSIVE: tuple[Row, ...] = (
    ("row", "Profit for the year", "", "27.6", "27.0"),
    ("row", "Remeasurement of defined benefit pension schemes", "", "(1.3)", "0.8"),
    ("row", "Cash flow hedges", "", "(0.4)", "0.3"),
    ("total", "Total comprehensive income for the year", "", "25.9", "28.1"),
)
BALANCE: tuple[Row, ...] = (
    ("section", "Non-current assets", "", "", ""),
    ("row", "Property, plant and equipment", "10", "286.4", "254.7"),
    ("row", "Intangible assets", "11", "41.8", "43.5"),
    ("row", "Deferred tax assets", "", "3.1", "2.7"),
    ("total", "", "", "331.3", "300.9"),
    ("section", "Current assets", "", "", ""),
    ("row", "Inventories", "", "14.7", "13.2"),
    ("row", "Trade and other receivables", "12", "68.4", "61.2"),
    ("row", "Cash and cash equivalents", "", "37.9", "41.6"),
    ("total", "", "", "121.0", "116.0"),
    ("total", "Total assets", "", "452.3", "416.9"),
    ("section", "Current liabilities", "", "", ""),
    ("row", "Trade and other payables", "13", "(54.1)", "(49.8)"),
    ("row", "Borrowings", "14", "(20.0)", "(15.0)"),
    ("row", "Current tax liabilities", "", "(4.6)", "(4.1)"),
    ("total", "", "", "(78.7)", "(68.9)"),
    ("section", "Non-current liabilities", "", "", ""),
    ("row", "Borrowings", "14", "(112.0)", "(98.0)"),
    ("row", "Lease liabilities", "15", "(31.5)", "(33.2)"),
    ("row", "Deferred tax liabilities", "", "(12.3)", "(11.0)"),
    ("total", "", "", "(155.8)", "(142.2)"),
    ("total", "Total liabilities", "", "(234.5)", "(211.1)"),
    ("total", "Net assets", "", "217.8", "205.8"),
    ("section", "Equity", "", "", ""),
    ("row", "Share capital", "16", "6.7", "6.7"),
    ("row", "Share premium", "", "48.2", "48.2"),
    ("row", "Retained earnings", "", "162.9", "150.9"),
    ("total", "Total equity", "", "217.8", "205.8"),
)
RECEIVABLES: tuple[Row, ...] = (
    ("row", "Trade receivables", "", "52.3", "47.9"),
    ("row", "Less: loss allowance", "", "(1.8)", "(1.6)"),
    ("row", "Prepayments", "", "9.6", "8.7"),
    ("row", "Other receivables", "", "8.3", "6.2"),
    ("total", "", "", "68.4", "61.2"),
)
PAYABLES: tuple[Row, ...] = (
    ("row", "Trade payables", "", "31.7", "29.4"),
    ("row", "Accruals", "", "15.2", "13.9"),
    ("row", "Other taxation and social security", "", "7.2", "6.5"),
    ("total", "", "", "54.1", "49.8"),
)
NOTE_12 = (
    "Trade receivables are non-interest bearing and are generally on terms of 30 to 60 days. The Group "
    "applies the simplified approach to expected credit losses, using a provision matrix based on the "
    "ageing of receivables. The directors consider that the carrying amount of trade and other "
    "receivables approximates to their fair value."
)
NOTE_13 = (
    "Trade payables are settled on average within 38 days. The directors consider that the carrying amount "
    "of trade and other payables approximates to their fair value."
)


def write_highlights(w: Writer) -> None:
    """The front page: title, then three big figures side by side, each over its label."""
    w.new_page()
    w.put(LEFT, "Harbourline Group plc", 24, bold=True, color=NAVY)
    w.y += 32
    w.put(LEFT, "Annual Report and Accounts 2025", 16, color=NAVY)
    w.y += 48
    w.heading("Highlights", size=14)
    width = (RIGHT - LEFT) / len(HIGHLIGHTS)
    for i, (figure, _) in enumerate(HIGHLIGHTS):
        w.put(LEFT + i * width, figure, 30, bold=True, color=NAVY)
    w.y += 42
    for i, (_, label) in enumerate(HIGHLIGHTS):
        w.put(LEFT + i * width, label, 10)
    w.y += 40
    w.text(
        "Harbourline operates container terminals, warehousing and logistics services at five UK ports. "
        "These highlights are taken from the audited consolidated financial statements on pages 3 to 5."
    )


def write_chair(w: Writer) -> None:
    """The chair's statement in two columns, each paragraph wrapped to a column's width."""
    w.new_page()
    w.heading("Chair's statement")
    column = (RIGHT - LEFT - GUTTER) / 2
    lines: list[str | None] = []
    for paragraph in CHAIR:
        lines += wrap(paragraph, BODY, False, column)
        lines.append(None)
    per_column = (len(lines) + 1) // 2
    top = w.y
    for c in range(2):
        w.y = top
        for line in lines[c * per_column : (c + 1) * per_column]:
            if line is not None:
                w.put(LEFT + c * (column + GUTTER), line, BODY)
            w.y += BODY * 1.35 if line is not None else 5
    w.y = top + per_column * BODY * 1.35 + 20
    w.put(LEFT, "Michael Thornbury", BODY, bold=True)
    w.y += BODY * 1.4
    w.put(LEFT, "Chair, 4 March 2026", BODY)
    w.y += 20


def table_header(w: Writer, notes: bool) -> None:
    """The Notes and year columns' labels, "£m" under each year, and a rule under them."""
    if notes:
        w.right(NOTE + 12, "Notes", 8.5, bold=True)
    w.right(Y2025, "2025", 8.5, bold=True)
    w.right(Y2024, "2024", 8.5, bold=True)
    w.y += 11
    w.right(Y2025, "£m", 8.5, bold=True)
    w.right(Y2024, "£m", 8.5, bold=True)
    w.y += 13
    w.page.draw_line((LEFT, w.y - 2), (RIGHT, w.y - 2), width=0.5)
    w.y += 3


def write_table(w: Writer, rows: tuple[Row, ...], notes: bool = True) -> None:
    """A statement's rows: bold subtotals with a rule over their figures, a group's line items set in
    under its bold label; over a page break the rows go on without the header, as a word processor's
    table without a repeated header row."""
    table_header(w, notes)
    grouped = False
    for kind, item, note, this_year, last_year in rows:
        grouped = kind == "section" or (grouped and kind == "row")
        w.room(14)
        bold = kind in ("total", "section")
        if kind == "total":
            for edge in (Y2025, Y2024):
                w.page.draw_line((edge - 50, w.y - 1), (edge, w.y - 1), width=0.5)
            w.y += 1
        if item:
            w.put(ITEM + (INDENT if grouped and kind == "row" else 0), item, BODY, bold)
        if note and notes:
            w.right(NOTE + 6, note, BODY)
        if this_year:
            w.right(Y2025, this_year, BODY, bold)
            w.right(Y2024, last_year, BODY, bold)
        w.y += 14 if kind != "section" else 13
    w.y += 12


def write_statements(w: Writer) -> None:
    """The income statement and comprehensive income, then the balance sheet running on over the page break."""
    w.new_page()
    w.heading("Consolidated income statement", after=2)
    w.text("For the year ended 31 December 2025", size=9, after=10)
    write_table(w, INCOME)
    w.text("All of the Group's results derive from continuing operations.", after=12)
    w.heading("Consolidated statement of comprehensive income", after=2)
    w.text("For the year ended 31 December 2025", size=9, after=10)
    write_table(w, COMPREHENSIVE, notes=False)
    w.heading("Consolidated balance sheet", after=2)
    w.text("At 31 December 2025", size=9, after=10)
    write_table(w, BALANCE)
    w.text(
        "The financial statements were approved by the Board of Directors on 4 March 2026 and signed on its "
        "behalf by Michael Thornbury, Chair, and Priya Nair, Chief Financial Officer."
    )


def write_notes(w: Writer) -> None:
    """Notes to the accounts, each headed by its number and title, notes 12 and 13 with tables."""
    w.new_page()
    w.heading("Notes to the consolidated financial statements")
    w.heading("11. Intangible assets", size=11, after=6)
    w.text(
        "Intangible assets comprise goodwill of £32.4 million arising on the acquisition of Humber Freight "
        "Services Limited and customer contracts of £9.4 million, amortised over their remaining terms of "
        "six to eight years. Goodwill was tested for impairment at 31 December 2025 and no impairment was "
        "required."
    )
    w.heading("12. Trade and other receivables", size=11, after=6)
    write_table(w, RECEIVABLES, notes=False)
    w.text(NOTE_12)
    w.heading("13. Trade and other payables", size=11, after=6)
    write_table(w, PAYABLES, notes=False)
    w.text(NOTE_13)


def write_annual_report(pdf: Path) -> Path:
    """The whole report: highlights, chair's statement, primary statements, notes."""
    w = Writer(pymupdf.open())
    write_highlights(w)
    write_chair(w)
    write_statements(w)
    write_notes(w)
    return w.finish(pdf)

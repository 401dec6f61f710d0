"""Board minutes made for tests as a company secretary's word processor exports them to PDF: A4,
an embedded sans font, a bold title and subtitle, the meeting's header fields as a bold label and a
value at a tab stop, numbered minutes with bold headings, bold "DECISION:" and "ACTION:" lines, a
running head and a "Page n of m" footer."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pymupdf

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
BOLD = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"
FONTS = {False: ("dj", FONT), True: ("djb", BOLD)}
MEASURE = {False: pymupdf.Font(fontfile=FONT), True: pymupdf.Font(fontfile=BOLD)}
LEFT, RIGHT, TOP, BOTTOM = 72.0, 523.0, 80.0, 770.0
TAB = 170.0  # the tab stop a header field's value is set at


@dataclass
class Page:
    """A word processor's page flow: lines set down the body, a new page when one is full."""

    doc: pymupdf.Document
    head: str
    y: float = TOP
    pages: list[pymupdf.Page] = field(default_factory=list)

    def page(self) -> pymupdf.Page:
        if not self.pages:
            self.new_page()
        return self.pages[-1]

    def new_page(self) -> None:
        self.pages.append(self.doc.new_page(width=595, height=842))
        self.y = TOP

    def room(self, height: float) -> pymupdf.Page:
        if self.pages and self.y + height > BOTTOM:
            self.new_page()
        return self.page()

    def runs(self, runs: list[tuple[str, bool, float]], size: float, after: float = 0.0) -> None:
        """One line of (text, bold, x) runs: each set after the last, or at its own x if further right."""
        page = self.room(size * 1.3)
        x = LEFT
        for text, bold, at in runs:
            x = max(x, at)
            name, file = FONTS[bold]
            page.insert_text((x, self.y + size), text, fontsize=size, fontname=name, fontfile=file)
            x += MEASURE[bold].text_length(text, fontsize=size)
        self.y += size * 1.3 + after

    def text(self, text: str, size: float = 11, bold: bool = False, indent: float = 0.0, after: float = 8.0) -> None:
        """``text`` wrapped at the right margin, a line of it at a time."""
        for line in wrap(text, size, bold, RIGHT - LEFT - indent):
            self.runs([(line, bold, LEFT + indent)], size)
        self.y += after

    def field(self, label: str, value: str, size: float = 11) -> None:
        """A header field: the bold label, the value at the tab stop, wrapped under itself."""
        lines = wrap(value, size, False, RIGHT - TAB)
        self.runs([(label, True, LEFT), (lines[0], False, TAB)], size)
        for line in lines[1:]:
            self.runs([(line, False, TAB)], size)

    def finish(self, path: Path) -> Path:
        """Each page's running head and "Page n of m" footer, then the file."""
        for number, page in enumerate(self.doc, start=1):
            page.insert_text((LEFT, 45), self.head, fontsize=9, fontname="dj", fontfile=FONT, color=(0.4, 0.4, 0.4))
            footer = f"Page {number} of {len(self.pages)}"
            width = MEASURE[False].text_length(footer, fontsize=9)
            page.insert_text(((595 - width) / 2, 805), footer, fontsize=9, fontname="dj", fontfile=FONT)
        self.doc.set_metadata({"title": self.head, "creator": "Microsoft® Word for Microsoft 365"})
        self.doc.save(path)
        return path


def wrap(text: str, size: float, bold: bool, width: float, font: pymupdf.Font | None = None) -> list[str]:
    """``text`` broken at spaces into lines of at most ``width`` points (in ``font``, else the sans)."""
    measure = font or MEASURE[bold]
    lines: list[str] = []
    line = ""
    for word in text.split():
        trial = f"{line} {word}".strip()
        if line and measure.text_length(trial, fontsize=size) > width:
            lines.append(line)
            line = word
        else:
            line = trial
    return [*lines, line]


@dataclass(frozen=True)
class Minute:
    """A numbered minute: its heading, paragraphs, and its bold decision and action lines."""

    number: str
    title: str
    paragraphs: tuple[str, ...] = ()
    outcomes: tuple[str, ...] = ()  # "DECISION: ...", "ACTION: ..." set in bold


FIELDS = (
    ("Date:", "17 March 2026"),
    ("Time:", "18:00 to 20:10"),
    ("Venue:", "Boardroom, Northgate House, 4 Mill Lane, Leeds"),
    ("Present:", "Jane Okafor (Chair), Peter Hughes, Amira Shah, Tom Bell, Li Wei"),
    ("Apologies:", "Sarah Collins, David Price"),
    ("In attendance:", "Mark Evans (Chief Executive), Rachel Green (Company Secretary)"),
    ("Chair:", "Jane Okafor"),
)
MARCH = (
    Minute(
        "1.",
        "Welcome and apologies",
        ("The Chair welcomed members to the meeting. Apologies were received from Sarah Collins and David Price.",),
    ),
    Minute(
        "2.",
        "Minutes of the previous meeting",
        ("The minutes of the meeting held on 17 February 2026 were approved as a true record.",),
    ),
    Minute("3.", "Matters arising", ("All actions from the February meeting were complete or are on the action log.",)),
    Minute("4.", "Housing services report"),
    Minute(
        "4.1",
        "Repairs performance",
        (
            "The Chief Executive reported that 92 per cent of emergency repairs were completed within 24 hours "
            "in February, against a target of 98 per cent. Contractor vacancies explained most of the shortfall.",
        ),
        ("NOTED: The Board noted the repairs performance and the recovery plan.",),
    ),
    Minute(
        "4.2",
        "Damp and mould",
        (
            "The Board considered paper A26/03, which set out a revised damp and mould policy following the "
            "Housing Ombudsman's spotlight report. Members asked how quickly surveys would follow a report from a "
            "tenant. The Director of Property confirmed that every report would be inspected within 10 working days.",
        ),
        (
            "DECISION: The Board approved the revised damp and mould policy, to take effect from 1 April 2026.",
            "ACTION: Ravi Patel to report on mould survey completion rates to the May meeting (M26/041)",
        ),
    ),
    Minute(
        "5.",
        "Any other business",
        ("There was no other business. The Chair thanked the tenants' panel for its comments (see minute 4.2).",),
    ),
    Minute(
        "6.",
        "Date of next meeting",
        ("The next meeting will be held on 21 April 2026 at 18:00 in the Boardroom.",),
    ),
)


def write_minutes(
    pdf: Path,
    minutes: tuple[Minute, ...] = MARCH,
    fields: tuple[tuple[str, str], ...] = FIELDS,
    held: str = "17 March 2026",
) -> Path:
    """Minutes of a board meeting held on ``held``: title, subtitle, header fields, numbered minutes."""
    flow = Page(pymupdf.open(), "Northgate Housing Association: Board of Management")
    flow.text("Northgate Housing Association", size=16, bold=True, after=4)
    flow.text(f"Minutes of the Board of Management meeting held on {held}", size=12, bold=True, after=10)
    for label, value in fields:
        flow.field(label, value)
    flow.y += 14
    for minute in minutes:
        size = 12 if "." in minute.number[-1:] else 11
        flow.room(60)
        flow.runs([(minute.number, True, LEFT), (minute.title, True, LEFT + 36)], size, after=6)
        for paragraph in minute.paragraphs:
            flow.text(paragraph)
        for outcome in minute.outcomes:
            flow.text(outcome, bold=True)
    return flow.finish(pdf)

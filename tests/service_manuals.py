"""Service manuals and user guides made for tests, set as a word processor or DTP tool sets them:
DejaVu fonts embedded, bold headings, running heads and page footers, safety notices with a drawn
hazard triangle or a symbol glyph before their label, numbered procedures run on over a page or a
column break, ruled tables that run on over a page break, a spec sheet, parts and revision tables."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pymupdf

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
BOLD = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"
A4 = (595.0, 842.0)
LETTER = (612.0, 792.0)

NOTICES = {
    "CAUTION": (
        "The boiler is under pressure and at 120 °C while the machine is on. Switch the machine off and "
        "let the boiler cool for at least 30 minutes before you open the boiler cap or loosen a fitting."
    ),
    "WARNING": (
        "Disconnect the mains plug before you remove the housing. Live parts behind the control board "
        "can cause an electric shock even when the main switch is off."
    ),
    "DANGER": "Never bypass the safety thermostat. An overheated boiler can burst and scald.",
}
DESCALING = [
    "Empty the drip tray and the water tank, and remove the water filter.",
    "Dissolve one sachet of ES descaler (part ES2-9010) in 1 litre of warm water and fill the tank.",
    "Place a container of at least 1.5 litres under the brew group and the steam wand.",
    "Switch the machine on and wait until the ready lamp lights steadily.",
    "Press and hold the descale key for 3 seconds; the descaling lamp flashes.",
    "Open the steam valve for 10 seconds every 2 minutes until the tank is empty.",
    "Rinse the tank, fill it with fresh water and run the rinse cycle twice.",
    "Refit the water filter and press the descale key to clear the descaling lamp.",
]
ERRORS = [
    ("E01", "Water tank empty", "Fill the water tank."),
    ("E02", "Drip tray full or missing", "Empty and refit the drip tray."),
    ("E03", "Brew group not in place", "Refit the brew group until it clicks."),
    ("E04", "Flow meter gives no pulses", "Check the flow meter cable; replace the flow meter."),
    ("E05", "Pump overload", "Descale the machine; check the pump for blockage."),
    ("E06", "Grinder blocked", "Remove foreign bodies from the grinder."),
    ("E07", "Bean hopper empty", "Refill the bean hopper."),
    ("E08", "Steam valve does not open", "Check the solenoid coil (part ES2-3310)."),
    ("E09", "Heater relay stuck", "Replace the power board."),
    ("E10", "Mains voltage too low", "Check the supply voltage at the socket."),
    ("E11", "Boiler heat-up too slow", "Descale the boiler; check the heating element."),
    ("E12", "Boiler over temperature", "Reset the safety thermostat; check the NTC sensor."),
    ("E13", "Boiler temperature sensor short circuit", "Replace the NTC sensor (part ES2-2205)."),
    ("E14", "Boiler temperature sensor open circuit", "Check the NTC connector J4; replace the NTC sensor."),
    ("E15", "Communication lost with display board", "Reseat the ribbon cable; replace the display board."),
    ("E16", "Firmware checksum error", "Reload the firmware with the service tool."),
]
SPECS = [
    ("Parameter", "Min", "Typ", "Max", "Unit"),
    ("Supply voltage", "220", "230", "240", "V"),
    ("Power consumption", "", "1450", "1550", "W"),
    ("Heat-up time (from cold)", "", "90", "150", "s"),
    ("Boiler pressure", "0.8", "1.0", "1.2", "bar"),
    ("Pump pressure", "", "15", "17", "bar"),
]
PARTS = [
    ("Part No.", "Description", "Qty"),
    ("ES2-1001", "Boiler cap gasket", "1"),
    ("ES2-2205", "NTC temperature sensor", "1"),
    ("ES2-3310", "Steam solenoid coil", "1"),
    ("ES2-9010", "Descaler sachet", "6"),
]
REVISIONS = [
    ("Rev.", "Date", "Changes"),
    ("A", "2024-03-12", "First issue"),
    ("B", "2024-11-05", "Descaling procedure revised"),
    ("C", "2025-06-20", "Error codes E14 to E16 added"),
]
TONER = [
    "Open the front cover by pulling the release lever.",
    "Pull the toner cartridge out by its handle.",
    "Shake the new cartridge gently five or six times.",
    "Remove the orange protective strip from the new cartridge.",
    "Slide the new cartridge into the printer until it locks.",
    "Close the front cover; the printer prints a test page.",
]


@dataclass
class Sheet:
    """A page being set: a text cursor in a column, lines wrapped to the column's measure."""

    page: pymupdf.Page
    left: float
    right: float
    y: float
    size: float = 9.5
    lead: float = 1.35
    pages: list[pymupdf.Page] = field(default_factory=list)

    def words(self, x: float, text: str, bold: bool = False, size: float | None = None) -> None:
        size = size or self.size
        self.page.insert_text(
            (x, self.y), text, fontsize=size, fontname="djb" if bold else "dj", fontfile=BOLD if bold else FONT
        )

    def paragraph(self, text: str, indent: float = 0.0, bold: bool = False, gap: float = 5.0) -> None:
        for line in wrap(text, self.right - self.left - indent, self.size, bold):
            self.y += self.size * self.lead
            self.words(self.left + indent, line, bold)
        self.y += gap

    def heading(self, text: str, size: float = 12.0) -> None:
        self.y += size * 1.8
        self.words(self.left, text, bold=True, size=size)
        self.y += 4

    def item(self, number: int, text: str, gap: float = 3.0) -> None:
        """A numbered step, its number hanging in the margin of its text."""
        for k, line in enumerate(wrap(text, self.right - self.left - 16, self.size)):
            self.y += self.size * self.lead
            if k == 0:
                self.words(self.left, f"{number}.")
            self.words(self.left + 16, line)
        self.y += gap


def wrap(text: str, width: float, size: float, bold: bool = False) -> list[str]:
    font = pymupdf.Font(fontfile=BOLD if bold else FONT)
    lines: list[str] = []
    current = ""
    for word in text.split():
        trial = f"{current} {word}".strip()
        if current and font.text_length(trial, fontsize=size) > width:
            lines.append(current)
            current = word
        else:
            current = trial
    return [*lines, current] if current else lines


def furniture(page: pymupdf.Page, head: str, number: int, total: int) -> None:
    """Running head over a rule and the page footer, as the manual's template sets them."""
    width = page.rect.width
    page.insert_text((50, 36), head, fontsize=8, fontname="dj", fontfile=FONT, color=(0.3, 0.3, 0.3))
    page.draw_line((50, 42), (width - 50, 42), width=0.5, color=(0.3, 0.3, 0.3))
    footer = f"Page {number} of {total}"
    page.insert_text((width - 50 - 40, page.rect.height - 30), footer, fontsize=8, fontname="dj", fontfile=FONT)


def furnished_pages(doc: pymupdf.Document, head: str, total: int, size: tuple[float, float]) -> list[pymupdf.Page]:
    """``total`` new pages of ``size``, each with the template's running head and footer."""
    for _ in range(total):
        doc.new_page(width=size[0], height=size[1])
    pages = list(doc)[-total:]  # a page new_page returned is no longer valid once another is made
    for number, page in enumerate(pages, 1):
        furniture(page, head, number, total)
    return pages


def triangle(page: pymupdf.Page, x: float, y: float, side: float = 16.0) -> None:
    """A hazard triangle drawn as vector art, its exclamation mark in white."""
    top, left, right = (x + side / 2, y), (x, y + side * 0.87), (x + side, y + side * 0.87)
    shape = page.new_shape()
    shape.draw_polyline([top, right, left, top])
    shape.finish(color=(0, 0, 0), fill=(1, 0.8, 0), width=0.8, closePath=True)
    shape.draw_line((x + side / 2, y + side * 0.3), (x + side / 2, y + side * 0.6))
    shape.finish(color=(0, 0, 0), width=1.6)
    shape.commit()


def notice(sheet: Sheet, label: str, text: str, symbol: str) -> None:
    """A safety notice: its symbol (drawn triangle, "⚠" glyph or ZapfDingbats triangle), then its
    bold label on a line of its own, and its text under the label, indented past the symbol."""
    sheet.y += 14
    x = sheet.left
    if symbol == "drawn":
        triangle(sheet.page, x, sheet.y - 10)
        x += 24
    elif symbol == "glyph":
        sheet.page.insert_text((x, sheet.y), "\u26a0", fontsize=14, fontname="dj", fontfile=FONT)
        x += 20
    elif symbol == "dingbat":
        sheet.page.insert_text((x, sheet.y), "\u25b2", fontsize=12, fontname="zadb")
        x += 20
    sheet.words(x, label, bold=True)
    keep = sheet.left
    sheet.left = x
    sheet.paragraph(text, gap=4)
    sheet.left = keep


def ruled_table(sheet: Sheet, rows: Sequence[Sequence[str]], widths: Sequence[float], header: bool = True) -> None:
    """A table ruled all round, each row one line high, its header row bold."""
    row_h = sheet.size * 1.9
    x0 = sheet.left
    top = sheet.y + 4
    y = top
    for k, row in enumerate(rows):
        x = x0
        for cell, width in zip(row, widths, strict=True):
            sheet.page.insert_text(
                (x + 3, y + row_h - 5),
                cell,
                fontsize=sheet.size - 1,
                fontname="djb" if header and k == 0 else "dj",
                fontfile=BOLD if header and k == 0 else FONT,
            )
            x += width
        sheet.page.draw_line((x0, y), (x0 + sum(widths), y), width=0.5)
        y += row_h
    sheet.page.draw_line((x0, y), (x0 + sum(widths), y), width=0.5)
    column_rules(sheet.page, x0, widths, top, y)
    sheet.y = y + 6


def column_rules(
    page: pymupdf.Page, x0: float, widths: Sequence[float], top: float, bottom: float, width: float = 0.5
) -> None:
    """A ruled table's vertical rules: one at each column's edge, from ``top`` to ``bottom``."""
    x = x0
    for step in [0.0, *widths]:
        x += step
        page.draw_line((x, top), (x, bottom), width=width)


def service_manual(pdf: Path) -> Path:
    """The ES-200 espresso machine's service manual, five A4 pages: safety notices, a maintenance
    schedule, the descaling procedure run on over a page break, an error-code table over two pages,
    then the spec sheet, spare parts and revision history."""
    total = 5
    with pymupdf.open() as doc:
        pages = furnished_pages(doc, "ES-200 Espresso Machine - Service Manual", total, A4)
        s = Sheet(pages[0], 60, 535, 90)
        s.words(60, "ES-200 Espresso Machine", bold=True, size=20)
        s.y += 26
        s.words(60, "Service Manual", bold=True, size=14)
        s.heading("1 Safety")
        s.paragraph(
            "Read these safety notices before you service the machine. "
            "Only trained service technicians may open the housing."
        )
        notice(s, "CAUTION", NOTICES["CAUTION"], "drawn")
        notice(s, "WARNING", NOTICES["WARNING"], "glyph")
        notice(s, "DANGER", NOTICES["DANGER"], "dingbat")
        s.heading("2 Maintenance schedule")
        s.paragraph("Keep to these intervals to keep the machine in good order. Shorten them for hard water.")
        schedule = [
            ("Task", "Interval"),
            ("Clean the brew group", "Daily"),
            ("Empty the grounds container", "Daily"),
            ("Replace the water filter", "Every 2 months"),
            ("Descale the machine", "Every 3 months"),
            ("Replace the boiler cap gasket", "Yearly"),
        ]
        ruled_table(s, schedule, [220, 140])
        s.heading("3 Descaling the machine")
        s.paragraph(
            "Scale builds up in the boiler and the pump with every litre of water. Descale the machine "
            "every three months, or when the descaling lamp lights."
        )
        s.paragraph("To descale the machine:", gap=2)
        for k, step in enumerate(DESCALING[:5], 1):
            s.item(k, step)
        s = Sheet(pages[1], 60, 535, 60)
        for k, step in enumerate(DESCALING[5:], 6):
            s.item(k, step)
        s.paragraph("The whole descaling cycle takes about 25 minutes.")
        s.heading("4 Error codes")
        s.paragraph(
            "The display shows an error code when the controller detects a fault. Look the code up in this table."
        )
        ruled_table(s, [("Code", "Meaning", "Remedy"), *ERRORS[:12]], [45, 190, 240])
        s = Sheet(pages[2], 60, 535, 56)
        ruled_table(s, [("Code", "Meaning", "Remedy"), *ERRORS[12:]], [45, 190, 240])
        s.paragraph("Switch the machine off and on after each remedy. If the code returns, replace the board named.")
        s.heading("5 Specifications")
        ruled_table(s, SPECS, [170, 55, 55, 55, 55])
        s.paragraph("The heat-up time is measured at 230 V with a full tank at 20 °C room temperature.")
        s.heading("6 Spare parts")
        ruled_table(s, PARTS, [90, 220, 50])
        s.heading("7 Revision history")
        ruled_table(s, REVISIONS, [50, 90, 240])
        s = Sheet(pages[3], 60, 535, 60)
        s.heading("8 Replacing the boiler cap gasket")
        s.paragraph("Replace the gasket once a year, or when steam escapes around the boiler cap.")
        s = Sheet(pages[4], 60, 535, 60)
        s.heading("9 Service record")
        s.paragraph("Note each service visit with its date, the work done and the technician's name.")
        doc.save(pdf)
    return pdf


def printer_guide(pdf: Path) -> Path:
    """The LP-40 laser printer's user guide: two Letter pages in two columns; the toner procedure
    runs from the foot of the left column into the top of the right one."""
    with pymupdf.open() as doc:
        pages = furnished_pages(doc, "LP-40 Laser Printer User Guide", 2, LETTER)
        left = Sheet(pages[0], 50, 296, 80)
        left.words(50, "LP-40 Laser Printer", bold=True, size=18)
        left.heading("Loading paper")
        filler = (
            "The paper tray holds up to 250 sheets of 80 g/m² paper. Fan the stack before you load it, "
            "and push the guides against its edges without bending it. "
        )
        left.paragraph(filler * 3)
        left.paragraph("Letter, A4, Legal and envelopes are supported. Load envelopes with the flap down.")
        while left.y < 560:
            left.paragraph("Use only LP-40 cartridges and paper; other supplies can damage the fuser. " * 2)
        left.heading("Replacing the toner cartridge")
        left.paragraph("When the toner lamp lights, replace the toner cartridge as follows:", gap=2)
        for k, step in enumerate(TONER[:4], 1):
            left.item(k, step)
        right = Sheet(pages[0], 316, 562, 80)
        for k, step in enumerate(TONER[4:], 5):
            right.item(k, step)
        right.paragraph("Recycle the used cartridge through the return scheme in its box.")
        right.heading("Clearing a paper jam")
        right.paragraph(("Open the rear door and pull the jammed sheet out slowly with both hands. " * 4).strip())
        doc.save(pdf)
    return pdf


def rule_table(sheet: Sheet, rows: Sequence[Sequence[str]], widths: Sequence[float]) -> None:
    """A table as a word processor's light style sets it: a bold header row over one rule, the
    rows under it unruled, a rule under the last."""
    row_h = sheet.size * 1.7
    x0 = sheet.left
    y = sheet.y + 4
    for k, row in enumerate(rows):
        x = x0
        for cell, width in zip(row, widths, strict=True):
            bold = k == 0
            sheet.page.insert_text(
                (x + 3, y + row_h - 4),
                cell,
                fontsize=sheet.size - 1,
                fontname="djb" if bold else "dj",
                fontfile=BOLD if bold else FONT,
            )
            x += width
        y += row_h
        if k == 0:
            sheet.page.draw_line((x0, y), (x0 + sum(widths), y), width=0.8)
    sheet.page.draw_line((x0, y + 2), (x0 + sum(widths), y + 2), width=0.8)
    sheet.y = y + 8


def spec_sheet(pdf: Path) -> Path:
    """A one-page spare-parts and revision sheet: its error summary, ordering information and
    revision history each a light-style table under a bold heading."""
    with pymupdf.open() as doc:
        doc.new_page(width=A4[0], height=A4[1])
        page = doc[0]
        furniture(page, "ES-200 Espresso Machine - Parts and Revisions", 1, 1)
        s = Sheet(page, 60, 535, 70)
        s.heading("Error summary")
        rule_table(s, [("Code", "Meaning", "Remedy"), *ERRORS[:6]], [45, 190, 240])
        s.heading("Ordering information")
        rule_table(s, PARTS, [90, 220, 50])
        s.heading("Revision history")
        rule_table(s, REVISIONS, [50, 90, 240])
        doc.save(pdf)
    return pdf

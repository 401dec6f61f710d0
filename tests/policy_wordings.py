"""A home-insurance policy wording and its IPID, set as an insurer's typesetting sets them, for tests.

The wording: A4, Helvetica 9.5 pt body, headings bold in the insurer's colour, a running head and a
"Page n of m" foot; defined terms set in bold inside the sentences that use them; each section's
"What is covered" / "What is not covered" as a ruled two-column table; FAQ questions bold over
their answers; a complaints section with numbered steps. The IPID: two A4 pages of boxed, tinted
panels in two columns, each headed by an icon and a bold question, over ticked or crossed items.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pymupdf

Run = tuple[str, bool]  # text, bold
BLUE = (0.0, 0.23, 0.47)
TINT = (0.9, 0.94, 0.98)
REGULAR, BOLD = pymupdf.Font("helv"), pymupdf.Font("hebo")
LEFT, RIGHT, TOP, BOTTOM = 56.0, 539.0, 80.0, 770.0
BODY = 9.5
LEADING = 1.3


def runs(text: str) -> list[Run]:
    """``text`` with ``**bold**`` stretches as runs."""
    parts = text.split("**")
    return [(part, i % 2 == 1) for i, part in enumerate(parts) if part]


def _words(line_runs: Sequence[Run]) -> list[tuple[str, bool, bool]]:
    """Each word, whether it is bold, and whether a space goes before it."""
    out: list[tuple[str, bool, bool]] = []
    gap = False
    for text, bold in line_runs:
        for i, word in enumerate(text.split(" ")):
            if word:
                out.append((word, bold, bool(out) and (i > 0 or gap)))
        gap = text.endswith(" ")
    return out


class Writer:
    """Flows text down the pages of a document at a running y, as a layout program does."""

    def __init__(self, head: str) -> None:
        self.doc = pymupdf.open()
        self.head = head
        self.page = self._new_page()
        self.y = TOP

    def _new_page(self) -> pymupdf.Page:
        page = self.doc.new_page(width=595, height=842)
        page.insert_text((LEFT, 40), self.head, fontname="helv", fontsize=8, color=BLUE)
        page.draw_line((LEFT, 46), (RIGHT, 46), color=BLUE, width=0.5)
        return page

    def room(self, height: float) -> None:
        if self.y + height > BOTTOM:
            self.page = self._new_page()
            self.y = TOP

    def heading(self, text: str, size: float = 14, before: float = 10) -> None:
        self.room(size * 3)
        self.y += before + size
        self.page.insert_text((LEFT, self.y), text, fontname="hebo", fontsize=size, color=BLUE)
        self.y += size * 0.6

    def paragraph(
        self, text: str, size: float = BODY, x0: float = LEFT, x1: float = RIGHT, after: float = 6, bold: bool = False
    ) -> None:
        """``text`` (``**bold**`` runs) wrapped word by word between ``x0`` and ``x1``."""
        lines = wrap(runs(text) if not bold else [(text, True)], size, x1 - x0)
        for line in lines:
            self.room(size * LEADING)
            self.y += size * LEADING
            write_line(self.page, x0, self.y, line, size)
        self.y += after

    def save(self, path: Path) -> Path:
        count = len(self.doc)
        for number, page in enumerate(self.doc, start=1):
            page.insert_text((LEFT, 810), "HIP-W-0326", fontname="helv", fontsize=7)
            page.insert_text((RIGHT - 40, 810), f"Page {number} of {count}", fontname="helv", fontsize=7)
        self.doc.save(path)
        self.doc.close()
        return path


def wrap(line_runs: Sequence[Run], size: float, width: float) -> list[list[tuple[str, bool, bool]]]:
    lines: list[list[tuple[str, bool, bool]]] = [[]]
    used = 0.0
    for word, bold, spaced in _words(line_runs):
        font = BOLD if bold else REGULAR
        grow = font.text_length(word, size) + (REGULAR.text_length(" ", size) if spaced and lines[-1] else 0)
        if lines[-1] and used + grow > width:
            lines.append([])
            used, grow = 0.0, font.text_length(word, size)
        lines[-1].append((word, bold, spaced and len(lines[-1]) > 0))
        used += grow
    return lines


def write_line(page: pymupdf.Page, x: float, y: float, words: Sequence[tuple[str, bool, bool]], size: float) -> None:
    for word, bold, spaced in words:
        if spaced:
            x += REGULAR.text_length(" ", size)
        page.insert_text((x, y), word, fontname="hebo" if bold else "helv", fontsize=size)
        x += (BOLD if bold else REGULAR).text_length(word, size)


def cover_table(writer: Writer, rows: Sequence[tuple[str, str]], size: float = BODY) -> None:
    """A ruled two-column table: "What is covered" | "What is not covered", a row per peril."""
    middle = (LEFT + RIGHT) / 2
    pad = 4.0
    writer.room(40)
    top = writer.y + 4
    writer.page.draw_rect(pymupdf.Rect(LEFT, top, RIGHT, top + 18), color=BLUE, fill=BLUE, width=0.5)
    for x, title in ((LEFT, "What is covered"), (middle, "What is not covered")):
        writer.page.insert_text((x + pad, top + 13), title, fontname="hebo", fontsize=10, color=(1, 1, 1))
    y = top + 18
    for covered, excluded in rows:
        cells = [wrap(runs(text), size, middle - LEFT - 2 * pad) for text in (covered, excluded)]
        height = max(len(cell) for cell in cells) * size * LEADING + 2 * pad
        if y + height > BOTTOM:
            writer.page = writer._new_page()
            y = TOP
        for x, cell in zip((LEFT, middle), cells, strict=True):
            baseline = y + pad
            for line in cell:
                baseline += size * LEADING
                write_line(writer.page, x + pad, baseline - 2, line, size)
        for x in (LEFT, middle, RIGHT):
            writer.page.draw_line((x, y), (x, y + height), color=BLUE, width=0.5)
        writer.page.draw_line((LEFT, y + height), (RIGHT, y + height), color=BLUE, width=0.5)
        y += height
    writer.y = y + 8


DEFINITIONS = [
    ("Accidental damage", "Sudden, unexpected and visible damage which has not been caused on purpose."),
    ("Buildings", "The home, its decorations and fixtures and fittings, garages and outbuildings."),
    ("Contents", "Household goods and personal property within the home belonging to you or your family."),
    ("Excess", "The amount you must pay towards each claim, shown in your schedule."),
    ("Unoccupied", "Not lived in by you or your family for more than 60 days in a row."),
]
BUILDINGS = [
    ("**1. Fire**, smoke, explosion, lightning or earthquake.", "Loss or damage caused by tobacco burns."),
    (
        "**2. Escape of water** from any fixed water or heating installation.",
        "The first £350 of every claim for escape of water. Loss or damage while the home is **Unoccupied**.",
    ),
    ("**3. Theft** or attempted theft.", "Theft by anyone you have allowed into the home."),
    (
        "**4. Accidental damage** to fixed glass and sanitary ware.",
        "Accidental damage to any other part of the **buildings**, unless shown in your schedule.",
    ),
]
CONTENTS = [
    ("**1. Fire**, smoke, explosion, lightning or earthquake.", "Loss or damage caused by tobacco burns."),
    ("**2. Theft** or attempted theft.", "Theft from an unlocked outbuilding or garage."),
    ("**3. Accidental damage** to televisions and computers.", "Damage to mobile phones and laptops away from home."),
]
FAQ = [
    (
        "Can I cancel my policy?",
        "Yes. You can cancel within 14 days of receiving your documents and we will refund your premium in full.",
    ),
    ("How do I make a claim?", "Call our claims line on 0800 123 4567, open 24 hours a day, 365 days a year."),
    (
        "What happens if I need to make a claim while I am away from home?",
        "Our claims line is open from abroad on +44 117 496 0000; keep receipts for any emergency repairs.",
    ),
]
COMPLAINT_STEPS = [
    "1. Telephone our customer relations team on 0800 765 4321.",
    "2. Write to Customer Relations, Harbour Mutual, 1 Quay Street, Bristol BS1 4AA.",
    "3. Email complaints@harbourmutual.example.",
]
COMPLAINT_WAYS = ["\u2022 " + step.split(" ", 1)[1] for step in COMPLAINT_STEPS]  # the same ways, bulleted
COMPLAINT_LINES = [step.split(" ", 1)[1] for step in COMPLAINT_STEPS]  # the same ways, set in without a mark
COMPLAINT_WRAPPED = [  # set in without a mark, the second too long for its line
    COMPLAINT_LINES[0],
    "Write to Customer Relations, Harbour Mutual, 1 Quay Street, Bristol BS1 4AA, giving your policy "
    "number and the date of any claim you have made.",
    COMPLAINT_LINES[2],
]
FILLER = (
    "Please read this policy wording together with your schedule and any endorsements, as they form one "
    "contract between you and us. "
)


def wording_pdf(path: Path, question_size: float = 10.5, complaint_steps: Sequence[str] = COMPLAINT_STEPS) -> Path:
    """The policy wording: definitions, two sections of cover tables, the FAQ and complaints (the
    ways to complain as ``complaint_steps``: numbered, bulleted as :data:`COMPLAINT_WAYS`, or set
    in without a mark as :data:`COMPLAINT_LINES` or, one wrapping onto a second line, as
    :data:`COMPLAINT_WRAPPED`)."""
    w = Writer("Harbour Mutual Home Insurance - Policy Wording")
    w.heading("Home Insurance Policy Wording", size=20, before=6)
    w.paragraph(FILLER * 3)
    w.heading("Definitions")
    w.paragraph("Words shown in **bold** have the meanings given below wherever they appear in this policy.")
    for term, meaning in DEFINITIONS:
        w.paragraph(f"**{term}** {meaning}")
    w.heading("Section 1 - Buildings")
    w.paragraph(
        "We will insure your **buildings** against the loss or damage listed below. We will not pay more "
        "than the sum insured shown in your schedule for any one claim, nor for any loss or damage that "
        "happens while the home is **Unoccupied**."
    )
    cover_table(w, BUILDINGS)
    w.heading("Section 2 - Contents")
    w.paragraph(
        "We will insure your **contents** against the loss or damage listed below while they are in the "
        "home. Cover for **accidental damage** to your **contents** applies only if shown in your schedule."
    )
    cover_table(w, CONTENTS)
    w.heading("Frequently asked questions")
    for question, answer in FAQ:
        w.paragraph(question, size=question_size, bold=True, after=2)
        w.paragraph(answer)
    w.heading("How to make a complaint")
    w.paragraph("If you are unhappy with our service, please contact us in one of these ways:", after=2)
    for step in complaint_steps:
        w.paragraph(step, x0=LEFT + 12, after=2)
    w.paragraph(
        "If you remain unhappy you may refer your complaint to the Financial Ombudsman Service within "
        "six months of our final response."
    )
    return w.save(path)


IPID_PANELS = [  # (page, column, heading, icon, items)
    (
        1,
        0,
        "What is insured?",
        "tick",
        [
            "Buildings cover up to £500,000 for fire, flood, storm, theft and escape of water",
            "Contents cover up to £60,000",
            "Alternative accommodation while your home cannot be lived in",
        ],
    ),
    (
        1,
        0,
        "What is not insured?",
        "cross",
        [
            "Wear and tear and gradual deterioration",
            "Loss or damage while your home is unoccupied for more than 60 days",
            "Accidental damage, unless you have added this optional cover",
        ],
    ),
    (
        1,
        1,
        "Are there any restrictions on cover?",
        "warn",
        [
            "An excess of £350 applies to escape of water claims",
            "An excess of £100 applies to all other claims",
            "Bicycles are covered up to £1,000 each",
        ],
    ),
    (2, 0, "Where am I covered?", "tick", ["At the home address shown in your schedule in the United Kingdom"]),
    (
        2,
        1,
        "What are my obligations?",
        "warn",
        ["Tell us about any changes to your details", "Take reasonable care to prevent loss or damage"],
    ),
    (2, 0, "When and how do I pay?", "warn", ["Pay annually by card, or monthly by direct debit"]),
    (2, 1, "When does the cover start and end?", "warn", ["Cover lasts 12 months from the start date shown"]),
    (2, 0, "How do I cancel the contract?", "warn", ["Call us on 0800 765 4321 within 14 days for a full refund"]),
]


def _icon(page: pymupdf.Page, x: float, y: float, kind: str, radius: float = 7.0) -> None:
    """A filled circle with a white tick, cross or exclamation mark drawn in it."""
    colour = {"tick": (0.1, 0.55, 0.2), "cross": (0.8, 0.1, 0.1), "warn": (0.95, 0.6, 0.0)}[kind]
    page.draw_circle((x, y), radius, color=colour, fill=colour)
    white, k = (1.0, 1.0, 1.0), radius / 7.0  # the mark drawn inside the disc, to its scale
    if kind == "tick":
        page.draw_polyline([(x - 3.5 * k, y), (x - k, y + 3 * k), (x + 4 * k, y - 3 * k)], color=white, width=1.6 * k)
    elif kind == "cross":
        page.draw_line((x - 3 * k, y - 3 * k), (x + 3 * k, y + 3 * k), color=white, width=1.6 * k)
        page.draw_line((x - 3 * k, y + 3 * k), (x + 3 * k, y - 3 * k), color=white, width=1.6 * k)
    else:
        page.draw_line((x, y - 4 * k), (x, y + k), color=white, width=1.8 * k)
        page.draw_circle((x, y + 3.5 * k), 0.9 * k, color=white, fill=white)


def ipid_pdf(path: Path, company_y: float = 96.0) -> Path:
    """The IPID: two pages of tinted, boxed panels in two columns, each headed by an icon and a bold
    question over its items; the panels of the two columns start level. The "Company:" field's
    baseline at ``company_y``, over the introduction's first at 112."""
    size, gap = 9.0, 14.0
    column = (RIGHT - LEFT - gap) / 2
    doc = pymupdf.open()
    for number in (1, 2):
        page = doc.new_page(width=595, height=842)
        if number == 1:
            page.insert_text((LEFT, 60), "Home Insurance", fontname="hebo", fontsize=18, color=BLUE)
            page.insert_text((LEFT, 80), "Insurance Product Information Document", fontname="hebo", fontsize=12)
            page.insert_text((LEFT, company_y), "Company: Harbour Mutual Insurance plc", fontname="helv", fontsize=9)
            intro = (
                "This document provides a summary of the main cover and exclusions. Complete pre-contractual "
                "and contractual information is provided in your policy wording and schedule."
            )
            y = 112.0
            for line in wrap(runs(intro), size, RIGHT - LEFT):
                write_line(page, LEFT, y, line, size)
                y += size * LEADING
            start = y + 10
        else:
            start = 60.0
        tops = [start, start]
        for _, col, heading, icon, items in (panel for panel in IPID_PANELS if panel[0] == number):
            x0 = LEFT + col * (column + gap)
            top = max(tops) if heading.startswith("When") else tops[col]  # a row of panels starts level
            lines = [wrap(runs(item), size, column - 34) for item in items]
            height = 36 + sum(len(item) * size * LEADING + 3 for item in lines) + 6
            page.draw_rect(pymupdf.Rect(x0, top, x0 + column, top + height), color=BLUE, fill=TINT, width=0.8)
            _icon(page, x0 + 14, top + 16, icon)
            page.insert_text((x0 + 28, top + 20), heading, fontname="hebo", fontsize=11, color=BLUE)
            y = top + 36
            for item in lines:
                _icon(page, x0 + 14, y - 3, icon, radius=3.5)
                for line in item:
                    write_line(page, x0 + 24, y, line, size)
                    y += size * LEADING
                y += 3
            tops[col] = top + height + 10
        page.insert_text((LEFT, 810), f"IPID HIP-0326 page {number} of 2", fontname="helv", fontsize=7)
    doc.save(path)
    doc.close()
    return path

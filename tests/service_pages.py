"""One-page service bulletins and manual pages with margin notes, set as a word processor or DTP
tool sets them (the page furniture and type of :mod:`tests.service_manuals`)."""

from __future__ import annotations

from pathlib import Path

import pymupdf

from tests.service_manuals import A4, FONT, LETTER, Sheet, furnished_pages, furniture, wrap

BULLETIN_HEAD = "ES-200 Espresso Machine - Service Bulletin SB-2025-07"
NTC_STEPS = [
    "Switch the machine off, pull the mains plug and let the boiler cool for 30 minutes.",
    "Remove the housing and unplug the NTC sensor from connector J4 on the power board.",
    "Unscrew the old sensor from the boiler and fit the new sensor (part ES2-2205) with a new seal.",
    "Plug the sensor into J4, refit the housing and run the heat-up test from the service menu.",
]


def service_bulletin(pdf: Path) -> Path:
    """A one-page service bulletin, as a word processor's template sets it: the running head over a
    rule atop the page (nothing repeats it on a second page), the bulletin's title, the affected
    machines, the reason and the procedure, and "Page 1 of 1" at the foot."""
    with pymupdf.open() as doc:
        page = doc.new_page(width=A4[0], height=A4[1])
        furniture(page, BULLETIN_HEAD, 1, 1)
        s = Sheet(page, 60, 535, 70)
        s.heading("Replacement of the boiler temperature sensor", size=16)
        s.paragraph(
            "Affected machines: ES-200 with serial numbers 24A0001 to 24C9999, built between March and September 2024."
        )
        s.heading("Reason")
        s.paragraph(
            "A batch of NTC temperature sensors drifts with age, so that the boiler runs hot and the machine "
            "shows error E12 or E13. Replace the sensor at the next service visit, or at once when either "
            "error is reported."
        )
        s.heading("Procedure")
        for k, step in enumerate(NTC_STEPS, 1):
            s.item(k, step)
        s.paragraph("Record the sensor change and the bulletin number in the machine's service record.")
        doc.save(pdf)
    return pdf


GRINDER = (
    "The grinder's burrs wear with every kilogram of beans. Check the grind size each time you service "
    "the machine: grind one dose at the factory setting and weigh it. A dose lighter than 7 grams means "
    "worn burrs. Take out the bean hopper, unscrew the upper burr carrier with the service key and lift "
    "it out. Clean both burrs with the grinder brush, never with water, and fit new burrs (part "
    "ES2-4410) when their edges are rounded. Refit the carrier, turn it back to the factory setting and "
    "grind two doses to clear the old grounds before you weigh a dose again."
)
MARGIN_NOTES = [("Service key: part ES2-0001.", 3), ("Never wash the burrs.", 6)]


def margin_notes_manual(pdf: Path) -> Path:
    """Two pages of a service manual set with a wide outer margin, as DTP templates set one: the
    body in a narrow column, and short notes set small in the margin beside the lines they remark
    on (``MARGIN_NOTES``: each note's text and the body line it sits beside)."""
    with pymupdf.open() as doc:
        pages = furnished_pages(doc, "ES-200 Espresso Machine - Service Manual", 2, A4)
        s = Sheet(pages[0], 60, 400, 70)
        s.heading("10 Servicing the grinder")
        notes = dict((line, text) for text, line in MARGIN_NOTES)
        for n, line in enumerate(wrap(GRINDER, s.right - s.left, s.size), 1):
            s.y += s.size * s.lead
            s.words(s.left, line)
            # written where the note is anchored, after its line, as LaTeX's \marginpar and a word
            # processor's anchored frame write them
            for k, row in enumerate(wrap(notes.get(n, ""), 115, 7.5)):
                pages[0].insert_text((420, s.y + k * 9.5), row, fontsize=7.5, fontname="dj", fontfile=FONT)
        s.y += 5
        s.paragraph("Reset the grinder counter in the service menu after you fit new burrs.")
        s = Sheet(pages[1], 60, 400, 70)
        s.heading("11 Servicing the pump")
        s.paragraph("Check the pump pressure once a year with the test manometer on the brew group.")
        doc.save(pdf)
    return pdf


SUPPLIES = [
    "Toner cartridge LP-40T: 2,500 pages.",
    "Drum unit LP-40D: 12,000 pages.",
    "Fuser kit LP-40F: 50,000 pages.",
]


def short_right_column(pdf: Path) -> Path:
    """A user guide's page in two columns, the right one short: the left column's text runs the
    page's length, the right column holds a heading and a few lines at its top."""
    with pymupdf.open() as doc:
        pages = furnished_pages(doc, "LP-40 Laser Printer User Guide", 2, LETTER)
        left = Sheet(pages[0], 50, 296, 80)
        left.heading("Cleaning the printer")
        for text in CLEANING:
            left.paragraph(text)
        right = Sheet(pages[0], 316, 562, 80)
        right.heading("Supplies")
        for line in SUPPLIES:
            right.paragraph(line, gap=1.0)
        Sheet(pages[1], 50, 296, 80).paragraph("Keep the printer away from direct sunlight and heaters.")
        doc.save(pdf)
    return pdf


CLEANING = [
    "Switch the printer off and unplug it before you clean it. Wipe the outside with a soft cloth "
    "dampened with water; never use solvents or sprays, which can damage the casing and the sensors.",
    "Open the front cover and take out the toner cartridge. Wipe the paper path and the feed rollers "
    "with a dry lint-free cloth, turning each roller by hand so that you clean it all round.",
    "Clean the window of the laser unit with the cleaning wand stored inside the front cover. Slide "
    "the wand gently from left to right two or three times, then put it back in its holder.",
    "Refit the toner cartridge, close the front cover and plug the printer in. Print a test page "
    "from the menu to check that the prints are clean.",
]

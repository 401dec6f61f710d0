"""One-page service bulletins, set as a word processor sets them (the page furniture and type of
:mod:`tests.service_manuals`)."""

from __future__ import annotations

from pathlib import Path

import pymupdf

from tests.service_manuals import A4, Sheet, furniture

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

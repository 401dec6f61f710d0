"""A component datasheet made for tests as a semiconductor maker's DTP template sets it: Letter,
an embedded sans font, a running head with the part number and the document number and revision
("SLVS123C – MARCH 2019 – REVISED JUNE 2024") over a rule, a footer with the copyright line and the
page number; the title block, the features in two columns of bullets, the applications and the
description on page 1 with the functional block diagram; the pinout figure and the pin table;
ruled specification tables (MIN / TYP / MAX / UNIT) with their notes "(1) ..." set small under
them, the electrical characteristics running on over a page break under a "(continued)" caption;
typical characteristics charts; the register map; "see Figure 3", "see Table 6", "Note 2"."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pymupdf

from tests.board_minutes import wrap
from tests.service_manuals import column_rules

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
BOLD = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"
FONTS = {False: ("dj", FONT), True: ("djb", BOLD)}
MEASURE = {False: pymupdf.Font(fontfile=FONT), True: pymupdf.Font(fontfile=BOLD)}
LEFT, RIGHT = 50.0, 562.0
BODY = 9.0
RED = (0.75, 0.0, 0.0)
PART = "XLD3305"
DOC_NUMBER = "SLVS123C – MARCH 2019 – REVISED JUNE 2024"
_MARK = re.compile(r"^(.*\S)(\(\d\))$")  # a note's mark after a word: "Dropout voltage(1)"
TITLE = "XLD3305 300-mA Low-Dropout Regulator With I²C Watchdog and Power-Good Output"

FEATURES_LEFT = [
    "Input voltage range: 1.8 V to 6.5 V",
    "300-mA output current",
    "Low quiescent current: 25 µA typical",
    "Low dropout: 180 mV at 300 mA",
    "±1% output accuracy over line, load and temperature (–40 °C to 125 °C)",
]
FEATURES_RIGHT = [
    "Programmable watchdog timer: 0.2 s to 1.6 s",
    "I²C interface up to 400 kHz",
    "Open-drain power-good output",
    "Thermal shutdown and current limit",
    "8-pin SOIC package (4.9 mm × 3.9 mm)",
]
APPLICATIONS = [
    "Microcontroller supplies in industrial sensors",
    "Smart meters and building automation",
    "Battery-powered medical monitors",
]
DESCRIPTION = (
    "The XLD3305 is a 300-mA low-dropout linear regulator with a programmable watchdog timer and an "
    "open-drain power-good output. The output voltage, the watchdog timeout and the power-good "
    "threshold are set through the I²C interface. The device is stable with a 1-µF ceramic output "
    "capacitor and draws only 25 µA of quiescent current at no load."
)
PINS = [
    ["PIN NO.", "NAME", "I/O", "DESCRIPTION"],
    ["1", "IN", "I", "Input supply. Bypass with a 1-µF ceramic capacitor to GND."],
    ["2", "EN", "I", "Enable input. Drive high to turn the regulator on; do not leave floating."],
    ["3", "SCL", "I", "I²C serial clock input."],
    ["4", "GND", "—", "Ground."],
    ["5", "SDA", "I/O", "I²C serial data input and output, open drain. Pull up to the I/O supply."],
    ["6", "PG", "O", "Power-good output, open drain. Goes low when the output falls below 90% of its setting."],
    ["7", "WDI", "I", "Watchdog input. Toggle within the timeout period to keep the watchdog from expiring."],
    ["8", "OUT", "O", "Regulated output. Bypass with a 1-µF ceramic capacitor to GND."],
]
ABS_MAX = [
    ["", "MIN", "MAX", "UNIT"],
    ["Input voltage, VIN", "–0.3", "7.0", "V"],
    ["Enable voltage, VEN", "–0.3", "7.0", "V"],
    ["SCL, SDA, WDI, PG voltage", "–0.3", "6.0", "V"],
    ["Output voltage, VOUT", "–0.3", "6.0", "V"],
    ["Junction temperature, TJ", "–55", "150", "°C"],
    ["Storage temperature, Tstg(2)", "–65", "150", "°C"],
]
ABS_MAX_NOTES = [
    "(1) Stresses beyond those listed under Absolute Maximum Ratings may cause permanent damage to the "
    "device. These are stress ratings only; functional operation at these or any other conditions "
    "beyond those under Recommended Operating Conditions is not implied.",
    "(2) Storage beyond 1000 hours at 150 °C may degrade the solderability of the leads.",
]
RECOMMENDED = [
    ["", "MIN", "NOM", "MAX", "UNIT"],
    ["Input voltage, VIN", "1.8", "", "6.5", "V"],
    ["Output current, IOUT", "0", "", "300", "mA"],
    ["Output capacitor, COUT", "1", "2.2", "47", "µF"],
    ["Operating junction temperature, TJ", "–40", "", "125", "°C"],
]
THERMAL = [
    ["THERMAL METRIC(1)", "D (SOIC) 8 PINS", "UNIT"],
    ["RθJA Junction-to-ambient thermal resistance", "118.4", "°C/W"],
    ["RθJC(top) Junction-to-case (top) thermal resistance", "62.1", "°C/W"],
    ["RθJB Junction-to-board thermal resistance", "58.7", "°C/W"],
]
THERMAL_NOTES = [
    "(1) For more information about traditional and new thermal metrics, see the Semiconductor and IC Package "
    "Thermal Metrics application report, SPRA953."
]
EC_HEADER = ["PARAMETER", "TEST CONDITIONS", "MIN", "TYP", "MAX", "UNIT"]
EC_FIRST = [
    ["VIN Input voltage range", "", "1.8", "", "6.5", "V"],
    ["IQ Quiescent current", "IOUT = 0 mA, TJ = 25°C", "", "25", "35", "µA"],
    ["", "IOUT = 0 mA, TJ = –40°C to 125°C", "", "", "50", "µA"],
    ["ISHDN Shutdown current", "VEN = 0 V", "", "0.1", "1", "µA"],
    ["VDO Dropout voltage(1)", "IOUT = 300 mA", "", "180", "280", "mV"],
    ["ΔVOUT Output accuracy", "IOUT = 1 mA to 300 mA", "–1", "", "1", "%"],
    ["ILIM Output current limit", "VOUT = 90% of VOUT(nom)", "350", "500", "700", "mA"],
]
EC_REST = [
    ["PSRR Power-supply rejection", "f = 1 kHz, IOUT = 10 mA", "", "70", "", "dB"],
    ["tWD Watchdog timeout period", "WDT[1:0] = 11", "1.2", "1.6", "2.0", "s"],
    ["VPG Power-good threshold", "VOUT falling", "87", "90", "93", "%"],
    ["VIH EN high threshold", "", "1.2", "", "", "V"],
    ["VIL EN low threshold", "", "", "", "0.4", "V"],
    ["TSD Thermal shutdown temperature(2)", "Temperature rising", "", "165", "", "°C"],
]
EC_NOTES = [
    "(1) Dropout voltage is the input-to-output voltage difference when the output has dropped to 95% of its "
    "nominal value.",
    "(2) Thermal shutdown protects the device; operation above 125 °C junction temperature is not recommended.",
]
REGISTERS = [
    ["ADDR", "NAME", "ACCESS", "RESET", "DESCRIPTION"],
    ["0x00", "STATUS", "R", "0x00", "Status flags: PG, thermal shutdown, current limit."],
    ["0x01", "CTRL", "R/W", "0x01", "Output enable (bit 0) and soft-start time (bits 2:1)."],
    ["0x02", "VSET", "R/W", "0x0C", "Output voltage setting in 50-mV steps from 0.8 V."],
    ["0x03", "WDCTRL", "R/W", "0x00", "Watchdog control: WDEN (bit 7) enables the watchdog; WDT[1:0] set its timeout."],
    ["0x04", "PGCTRL", "R/W", "0x02", "Power-good threshold (bits 1:0) and delay (bits 3:2)."],
]
OVERVIEW = (
    "The XLD3305 regulates its output from an internal bandgap reference through an error amplifier "
    "driving a PMOS pass element (see Figure 1). The watchdog timer and the power-good comparator "
    "run from the same reference, and are set through the register map (see Table 6)."
)
WATCHDOG = (
    "The watchdog is off after power-up. Set WDEN to enable it; it then expects a rising edge on WDI "
    "within the timeout period set by WDT[1:0], and pulls PG low for 10 ms when none comes. The "
    "timeout has a tolerance of ±25% (see Note 2 of Table 5 for the thermal limits on its use)."
)
TYPICAL = (
    "TJ = 25°C, VIN = VOUT(nom) + 0.5 V, IOUT = 10 mA, CIN = COUT = 1 µF, unless otherwise noted. "
    "The quiescent current rises with temperature (see Figure 3)."
)


@dataclass
class Sheet:
    """One datasheet page: its furniture drawn, and a cursor ``y`` down the body."""

    page: pymupdf.Page
    y: float = 80.0

    def put(self, x: float, y: float, text: str, size: float = BODY, bold: bool = False) -> None:
        """``text`` set at ``x``, ``y``; a note's mark closing it ("Tstg(2)") set small and raised."""
        name, file = FONTS[bold]
        marked = _MARK.match(text)
        words = marked.group(1) if marked else text
        self.page.insert_text((x, y), words, fontsize=size, fontname=name, fontfile=file)
        if marked:
            x += MEASURE[bold].text_length(words, fontsize=size)
            self.page.insert_text(
                (x, y - size * 0.35), marked.group(2), fontsize=size * 0.65, fontname=name, fontfile=file
            )

    def heading(self, text: str, size: float = 12.0, x: float = LEFT) -> None:
        self.y += size * 1.9
        name, file = FONTS[True]
        self.page.insert_text((x, self.y), text, fontsize=size, fontname=name, fontfile=file, color=RED)
        self.y += 5

    def paragraph(self, text: str, x0: float = LEFT, x1: float = RIGHT, size: float = BODY) -> None:
        for line in wrap(text, size, False, x1 - x0):
            self.y += size * 1.4
            self.put(x0, self.y, line, size)
        self.y += 6

    def bullets(self, items: Sequence[str], x0: float, x1: float) -> None:
        for item in items:
            for k, line in enumerate(wrap(item, BODY, False, x1 - x0 - 12)):
                self.y += BODY * 1.4
                if k == 0:
                    self.put(x0, self.y, "•")
                self.put(x0 + 12, self.y, line)
            self.y += 3

    def caption(self, text: str, centre: float = (LEFT + RIGHT) / 2) -> None:
        width = MEASURE[True].text_length(text, fontsize=8.5)
        self.y += 13
        self.put(centre - width / 2, self.y, text, 8.5, bold=True)
        self.y += 4

    def notes(self, notes: Sequence[str], size: float = 7.5) -> None:
        for note in notes:
            for k, line in enumerate(wrap(note, size, False, RIGHT - LEFT - 12)):
                self.y += size * 1.35
                self.put(LEFT + (12 if k else 0), self.y, line, size)
            self.y += 1


def furniture(page: pymupdf.Page, number: int) -> None:
    """The running head (part number, site, document number and revision over a rule) and the
    footer (feedback line, copyright, page number)."""
    sheet = Sheet(page)
    sheet.put(LEFT, 34, PART, 9, bold=True)
    sheet.put(
        RIGHT - MEASURE[False].text_length("www.xyz-instruments.com", fontsize=8), 30, "www.xyz-instruments.com", 8
    )
    sheet.put(RIGHT - MEASURE[False].text_length(DOC_NUMBER, fontsize=8), 40, DOC_NUMBER, 8)
    page.draw_line((LEFT, 46), (RIGHT, 46), width=0.75)
    page.draw_line((LEFT, 748), (RIGHT, 748), width=0.5)
    sheet.put(LEFT, 760, "Submit Documentation Feedback", 7.5)
    copyright_line = "Copyright © 2019–2024, XYZ Instruments Incorporated"
    sheet.put(306 - MEASURE[False].text_length(copyright_line, fontsize=7.5) / 2, 760, copyright_line, 7.5)
    sheet.put(RIGHT - 6, 760, str(number), 8, bold=True)
    sheet.put(LEFT, 770, f"Product Folder Links: {PART}", 7.5)


def ruled_table(
    sheet: Sheet, rows: Sequence[Sequence[str]], widths: Sequence[float], size: float = 8.0, x0: float = LEFT
) -> None:
    """A table ruled in a grid, its header row bold, a cell wrapped over lines where it is long."""
    top = y = sheet.y + 4
    sheet.page.draw_line((x0, y), (x0 + sum(widths), y), width=0.8)
    for r, row in enumerate(rows):
        cells = [wrap(cell, size, r == 0, width - 6) if cell else [] for cell, width in zip(row, widths, strict=True)]
        height = max(1, *(len(lines) for lines in cells)) * size * 1.3 + 5
        x = x0
        for lines, width in zip(cells, widths, strict=True):
            for k, line in enumerate(lines):
                sheet.put(x + 3, y + size + 2 + k * size * 1.3, line, size, bold=r == 0)
            x += width
        y += height
        sheet.page.draw_line((x0, y), (x0 + sum(widths), y), width=0.8 if r == 0 else 0.4)
    column_rules(sheet.page, x0, widths, top, y, width=0.4)
    sheet.y = y + 2


def block_diagram(sheet: Sheet) -> None:
    """The functional block diagram: blocks drawn as boxes with their names, wires between them,
    the pin names at the edge."""
    page, top = sheet.page, sheet.y + 8
    blocks = [
        (110, 30, "Bandgap Reference"),
        (250, 30, "Error Amplifier"),
        (390, 30, "PMOS Pass Element"),
        (110, 100, "I²C Interface"),
        (250, 100, "Watchdog Timer"),
        (390, 100, "Power-Good Comparator"),
    ]
    page.draw_rect(pymupdf.Rect(95, top, 520, top + 160), width=0.8)
    for x, dy, name in blocks:
        page.draw_rect(pymupdf.Rect(x, top + dy, x + 110, top + dy + 34), width=0.6, fill=(0.92, 0.95, 1.0))
        sheet.put(x + 6, top + dy + 20, name, 7)
    for x, dy in ((220, 47), (360, 47), (220, 117), (360, 117)):
        page.draw_line((x, top + dy), (x + 30, top + dy), width=0.6)
    for y, pin in ((top + 47, "IN"), (top + 110, "SCL"), (top + 124, "SDA")):
        page.draw_line((70, y), (110, y), width=0.6)
        sheet.put(56, y + 3, pin, 7, bold=True)
    for y, pin in ((top + 47, "OUT"), (top + 117, "PG")):
        page.draw_line((500, y), (530, y), width=0.6)
        sheet.put(534, y + 3, pin, 7, bold=True)
    sheet.put(300, top + 172, "GND", 7, bold=True)
    sheet.y = top + 176


def pinout(sheet: Sheet) -> None:
    """The pinout: the package drawn as a box, its pins numbered 1-4 down the left, 5-8 up the right."""
    page, top = sheet.page, sheet.y + 8
    page.draw_rect(pymupdf.Rect(250, top, 360, top + 100), width=0.8)
    page.draw_circle((262, top + 12), 3, width=0.5)
    for k in range(4):
        y = top + 18 + k * 22
        left, right = PINS[1 + k], PINS[8 - k]
        page.draw_rect(pymupdf.Rect(238, y - 4, 250, y + 4), width=0.5)
        page.draw_rect(pymupdf.Rect(360, y - 4, 372, y + 4), width=0.5)
        sheet.put(200, y + 3, left[1], 7.5)
        sheet.put(242, y + 3, left[0], 6)
        sheet.put(364, y + 3, right[0], 6)
        sheet.put(380, y + 3, right[1], 7.5)
    sheet.y = top + 100


def chart(sheet: Sheet, x0: float, top: float, axes: tuple[str, str], caption: str, rising: bool) -> None:
    """A typical-characteristics chart: frame, grid, tick values, a curve, axis names, caption."""
    page, w, h = sheet.page, 200.0, 130.0
    page.draw_rect(pymupdf.Rect(x0, top, x0 + w, top + h), width=0.6)
    for k in range(5):
        x, y = x0 + k * w / 4, top + h - k * h / 4
        page.draw_line((x, top), (x, top + h), color=(0.75, 0.75, 0.75), width=0.3)
        page.draw_line((x0, y), (x0 + w, y), color=(0.75, 0.75, 0.75), width=0.3)
        sheet.put(x - 5, top + h + 9, str(-40 + 40 * k), 6.5)
        sheet.put(x0 - 14, y + 2.5, str(10 * k), 6.5)
    curve = [(i / 20) ** 2 if rising else i / 20 for i in range(21)]
    page.draw_polyline([pymupdf.Point(x0 + i * w / 20, top + h - v * h * 0.8) for i, v in enumerate(curve)], width=1)
    sheet.put(x0 + 50, top + h + 20, axes[0], 7)
    page.insert_text((x0 - 20, top + 100), axes[1], fontsize=7, rotate=90, fontname="dj", fontfile=FONT)
    width = MEASURE[True].text_length(caption, fontsize=8.5)
    sheet.put(x0 + w / 2 - width / 2, top + h + 36, caption, 8.5, bold=True)


def first_page(sheet: Sheet) -> None:
    """The title block, features in two columns, applications, description, the block diagram."""
    sheet.put(LEFT, 70, TITLE[: TITLE.index(" With")], 16, bold=True)
    sheet.put(LEFT, 90, TITLE[TITLE.index("With") :], 16, bold=True)
    sheet.y = 100
    sheet.heading("1 Features")
    top = sheet.y
    sheet.bullets(FEATURES_LEFT, LEFT, 300)
    bottom, sheet.y = sheet.y, top
    sheet.bullets(FEATURES_RIGHT, 312, RIGHT)
    sheet.y = max(bottom, sheet.y)
    sheet.heading("2 Applications")
    sheet.bullets(APPLICATIONS, LEFT, RIGHT)
    sheet.heading("3 Description")
    sheet.paragraph(DESCRIPTION)
    block_diagram(sheet)
    sheet.caption("Figure 1. Functional Block Diagram")


def second_page(sheet: Sheet) -> None:
    """The pinout and the pin table; the absolute maximum ratings and their notes."""
    sheet.heading("4 Pin Configuration and Functions")
    pinout(sheet)
    sheet.caption("Figure 2. D Package 8-Pin SOIC (Top View)")
    sheet.caption("Table 1. Pin Functions")
    ruled_table(sheet, PINS, [60, 60, 40, 352])
    sheet.heading("5 Specifications")
    sheet.heading("5.1 Absolute Maximum Ratings", size=10.5)
    sheet.paragraph("over operating free-air temperature range (unless otherwise noted)(1)", size=8)
    sheet.caption("Table 2. Absolute Maximum Ratings")
    ruled_table(sheet, ABS_MAX, [272, 80, 80, 80])
    sheet.notes(ABS_MAX_NOTES)


def third_page(sheet: Sheet) -> None:
    """Recommended operating conditions; the electrical characteristics, the first rows."""
    sheet.heading("5.2 Recommended Operating Conditions", size=10.5)
    sheet.paragraph("over operating free-air temperature range (unless otherwise noted)", size=8)
    sheet.caption("Table 3. Recommended Operating Conditions")
    ruled_table(sheet, RECOMMENDED, [232, 70, 70, 70, 70])
    sheet.heading("5.3 Thermal Information", size=10.5)
    sheet.caption("Table 4. Thermal Information")
    ruled_table(sheet, THERMAL, [312, 120, 80])
    sheet.notes(THERMAL_NOTES)
    sheet.heading("5.4 Electrical Characteristics", size=10.5)
    sheet.paragraph(
        "at TJ = –40°C to +125°C, VIN = VOUT(nom) + 0.5 V, IOUT = 1 mA, CIN = COUT = 1 µF (unless otherwise "
        "noted); typical values are at TJ = 25°C",
        size=8,
    )
    sheet.caption("Table 5. Electrical Characteristics")
    ruled_table(sheet, [EC_HEADER, *EC_FIRST], [150, 162, 50, 50, 50, 50])


def fourth_page(sheet: Sheet) -> None:
    """The electrical characteristics run on under their caption and header; their notes; the
    typical characteristics charts."""
    sheet.caption("Table 5. Electrical Characteristics (continued)")
    ruled_table(sheet, [EC_HEADER, *EC_REST], [150, 162, 50, 50, 50, 50])
    sheet.notes(EC_NOTES)
    sheet.heading("5.5 Typical Characteristics", size=10.5)
    sheet.paragraph(TYPICAL)
    top = sheet.y + 10
    chart(sheet, 80, top, ("TEMPERATURE (°C)", "IQ (µA)"), "Figure 3. Quiescent Current vs Temperature", True)
    chart(sheet, 340, top, ("OUTPUT CURRENT (mA)", "VDO (mV)"), "Figure 4. Dropout Voltage vs Output Current", False)


def fifth_page(sheet: Sheet) -> None:
    """The detailed description: overview, watchdog, register map."""
    sheet.heading("6 Detailed Description")
    sheet.heading("6.1 Overview", size=10.5)
    sheet.paragraph(OVERVIEW)
    sheet.heading("6.2 Watchdog Timer", size=10.5)
    sheet.paragraph(WATCHDOG)
    sheet.heading("6.3 Register Map", size=10.5)
    sheet.caption("Table 6. Register Map")
    ruled_table(sheet, REGISTERS, [50, 70, 55, 50, 287])


def datasheet(pdf: Path) -> Path:
    """The XLD3305's datasheet, five Letter pages."""
    with pymupdf.open() as doc:
        for _ in range(5):
            doc.new_page(width=612, height=792)
        for number, (page, fill) in enumerate(
            zip(doc, (first_page, second_page, third_page, fourth_page, fifth_page), strict=True), 1
        ):
            furniture(page, number)
            fill(Sheet(page, 56.0))
        doc.save(pdf)
    return pdf

"""An International Standard as ISO's Word template exports it to PDF, for tests.

A4, an embedded serif at 11 pt: a cover page ("INTERNATIONAL STANDARD", "ISO 27318", the edition,
the English title and the French one in italics, a ruled box "Reference number ISO 27318:2021(E)");
front matter with roman page numbers (Contents, Foreword, Introduction); numbered clauses to three
levels, their number and title bold with a tab between; "3 Terms and definitions" with each entry's
number bold on its own line, the term bold on the next, the definition, then "Note 1 to entry: ..."
in 10 pt; requirements with "shall", lettered lists "a) ..." in a hanging indent, NOTEs in 10 pt;
tables with the caption "Table 2 — Test conditions" centred above a ruled grid; a drawn figure with
its key and "Figure A.1 — ..." centred below it; annexes headed by three centred lines "Annex A" |
"(normative)" | title; a Bibliography "[1] ISO 472, ..."; the running head "ISO 27318:2021(E)" at
the outer edge and "© ISO 2021 – All rights reserved" with the page number in the footer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import pymupdf

from tests.board_minutes import wrap as wrap_words

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf"
BOLD = "/usr/share/fonts/truetype/dejavu/DejaVuSerif-Bold.ttf"
ITALIC = "/usr/share/fonts/truetype/dejavu/DejaVuSerif-Italic.ttf"
FONTS = {"r": ("ser", FONT), "b": ("serb", BOLD), "i": ("seri", ITALIC)}
MEASURE = {style: pymupdf.Font(fontfile=file) for style, (_, file) in FONTS.items()}
WIDTH, HEIGHT = 595.0, 842.0
LEFT, RIGHT, TOP, BOTTOM = 57.0, 538.0, 76.0, 786.0
SIZE, NOTE, LEADING = 10.0, 9.0, 1.25  # the body's and a note's type size, and the line spacing
REFERENCE = "ISO 27318:2021(E)"
TITLE = "Adhesives — Determination of lap-shear strength of bonded metal assemblies at elevated temperature"
FRENCH = (
    "Adhésifs — Détermination de la résistance au cisaillement des assemblages métalliques collés à température élevée"
)

Row = tuple[str, ...]
TABLE_1: tuple[Row, ...] = (
    ("Dimension", "Nominal value\nmm", "Tolerance\nmm"),
    ("Adherend length", "100", "±0,5"),
    ("Adherend width", "25", "±0,2"),
    ("Adherend thickness", "1,6", "±0,1"),
    ("Overlap length", "12,5", "±0,25"),
)
TABLE_2: tuple[Row, ...] = (
    ("Test temperature\n°C", "Soak time\nmin", "Crosshead speed\nmm/min", "Tolerance\n°C"),
    ("23", "10", "1,3", "±2"),
    ("80", "15", "1,3", "±2"),
    ("150", "20", "1,3", "±2"),
    ("250", "30", "1,3", "±2"),
)

# The text, a part a line (a line set in goes on with the one above): "# 5.3.2 Temperature control" a
# clause heading (a main clause's a size larger), "= 3.2 | term | definition" a terminological entry,
# "! Note 1 to entry: | text" a note in 10 pt, "- a) | text" an item in a hanging indent, "T caption"
# and "F caption" a table and the figure, "@ A | (normative) | title" an annex, "^" a page break;
# any other line a paragraph.
FRONT = """
# Foreword
ISO (the International Organization for Standardization) is a worldwide federation of national standards
    bodies (ISO member bodies). The work of preparing International Standards is normally carried out
    through ISO technical committees.
This document was prepared by Technical Committee ISO/TC 61, Plastics, Subcommittee SC 11, Products.
This second edition cancels and replaces the first edition (ISO 27318:2015), which has been technically
    revised. The main changes are as follows:
- — | the test temperature range has been extended to 250 °C;
- — | requirements for the temperature chamber have been added (see 5.3);
- — | precision data have been added in Annex B.
Any feedback or questions on this document should be directed to the user's national standards body. A
    complete listing of these bodies can be found at www.iso.org/members.html.
# Introduction
Structural adhesives are used in vehicles and aircraft at service temperatures well above room
    temperature, where their strength can fall sharply. The lap-shear test of ISO 4587 is carried out at
    room temperature only. This document extends the single-lap-joint test to elevated temperatures, so that
    adhesives can be compared at the temperature at which they are used. Precision data are given in Annex
    B.
"""
BODY = """
# 1 Scope
This document specifies a method for determining the lap-shear strength of adhesive bonds between metal
    adherends at temperatures from 23 °C to 250 °C. It is applicable to structural adhesives that cure at
    room temperature or at elevated temperature.
This document is not applicable to pressure-sensitive adhesives or to bonds between non-metallic
    adherends.
# 2 Normative references
The following documents are referred to in the text in such a way that some or all of their content
    constitutes requirements of this document. For dated references, only the edition cited applies. For
    undated references, the latest edition of the referenced document (including any amendments) applies.
ISO 291, Plastics — Standard atmospheres for conditioning and testing
ISO 7500-1, Metallic materials — Calibration and verification of static uniaxial testing machines — Part
    1
ISO 10365, Adhesives — Designation of main failure patterns
# 3 Terms and definitions
For the purposes of this document, the following terms and definitions apply.
= 3.1 | adherend | body that is or is intended to be held to another body by an adhesive
! | [SOURCE: ISO 472:2013, 2.7]
= 3.2 | test specimen | assembly of two adherends (3.1) bonded with the adhesive under test, prepared in
    accordance with Annex A
! Note 1 to entry: | A test specimen is tested once and then discarded.
= 3.3 | bond line | layer of adhesive between the two adherends (3.1) of a test specimen (3.2)
= 3.4 | lap-shear strength | maximum force sustained by a test specimen (3.2) loaded in shear, divided
    by the bonded area
! Note 1 to entry: | Lap-shear strength is expressed in megapascals (MPa).
! Note 2 to entry: | The bonded area is the overlap length multiplied by the width of the overlap, both
    measured before the test.
= 3.5 | conditioning | keeping test specimens (3.2) in a specified atmosphere for a specified time
    before testing
# 4 Principle
A single-lap-joint test specimen is held at the test temperature and loaded in tension until it fails.
    The lap-shear strength is calculated from the maximum force and the bonded area.
# 5 Apparatus
# 5.1 Testing machine
The testing machine shall comply with ISO 7500-1, class 1 or better, and shall be capable of keeping the
    crosshead speed specified in Table 2 within ±10 %.
# 5.2 Grips
The grips shall hold the test specimen so that the applied force acts along its longitudinal axis.
    Self-aligning grips are recommended.
# 5.3 Temperature chamber
# 5.3.1 General
The temperature chamber shall enclose the grips and the test specimen and shall allow the test specimen
    to be loaded without opening the chamber.
# 5.3.2 Temperature control
The chamber shall maintain the test temperature within ±2 °C over the whole length of the test specimen.
    The temperature shall be measured with a thermocouple placed within 10 mm of the bond line (3.3). After
    its door has been closed, the chamber shall regain the test temperature within 15 min.
! NOTE | A chamber with forced air circulation usually meets the uniformity requirement.
# 5.4 Micrometer
A micrometer reading to 0,01 mm, for measuring the overlap length and the width of the overlap.
# 6 Test specimens
# 6.1 Form and dimensions
The test specimens shall have the form shown in Figure A.1 and the dimensions given in Table 1. They
    shall be prepared in accordance with Annex A.
T Table 1 — Dimensions of test specimens
# 6.2 Number of test specimens
At least five test specimens shall be tested at each test temperature. If a test specimen fails in an
    adherend, the result shall be discarded and a further test specimen shall be tested in its place.
# 6.3 Conditioning
Test specimens shall be conditioned for at least 16 h in the standard atmosphere 23/50 of ISO 291 before
    they are tested.
# 7 Procedure
# 7.1 Measurement
Measure the overlap length and the width of the overlap of each test specimen with the micrometer (5.4)
    to the nearest 0,05 mm.
# 7.2 Heating
Place the test specimen in the grips, close the chamber and bring it to the test temperature. Hold the
    test specimen at the test temperature for the soak time specified in Table 2, its temperature measured
    as specified in 5.3.2.
T Table 2 — Test conditions
# 7.3 Loading
Load the test specimen at the crosshead speed given in Table 2 until it fails. Record the maximum force
    and the failure mode, designated in accordance with ISO 10365.
# 8 Expression of results
The lap-shear strength of each test specimen is the maximum force, in newtons, divided by the product of
    the overlap length and the width of the overlap, in millimetres, and is expressed in megapascals. Report
    the mean and the standard deviation of the results at each test temperature to three significant
    figures.
# 9 Test report
The test report shall include the following information:
- a) | a reference to this document, i.e. ISO 27318:2021;
- b) | the identification of the adhesive, including its batch number, and of the adherends;
- c) | the method of preparation of the test specimens (see Annex A);
- d) | the conditioning atmosphere and the test temperatures;
- e) | the individual and mean lap-shear strengths, in megapascals, and the standard deviation;
- f) | the failure mode of each test specimen, in accordance with ISO 10365;
- g) | any deviation from the procedure specified in Clause 7, and the date of the test.
^
@ A | (normative) | Preparation of test specimens
# A.1 General
Test specimens shall be cut from adherends of one batch of sheet metal. The adhesive shall be applied
    and cured as its manufacturer specifies.
# A.2 Surface preparation
Degrease the bonding surfaces with acetone, abrade them with 180-grit aluminium oxide paper and degrease
    them again. The adherends shall be bonded within 4 h of the surface preparation.
# A.3 Assembly
Assemble the test specimen in a jig that holds the overlap length to 12,5 mm (see Table 1), as shown in
    Figure A.1. Remove excess adhesive from the edges of the overlap before curing.
F Figure A.1 — Single-lap-joint test specimen
@ B | (informative) | Precision
An interlaboratory test was carried out in 2019 by eight laboratories on two epoxy adhesives. The
    repeatability standard deviation was 0,9 MPa at 23 °C and 1,4 MPa at 150 °C; the reproducibility
    standard deviation was 2,1 MPa at 23 °C and 3,0 MPa at 150 °C.
# Bibliography
- [1] | ISO 472, Plastics — Vocabulary
- [2] | ISO 4587, Adhesives — Determination of tensile lap-shear strength of rigid-to-rigid bonded
    assemblies
- [3] | ISO 9001, Quality management systems — Requirements
- [4] | ASTM D1002, Standard Test Method for Apparent Shear Strength of Single-Lap-Joint Adhesively
    Bonded Metal Specimens by Tension Loading (Metal-to-Metal)
"""
TABLES = {"Table 1 — Dimensions of test specimens": TABLE_1, "Table 2 — Test conditions": TABLE_2}


def parts(text: str) -> list[list[str]]:
    """``text``'s parts: each line's mark, then its fields (a heading's number and title)."""
    lines: list[str] = []
    for line in text.strip().splitlines():
        if line.startswith("    "):
            lines[-1] += " " + line.strip()
        else:
            lines.append(line)
    found: list[list[str]] = []
    for line in lines:
        mark, _, rest = line.partition(" ")
        if mark == "#":
            number, _, title = rest.partition(" ")
            found.append(["#", number, title] if re.fullmatch(r"[\dA-Z](?:\.\d+)*", number) else ["#", "", rest])
        elif mark in ("=", "!", "-", "@", "T", "F", "^"):
            found.append([mark, *(field.strip() for field in rest.split("|"))])
        else:
            found.append(["p", line])
    return found


def wrap(text: str, size: float, style: str, width: float) -> list[str]:
    """``text`` broken at spaces into lines of at most ``width`` points, in the serif of ``style``."""
    return wrap_words(text, size, False, width, MEASURE[style])


@dataclass
class Flow:
    """Lines set down the body, a new page when one is full; which page each heading landed on."""

    doc: pymupdf.Document
    y: float = TOP
    pages: list[pymupdf.Page] = field(default_factory=list)
    landed: dict[str, int] = field(default_factory=dict)

    def new_page(self) -> pymupdf.Page:
        self.pages.append(self.doc.new_page(width=WIDTH, height=HEIGHT))
        self.y = TOP
        return self.pages[-1]

    def room(self, height: float) -> pymupdf.Page:
        if self.y + height > BOTTOM:
            self.new_page()
        return self.pages[-1]

    def put(self, x: float, y: float, text: str, style: str = "r", size: float = SIZE) -> None:
        name, file = FONTS[style]
        self.pages[-1].insert_text((x, y), text, fontname=name, fontfile=file, fontsize=size)

    def centred(self, text: str, style: str = "b", size: float = SIZE, after: float = 4.0) -> None:
        for line in wrap(text, size, style, RIGHT - LEFT):
            self.room(size * LEADING)
            self.put((WIDTH - MEASURE[style].text_length(line, fontsize=size)) / 2, self.y + size, line, style, size)
            self.y += size * LEADING
        self.y += after

    def lines(self, text: str, x: float, size: float = SIZE, label: str = "", label_x: float = LEFT) -> None:
        """``text`` wrapped from ``x``, ``label`` (a list item's, a note's) at ``label_x`` on its first line."""
        for index, line in enumerate(wrap(text, size, "r", RIGHT - x)):
            self.room(size * LEADING)
            if index == 0 and label:
                self.put(label_x, self.y + size, label, "b" if label.startswith("Note") else "r", size)
            self.put(x, self.y + size, line, "r", size)
            self.y += size * LEADING
        self.y += 6

    def heading(self, number: str, title: str) -> None:
        """A clause heading: the number bold at the margin, a tab, the title bold."""
        size = SIZE + 1 if "." not in number else SIZE
        self.room(60)
        self.y += 6
        self.landed[f"{number} {title}".strip()] = len(self.pages)
        if number:
            self.put(LEFT, self.y + size, number, "b", size)
        self.put(
            LEFT + (MEASURE["b"].text_length(number, fontsize=size) + 14 if number else 0),
            self.y + size,
            title,
            "b",
            size,
        )
        self.y += size * LEADING + 6


def _table(flow: Flow, caption: str, rows: tuple[Row, ...]) -> None:
    """The caption centred above a ruled grid; the header row bold, a unit on a line of its own under its
    column's name; each cell centred."""
    flow.room(18 * len(rows) + 50)
    flow.centred(caption, after=4)
    page, top = flow.pages[-1], flow.y
    columns = len(rows[0])
    edges = [LEFT + 30 + index * (RIGHT - LEFT - 60) / columns for index in range(columns + 1)]
    tops = [top, top + 28.0, *(top + 28.0 + 16 * index for index in range(1, len(rows)))]
    for index, row in enumerate(rows):
        for column, cell in enumerate(row):
            style = "b" if index == 0 else "r"
            for line_index, line in enumerate(cell.split("\n")):
                width = MEASURE[style].text_length(line, fontsize=9)
                x = (edges[column] + edges[column + 1] - width) / 2
                flow.put(x, tops[index] + 12 + 11 * line_index, line, style, 9)
    for y in tops:
        page.draw_line((edges[0], y), (edges[-1], y), width=0.5)
    for x in edges:
        page.draw_line((x, top), (x, tops[-1]), width=0.5)
    flow.y = tops[-1] + 14


def _figure(flow: Flow, caption: str) -> None:
    """Two adherends overlapping, drawn, their key under them and the caption centred below."""
    page = flow.room(200)
    top = flow.y + 10
    page.draw_rect(pymupdf.Rect(120, top + 20, 330, top + 40), width=0.8, fill=(0.85, 0.85, 0.85))
    page.draw_rect(pymupdf.Rect(290, top + 40, 480, top + 60), width=0.8, fill=(0.85, 0.85, 0.85))
    page.draw_rect(pymupdf.Rect(290, top + 38, 330, top + 42), width=0.5, fill=(0, 0, 0))
    page.draw_line((290, top + 80), (330, top + 80), width=0.5)
    flow.put(305, top + 94, "l", "i", 9)
    for number, x, y in (("1", 200, top + 14), ("2", 335, top + 36), ("1", 400, top + 74)):
        flow.put(x, y, number, "r", 9)
    flow.y = top + 110
    flow.put(LEFT, flow.y, "Key", "b", 9)
    for index, entry in enumerate(("1   adherend", "2   bond line", "l    overlap length")):
        flow.put(LEFT, flow.y + 12 * (index + 1), entry, "r", 9)
    flow.y += 50
    flow.centred(caption, after=10)


def _part(flow: Flow, part: list[str]) -> None:
    mark, fields = part[0], part[1:]
    if mark == "#":
        flow.heading(*fields)
    elif mark == "p":
        flow.lines(fields[0], LEFT)
    elif mark == "=":
        number, term, definition = fields
        flow.room(60)
        for text in (number, term):
            flow.put(LEFT, flow.y + SIZE, text, "b")
            flow.y += SIZE * LEADING
        flow.lines(definition, LEFT)
    elif mark == "!":
        label, text = fields
        offset = MEASURE["b"].text_length(label, fontsize=NOTE) + 6 if label.startswith("Note") else 40 if label else 0
        flow.lines(text, LEFT + offset, size=NOTE, label=label)
    elif mark == "-":
        flow.lines(fields[1], LEFT + 24, label=fields[0])
    elif mark == "T":
        _table(flow, fields[0], TABLES[fields[0]])
    elif mark == "F":
        _figure(flow, fields[0])
    elif mark == "@":
        letter, status, title = fields
        flow.room(200)
        flow.landed[f"Annex {letter} {status} {title}"] = len(flow.pages)
        flow.centred(f"Annex {letter}", size=SIZE + 2, after=2)
        flow.centred(status, style="r", after=6)
        flow.centred(title, size=SIZE + 2, after=14)
    else:
        flow.new_page()


def _cover(flow: Flow) -> None:
    page = flow.new_page()
    flow.put(LEFT, 110, "INTERNATIONAL", "b", 22)
    flow.put(LEFT, 138, "STANDARD", "b", 22)
    for y, text, size in ((110, "ISO 27318", 22.0), (150, "Second edition", 11.0), (164, "2021-06", 11.0)):
        flow.put(
            RIGHT - MEASURE["b" if size > 12 else "r"].text_length(text, fontsize=size),
            y,
            text,
            "b" if size > 12 else "r",
            size,
        )
    flow.y = 260
    for line in wrap(TITLE, 16, "b", RIGHT - LEFT):
        flow.put(LEFT, flow.y, line, "b", 16)
        flow.y += 21
    flow.y += 16
    for line in wrap(FRENCH, 11, "i", RIGHT - LEFT):
        flow.put(LEFT, flow.y, line, "i", 11)
        flow.y += 14
    page.draw_rect(pymupdf.Rect(360, 700, RIGHT, 760), width=1)
    flow.put(368, 718, "Reference number", "r", 10)
    flow.put(368, 744, REFERENCE, "b", 14)
    flow.put(LEFT, 790, "© ISO 2021", "b", 12)


def _contents(page: pymupdf.Page, landed: dict[str, int]) -> None:
    """The Contents page: each clause and annex, a row of dots, its printed page number."""
    page.insert_text((LEFT, TOP + 14), "Contents", fontname="serb", fontfile=BOLD, fontsize=14)
    page.insert_text((RIGHT - 26, TOP + 14), "Page", fontname="serb", fontfile=BOLD, fontsize=10)
    y = TOP + 44
    for entry, at in landed.items():
        if "." in entry.split(" ")[0]:
            continue
        number, dot = _printed(at), MEASURE["r"].text_length(".", fontsize=10)
        room = RIGHT - LEFT - 24 - MEASURE["r"].text_length(entry + " ", fontsize=10)
        page.insert_text((LEFT, y), f"{entry} {'.' * int(room / dot)}", fontname="ser", fontfile=FONT, fontsize=10)
        width = MEASURE["r"].text_length(number, fontsize=10)
        page.insert_text((RIGHT - width, y), number, fontname="ser", fontfile=FONT, fontsize=10)
        y += 15


FIRST_BODY_PAGE = 4  # the cover, Contents and the front matter's page come first


def _printed(physical: int) -> str:
    """The page number printed on a physical page: roman in the front matter, arabic from clause 1."""
    if physical < FIRST_BODY_PAGE:
        return ("i", "ii", "iii")[physical - 1]
    return str(physical - FIRST_BODY_PAGE + 1)


def _furniture(doc: pymupdf.Document) -> None:
    """Every page but the cover: the reference at the outer top, the copyright line and the page number."""
    for index, page in enumerate(doc):
        if index == 0:
            continue
        number, odd = _printed(index + 1), (index + 1) % 2 == 1
        head_x = RIGHT - MEASURE["b"].text_length(REFERENCE, fontsize=10) if odd else LEFT
        page.insert_text((head_x, 50), REFERENCE, fontname="serb", fontfile=BOLD, fontsize=10)
        notice = "© ISO 2021 – All rights reserved"
        width = MEASURE["b"].text_length(number, fontsize=9)
        notice_x = LEFT if odd else RIGHT - MEASURE["r"].text_length(notice, fontsize=8)
        page.insert_text((notice_x, 805), notice, fontname="ser", fontfile=FONT, fontsize=8)
        page.insert_text((RIGHT - width if odd else LEFT, 805), number, fontname="serb", fontfile=BOLD, fontsize=9)


def write_standard(pdf: Path) -> Path:
    """ISO 27318:2021, seven pages: the cover, Contents, the Foreword and Introduction, the clauses, the
    annexes and the Bibliography."""
    flow = Flow(pymupdf.open())
    _cover(flow)
    flow.new_page()  # Contents, set once the clauses' pages are known
    flow.new_page()
    for part in parts(FRONT):
        _part(flow, part)
    flow.new_page()
    flow.y += 10
    for line in wrap(TITLE, 13, "b", RIGHT - LEFT):
        flow.put(LEFT, flow.y + 13, line, "b", 13)
        flow.y += 17
    flow.y += 14
    for part in parts(BODY):
        _part(flow, part)
    _contents(flow.doc[1], flow.landed)
    _furniture(flow.doc)
    flow.doc.set_metadata({"title": f"{REFERENCE} {TITLE}", "creator": "Microsoft® Word for Microsoft 365"})
    flow.doc.save(pdf)
    return pdf

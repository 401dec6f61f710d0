"""A commercial lease as a law firm's word processor exports it to PDF, for tests.

A4, an embedded serif at 11 pt, 1.5 line spacing: a title page with the particulars as a ruled
table of label and value rows; clauses headed "1. DEFINITIONS AND INTERPRETATION" in bold capitals
(number, tab, title); sub-clauses "4.2" at the margin with their text at a tab stop; lettered "(a)"
and roman "(i)" paragraphs indented a tab further each; defined terms bold inside quotes; schedules
at the end, each on a new page headed "SCHEDULE 1 — The Premises"; an execution page; a document
reference and "Page n" at the foot of each page.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pymupdf

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf"
BOLD = "/usr/share/fonts/truetype/dejavu/DejaVuSerif-Bold.ttf"
FONTS = {False: ("ser", FONT), True: ("serb", BOLD)}
MEASURE = {False: pymupdf.Font(fontfile=FONT), True: pymupdf.Font(fontfile=BOLD)}
LEFT, RIGHT, TOP, BOTTOM = 72.0, 523.0, 72.0, 770.0
TAB = 36.0  # one tab stop
SIZE = 11.0
LEADING = 1.5 * SIZE

PARTICULARS = [
    (
        "Landlord",
        "Riverside Estates Limited (company number 04417823) whose registered office is at 9 Wharf "
        "Street, Leeds LS2 7EQ",
    ),
    (
        "Tenant",
        "Calder Print & Packaging Limited (company number 09876521) whose registered office is at "
        "Unit 2, Mill Lane, Halifax HX1 4PR",
    ),
    (
        "Premises",
        "Unit 4, Riverside Trade Park, Kirkstall Road, Leeds LS4 2AZ, more particularly described in Schedule 1",
    ),
    ("Term", "Ten years from and including 24 June 2024"),
    ("Rent", "£86,500 per annum (exclusive of VAT), subject to review in accordance with Schedule 3"),
    ("Break Date", "24 June 2029"),
    ("Permitted Use", "Use within Class E(g)(iii) or Class B8 of the Use Classes Order"),
]

Para = tuple[str, str, int]  # label ("1.1", "(a)", "(i)" or ""), text with **bold** runs, depth

# Each part's heading after "#", then its paragraphs: "label | text" (a definition's label is "="), a
# line set in goes on with the one above.
TEXT = """
# 1. DEFINITIONS AND INTERPRETATION
1.1 | In this Lease the following words and expressions have the following meanings:
= | **“Break Date”** means the date specified as such in the Particulars;
= | **“Break Notice”** means written notice to terminate this Lease on the Break Date given by the
    Tenant to the Landlord in accordance with clause 8;
= | **“Insured Risks”** means fire, lightning, explosion, storm, flood, escape of water, riot, impact
    and such other risks as the Landlord insures against from time to time;
= | **“Permitted Use”** means use within Class E(g)(iii) or Class B8 of the Use Classes Order for light
    industrial purposes and for storage and distribution, with ancillary offices;
= | **“Rent”** means the rent specified in the Particulars as varied from time to time in accordance
    with Schedule 3;
= | **“Rent Payment Dates”** means 25 March, 24 June, 29 September and 25 December in each year;
= | **“Service Charge”** means the proportion of the costs of the services payable by the Tenant under
    paragraph 3 of Schedule 2;
= | **“Term”** means the term of years specified in the Particulars.
1.2 | A reference to a clause or a Schedule is to a clause of or a Schedule to this Lease, and the
    Schedules form part of this Lease.
1.3 | Words in the singular include the plural and words in the plural include the singular, and a
    reference to a person includes a company.
# 2. GRANT
2.1 | The Landlord lets the Premises to the Tenant for the Term, together with the rights set out in
    Schedule 2, excepting and reserving to the Landlord the rights set out in paragraph 4 of Schedule 1.
2.2 | The Tenant shall pay the Rent and the Service Charge as set out in clause 3.
# 3. RENT
3.1 | The Tenant shall pay the Rent to the Landlord by equal quarterly instalments in advance on or before
    the Rent Payment Dates by bank transfer to such account as the Landlord may from time to time
    nominate.
3.2 | The first instalment of the Rent shall be paid on the date of this Lease and shall be the proportion
    of the Rent for the period from that date to the day before the next Rent Payment Date.
3.3 | The Rent shall be reviewed on each Review Date in accordance with Schedule 3, and until the revised
    Rent has been agreed or determined the Tenant shall continue to pay the Rent at the rate payable
    before the Review Date.
3.4 | If any Rent or other sum is not paid within fourteen days of the date on which it is due, the Tenant
    shall pay interest on it at four per cent above the base rate of Barclays Bank PLC from the due date
    until the date of payment.
# 4. TENANT’S COVENANTS
4.1 | The Tenant shall keep the Premises in good and substantial repair and condition, damage by the
    Insured Risks excepted unless the insurance has been vitiated by an act or default of the Tenant.
4.2 | The Tenant shall not use the Premises for any purpose other than the Permitted Use, and shall not:
(a) | hold any auction, sale or public meeting on the Premises;
(b) | store or bring onto the Premises any article which is hazardous, explosive or inflammable, other
    than in the quantities normally kept for the Permitted Use; or
(c) | cause any nuisance, damage or annoyance to the Landlord or to the owners or occupiers of any
    neighbouring property.
4.3 | The Tenant shall not make any alteration to the Premises except that the Tenant may, with the
    consent of the Landlord (which shall not be unreasonably withheld):
(a) | install and remove internal demountable partitioning; and
(b) | carry out works to the electrical installations, provided that the works are certified by a
    registered electrician.
4.4 | The Tenant shall comply with all laws relating to the Premises and their use, and shall give the
    Landlord a copy of any notice affecting the Premises within seven days of receiving it.
# 5. ASSIGNMENT AND UNDERLETTING
5.1 | The Tenant shall not assign, underlet, charge or part with possession of part only of the Premises,
    and shall not share occupation of the whole or any part of the Premises.
5.2 | Subject to clause 5.3, the Tenant may assign the whole of the Premises with the prior written
    consent of the Landlord, such consent not to be unreasonably withheld or delayed.
5.3 | The Landlord may give its consent to an assignment subject to all or any of the following
    conditions:
(a) | that the assignor enters into an authorised guarantee agreement which:
(i) | is in respect of all the tenant covenants of this Lease;
(ii) | is in respect of the period beginning with the date the assignee becomes bound and ending on the
    date the assignee is released; and
(iii) | is otherwise in a form reasonably required by the Landlord;
(b) | that a person of standing acceptable to the Landlord enters into a guarantee and indemnity of the
    tenant covenants of this Lease in the form set out in Schedule 4; and
(c) | that all Rent and other sums due under this Lease have been paid.
5.4 | The Tenant may underlet the whole of the Premises with the consent of the Landlord, at a rent no
    less than the open market rent and on terms consistent with this Lease.
# 6. LANDLORD’S COVENANTS
6.1 | The Landlord covenants that the Tenant shall have quiet enjoyment of the Premises without any
    interruption by the Landlord or any person claiming under the Landlord except as permitted by this
    Lease.
6.2 | The Landlord shall provide the services in accordance with Schedule 2 and shall use reasonable
    endeavours to keep the Service Charge to a reasonable amount.
# 7. INSURANCE
7.1 | The Landlord shall keep the Premises insured against loss or damage by the Insured Risks for their
    full reinstatement cost, and the Tenant shall pay the Landlord on demand a fair proportion of the
    premium.
7.2 | If the Premises are damaged or destroyed by an Insured Risk so as to be unfit for occupation and
    use, the Rent shall be suspended until the Premises are again fit for occupation and use or until
    the end of three years from the date of the damage, if earlier.
# 8. TENANT’S BREAK CLAUSE
8.1 | The Tenant may terminate this Lease on the Break Date by giving the Landlord a Break Notice not less
    than six months before the Break Date.
8.2 | A Break Notice shall be in writing, shall be given in accordance with clause 10 and may not be
    withdrawn once given without the consent of the Landlord.
8.3 | A Break Notice shall be of no effect unless, on the Break Date:
(a) | the Tenant has paid all the Rent that fell due on or before the Break Date, and any interest payable
    on it under clause 3.4;
(b) | the Tenant gives up vacant possession of the whole of the Premises, free of any occupiers and of any
    underlease; and
(c) | the Tenant has removed all its fixtures and chattels from the Premises and reinstated any
    alterations made under clause 4.3.
8.4 | Subject to clause 8.3, on the Break Date this Lease shall end, without prejudice to any claim by
    either party for an earlier breach of covenant.
8.5 | Within one month after the Break Date the Landlord shall refund to the Tenant the proportion of the
    Rent paid for any period after the Break Date.
# 9. FORFEITURE
9.1 | If any Rent is unpaid twenty-one days after becoming payable (whether it has been formally demanded
    or not), or if the Tenant breaches any covenant of this Lease, or if the Tenant enters into
    liquidation or administration, the Landlord may re-enter the Premises and this Lease shall end,
    without prejudice to any right or remedy of the Landlord for any earlier breach of covenant.
# 10. NOTICES
10.1 | A notice given under this Lease shall be in writing and shall be delivered by hand or sent by
    pre-paid first class post or recorded delivery to the party's registered office.
10.2 | A notice is deemed served, if delivered by hand, when it is left at the address and, if sent by
    post, on the second working day after posting.
# 11. GOVERNING LAW AND JURISDICTION
11.1 | This Lease and any dispute or claim arising out of it shall be governed by the law of England and
    Wales, and the courts of England and Wales shall have exclusive jurisdiction.
# SCHEDULE 1 — The Premises
1. | The Premises are the warehouse and production unit known as Unit 4, Riverside Trade Park, Kirkstall
    Road, Leeds LS4 2AZ, shown edged red on the plan annexed to this Lease.
2. | The Premises include the loading bay and the eight car parking spaces marked 4A to 4H on the plan,
    and all fixtures and fittings of the Landlord.
3. | The Premises exclude the roof, the foundations and the structural frame of the building, and the
    conduits that serve other parts of the Estate.
4. | There are excepted and reserved to the Landlord the right to enter the Premises on reasonable notice
    to inspect, repair and maintain neighbouring property and the conduits.
# SCHEDULE 2 — Rights Granted and Services
1. | The right for the Tenant and all persons authorised by it to pass with or without vehicles over the
    estate roads at all times for access to and egress from the Premises.
2. | The right to use the shared refuse compound for the deposit of waste in proper containers, and to
    display the Tenant's name on the estate sign board.
3. | The Tenant shall pay as the Service Charge a fair and reasonable proportion of the costs of
    lighting, cleaning, repairing and securing the estate roads, landscaping and the sign board.
# SCHEDULE 3 — Rent Review
1. | The Review Date is 24 June 2029, and the revised Rent from that date shall be the higher of the Rent
    payable immediately before the Review Date and the open market rent at the Review Date.
2. | If the Landlord and the Tenant have not agreed the open market rent three months before the Review
    Date, either of them may refer it to an independent surveyor acting as an expert.
# SCHEDULE 4 — Form of Guarantee
1. | The Guarantor guarantees that the Tenant shall pay the Rent and observe and perform the tenant
    covenants of this Lease, and shall indemnify the Landlord against any failure to do so.
"""


def _parts(text: str) -> list[tuple[str, list[Para]]]:
    """:data:`TEXT` as (heading, paragraphs) pairs; "(i)" is a paragraph two tabs in, "(a)" and a
    definition one, "4.2" none."""
    parts: list[tuple[str, list[Para]]] = []
    for line in text.strip().splitlines():
        if line.startswith("# "):
            parts.append((line[2:], []))
        elif line.startswith(" "):
            label, body, depth = parts[-1][1][-1]
            parts[-1][1][-1] = (label, f"{body} {line.strip()}", depth)
        else:
            label, body = line.split(" | ", 1)
            depth = 2 if re.fullmatch(r"\([ivx]+\)", label) else 1 if label.startswith("(") or label == "=" else 0
            parts[-1][1].append(("" if label == "=" else label, body, depth))
    return parts


PARTS = _parts(TEXT)
CLAUSES = [part for part in PARTS if not part[0].startswith("SCHEDULE")]
SCHEDULES = [part for part in PARTS if part[0].startswith("SCHEDULE")]

EXECUTION = [
    "EXECUTED as a deed by RIVERSIDE ESTATES LIMITED acting by a director in the presence of a witness:",
    "EXECUTED as a deed by CALDER PRINT & PACKAGING LIMITED acting by a director in the presence of a witness:",
]


@dataclass
class Flow:
    """Lines set down the body, a new page when one is full."""

    doc: pymupdf.Document
    y: float = TOP
    pages: list[pymupdf.Page] = field(default_factory=list)

    def new_page(self) -> pymupdf.Page:
        self.pages.append(self.doc.new_page(width=595, height=842))
        self.y = TOP
        return self.pages[-1]

    def room(self, height: float) -> pymupdf.Page:
        if not self.pages or self.y + height > BOTTOM:
            self.new_page()
        return self.pages[-1]

    def put(self, x: float, text: str, bold: bool = False, size: float = SIZE) -> None:
        name, file = FONTS[bold]
        self.pages[-1].insert_text((x, self.y), text, fontname=name, fontfile=file, fontsize=size)

    def centred(self, text: str, bold: bool = True, size: float = SIZE, after: float = 0.0) -> None:
        self.room(LEADING)
        self.y += LEADING
        self.put((LEFT + RIGHT - MEASURE[bold].text_length(text, size)) / 2, text, bold, size)
        self.y += after

    def wrapped(self, x: float, text: str, label: str = "", label_x: float = LEFT, after: float = 8.0) -> None:
        """``text`` (``**bold**`` runs) wrapped from ``x`` to the right margin, ``label`` before it."""
        for i, line in enumerate(_wrap(text, RIGHT - x)):
            self.room(LEADING)
            self.y += LEADING
            if i == 0 and label:
                self.put(label_x, label)
            at = x
            for word, bold, spaced in line:
                if spaced:
                    at += MEASURE[False].text_length(" ", SIZE)
                self.put(at, word, bold)
                at += MEASURE[bold].text_length(word, SIZE)
        self.y += after


def _wrap(text: str, width: float) -> list[list[tuple[str, bool, bool]]]:
    words: list[tuple[str, bool, bool]] = []
    for i, part in enumerate(text.split("**")):
        for j, word in enumerate(part.split(" ")):
            if word:
                words.append((word, i % 2 == 1, bool(words) and (j > 0 or text.split("**")[i - 1].endswith(" "))))
    lines: list[list[tuple[str, bool, bool]]] = [[]]
    used = 0.0
    space = MEASURE[False].text_length(" ", SIZE)
    for word, bold, spaced in words:
        grow = MEASURE[bold].text_length(word, SIZE) + (space if spaced and lines[-1] else 0)
        if lines[-1] and used + grow > width:
            lines.append([])
            used, grow = 0.0, MEASURE[bold].text_length(word, SIZE)
        lines[-1].append((word, bold, spaced and bool(lines[-1])))
        used += grow
    return lines


def _particulars(flow: Flow, rows: Sequence[tuple[str, str]]) -> None:
    """The particulars: a ruled table, a bold label and its value on each row."""
    page = flow.pages[-1]
    middle, pad = LEFT + 120, 5.0
    top = flow.y + 10
    page.draw_line((LEFT, top), (RIGHT, top), width=0.5)
    y = top
    for label, value in rows:
        lines = _wrap(value, RIGHT - middle - 2 * pad)
        height = len(lines) * (SIZE * 1.3) + 2 * pad
        flow.y = y + pad + SIZE - 0.3 * SIZE * 1.3
        flow.put(LEFT + pad, label, True)
        for i, line in enumerate(lines):
            at = middle + pad
            for word, bold, spaced in line:
                if spaced:
                    at += MEASURE[False].text_length(" ", SIZE)
                flow.put(at, word, bold)
                at += MEASURE[bold].text_length(word, SIZE)
            flow.y += SIZE * 1.3 if i < len(lines) - 1 else 0
        y += height
        page.draw_line((LEFT, y), (RIGHT, y), width=0.5)
    for x in (LEFT, middle, RIGHT):
        page.draw_line((x, top), (x, y), width=0.5)
    flow.y = y + 12


def _paragraphs(flow: Flow, paras: Sequence[Para]) -> None:
    for label, text, depth in paras:
        if label and depth == 0:  # "4.2" at the margin, its text at the first tab stop
            flow.wrapped(LEFT + TAB, text, label, LEFT)
        elif label:  # "(a)" at depth 1 a tab in, "(i)" at depth 2 two tabs in
            flow.wrapped(LEFT + TAB * (depth + 1), text, label, LEFT + TAB * depth)
        else:  # a definition: set in at the tab stop, no label
            flow.wrapped(LEFT + TAB * depth, text)


def write_lease(path: Path) -> Path:
    """The lease: particulars, eleven clauses, four schedules and the execution page."""
    flow = Flow(pymupdf.open())
    flow.new_page()
    flow.y += 40
    flow.centred("DATED                                        2024", bold=True, after=40)
    flow.centred("LEASE", size=20, after=12)
    flow.centred("relating to Unit 4, Riverside Trade Park, Kirkstall Road, Leeds", bold=False, after=30)
    flow.centred("PARTICULARS", after=4)
    _particulars(flow, PARTICULARS)
    flow.new_page()
    for heading, paras in CLAUSES:
        number, title = heading.split(" ", 1)
        flow.room(3 * LEADING)
        flow.y += LEADING + 4
        flow.put(LEFT, number, True)
        flow.put(LEFT + TAB, title, True)
        flow.y += 8
        _paragraphs(flow, paras)
    for heading, paras in SCHEDULES:
        flow.new_page()
        flow.centred(heading, after=10)
        _paragraphs(flow, paras)
    flow.new_page()
    flow.wrapped(
        LEFT,
        "This Lease has been executed as a deed and is delivered and takes effect on the date stated at the"
        " beginning of it.",
        after=24,
    )
    for text in EXECUTION:
        flow.wrapped(LEFT, text, after=20)
        for line in (
            "Director ..................................................",
            "Witness signature .....................................",
            "Witness name ...........................................",
        ):
            flow.wrapped(LEFT + TAB * 4, line, after=10)
        flow.y += 16
    count = len(flow.doc)
    for number, page in enumerate(flow.doc, start=1):
        page.insert_text((LEFT, 805), "RIV/0412/LEASE/v3", fontname="ser", fontfile=FONT, fontsize=8)
        text = f"Page {number} of {count}"
        page.insert_text(
            (RIGHT - MEASURE[False].text_length(text, 8), 805), text, fontname="ser", fontfile=FONT, fontsize=8
        )
    flow.doc.save(path)
    flow.doc.close()
    return path

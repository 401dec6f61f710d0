"""A Court of Appeal judgment as the judiciary's Word template exports it to PDF, for tests.

A4, an embedded serif at 12 pt: a cover block (neutral citation and case number at the right, the
court and its address centred, the date, "Before:" and the judges, the parties between ruled lines
with their roles at the right, counsel, the hearing dates), an "Approved Judgment" heading, then
paragraphs numbered "1." in the margin with their text at a tab stop across the pages, short bold
or italic headings ("The facts", "Ground 1: ..."), quotations of statutes and cases set in at both
margins in a smaller size, footnote markers in the text with the footnotes under a short rule at
the foot of their page, the judges' concurrences ("Lady Justice Jones:" "I agree."), and a running
head with the citation and the parties on every page after the first, "Page n" at the foot.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pymupdf

SERIF = "/usr/share/fonts/truetype/dejavu/DejaVuSerif"
FONTS = {
    "": ("jser", f"{SERIF}.ttf"),
    "b": ("jserb", f"{SERIF}-Bold.ttf"),
    "i": ("jseri", f"{SERIF}-Italic.ttf"),
    "bi": ("jserbi", f"{SERIF}-BoldItalic.ttf"),
}
MEASURE = {style: pymupdf.Font(fontfile=file) for style, (_, file) in FONTS.items()}
LEFT, RIGHT, TOP, BOTTOM = 72.0, 523.0, 78.0, 760.0
TAB = LEFT + 36.0  # a numbered paragraph's text
SIZE, SMALL, NOTE = 12.0, 10.5, 9.0

CITATION = "Neutral Citation Number: [2024] EWCA Civ 123"
CASE_NO = "Case No: CA-2023-001234"
TITLE = "Harrow Logistics Ltd v Pennine Freight Services Ltd"
COVER: list[tuple[str, str, str]] = [  # (alignment, style, text); "|" starts a blank line
    ("right", "b", CITATION),
    ("right", "b", CASE_NO),
    ("centre", "b", "IN THE COURT OF APPEAL (CIVIL DIVISION)"),
    ("centre", "b", "ON APPEAL FROM THE HIGH COURT OF JUSTICE"),
    ("centre", "b", "BUSINESS AND PROPERTY COURTS OF ENGLAND AND WALES"),
    ("centre", "b", "COMMERCIAL COURT (KBD)"),
    ("centre", "", "Mr Justice Calloway"),
    ("centre", "", "[2023] EWHC 2211 (Comm)"),
    ("right", "", "Royal Courts of Justice"),
    ("right", "", "Strand, London, WC2A 2LL"),
    ("right", "b", "Date: 14/03/2024"),
    ("centre", "", "Before:"),
    ("centre", "b", "LORD JUSTICE SMITH"),
    ("centre", "b", "LADY JUSTICE JONES"),
    ("centre", "", "and"),
    ("centre", "b", "LORD JUSTICE PATEL"),
    ("rule", "", ""),
    ("centre", "", "Between:"),
    ("parties", "b", "HARROW LOGISTICS LIMITED|Appellant"),
    ("centre", "b", "- and -"),
    ("parties", "b", "PENNINE FREIGHT SERVICES LIMITED|Respondent"),
    ("rule", "", ""),
    ("centre", "", "Mr Andrew Brown KC and Ms Clare Hale (instructed by Fenwick Ward LLP) for the Appellant"),
    ("centre", "", "Mr David Okoro KC (instructed by Lister & Marsh LLP) for the Respondent"),
    ("centre", "", "Hearing dates: 6 and 7 February 2024"),
    ("rule", "", ""),
    ("centre", "b", "Approved Judgment"),
]

# The body: "# heading" (bold), "## heading" (italic), "> quotation" (set in, smaller), "n. text" a
# numbered paragraph, "@ Name:" a judge's heading; "[^n]" marks footnote n. A line set in with
# spaces goes on with the one above.
BODY = """
@ Lord Justice Smith:
# Introduction
1. This is an appeal from the order of Mr Justice Calloway dated 21 September 2023, by which he
  dismissed the claim of Harrow Logistics Limited ("Harrow") for damages for the loss of a consignment
  of pharmaceutical products carried by road from Coventry to Glasgow by Pennine Freight Services
  Limited ("Pennine") in November 2021.
2. The appeal raises a short point on the construction of a limitation clause in a standard form
  contract of carriage: whether clause 14.2 of Pennine's conditions, which limits its liability to
  £1,300 per tonne, applies where the goods are lost through the deliberate act of Pennine's driver.
3. Permission to appeal was granted by Males LJ on two grounds. I shall take them in turn after setting
  out the facts and the clause.
# The facts
4. Harrow is a logistics company which arranges the distribution of temperature-controlled goods for
  pharmaceutical manufacturers. Pennine is a road haulier based in Huddersfield. Since 2018 the two
  companies have traded on Pennine's standard conditions of carriage, which were incorporated into
  each booking by reference on Pennine's confirmation.
5. On 15 November 2021 Harrow booked the carriage of 22 pallets of vaccines, weighing 4.1 tonnes and
  worth £1,870,000, from a warehouse in Coventry to a distribution centre in Glasgow. The load was
  collected that afternoon by Mr Keane, a driver employed by Pennine.
6. Mr Keane did not drive to Glasgow. He drove the trailer to an industrial estate near Warrington,
  where the load was transferred to another vehicle and has never been recovered. Mr Keane was later
  convicted of conspiracy to steal. The judge found, and it is not challenged, that he acted
  dishonestly and for his own benefit, and that Pennine itself was not at fault in employing him.[^1]
7. Harrow claimed the full value of the goods. Pennine admitted liability but relied on clause 14.2
  to limit it to £5,330, being £1,300 for each of the 4.1 tonnes.
# The clause
8. Clause 14 of Pennine's conditions, headed "Liability", provides so far as material:
> 14.1 Subject to these conditions, the Carrier shall be liable for physical loss of or damage to
  the goods occurring while they are in its charge.
> 14.2 The Carrier's liability for loss of or damage to the goods shall in no case exceed the sum of
  £1,300 per tonne of the gross weight of the goods lost or damaged, howsoever the loss or damage
  shall arise.
> 14.3 Nothing in these conditions shall exclude or limit the liability of the Carrier for death or
  personal injury caused by its negligence.
9. Clause 2.1 defines the "Carrier" as Pennine "and its employees, agents and sub-contractors". There
  is no provision dealing expressly with theft by the Carrier's own employees.
# The judgment below
10. The judge held that the words "howsoever the loss or damage shall arise" were clear and wide enough
  to cover loss caused by the deliberate wrongdoing of Pennine's employee. He rejected Harrow's
  submission that there was a presumption that parties do not intend a limitation clause to apply to
  a deliberate and repudiatory breach, relying on Photo Production Ltd v Securicor Transport Ltd [1980]
  AC 827.[^2]
11. He also rejected the argument that the clause failed the requirement of reasonableness under
  section 11 of the Unfair Contract Terms Act 1977, holding that the parties were of equal bargaining
  power and that Harrow could have insured the goods or declared a higher value.
# Ground 1: construction of clause 14.2
12. Mr Brown KC for Harrow submits that the judge was wrong to treat the words "howsoever arising" as
  conclusive. He says that clear words are needed before a court will hold that a party intended to
  limit its liability for the deliberate theft of the goods by its own employee, and that the clause
  read as a whole does not contain them.
13. He relies on the statement of Lord Leggatt in Triple Point Technology Inc v PTT Public Co Ltd [2021]
  UKSC 29 at [108] that "the more valuable the right, the clearer the language will need to be", and
  on the approach of this court in Kudos Catering (UK) Ltd v Manchester Central Convention Complex Ltd
  [2013] EWCA Civ 38.[^3]
14. Mr Okoro KC for Pennine submits that the modern approach, stated by the Supreme Court in Wood v
  Capita Insurance Services Ltd [2017] UKSC 24, is to read the clause in its context like any other
  term, and that commercial parties of equal strength are to be taken to have meant what they said.
15. In my judgment the judge was right. The question is one of construction, and the starting point
  is the words the parties used. The phrase "howsoever the loss or damage shall arise" is about as
  wide as language can be. It draws no distinction between loss caused by negligence and loss caused
  by the dishonesty of the Carrier's employees, and clause 2.1 makes those employees part of the
  Carrier.
16. As Lord Wilberforce said in Photo Production at 843, in commercial matters generally, when the
  parties are not of unequal bargaining power, and when risks are normally borne by insurance, there
  is everything to be said for leaving the parties free to apportion the risks as they think fit. That
  is this case. Harrow chose not to declare a value, and the rate of £1,300 per tonne reflects the
  price it paid (see also paragraph 23 below).
17. I do not accept that Triple Point assists Harrow. The passage at [108] is concerned with clauses
  which exclude valuable rights altogether; clause 14.2 limits the amount recoverable but leaves the
  right to claim in place. Kudos is a decision on an exclusion clause which would have deprived the
  innocent party of any remedy for the other's refusal to perform, and is distinguishable for the
  same reason (see [10] above).
18. Ground 1 therefore fails.
# Ground 2: reasonableness under the 1977 Act
19. Section 11(1) of the Unfair Contract Terms Act 1977 provides:
> (1) In relation to a contract term, the requirement of reasonableness for the purposes of this Part
  of this Act ... is that the term shall have been a fair and reasonable one to be included having
  regard to the circumstances which were, or ought reasonably to have been, known to or in the
  contemplation of the parties when the contract was made.
20. Mr Brown KC submits that it cannot be reasonable for a haulier to cap its liability at a fraction
  of one per cent of the value of a load of vaccines, where the loss is caused by its own driver's
  theft, and that the judge gave too little weight to the guidelines in Schedule 2 to the Act.
21. The judge's assessment of reasonableness is an evaluation with which this court will interfere
  only if he erred in principle or reached a conclusion outside the range of reasonable decisions:
  George Mitchell (Chesterhall) Ltd v Finney Lock Seeds Ltd [1983] 2 AC 803.[^4] No such error is shown.
22. The judge found that the limit of £1,300 per tonne was the rate commonly used in the road haulage
  industry, that Harrow was an experienced shipper which knew of the limit, and that it could have
  declared a higher value for an increased charge under clause 14.5 or insured the goods itself.
  Those findings were open to him and they support his conclusion.
23. I would add that the theft of a high-value load by a driver is a risk of the kind that is usually
  insured, and that the person best placed to insure the value of the goods is their owner, who knows
  what they are worth. A limitation clause which leaves that risk with the owner, unless a higher
  value is declared, is not unreasonable for that reason alone; the position might well be different
  if the carrier had known of the driver's dishonesty or had been careless in employing him.
24. Ground 2 also fails.
# Conclusion
25. For these reasons, which are in substance those given by the judge at [41] to [58] of his
  judgment, I would dismiss the appeal.
@ Lady Justice Jones:
26. I agree.
@ Lord Justice Patel:
27. I also agree.
"""

FOOTNOTES = {
    1: "Judgment below at [12]-[15]; R v Keane (Liverpool Crown Court, 9 June 2022).",
    2: "See also Suisse Atlantique Societe d'Armement Maritime SA v NV Rotterdamsche Kolen Centrale [1967] 1 AC 361.",
    3: "See also Persimmon Homes Ltd v Ove Arup & Partners Ltd [2017] EWCA Civ 373 at [52].",
    4: "Approved in Goodlife Foods Ltd v Hall Fire Protection Ltd [2018] EWCA Civ 1371 at [49].",
}


def _items(text: str) -> list[tuple[str, str]]:
    """:data:`BODY` as (kind, text) items: "#", "##", ">", "@" or a paragraph's number."""
    items: list[tuple[str, str]] = []
    for line in text.strip().splitlines():
        if line.startswith(" "):
            kind, body = items[-1]
            items[-1] = (kind, f"{body} {line.strip()}")
        elif line[0] in "#>@":
            mark, body = line.split(" ", 1)
            items.append((mark, body))
        else:
            number, body = line.split(" ", 1)
            items.append((number, body))
    return items


ITEMS = _items(BODY)


def _wrap(text: str, size: float, width: float, style: str = "") -> list[str]:
    lines: list[str] = []
    line = ""
    for word in text.split():
        trial = f"{line} {word}".strip()
        if line and MEASURE[style].text_length(trial.replace("[^", "").replace("]", ""), size) > width:
            lines.append(line)
            line = word
        else:
            line = trial
    return [*lines, line]


@dataclass
class Flow:
    """Lines set down the body, a page's footnotes kept for its foot, a new page when one is full."""

    doc: pymupdf.Document
    y: float = TOP
    pages: list[pymupdf.Page] = field(default_factory=list)
    notes: dict[int, list[int]] = field(default_factory=dict)  # page index -> footnote numbers

    def new_page(self) -> pymupdf.Page:
        self.pages.append(self.doc.new_page(width=595, height=842))
        self.notes[len(self.pages) - 1] = []
        self.y = TOP
        return self.pages[-1]

    def floor(self) -> float:
        """The bottom of the body on this page: above its footnotes."""
        count = len(self.notes.get(len(self.pages) - 1, []))
        return BOTTOM - (count * 2.4 * NOTE + 12 if count else 0)

    def room(self, height: float) -> pymupdf.Page:
        if not self.pages or self.y + height > self.floor():
            self.new_page()
        return self.pages[-1]

    def put(self, x: float, text: str, style: str = "", size: float = SIZE) -> None:
        """``text`` at ``x`` on the current baseline; a "[^n]" in it is set as a raised marker."""
        name, file = FONTS[style]
        page = self.pages[-1]
        for i, part in enumerate(text.split("[^")):
            if i:
                number, part = part.split("]", 1)
                page.insert_text((x, self.y - 4), number, fontname=name, fontfile=file, fontsize=size * 0.6)
                x += MEASURE[style].text_length(number, size * 0.6)
                self.notes[len(self.pages) - 1].append(int(number))
            page.insert_text((x, self.y), part, fontname=name, fontfile=file, fontsize=size)
            x += MEASURE[style].text_length(part, size)

    def line(self, x: float, text: str, style: str = "", size: float = SIZE, leading: float = 1.45) -> None:
        self.room(size * leading)
        self.y += size * leading
        self.put(x, text, style, size)

    def block(self, x: float, text: str, right: float = RIGHT, size: float = SIZE, label: str = "") -> None:
        for i, line in enumerate(_wrap(text, size, right - x)):
            self.line(x, line, size=size)
            if i == 0 and label:
                self.put(LEFT, label, size=size)


def _cover(flow: Flow) -> None:
    page = flow.pages[-1]
    for align, style, text in COVER:
        if align == "rule":
            flow.y += 10
            page.draw_line((LEFT + 60, flow.y), (RIGHT - 60, flow.y), width=0.75)
            flow.y += 4
        elif align == "parties":
            party, role = text.split("|")
            flow.line((LEFT + RIGHT - MEASURE[style].text_length(party, SIZE)) / 2, party, style, leading=2.0)
            flow.put(RIGHT - MEASURE[""].text_length(role, SIZE), role, "b")
        elif align == "right":
            flow.line(RIGHT - MEASURE[style].text_length(text, SIZE), text, style)
        else:
            lines = _wrap(text, SIZE, RIGHT - LEFT - 40, style)
            for line in lines:
                flow.line((LEFT + RIGHT - MEASURE[style].text_length(line, SIZE)) / 2, line, style)
        if text.startswith(("Date:", "Hearing dates")):
            flow.y += 8


def _body(flow: Flow) -> None:
    for kind, text in ITEMS:
        if kind == "@":
            flow.room(3 * SIZE)
            flow.y += 10
            flow.line(LEFT, text, "b")
            flow.y += 4
        elif kind == "#":
            flow.room(4 * SIZE)
            flow.y += 8
            flow.line(TAB, text, "b")
            flow.y += 2
        elif kind == ">":
            flow.block(TAB + 36, text, RIGHT - 36, SMALL)
            flow.y += 4
        else:
            flow.block(TAB, text, label=kind)
            flow.y += 8


def _finish(flow: Flow, path: Path) -> Path:
    """Each page's footnotes under a short rule, running head and "Page n"; then the file."""
    head = f"Approved Judgment    {TITLE}    [2024] EWCA Civ 123"
    for index, page in enumerate(flow.doc):
        notes = flow.notes[index]
        y = BOTTOM - len(notes) * 2.4 * NOTE
        if notes:
            page.draw_line((LEFT, y - 4), (LEFT + 140, y - 4), width=0.5)
        for number in notes:
            lines = _wrap(FOOTNOTES[number], NOTE, RIGHT - LEFT - 12)
            page.insert_text((LEFT, y + NOTE), str(number), fontname="jser", fontfile=FONTS[""][1], fontsize=NOTE * 0.7)
            for line in lines:
                y += NOTE * 1.2
                page.insert_text((LEFT + 8, y), line, fontname="jser", fontfile=FONTS[""][1], fontsize=NOTE)
            y += NOTE * 0.2
        if index:
            page.insert_text((LEFT, 48), head, fontname="jseri", fontfile=FONTS["i"][1], fontsize=9)
        footer = f"Page {index + 1}"
        page.insert_text(
            ((595 - MEASURE[""].text_length(footer, 9)) / 2, 800),
            footer,
            fontname="jser",
            fontfile=FONTS[""][1],
            fontsize=9,
        )
    flow.doc.set_metadata({"title": TITLE, "creator": "Microsoft® Word for Microsoft 365"})
    flow.doc.save(path)
    flow.doc.close()
    return path


def write_judgment(path: Path) -> Path:
    """The judgment: its cover block, the lead judgment in numbered paragraphs, the concurrences."""
    flow = Flow(pymupdf.open())
    flow.new_page()
    _cover(flow)
    flow.new_page()
    _body(flow)
    return _finish(flow, path)

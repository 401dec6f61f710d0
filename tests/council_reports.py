"""A council committee report as a council's Word template exports it to PDF, for tests: A4, an
embedded sans font, the council's name and the report's title, a ruled cover box of fields (a bold
label, its value at a tab stop), numbered bold section headings ("2. Recommendations") over numbered
paragraphs in a hanging indent ("2.1" in the left gutter, the text set in under itself), a
recommendations list "(a) ... (b) ...", a ruled financial table, cross-references to paragraphs and
appendices, a Background papers list and appendices headed "Appendix A – Consultation responses",
a running head and a "Page n of m" footer."""

from __future__ import annotations

from pathlib import Path

import pymupdf

from tests.board_minutes import BOLD, FONT, LEFT, MEASURE, RIGHT, Page, wrap

GUTTER = LEFT + 36.0  # where a numbered paragraph's text and a heading's title start
TAB = LEFT + 118.0  # the cover box's value column, right of its rule
COVER = (
    ("Report to:", "Planning Committee"),
    ("Date:", "14 January 2026"),
    ("Report of:", "Head of Planning"),
    ("Wards affected:", "Millbrook North; Millbrook South; Harlow Green"),
    ("Key decision:", "Yes"),
    ("Contact officer:", "Helen Marsh, Principal Planning Officer, helen.marsh@riverside.gov.uk"),
)
TITLE = "Land at Mill Farm, Harlow Road: outline planning application 25/01234/OUT"
RECOMMENDATIONS = (
    "(a) grants outline planning permission for up to 240 homes, a primary school site and public open space, "
    "subject to the conditions listed in Appendix B;",
    "(b) delegates authority to the Head of Planning to complete a section 106 agreement securing 35 per cent "
    "affordable housing and the contributions set out in paragraph 6.2;",
    "(c) agrees that, if the section 106 agreement is not completed by 30 April 2026, the application is "
    "reported back to this Committee.",
)
FINANCE = (
    ("Budget line", "2025/26 £", "2026/27 £"),
    ("Planning application fee income", "(96,000)", "0"),
    ("Highways monitoring (S106)", "0", "(12,500)"),
    ("Legal costs of the S106 agreement", "8,400", "3,600"),
    ("Net effect on the Planning budget", "(87,600)", "(8,900)"),
)
BACKGROUND_PAPERS = (
    "Riverside Local Plan 2020–2035, adopted March 2022",
    "Mill Farm Development Brief, Supplementary Planning Document, July 2023",
    "Planning application file 25/01234/OUT and the consultation responses received",
)
# (number, heading, paragraphs); a paragraph "(a) ..." list is set by its own rule below.
SECTIONS: tuple[tuple[str, str, tuple[tuple[str, str], ...]], ...] = (
    (
        "1.",
        "Purpose of the report",
        (
            (
                "1.1",
                "This report asks the Committee to determine an outline planning application for up to 240 homes "
                "on land at Mill Farm, Harlow Road. The application is reported to Committee because it is a "
                "departure from the Local Plan in respect of the density of the northern parcel, and because more "
                "than ten objections have been received from residents of the affected wards.",
            ),
            (
                "1.2",
                "The application is a key decision because it affects more than two wards and because the "
                "section 106 contributions exceed the threshold of £250,000 in the Council's constitution.",
            ),
        ),
    ),
    ("2.", "Recommendations", (("2.1", "That the Committee:"),)),
    (
        "3.",
        "Background",
        (
            (
                "3.1",
                "Mill Farm is a 14.2 hectare site of arable fields on the eastern edge of Millbrook, bounded by "
                "Harlow Road to the south and the Mill Brook to the north. The site is allocated for housing "
                "under policy H7 of the Local Plan, which expects about 200 homes and land for a primary school.",
            ),
            (
                "3.2",
                "The Mill Farm Development Brief was adopted as a supplementary planning document in July 2023 "
                "after consultation with residents and the parish councils of Millbrook and Harlow Green.",
            ),
            (
                "3.3",
                "A screening opinion issued in May 2025 found that an environmental impact assessment is not "
                "required, subject to the flood risk assessment described in paragraph 4.3.",
            ),
            (
                "3.4",
                "The applicant, Harlow Homes Limited, held two public exhibitions in September 2025 before "
                "submitting the application on 3 October 2025.",
            ),
        ),
    ),
    (
        "4.",
        "Assessment of the proposal",
        (
            (
                "4.1",
                "The principle of housing on the site is established by policy H7. The proposal exceeds the "
                "expected number of homes by 40, which officers consider acceptable given the site's access to "
                "the bus corridor on Harlow Road and the Council's five-year housing land supply of 4.1 years.",
            ),
            (
                "4.2",
                "The indicative layout keeps a landscaped buffer of at least 30 metres along the Mill Brook and "
                "retains the hedgerows along the field boundaries. The urban design officer supports the layout "
                "subject to a design code being agreed at reserved matters stage.",
            ),
            (
                "4.3",
                "The northern parcel lies partly in flood zone 2. The flood risk assessment shows that all homes "
                "can be placed in flood zone 1, with finished floor levels at least 600 millimetres above the "
                "modelled 1 in 100 year flood level plus an allowance for climate change. The Environment Agency "
                "has withdrawn its initial objection subject to condition 9 in Appendix B.",
            ),
            (
                "4.4",
                "Harlow Road will be widened at the new junction and a signalised pedestrian crossing provided "
                "near the school site. The highway authority raises no objection subject to the contribution "
                "towards the Millbrook bus service set out in paragraph 6.2.",
            ),
            (
                "4.5",
                "The scheme provides 35 per cent affordable housing, 84 homes, of which 70 per cent would be for "
                "social rent and 30 per cent for shared ownership, in line with policy H4 of the Local Plan. "
                "The housing enabling officer has asked that the affordable homes are spread across the site "
                "rather than grouped in one parcel, and the applicant has agreed to show this in the reserved "
                "matters applications.",
            ),
            (
                "4.6",
                "The ecological appraisal finds a net gain in biodiversity of 11 per cent, above the statutory "
                "10 per cent, largely through new wetland habitat beside the Mill Brook. A landscape and "
                "ecological management plan would be secured by condition and its long-term funding by the "
                "section 106 agreement, with a management company responsible for the open space.",
            ),
            (
                "4.7",
                "Officers conclude that the benefits of the scheme, in particular the affordable homes, the "
                "school site and the contribution to the housing land supply, outweigh the limited harm from the "
                "higher density of the northern parcel, and that permission should be granted as recommended in "
                "section 2 of this report.",
            ),
        ),
    ),
    (
        "5.",
        "Consultation",
        (
            (
                "5.1",
                "The application was publicised by site notices, a press notice and letters to 412 neighbouring "
                "addresses. A summary of every response received is set out in Appendix A.",
            ),
            (
                "5.2",
                "Millbrook Parish Council objects to the application on the grounds of traffic on Harlow Road and "
                "the loss of open views from the public footpath across the site.",
            ),
            (
                "5.3",
                "Harlow Green Parish Council does not object but asks that the pedestrian crossing described in "
                "paragraph 4.4 is in place before the first home is occupied.",
            ),
            (
                "5.4",
                "Thirty-seven letters of objection were received from residents. The main concerns were traffic "
                "and parking on Harlow Road, flooding from the Mill Brook, pressure on places at Millbrook "
                "surgery, and the height of the homes proposed next to Brook Lane. Four letters of support "
                "welcomed the affordable homes and the new school site.",
            ),
            (
                "5.5",
                "The Lead Local Flood Authority has no objection subject to a surface water drainage scheme "
                "being approved before development starts.",
            ),
            (
                "5.6",
                "The Integrated Care Board asks for a contribution of £180,000 towards extending Millbrook "
                "surgery, which the applicant has accepted.",
            ),
        ),
    ),
    (
        "6.",
        "Financial implications",
        (
            (
                "6.1",
                "The application fee of £96,000 has been received and is shown as income in the Planning budget "
                "for 2025/26. The legal costs of the section 106 agreement are recovered from the applicant.",
            ),
            (
                "6.2",
                "The section 106 agreement would secure £1.2 million towards primary education, £180,000 for "
                "the surgery, £350,000 towards the Millbrook bus service over five years and a monitoring fee "
                "of £12,500. The effect on the Council's budgets is summarised in the table below.",
            ),
        ),
    ),
    (
        "7.",
        "Legal implications",
        (
            (
                "7.1",
                "The Committee must determine the application in accordance with the development plan unless "
                "material considerations indicate otherwise. The departure described in paragraph 1.1 has been "
                "advertised as the regulations require.",
            ),
            (
                "7.2",
                "Because the application is a departure, it need not be referred to the Secretary of State: "
                "it is below the threshold of 1,000 homes in the consultation direction.",
            ),
        ),
    ),
    (
        "8.",
        "Timetable and decision",
        (
            (
                "8.1",
                "The statutory period for determining the application has been extended by agreement with the "
                "applicant to 31 January 2026. A decision is therefore needed at this meeting, so that the "
                "decision notice can be issued before the extended deadline once the section 106 agreement is "
                "signed.",
            ),
        ),
    ),
)
APPENDIX_A = (
    "Millbrook Parish Council: objects; traffic on Harlow Road at school times and the loss of views from "
    "footpath MB12 across the site.",
    "Harlow Green Parish Council: no objection; the pedestrian crossing to be in place before first occupation.",
    "Environment Agency: initial objection withdrawn after the revised flood risk assessment; condition 9 requested.",
    "Highway authority: no objection subject to the Harlow Road junction works and the bus service contribution.",
    "Residents: 37 objections (traffic, flooding, surgery capacity, building heights next to Brook Lane) and "
    "4 letters of support (affordable homes, school site).",
)
APPENDIX_B = (
    "1. The development shall begin within three years of the approval of the last reserved matters.",
    "2. Reserved matters shall accord with a design code to be approved before the first application.",
    "9. Finished floor levels shall be at least 600 millimetres above the modelled 1 in 100 year flood level "
    "plus the climate change allowance.",
    "14. No home shall be occupied until the signalised crossing on Harlow Road is open to the public.",
)


def _heading(flow: Page, number: str, title: str) -> None:
    """A numbered section heading: bold, the number at the margin, the title at the gutter."""
    flow.room(70)
    flow.y += 6
    flow.runs([(number, True, LEFT), (title, True, GUTTER)], 12, after=6)


def _numbered(flow: Page, number: str, text: str) -> None:
    """A numbered paragraph in a hanging indent: the number in the gutter, the text set in under itself."""
    lines = wrap(text, 11, False, RIGHT - GUTTER)
    flow.runs([(number, False, LEFT), (lines[0], False, GUTTER)], 11)
    for line in lines[1:]:
        flow.runs([(line, False, GUTTER)], 11)
    flow.y += 8


def _cover(flow: Page) -> None:
    """The cover box: a ruled frame round the report's fields, a rule under each."""
    top = flow.y
    flow.y += 6
    for label, value in COVER:
        lines = wrap(value, 11, False, RIGHT - TAB)
        flow.runs([(label, True, LEFT), (lines[0], False, TAB)], 11)
        for line in lines[1:]:
            flow.runs([(line, False, TAB)], 11)
        flow.y += 4
        flow.page().draw_line((LEFT - 6, flow.y - 2), (RIGHT + 6, flow.y - 2), width=0.5)
    flow.page().draw_rect(pymupdf.Rect(LEFT - 6, top, RIGHT + 6, flow.y - 2), width=0.8)
    flow.page().draw_line((TAB - 8, top), (TAB - 8, flow.y - 2), width=0.5)
    flow.y += 16


def _table(flow: Page, rows: tuple[tuple[str, str, str], ...]) -> None:
    """A ruled grid, as Word draws a table with all borders: the header row bold, amounts set right."""
    height = 20.0
    page = flow.room(height * len(rows) + 10)
    edges = (LEFT, LEFT + 260, LEFT + 355, RIGHT)
    top = flow.y
    for index, row in enumerate(rows):
        y = top + index * height
        for column, cell in enumerate(row):
            bold = index == 0 or row[0].startswith("Net")
            name, file = ("djb", BOLD) if bold else ("dj", FONT)
            width = MEASURE[bold].text_length(cell, fontsize=10)
            x = edges[column] + 4 if column == 0 else edges[column + 1] - 4 - width
            page.insert_text((x, y + 14), cell, fontsize=10, fontname=name, fontfile=file)
    bottom = top + height * len(rows)
    for index in range(len(rows) + 1):
        page.draw_line((LEFT, top + index * height), (RIGHT, top + index * height), width=0.5)
    for x in edges:
        page.draw_line((x, top), (x, bottom), width=0.5)
    flow.y = bottom + 14


def write_council_report(pdf: Path) -> Path:
    """The Planning Committee's report on the Mill Farm application, about seven pages."""
    flow = Page(pymupdf.open(), "Riverside District Council – Planning Committee – 14 January 2026")
    flow.text("Riverside District Council", size=16, bold=True, after=6)
    flow.text(TITLE, size=14, bold=True, after=12)
    _cover(flow)
    for number, title, paragraphs in SECTIONS:
        _heading(flow, number, title)
        for label, text in paragraphs:
            _numbered(flow, label, text)
        if number == "2.":
            for item in RECOMMENDATIONS:
                marker, rest = item.split(" ", 1)
                lines = wrap(rest, 11, False, RIGHT - GUTTER - 28)
                flow.runs([(marker, False, GUTTER), (lines[0], False, GUTTER + 28)], 11)
                for line in lines[1:]:
                    flow.runs([(line, False, GUTTER + 28)], 11)
                flow.y += 6
            _numbered(flow, "2.2", "The reasons for the recommendations are set out in section 4 of this report.")
        if number == "6.":
            _table(flow, FINANCE)
    _heading(flow, "9.", "Background papers")
    for paper in BACKGROUND_PAPERS:
        flow.runs([("•", False, GUTTER), (paper, False, GUTTER + 16)], 11, after=4)
    flow.new_page()
    flow.text("Appendix A – Consultation responses", size=12, bold=True, after=8)
    for response in APPENDIX_A:
        flow.text(response)
    flow.new_page()
    flow.text("Appendix B – Recommended conditions", size=12, bold=True, after=8)
    for condition in APPENDIX_B:
        flow.text(condition)
    return flow.finish(pdf)

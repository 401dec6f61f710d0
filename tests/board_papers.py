"""A board's other papers made for tests as a word processor exports them: the agenda (a borderless
table of items, times, subjects and leads), the action log (a ruled table of actions by reference)
and a board paper with its cover details and a ruled table of dates."""

from __future__ import annotations

from pathlib import Path

import pymupdf

from tests.board_minutes import BOLD, FONT, LEFT, RIGHT, Page, wrap

AGENDA = (
    ("1", "18:00", "Welcome and apologies", "Chair"),
    ("2", "18:05", "Minutes of the previous meeting held on 17 February 2026 and matters arising", "Chair"),
    ("3", "18:15", "Chief Executive's report", "Mark Evans"),
    ("4", "18:35", "Housing services report, including repairs performance", "Mark Evans"),
    ("5", "19:00", "Damp and mould policy review following the Housing Ombudsman's spotlight report", "Ravi Patel"),
    ("6", "19:40", "Any other business", "Chair"),
)
ACTIONS = (
    ("M26/038", "5.2", "Publish the tenant satisfaction measures on the website", "Rachel Green", "31/03/2026", "Open"),
    ("M26/039", "4.1", "Recruit two further repairs contractors", "Mark Evans", "30/04/2026", "Open"),
    (
        "M26/041",
        "4.2",
        "Report on mould survey completion rates to the May board",
        "Ravi Patel",
        "19/05/2026",
        "Open",
    ),
    ("M26/042", "5", "Circulate the revised board calendar", "Rachel Green", "24/03/2026", "Closed"),
)
# The paper's cover details: a bold label, its value at the tab stop. The tab after "Meeting:" and
# "Purpose:" is narrower than after "Author:", so the text layer glues those labels to their values.
COVER = (
    ("Meeting:", "Board of Management, 17 March 2026"),
    ("Author:", "Ravi Patel, Director of Property"),
    (
        "Purpose:",
        "For decision: to approve the revised damp and mould policy and the timetable for putting it into effect",
    ),
)
MILESTONES = (
    ("Policy approved by the Board", "17/03/2026"),
    ("Staff briefing completed", "27/03/2026"),
    ("Policy takes effect", "01/04/2026"),
    ("First quarterly survey report", "19/05/2026"),
)


def cell(page: pymupdf.Page, x: float, y: float, text: str, size: float = 10, bold: bool = False) -> None:
    name, file = ("djb", BOLD) if bold else ("dj", FONT)
    page.insert_text((x, y), text, fontsize=size, fontname=name, fontfile=file)


def write_agenda(pdf: Path, held: str = "17 March 2026") -> Path:
    """The agenda of the meeting held on ``held``: its details, then a borderless table of items whose
    subjects wrap within their column."""
    flow = Page(pymupdf.open(), "Northgate Housing Association: Board of Management")
    flow.text("Northgate Housing Association", size=16, bold=True, after=4)
    flow.text(f"Agenda for the Board of Management meeting on {held}", size=12, bold=True, after=6)
    flow.text("18:00, Boardroom, Northgate House, 4 Mill Lane, Leeds", after=14)
    columns = (LEFT, LEFT + 40, LEFT + 95, LEFT + 350)
    page = flow.page()
    for x, head in zip(columns, ("Item", "Time", "Subject", "Lead"), strict=True):
        cell(page, x, flow.y + 10, head, bold=True)
    flow.y += 22
    for item, time, subject, lead in AGENDA:
        lines = wrap(subject, 10, False, columns[3] - columns[2] - 12)
        for x, text in zip(columns, (item, time, lines[0], lead), strict=True):
            cell(page, x, flow.y + 10, text)
        for offset, line in enumerate(lines[1:], start=1):
            cell(page, columns[2], flow.y + 10 + 13 * offset, line)
        flow.y += 13 * len(lines) + 9
    return flow.finish(pdf)


def ruled_table(flow: Page, columns: tuple[float, ...], rows: list[tuple[str, ...]], size: float = 9) -> None:
    """``rows`` in a table ruled round every cell, the first row bold, wrapped within columns."""
    page = flow.page()
    edges = (*columns, RIGHT)
    for r, row in enumerate(rows):
        wrapped = [wrap(text, size, r == 0, edges[c + 1] - edges[c] - 6) for c, text in enumerate(row)]
        height = 6 + size * 1.3 * max(len(lines) for lines in wrapped)
        for c, lines in enumerate(wrapped):
            for k, line in enumerate(lines):
                cell(page, edges[c] + 3, flow.y + 3 + size + size * 1.3 * k, line, size, r == 0)
            page.draw_rect(pymupdf.Rect(edges[c], flow.y, edges[c + 1], flow.y + height), width=0.5)
        flow.y += height
    flow.y += 12


def write_action_log(pdf: Path, actions: tuple[tuple[str, ...], ...] = ACTIONS) -> Path:
    """The board's action log: a ruled table of ``actions`` by reference, minute, owner and due date."""
    flow = Page(pymupdf.open(), "Northgate Housing Association: Board action log")
    flow.text("Board of Management action log", size=16, bold=True, after=4)
    flow.text("Updated after the meeting of 17 March 2026", after=12)
    header = ("Ref", "Minute", "Action", "Owner", "Due", "Status")
    ruled_table(flow, (LEFT, LEFT + 52, LEFT + 92, LEFT + 262, LEFT + 340, LEFT + 400), [header, *actions])
    return flow.finish(pdf)


def write_board_paper(pdf: Path) -> Path:
    """Board paper A26/03: cover details, sections, and a ruled table of milestones by date."""
    flow = Page(pymupdf.open(), "Board paper A26/03")
    flow.text("Board paper A26/03: Damp and mould policy", size=16, bold=True, after=8)
    for label, value in COVER:
        flow.field(label, value)
    flow.y += 12
    flow.text("1. Purpose", size=12, bold=True, after=4)
    flow.text(
        "This paper asks the Board to approve a revised damp and mould policy. Every report of damp or mould "
        "from a tenant will be inspected within 10 working days and treated within 20 working days."
    )
    flow.text("2. Timetable", size=12, bold=True, after=4)
    flow.text("Table 1: Milestones for the revised policy", size=10, bold=True, after=4)
    ruled_table(flow, (LEFT, LEFT + 260), [("Milestone", "Date"), *MILESTONES])
    flow.text("FAQ: How will tenants report damp and mould?", size=11, bold=True, after=4)
    flow.text("Tenants can report damp and mould by telephone, online or through their housing officer.")
    return flow.finish(pdf)

"""The byline of a title page: what stands between the title and the document's first section.

Under a title come its authors ("Achim Zeileis", "Terry M Therneau, Cynthia S Crowson"), their
affiliations, a date ("February 6, 2023") and subtitles ("Reference Manual", "for GLPK Version
5.0"), set larger or bolder than the text, so font statistics call them section headers. As sections
they would head the abstract ("February 6, 2023" > "Abstract ..."). They are the title page's
paragraphs: every header below the title and above the first real section (a numbered heading, a
front-matter heading such as "Abstract" or "Contents", or the first prose) is one, except a header
right above that prose, which heads it, unless it is a date, and one set flush over the prose that
opens its column. A subtitle set right under the title in the title's face, only smaller, is the
title's part (:func:`join_subtitle`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from docgraph.ingest.labels import FRONT_MATTER_HEADING
from docgraph.ingest.page.blocks import Block
from docgraph.ingest.page.classify import NUMBERED_HEADING_RE
from docgraph.ingest.page.key_figures import key_figure
from docgraph.ingest.types import BBox

PROSE_MIN_WORDS = 12
SUBTITLE_MAX_LINES = 2
SUBTITLE_EDGE = 2.0  # points: a subtitle starts where its title starts, or is centred under it
SUBTITLE_GAP = 0.5  # of the title's size: the white between the title and its subtitle, at most
SUBTITLE_LINE = 1.0  # of the title's size: that white where the subtitle is nearer the title than the text under it
_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|"
    r"oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
_DATE = re.compile(
    rf"^\W*(?:\d{{1,2}}\s+{_MONTH},?\s+\d{{4}}|{_MONTH}\s+(?:\d{{1,2}},?\s+)?\d{{4}}|\d{{4}}-\d{{2}}-\d{{2}})\b",
    re.IGNORECASE,
)


def join_subtitle(blocks: list[Block]) -> None:
    """The title's subtitle read as part of the title: a heading of a line or two set close under
    the title in its face (bold if it is), smaller, flush with it or centred under it, the text
    under it set otherwise ("Northgate Housing Association" over "Minutes of the Board of Management
    meeting held on 17 March 2026"). It says what the document is, and when; as a byline's
    paragraph it was neither title nor head."""
    title = next((b for b in blocks if b.kind == "title"), None)
    if title is None:
        return
    below = sorted((b for b in blocks if b is not title and b.bbox.y0 >= title.bbox.y1 - 1.0), key=lambda b: b.bbox.y0)
    if not below or not _subtitle(title, below[0], below[1] if len(below) > 1 else None):
        return
    under = below[0]
    if len(below) > 1 and _alike(below[1], under):
        return  # a byline's lines set alike: an affiliation over its author ("X Desktop Group" over a name)
    title.lines.extend(under.lines)
    blocks.remove(under)


def _subtitle(title: Block, block: Block, after: Block | None) -> bool:
    size = title.size
    flush = abs(block.bbox.x0 - title.bbox.x0) <= SUBTITLE_EDGE
    centred = abs((block.bbox.x0 + block.bbox.x1) - (title.bbox.x0 + title.bbox.x1)) / 2 <= SUBTITLE_EDGE
    return (
        block.kind == "section_header"
        and len(block.lines) <= SUBTITLE_MAX_LINES
        and block.font == title.font
        and block.bold == title.bold
        and block.size < size
        and _close_under(title, block, after)
        and (flush or centred)
        and not _starts_a_section(block)
        and not _DATE.match(block.raw_text)
    )


def _close_under(title: Block, block: Block, after: Block | None) -> bool:
    """``block`` is set close under ``title``: within half the title's size, or within a line of it
    and nearer the title than the text ``after`` it (a council's report title under its name, set
    a line's white apart, the cover box further below)."""
    gap = block.bbox.y0 - title.bbox.y1
    if gap <= SUBTITLE_GAP * title.size:
        return True
    return after is not None and gap <= SUBTITLE_LINE * title.size and gap < after.bbox.y0 - block.bbox.y1


def _alike(block: Block, other: Block) -> bool:
    return block.font == other.font and block.bold == other.bold and abs(block.size - other.size) < 0.5


def demote_byline(blocks: Sequence[Block], tables: Sequence[BBox] = ()) -> None:
    """On a page with a title, turn the byline's section headers into paragraphs. A table under the
    title ends the byline as prose does, and the header right over it heads it (a lease's
    "PARTICULARS" over the particulars' table)."""
    titles = [b for b in blocks if b.kind == "title"]
    if not titles:
        return
    top = max(b.bbox.y1 for b in titles)
    below = sorted((b for b in blocks if b.kind != "title" and b.bbox.y0 >= top - 1.0), key=lambda b: b.bbox.y0)
    table = min((t for t in tables if t.y0 >= top - 1.0), key=lambda t: t.y0, default=None)
    byline: list[Block] = []
    previous: Block | None = None
    for block in below:
        if _starts_a_section(block):
            break
        if table is not None and block.bbox.y0 >= table.y0 - 1.0:
            break
        if _prose(block):
            if byline and byline[-1] is previous and not _DATE.match(previous.raw_text):
                byline.pop()  # the heading of this prose
            break
        if block.kind == "section_header":
            byline.append(block)
        previous = block
    if table is not None and byline and byline[-1] is previous and _heads(previous, table, below):
        byline.pop()  # the heading of the table
    for block in byline:
        if not _opens_a_column(block, below):
            block.kind = "paragraph"


def _heads(header: Block, table: BBox, blocks: Sequence[Block]) -> bool:
    """``header`` stands right over ``table``: over its columns, no text between them."""
    between = [b for b in blocks if header.bbox.y1 - 1.0 <= b.bbox.y0 and b.bbox.y1 <= table.y0 + 1.0]
    return header.bbox.x_overlap(table) > 0 and not between and header.bbox.y1 <= table.y0 + 1.0


def _opens_a_column(header: Block, blocks: Sequence[Block]) -> bool:
    """``header`` heads the prose right under it in its column, set flush with it: a newsletter's
    columns under its title open with headings set at slightly different heights, and only the
    lower one stood right above the first prose. A centred author's name is not flush with prose."""
    if _DATE.match(header.raw_text):
        return False
    under = [b for b in blocks if b.bbox.y0 >= header.bbox.y1 - 1.0 and b.bbox.x_overlap(header.bbox) > 0]
    first = min(under, key=lambda b: b.bbox.y0, default=None)
    return first is not None and _prose(first) and abs(first.bbox.x0 - header.bbox.x0) <= max(header.size, 1.0)


def _starts_a_section(block: Block) -> bool:
    text = block.raw_text
    return block.kind == "section_header" and bool(NUMBERED_HEADING_RE.match(text) or FRONT_MATTER_HEADING.match(text))


def _prose(block: Block) -> bool:
    """Text a heading may head: a paragraph or a list of a sentence's length, or a key figure."""
    worded = len(block.raw_text.split()) >= PROSE_MIN_WORDS or key_figure(block.lines)
    return block.kind in ("paragraph", "list") and worded

"""The byline of a title page: what stands between the title and the document's first section.

Under a title come its authors ("Achim Zeileis", "Terry M Therneau, Cynthia S Crowson"), their
affiliations, a date ("February 6, 2023") and subtitles ("Reference Manual", "for GLPK Version
5.0"), set larger or bolder than the text, so font statistics call them section headers. As sections
they would head the abstract ("February 6, 2023" > "Abstract ..."). They are the title page's
paragraphs: every header below the title and above the first real section (a numbered heading, a
front-matter heading such as "Abstract" or "Contents", or the first prose) is one, except a header
right above that prose, which heads it, unless it is a date.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from docgraph.ingest.labels import FRONT_MATTER_HEADING
from docgraph.ingest.page.blocks import Block
from docgraph.ingest.page.classify import NUMBERED_HEADING_RE

PROSE_MIN_WORDS = 12
_MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|"
    r"oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
_DATE = re.compile(
    rf"^\W*(?:\d{{1,2}}\s+{_MONTH},?\s+\d{{4}}|{_MONTH}\s+(?:\d{{1,2}},?\s+)?\d{{4}}|\d{{4}}-\d{{2}}-\d{{2}})\b",
    re.IGNORECASE,
)


def demote_byline(blocks: Sequence[Block]) -> None:
    """On a page with a title, turn the byline's section headers into paragraphs."""
    titles = [b for b in blocks if b.kind == "title"]
    if not titles:
        return
    top = max(b.bbox.y1 for b in titles)
    below = sorted((b for b in blocks if b.kind != "title" and b.bbox.y0 >= top - 1.0), key=lambda b: b.bbox.y0)
    byline: list[Block] = []
    previous: Block | None = None
    for block in below:
        if _starts_a_section(block):
            break
        if _prose(block):
            if byline and byline[-1] is previous and not _DATE.match(previous.raw_text):
                byline.pop()  # the heading of this prose
            break
        if block.kind == "section_header":
            byline.append(block)
        previous = block
    for block in byline:
        block.kind = "paragraph"


def _starts_a_section(block: Block) -> bool:
    text = block.raw_text
    return block.kind == "section_header" and bool(NUMBERED_HEADING_RE.match(text) or FRONT_MATTER_HEADING.match(text))


def _prose(block: Block) -> bool:
    return block.kind in ("paragraph", "list") and len(block.raw_text.split()) >= PROSE_MIN_WORDS

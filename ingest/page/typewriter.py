"""Documents set wholly in a typewriter font: an RFC or an Internet-Draft printed from its text
form, a plain-text manual or standard turned into a PDF.

Elsewhere a monospaced block is code, told from the text by its font. Where the text itself is
monospaced, the font says nothing: a block is preformatted (a packet diagram, a state machine, an
aligned table, a listing) when its rows keep columns apart with runs of spaces or are drawn with
box characters, and prose otherwise, typed as any other text is (paragraph, heading, list). A
heading of such a document is set in the body's size and often not bold: it stands alone, flush
with the page's text margin, while the body is indented past it ("4.2.1.  Retransmission" over
"   A sender MUST ...").
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from docgraph.ingest.page.blocks import Block, code_rows
from docgraph.ingest.pdf.lines import TextLine

TYPEWRITER_SHARE = 0.8  # of a document's characters, in monospaced lines: the text is typewritten
MIN_CHARS = 200  # fewer characters prove nothing (a one-page listing)
_COLUMN_GAP = re.compile(r"\S {3,}\S")  # three spaces inside a row: columns kept apart
_ART_CHARS = frozenset("+-|/\\<>=_*^~#")
ART_SHARE = 0.3  # of a row's characters, drawing characters: a diagram's row ("+-+-+", "|  |")
RAGGED_MIN_ROWS = 3  # fewer rows say nothing of how lines are broken
RAGGED_SHARE = 0.6  # of the page's text width: a row ending before it was broken short
MARGIN_PT = 1.0  # how near the page's text margin a heading starts
TITLE_INDENT_SHARE = 0.1  # of the text width: how far from the margin a centred title starts


def typewritten(lines: Iterable[TextLine]) -> bool:
    """Whether the text is set in a monospaced font, nearly all of it."""
    total = mono = 0
    for line in lines:
        total += line.chars
        mono += line.chars if line.mono else 0
    return total >= MIN_CHARS and mono >= TYPEWRITER_SHARE * total


def preformatted(block: Block, text_left: float, text_right: float) -> bool:
    """Whether a monospaced block keeps its layout: a row with columns apart or drawn in box
    characters (not "Email: a@b.c" or a sentence with a hyphen), or rows broken short of the page's
    text width (``text_left`` to ``text_right``), as code is set."""
    for text, _indent in code_rows(block.lines):
        row = text.strip()
        if _COLUMN_GAP.search(row):
            return True
        ink = [ch for ch in row if not ch.isspace()]
        if len(ink) >= 3 and sum(ch in _ART_CHARS for ch in ink) >= ART_SHARE * len(ink):
            return True
    return _ragged(block, text_left + RAGGED_SHARE * (text_right - text_left))


def _ragged(block: Block, short_of: float) -> bool:
    """Whether most rows but the last end before ``short_of``: lines broken where the writer chose
    (code), not filled to the width and wrapped (prose)."""
    ends = [line.bbox.x1 for line in sorted(block.lines, key=lambda ln: ln.center_y)]
    if len(ends) < RAGGED_MIN_ROWS:
        return False
    return 2 * sum(end < short_of for end in ends[:-1]) >= len(ends) - 1


def at_text_margin(block: Block, blocks: Sequence[Block]) -> bool:
    """Whether ``block`` starts at the page's text margin while most of the page's paragraphs are
    indented past it: where a typewritten document sets its headings."""
    left = min(text_start(b.lines[0]) for b in blocks)
    prose = [b for b in blocks if b.kind == "paragraph" and b is not block]
    indented = sum(b.chars for b in prose if text_start(b.lines[0]) > left + block.size)
    return 2 * indented > sum(b.chars for b in prose) and text_start(block.lines[0]) <= left + MARGIN_PT


def text_start(line: TextLine) -> float:
    """Where a line's first letter stands: past the spaces typed before it, if any."""
    leading = len(line.text) - len(line.text.lstrip())
    return line.bbox.x0 + leading * line.bbox.width / max(len(line.text), 1)


def typewritten_title(blocks: Sequence[Block], typewriter: bool) -> Block | None:
    """A typewritten document's title: the first page's first paragraph set centred, away from the
    margin, before its first heading ("              The Example Transport Protocol (ETP)"); a
    typewriter has no larger type to set it in."""
    text = [b for b in blocks if b.kind in ("paragraph", "list", "code", "section_header") and b.lines[0].horizontal]
    if not typewriter or not text:
        return None
    left = min(text_start(b.lines[0]) for b in text)
    right = max(b.bbox.x1 for b in text)
    for block in sorted(text, key=lambda b: b.bbox.y0):
        if block.kind == "section_header":
            return None
        start = text_start(block.lines[0])
        off_centre = abs((start + block.bbox.x1) - (left + right)) / 2
        away = start > left + TITLE_INDENT_SHARE * (right - left)
        if block.kind == "paragraph" and len(block.lines) <= 3 and away and off_centre <= 2 * block.size:
            return block
    return None

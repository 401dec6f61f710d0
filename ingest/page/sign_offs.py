"""A statement's sign-off: the signatory's name over their role or the date ("Michael Thornbury"
over "Chair, 4 March 2026") at the foot of a chair's or a chief executive's statement or a letter.

Set in bold at the body's size, the name was read as a heading (of its role line); and in a
statement set in two columns, under the left column, which runs on below the right one's end, it
was read between the columns, as the left column's last lines. A line of two to four capitalised
words without digits, right over a line or two opening with a role ("Chair", "Chief Executive",
"Company Secretary") or a date, with no text under them in their column, is a sign-off: one
paragraph, read after the text of every column that starts above it. A board member's name and
role over their biography are a heading, not a sign-off.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from docgraph.ingest.page.blocks import Block
from docgraph.ingest.types import BBox

_NAME_WORD = r"(?:[A-Z][a-z'’-]+|[A-Z]\.)"
_NAME = rf"{_NAME_WORD}(?:\s+(?:{_NAME_WORD}|de|van|von|der)){{1,3}}"
_ROLE = (
    r"(?:(?:Group|Deputy|Vice|Senior\s+Independent|Non-Executive|Executive)\s+)?"
    r"(?:Chair(?:man|woman|person)?|Chief\s+[A-Z][a-z]+(?:\s+Officer)?|(?:Managing|Finance)\s+Director|Director"
    r"|(?:Company\s+)?Secretary|President|Treasurer|CEO|CFO|COO)\b"
)
_MONTH = r"(?:January|February|March|April|May|June|July|August|September|October|November|December)"
_DATE = rf"\d{{1,2}}\s+{_MONTH}\s+\d{{4}}|{_MONTH}\s+\d{{1,2}},?\s+\d{{4}}"
NAME_LINE = re.compile(rf"^{_NAME}$")
ROLE_LINE = re.compile(rf"^(?:{_ROLE}|(?:{_DATE})\b)")
SIGN_OFF = re.compile(rf"^{_NAME}\s+(?:{_ROLE}|(?:{_DATE})\b)")
MAX_ROLE_LINES = 2
MAX_ROLE_WORDS = 12
EDGE_TOLERANCE = 2.0  # points: the role line starts where the name starts, or is centred under it
LINE_GAP = 1.0  # of the name's size: the white between the name and its role line, at most


def join_sign_offs(blocks: list[Block]) -> None:
    """Each sign-off's name and role lines as one paragraph, in place."""
    for name in list(blocks):
        role = _role_under(name, blocks)
        if role is not None and not _text_under(name, role, blocks):
            name.lines.extend(role.lines)
            name.kind = "paragraph"
            blocks.remove(role)


def _role_under(name: Block, blocks: Sequence[Block]) -> Block | None:
    """The block of a role or a date set right under ``name``, when ``name`` is a person's name."""
    if name.kind not in ("section_header", "paragraph") or len(name.lines) != 1:
        return None
    if not NAME_LINE.match(name.raw_text.strip()):
        return None
    size = max(name.size, 1.0)
    for block in blocks:
        gap = block.bbox.y0 - name.bbox.y1
        flush = abs(block.bbox.x0 - name.bbox.x0) <= EDGE_TOLERANCE
        centred = abs(block.bbox.x0 + block.bbox.x1 - name.bbox.x0 - name.bbox.x1) / 2 <= EDGE_TOLERANCE
        if block is name or not -1.0 <= gap <= LINE_GAP * size or not (flush or centred):
            continue
        text = block.raw_text.strip()
        short = len(block.lines) <= MAX_ROLE_LINES and len(text.split()) <= MAX_ROLE_WORDS
        return block if block.kind == "paragraph" and short and ROLE_LINE.match(text) else None
    return None


def _text_under(name: Block, role: Block, blocks: Sequence[Block]) -> bool:
    box = name.bbox.union(role.bbox)
    return any(b is not name and b is not role and b.bbox.y0 >= box.y1 and b.bbox.x_overlap(box) > 0 for b in blocks)


def sign_offs_after_columns(boxes: Sequence[BBox], texts: Sequence[str], order: list[int]) -> list[int]:
    """``order`` with each sign-off (a paragraph ``texts`` says is one, no text under it in its
    column) moved after the last region in ``order`` that starts above it: a statement's two
    columns are read whole before the name that signs it, under the left one."""
    for i in [i for i in order if SIGN_OFF.match(texts[i])]:
        box = boxes[i]
        under = any(j != i and boxes[j].y0 >= box.y1 and boxes[j].x_overlap(box) > 0 for j in range(len(boxes)))
        rest = [j for j in order if j != i]
        above = [k for k, j in enumerate(rest) if boxes[j].y0 < box.y0]
        if not under and above:
            order = [*rest[: above[-1] + 1], i, *rest[above[-1] + 1 :]]
    return order

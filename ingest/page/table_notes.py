"""A table's notes: set right under it mid-page, above the page's footnote zone, each opening with
a mark its cells carry ("Supply current(1)" over "(1) Minimum load ...", "Current¹" over "¹ Average
..."), as datasheets and reports set them. They are footnotes, one region each."""

from __future__ import annotations

import re
from collections.abc import Sequence

from docgraph.ingest.page.blocks import Block, note_goes_on
from docgraph.ingest.page.classify import FOOTNOTE_GAP_EM
from docgraph.ingest.pdf.text import SUPERSCRIPT_DIGITS
from docgraph.ingest.types import BBox

# A table's note opens with its mark: "(1) Minimum ...", "1. All ...", "¹ Average ...".
_TABLE_NOTE_MARK = re.compile(rf"^\s*(?:([{SUPERSCRIPT_DIGITS}]{{1,2}})|\(?(\d{{1,2}})[.)]?(?=\s))\s*\S")
_TO_SUPERSCRIPT = str.maketrans("0123456789", SUPERSCRIPT_DIGITS)
_FROM_SUPERSCRIPT = str.maketrans(SUPERSCRIPT_DIGITS, "0123456789")
NOTE_KINDS = frozenset({"paragraph", "list", "footnote"})  # what a table's note may have been read as


def mark_table_notes(blocks: list[Block], tables: Sequence[tuple[BBox, str]]) -> None:
    """Notes set right under a table, opening with marks its cells carry ("Supply current(1)" over
    "(1) Minimum load ...", "Current¹" over "¹ Average ..."), are the table's footnotes, one region
    each, though the table sits mid-page above the page's footnote zone (``tables``: each table's box
    and text). Notes numbered in sequence go together: under a table's part continued from the page
    before, the first part's cells carry the marks of some. A note's wrapped lines set apart under
    its mark go on with it."""
    for box, text in tables:
        notes = _notes_under(box, blocks)
        if not any(_marked(text, number) for number, _ in notes):
            continue
        for _, (note, *rest) in notes:
            note.kind = "footnote"
            for block in rest:
                note.lines.extend(block.lines)
                blocks.remove(block)


def _notes_under(box: BBox, blocks: list[Block]) -> list[tuple[int, list[Block]]]:
    """The notes right under the table at ``box``, numbered in sequence, each as its number and its
    blocks (the note's first, then its wrapped lines set apart)."""
    notes: list[tuple[int, list[Block]]] = []
    under = [b for b in blocks if b.bbox.y0 >= box.y1 - 1.0 and b.bbox.x_overlap(box) > 0]
    for block in sorted(under, key=lambda b: b.bbox.y0):
        number = _table_note_number(block.raw_text)
        close = block.bbox.y0 - (notes[-1][1][-1].bbox.y1 if notes else box.y1) <= FOOTNOTE_GAP_EM * block.size
        if not close or block.kind not in NOTE_KINDS:
            break
        if number is None and notes and note_goes_on(_joined(notes[-1][1]), block):
            notes[-1][1].append(block)
        elif number is not None and (not notes or number == notes[-1][0] + 1):
            notes.append((number, [block]))
        else:
            break
    return notes


def _joined(parts: list[Block]) -> Block:
    """A note's blocks as one, to judge whether the next block goes on with it."""
    return Block([line for part in parts for line in part.lines], parts[0].kind)


def _table_note_number(text: str) -> int | None:
    match = _TABLE_NOTE_MARK.match(text)
    if match is None:
        return None
    return int((match.group(1) or match.group(2)).translate(_FROM_SUPERSCRIPT))


def _marked(text: str, number: int) -> bool:
    """Whether ``text`` carries the mark of note ``number``: "(2)", or a raised "²" after a word."""
    raised = str(number).translate(_TO_SUPERSCRIPT)
    return re.search(rf"\({number}\)|(?<=\S){raised}(?![{SUPERSCRIPT_DIGITS}])", text) is not None

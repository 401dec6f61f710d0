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
    """Notes set right under a table, each opening with a mark its cells carry ("Supply current(1)"
    over "(1) Minimum load ...", "Current¹" over "¹ Average ..."), are the table's footnotes, one
    region each, though the table sits mid-page above the page's footnote zone (``tables``: each
    table's box and text). A note's wrapped lines set apart under its mark go on with it."""
    for box, text in tables:
        notes: list[Block] = []
        under = [b for b in blocks if b.bbox.y0 >= box.y1 - 1.0 and b.bbox.x_overlap(box) > 0]
        for block in sorted(under, key=lambda b: b.bbox.y0):
            number = _table_note_number(block.raw_text)
            close = block.bbox.y0 - (notes[-1].bbox.y1 if notes else box.y1) <= FOOTNOTE_GAP_EM * block.size
            if not close or block.kind not in NOTE_KINDS:
                break
            if number is None and notes and note_goes_on(notes[-1], block):
                notes[-1].lines.extend(block.lines)
                blocks.remove(block)
            elif number is None or not _marked(text, number):
                break
            else:
                block.kind = "footnote"
                notes.append(block)


def _table_note_number(text: str) -> int | None:
    match = _TABLE_NOTE_MARK.match(text)
    if match is None:
        return None
    return int((match.group(1) or match.group(2)).translate(_FROM_SUPERSCRIPT))


def _marked(text: str, number: int) -> bool:
    """Whether ``text`` carries the mark of note ``number``: "(2)", or a raised "²" after a word."""
    raised = str(number).translate(_TO_SUPERSCRIPT)
    return re.search(rf"\({number}\)|(?<=\S){raised}(?![{SUPERSCRIPT_DIGITS}])", text) is not None

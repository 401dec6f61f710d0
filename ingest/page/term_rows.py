"""Term lists: a command's options or a library's constants, each term with its description.

A reference sets an option list as rows: the term in typewriter type at the left ("--retries N",
"-v, --verbose"), its description in the body type on the term's baseline, starting at one edge
further right, perhaps wrapping under itself. MuPDF gives the terms and the descriptions as blocks
of their own, so the terms came out as a column of one-line code regions and the descriptions as
paragraphs read after them (after the next headings, too): "--timeout MS" lost "(default 5000)".
Rows set so, at least ``MIN_ROWS`` of them with their descriptions starting at one edge, become
list items: the term's line, then its description's lines, so the rows join into one list.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from docgraph.ingest.page.blocks import Block
from docgraph.ingest.pdf.lines import TextLine

MIN_ROWS = 3
MAX_TERM_WORDS = 4  # a term is an option with its argument or a name, not a command line
EDGE_TOLERANCE = 2.0  # points: the descriptions of one list start at one edge
SAME_ROW_OVERLAP = 0.5  # of the lower line's height: a term and its description share one baseline


def attach_term_rows(blocks: list[Block]) -> list[Block]:
    """``blocks`` with each term's description joined to it as one list item."""
    pairs = _term_rows(blocks)
    if not pairs:
        return blocks
    description_of = {id(term): description for term, description in pairs}
    taken = {id(description) for _, description in pairs}
    out: list[Block] = []
    for block in blocks:
        if id(block) in taken:
            continue
        description = description_of.get(id(block))
        if description is None:
            out.append(block)
            continue
        term = replace(block.lines[0], item=True)
        out.append(Block([term, *description.lines], "list", list_item=True, source=block.source))
    return out


def _term_rows(blocks: Sequence[Block]) -> list[tuple[Block, Block]]:
    """(term, description) pairs whose descriptions line up in a column of at least ``MIN_ROWS``."""
    terms = [b for b in blocks if _term_like(b)]
    descriptions = [b for b in blocks if b.kind == "paragraph" and b.source == "fonts" and b.lines[0].horizontal]
    pairs: list[tuple[Block, Block]] = []
    used: set[int] = set()
    for term in terms:
        description = _description_right_of(term.lines[0], descriptions, used)
        if description is not None:
            used.add(id(description))
            pairs.append((term, description))
    paired = {id(term) for term, _ in pairs}
    pairs = [(t, d) for t, d in pairs if not _code_goes_on_under(t, blocks, paired)]
    lefts = [description.bbox.x0 for _, description in pairs]
    return [(t, d) for t, d in pairs if sum(abs(x - d.bbox.x0) <= EDGE_TOLERANCE for x in lefts) >= MIN_ROWS]


def _code_goes_on_under(term: Block, blocks: Sequence[Block], paired: set[int]) -> bool:
    """Code right under ``term`` that is no term of its own: ``term`` opens a listing ("struct
    arg_str" over its members, a note beside it), not a row of a term list."""
    em = max(term.size, 1.0)
    box = term.bbox
    return any(
        b.kind == "code"
        and id(b) not in paired
        and -0.5 * em <= b.bbox.y0 - box.y1 <= 0.8 * em
        and b.bbox.x_overlap(box) > 0
        for b in blocks
    )


def _term_like(block: Block) -> bool:
    line = block.lines[0]
    short = len(line.text.split()) <= MAX_TERM_WORDS
    return block.kind == "code" and block.source == "fonts" and len(block.lines) == 1 and line.horizontal and short


def _description_right_of(term: TextLine, descriptions: Sequence[Block], used: set[int]) -> Block | None:
    """The nearest paragraph to the right of ``term`` whose first line is on its row."""
    level = [
        d
        for d in descriptions
        if id(d) not in used and _same_row(term, d.lines[0]) and d.lines[0].bbox.x0 > term.bbox.x1
    ]
    return min(level, key=lambda d: d.lines[0].bbox.x0, default=None)


def _same_row(a: TextLine, b: TextLine) -> bool:
    overlap = a.bbox.y_overlap(b.bbox)
    return overlap >= SAME_ROW_OVERLAP * min(a.bbox.height, b.bbox.height) > 0

"""List items set without a mark: a sentence ending in a colon at the margin, then short lines set
in under it, one item each ("... contact us in one of these ways:" over "Telephone ...", "Write to
...", "Email ..."). Each such line opens a list item by its place (``TextLine.item``), so the items
are one list, not paragraphs, and the first is not read into its lead-in."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from docgraph.ingest.page.blocks import BULLET_RE
from docgraph.ingest.pdf.lines import TextLine
from docgraph.ingest.pdf.text import starts_lowercase

MIN_ITEMS = 2  # one line set in under a colon is a quotation or a display, not a list
MIN_INDENT_EM = 0.8  # items are set in from the lead-in's margin by at least this ...
MAX_INDENT_EM = 4.0  # ... and at most this, in font sizes
ALIGN_PT = 1.0  # points: items start at one edge
MAX_GAP_EM = 1.0  # white between the lead-in and its items, and between items, at most
SHORT_EM = 2.0  # each item ends this far short of the text's right edge: no wrapped line
SIZE_STEP = 0.6  # points: items are set in the lead-in's type


def mark_unmarked_items(lines: Sequence[TextLine]) -> list[TextLine]:
    """``lines`` with each line that opens an unmarked item marked ``item``."""
    found = list(lines)
    for k, lead in enumerate(lines):
        run = _items_after(lines, k) if _leads_in(lead) else []
        for i in run:
            found[i] = replace(lines[i], item=True)
    return found


def _leads_in(line: TextLine) -> bool:
    return line.horizontal and not line.bold and not line.mono and line.text.rstrip().endswith(":")


def _items_after(lines: Sequence[TextLine], k: int) -> list[int]:
    """The indexes of the items under the lead-in ``lines[k]``: two or more lines, each set in from
    its margin alike, in its type and no math font, opening with no lowercase letter, close under
    the one before, each ending well short of the text's right edge (where the lead-in's paragraph
    or the text after the items reaches), and the text after them back at the margin or none."""
    lead = lines[k]
    em = max(lead.size, 1.0)
    left = min(line.bbox.x0 for line in lines if line.block == lead.block)
    run: list[int] = []
    for i in range(k + 1, len(lines)):
        line, above = lines[i], lines[i - 1]
        indent = line.bbox.x0 - left
        first = lines[run[0]].bbox.x0 if run else line.bbox.x0
        if not (MIN_INDENT_EM * em <= indent <= MAX_INDENT_EM * em and abs(line.bbox.x0 - first) <= ALIGN_PT):
            break
        if not _same_type(line, lead) or starts_lowercase(line.text) or not line.text.strip():
            break
        if not 0 <= line.bbox.y0 - above.bbox.y1 <= MAX_GAP_EM * em:
            break
        run.append(i)
    if len(run) < MIN_ITEMS:
        return []
    after = lines[run[-1] + 1] if run[-1] + 1 < len(lines) else None
    if after is not None and abs(after.bbox.x0 - left) > 0.5 * em:
        return []  # the text goes on set in: an indented passage, not items
    edges = [line.bbox.x1 for line in lines if line.block == lead.block]
    right = max([*edges, after.bbox.x1] if after is not None else edges)
    if any(lines[i].bbox.x1 > right - SHORT_EM * em for i in run):
        return []
    return run


def _same_type(line: TextLine, lead: TextLine) -> bool:
    return (
        line.horizontal
        and abs(line.size - lead.size) <= SIZE_STEP
        and line.bold == lead.bold
        and line.mono == lead.mono
        and not line.math  # a display's lines ("A = 0 and" | "B = 1."), not items
        and not line.item
        and not BULLET_RE.match(line.text)
    )

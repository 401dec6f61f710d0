"""List items set without a mark: a sentence ending in a colon at the margin, then short lines set
in under it, one item each ("... contact us in one of these ways:" over "Telephone ...", "Write to
...", "Email ..."). Each such line opens a list item by its place (``TextLine.item``), so the items
are one list, not paragraphs, and the first is not read into its lead-in. An item too long for its
line wraps onto the next at its edge: a line that runs out to the text's right edge goes on in the
line under it, and the item is joined into one line, so it stays one item of the list."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from docgraph.ingest.page.blocks import BULLET_RE
from docgraph.ingest.pdf.lines import TextLine
from docgraph.ingest.pdf.text import join_lines, starts_lowercase

MIN_ITEMS = 2  # one line set in under a colon is a quotation or a display, not a list
MAX_ITEM_LINES = 3  # an item wraps onto a line or two; more is a passage set in, not an item
MIN_INDENT_EM = 0.8  # items are set in from the lead-in's margin by at least this ...
MAX_INDENT_EM = 4.0  # ... and at most this, in font sizes
ALIGN_PT = 1.0  # points: items start at one edge
MAX_GAP_EM = 1.0  # white between the lead-in and its items, and between items, at most
OVERLAP_EM = 0.25  # a wrapped item's lines, at its leading, may overlap by this much; items may not
SHORT_EM = 2.0  # an item's last line ends this far short of the text's right edge: it ends there
SIZE_STEP = 0.6  # points: items are set in the lead-in's type


def mark_unmarked_items(lines: Sequence[TextLine]) -> list[TextLine]:
    """``lines`` with each unmarked item one line marked ``item``, its wrapped lines joined into it."""
    found: list[TextLine] = []
    k = 0
    while k < len(lines):
        items = _items_after(lines, k) if _leads_in(lines[k]) else []
        found.append(lines[k])
        found.extend(_joined([lines[i] for i in item]) for item in items)
        k = items[-1][-1] + 1 if items else k + 1
    return found


def _leads_in(line: TextLine) -> bool:
    return line.horizontal and not line.bold and not line.mono and line.text.rstrip().endswith(":")


def _items_after(lines: Sequence[TextLine], k: int) -> list[list[int]]:
    """The items under the lead-in ``lines[k]``, each the indexes of its lines: two or more, their
    lines set in from its margin alike, in its type and no math font, close under the one before
    (an item clear of it, a wrapped line at its item's leading);
    each item's last line ends well short of the text's right edge (where the lead-in's paragraph
    or the text after the items reaches) and its other lines run out to it; each opens with no
    lowercase letter; and the text after them is back at the margin, or there is none."""
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
        if not _same_type(line, lead) or not line.text.strip():
            break
        if not -OVERLAP_EM * em <= line.bbox.y0 - above.bbox.y1 <= MAX_GAP_EM * em:
            break
        run.append(i)
    after = lines[run[-1] + 1] if run and run[-1] + 1 < len(lines) else None
    if not run or (after is not None and abs(after.bbox.x0 - left) > 0.5 * em):
        return []  # the text goes on set in: an indented passage, not items
    edges = [line.bbox.x1 for line in lines if line.block == lead.block]
    right = max([*edges, after.bbox.x1] if after is not None else edges)
    items = _split_items(lines, run, right - SHORT_EM * em)
    if len(items) < MIN_ITEMS or lines[run[-1]].bbox.x1 > right - SHORT_EM * em:
        return []
    if any(len(item) > MAX_ITEM_LINES or starts_lowercase(lines[item[0]].text) for item in items):
        return []
    if any(lines[item[0]].bbox.y0 < lines[item[0] - 1].bbox.y1 for item in items):
        return []  # lines set at a paragraph's leading, an address's: only an item's own lines touch
    return items


def _split_items(lines: Sequence[TextLine], run: Sequence[int], short: float) -> list[list[int]]:
    """``run`` cut into items: a line ending short of ``short`` ends its item, a longer one wraps."""
    items: list[list[int]] = []
    for i in run:
        if not items or lines[items[-1][-1]].bbox.x1 <= short:
            items.append([i])
        else:
            items[-1].append(i)
    return items


def _joined(item: Sequence[TextLine]) -> TextLine:
    """An item's lines as one line that opens the item."""
    first = item[0]
    box = first.bbox
    for line in item[1:]:
        box = box.union(line.bbox)
    text = join_lines([line.text for line in item]) if len(item) > 1 else first.text
    return replace(first, text=text, bbox=box, item=True, chars=sum(line.chars for line in item))


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

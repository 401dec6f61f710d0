"""Bullets drawn rather than set as glyphs: beamer draws its items' triangles and balls (as shapes,
or as small pictures of a shaded ball), so the text layer holds the items' words without a mark and
each item read as a paragraph of its own, a sub-item's with them. A small filled mark just left of a
line's first word, on its row, opens a list item: the line is read as "• ..." as a glyph would be,
"– ..." where the mark is set further in (a sub-item), though not a column's width further in
(an IPID's panels side by side, each item ticked)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from docgraph.ingest.pdf.lines import TextLine
from docgraph.ingest.types import BBox

MAX_MARK_EM = 0.8  # a mark is at most this wide and high, in the line's font sizes
MAX_GAP_EM = 1.5  # white between the mark and the line's first word, at most
SUB_ITEM_EM = 0.5  # a mark further in than its column's first ones by this, in font sizes, is a sub-item's
MAX_SUB_ITEM_EM = 4.0  # ... and by no more than this: marks further in still are another column's
MIN_MARKED_LINES = 2  # a lone mark is a picture's, not a list's
APART = 1.0  # points: a mark stands alone, no other small shape this near (an icon is drawn in pieces)
MAX_PIECE = 24.0  # points: shapes this small or smaller count as pieces of a drawing near a mark


def marked_lines(
    lines: Sequence[TextLine], drawings: Sequence[dict[str, Any]], pictures: Sequence[BBox]
) -> list[TextLine]:
    """``lines`` with a bullet glyph put before each line a drawn mark opens, when two lines or more
    on the page have one."""
    shapes = [BBox(*d["rect"]) for d in drawings]
    filled = [BBox(*d["rect"]) for d in drawings if d.get("fill") is not None and "f" in (d.get("type") or "")]
    pieces = [box for box in [*shapes, *pictures] if box.width <= MAX_PIECE and box.height <= MAX_PIECE]
    marks = [box for box in [*filled, *pictures] if _alone(box, pieces)]
    opening = {i: mark for i, line in enumerate(lines) if line.horizontal for mark in marks if _opens(mark, line)}
    if len(opening) < MIN_MARKED_LINES:
        return list(lines)
    found = list(lines)
    for i, mark in opening.items():  # a mark set further in than its column's first ones opens a sub-item
        size = lines[i].size
        left = min(other.x0 for other in opening.values() if mark.x0 - other.x0 <= MAX_SUB_ITEM_EM * size)
        glyph = "•" if mark.x0 <= left + SUB_ITEM_EM * size else "–"
        found[i] = replace(lines[i], text=f"{glyph} {lines[i].text.lstrip()}")
    return found


def _alone(mark: BBox, pieces: Sequence[BBox]) -> bool:
    """No other small shape touches ``mark``: a margin icon's pieces touch one another. A shape
    inside the mark is drawn on it (the tick or cross on an IPID's disc) and leaves it one mark."""
    return not any(piece != mark and piece.near(mark, APART) and not _within(piece, mark) for piece in pieces)


def _within(inner: BBox, outer: BBox) -> bool:
    return outer.x0 <= inner.x0 and inner.x1 <= outer.x1 and outer.y0 <= inner.y0 and inner.y1 <= outer.y1


def _opens(mark: BBox, line: TextLine) -> bool:
    small = 0 < mark.width <= MAX_MARK_EM * line.size and 0 < mark.height <= MAX_MARK_EM * line.size
    gap = line.bbox.x0 - mark.x1
    on_row = line.bbox.y0 <= (mark.y0 + mark.y1) / 2 <= line.bbox.y1
    return small and on_row and 0 <= gap <= MAX_GAP_EM * line.size

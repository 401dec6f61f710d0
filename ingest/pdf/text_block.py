"""The right edge of a page's text block, and the margin beyond it.

A page sets its text in a block; a note set in the outer margin beside it lies wholly beyond the
block's edge, whatever its size (a textbook sets its margin notes at the body's size as often as
smaller). The right edge is the one that three or more of the page's wide lines end at (its full
lines), the outermost such edge, so that a page of two columns has its outer edge, never its
gutter; a page set ragged throughout has none.
"""

from __future__ import annotations

from collections.abc import Sequence

from docgraph.ingest.types import BBox

MIN_LINES = 3  # wide lines that end at the edge, at least
EDGE_PT = 1.0  # points: lines within this of an edge end at it
WIDE = 0.5  # a line of the text is at least this share of the page's widest line
NOTE_WORDS = 2  # a note is words: this many of three letters or more, at least


def right_edge(boxes: Sequence[BBox]) -> float | None:
    """Where the page's text block ends on the right, or None where no three wide lines end alike."""
    widest = max((box.width for box in boxes), default=0.0)
    wide = [box.x1 for box in boxes if box.width >= WIDE * widest > 0]
    shared = [x for x in wide if sum(abs(other - x) <= EDGE_PT for other in wide) >= MIN_LINES]
    return max(shared, default=None)


def beyond(box: BBox, size: float, edge: float | None) -> bool:
    """``box`` lies in the right margin: wholly beyond the text block's ``edge``, half an em clear."""
    return edge is not None and box.x0 >= edge + 0.5 * size


def words(text: str) -> bool:
    """``text`` is words, as a note is: not a number, a mark or a formula's pieces."""
    return sum(1 for word in text.split() if sum(map(str.isalpha, word)) >= 3) >= NOTE_WORDS

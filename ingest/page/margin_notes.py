"""Margin notes: short notes set in the outer margin beside the body text they remark on, small, or
at the body's size beyond the right edge of the page's text block.

A text layer writes such a note where it is anchored (LaTeX's ``\\marginpar``, a word processor's
anchored frame): between two lines of the paragraph beside it, which it would cut in two. Its lines
are set aside after the others, so the paragraph is read whole and the note as a region of its own.
"""

from __future__ import annotations

from collections.abc import Sequence

from docgraph.ingest.pdf.lines import TextLine
from docgraph.ingest.pdf.text_block import beyond, right_edge, words

SMALLER_THAN_BODY = 1.5  # points smaller than the body text that a margin note is set in, at least
REACH_LINES = 2.0  # body line heights above and below a note within which its body lines lie
MIN_BESIDE = 3  # body lines beside a note, at least: the paragraph it sits beside
NARROW = 0.5  # a note's lines are at most this share of the width of the body lines beside it


def set_aside_margin_notes(lines: Sequence[TextLine], body_size: float) -> list[TextLine]:
    """``lines`` with those of margin notes moved after the others, in their order."""
    edge = right_edge([line.bbox for line in lines if line.horizontal])
    notes = {i for i, line in enumerate(lines) if _margin_note(line, lines, body_size, edge)}
    notes |= _note_lines_under(notes, lines, edge)
    if not notes:
        return list(lines)
    return [line for i, line in enumerate(lines) if i not in notes] + [lines[i] for i in sorted(notes)]


def _note_lines_under(notes: set[int], lines: Sequence[TextLine], edge: float | None) -> set[int]:
    """The lines beyond the text block's ``edge`` that go on a note's lines under them, flush with
    them: a note's last line of marks or a number only ("Is this still true" | "????")."""
    more: set[int] = set()
    for i in sorted(notes):
        note = lines[i]
        for k, line in enumerate(lines):
            under = abs(line.bbox.y0 - note.bbox.y1) <= 0.5 * note.size and abs(line.bbox.x0 - note.bbox.x0) <= 1.0
            if k not in notes and under and beyond(line.bbox, line.size, edge):
                more.add(k)
    return more


def _margin_note(line: TextLine, lines: Sequence[TextLine], body_size: float, edge: float | None) -> bool:
    """``line`` is set smaller than the body, or is words beyond the right ``edge`` of the page's
    text block, in text type (an option's term set small in typewriter type before its description
    is no note), beside body lines on one side of it only (three or more, within two lines' height
    above or below it, the margin's other lines not counted), and no body line around it reaches
    into its place; it is less than half as wide as they are (a column of the page's text is as wide)."""
    if body_size <= 0 or not line.horizontal or line.mono:
        return False
    at_body_size = line.size > body_size - SMALLER_THAN_BODY
    if at_body_size and not (beyond(line.bbox, line.size, edge) and words(line.text)):
        return False
    reach = REACH_LINES * body_size * 1.2
    around = [
        other
        for other in lines
        if other.horizontal
        and abs(other.size - body_size) < 0.5
        and line.bbox.y0 - reach <= other.center_y <= line.bbox.y1 + reach
        and not (at_body_size and beyond(other.bbox, other.size, edge))
    ]
    left = [other for other in around if other.bbox.x1 <= line.bbox.x0 - 0.5 * body_size]
    right = [other for other in around if other.bbox.x0 >= line.bbox.x1 + 0.5 * body_size]
    beside = left or right
    if (left and right) or len(beside) < MIN_BESIDE or len(beside) < len(around):
        return False
    widths = sorted(other.bbox.width for other in beside)
    return line.bbox.width <= NARROW * widths[len(widths) // 2]

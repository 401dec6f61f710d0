"""A report's key figures set large over their labels: "£412.6m" over "Revenue, up 8%".

An annual report's highlights set three or four figures side by side in display type, each over
its label in text type, the label flush under it. MuPDF returns the figures as one line (in type
three times the labels' they stand only a word space or two apart) and each label as a piece of
its own, so the figures were read as one heading "£412.6m £48.3m 21.5p" and the labels as one
paragraph under it: no figure said what it was. A row of two or more labels, far apart, with a row
of as many figures right above it, set larger and reaching from the first label's edge into the
last one's column, is read label by label: each figure with its label ("£412.6m Revenue, up 8%"),
a block of its own, no heading however large its figure is set.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from docgraph.ingest.pdf.lines import TextLine
from docgraph.ingest.types import BBox

MAX_LABEL_WORDS = 8
APART_EM = 2.0  # labels on one row further apart than this are the labels of columns
EDGE_TOLERANCE = 2.0  # points: the figures start at the first label's edge
LARGER = 1.3  # the figures are set at least this much larger than their labels
LINE_GAP = 1.0  # of the labels' size: the white between the figures and their labels, at most
# "£412.6m", "21.5p", "+8%", "(3.1)", "1,204", "$2.4bn", "12.5x": a figure with its unit
_FIGURE = re.compile(r"^[-+−(]?[£$€¥]?\d[\d,]*(?:\.\d+)?(?:%|p|m|bn|k|x|pp)?\)?$")


def join_key_figures(lines: Sequence[TextLine]) -> list[TextLine]:
    """``lines`` with each row of figures over a row of labels read as figure and label pairs, each
    pair a block of its own, where the labels were."""
    out = list(lines)
    for labels in _label_rows(lines):
        figures = _figures_over(labels, out)
        if figures:
            out = _paired(out, figures, labels)
    return out


def key_figure(lines: Sequence[TextLine]) -> bool:
    """Whether ``lines`` are a figure read with its label ("£412.6m Revenue, up 8%"): a statement,
    as a sentence is, not a line of a title page's byline."""
    words = " ".join(line.text for line in lines).split()
    return len(lines) == 1 and lines[0].pair and len(words) >= 2 and bool(_FIGURE.match(words[0]))


def _label_rows(lines: Sequence[TextLine]) -> list[list[TextLine]]:
    """Runs of two or more worded pieces on one row, each far right of the one before."""
    rows: list[list[TextLine]] = []
    for line in lines:
        last = rows[-1][-1] if rows else None
        if last is not None and line.on_row_of(last) and line.bbox.x0 - last.bbox.x1 > APART_EM * max(line.size, 1.0):
            rows[-1].append(line)
        else:
            rows.append([line])
    return [row for row in rows if len(row) >= 2 and all(map(_label_like, row))]


def _label_like(line: TextLine) -> bool:
    words = line.text.split()
    worded = sum(ch.isalpha() for ch in line.text) >= 2
    return line.horizontal and not line.mono and not line.math and 0 < len(words) <= MAX_LABEL_WORDS and worded


def _figures_over(labels: Sequence[TextLine], lines: Sequence[TextLine]) -> list[TextLine]:
    """The pieces of the row right above ``labels`` when they hold one figure each, in order, set
    larger, from the first label's edge into the last label's column; else none."""
    first, last = labels[0], labels[-1]
    size = max(label.size for label in labels)
    above = [
        line
        for line in lines
        if line.bbox.y1 <= first.bbox.y0 + 1.0
        and first.bbox.y0 - line.bbox.y1 <= LINE_GAP * size
        and line.bbox.x1 > first.bbox.x0
        and line.bbox.x0 < last.bbox.x1
    ]
    if not above or any(not line.on_row_of(above[0]) for line in above):
        return []
    row = sorted(above, key=lambda line: line.bbox.x0)
    tokens = [token for line in row for token in line.text.split()]
    fits = abs(row[0].bbox.x0 - first.bbox.x0) <= EDGE_TOLERANCE and row[-1].bbox.x1 > last.bbox.x0
    larger = all(line.size >= LARGER * size for line in row)
    if not (fits and larger and len(tokens) == len(labels) and all(map(_FIGURE.match, tokens))):
        return []
    return row


def _paired(lines: Sequence[TextLine], figures: Sequence[TextLine], labels: Sequence[TextLine]) -> list[TextLine]:
    """``lines`` without the figures' row, each label read after its figure, a block of its own
    boxed from the figures' top and as wide as its figure or its label."""
    tokens = [token for line in figures for token in line.text.split()]
    top = min(line.bbox.y0 for line in figures)
    per_char = sum(line.bbox.width for line in figures) / max(1, sum(len(line.text) for line in figures))
    edges = [label.bbox.x0 - APART_EM * label.size for label in labels[1:]] + [max(f.bbox.x1 for f in figures)]
    fresh = min(0, *(line.block for line in lines)) - 1
    pairs: dict[int, TextLine] = {}
    for n, (figure, label, edge) in enumerate(zip(tokens, labels, edges, strict=True)):
        right = max(label.bbox.x1, min(edge, label.bbox.x0 + len(figure) * per_char))
        text, chars = f"{figure} {label.text.strip()}", label.chars + len(figure)
        box = BBox(label.bbox.x0, top, right, label.bbox.y1)
        pairs[id(label)] = replace(label, text=text, bbox=box, block=fresh - n, pair=True, chars=chars)
    dropped = {id(line) for line in figures}
    return [pairs.get(id(line), line) for line in lines if id(line) not in dropped]

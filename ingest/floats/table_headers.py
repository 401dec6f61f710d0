"""A ruled table's header set on two rows or more: group labels ("Year ended 31 December", "Volume")
each spanning the columns under it, over a row of column labels ("2023", "2024"). Written as one
header row, each column named by its group and its own label, so the markdown's header row names
every column of numbers.

A first row drawn as one cell over every column (a filled header band without rules between its
labels: "What is covered | What is not covered") whose words part at the columns' edges, each
part set in as far from its column's edge, is a label per column, not one spanning title."""

from __future__ import annotations

from collections.abc import Sequence

from docgraph.ingest.pdf.api import Word
from docgraph.ingest.pdf.text import clean_inline

Rect = Sequence[float]  # x0, y0, x1, y1
INSET_TOLERANCE = 1.5  # points: labels set in alike from their columns' edges


def join_group_header(rects: Sequence[Sequence[Rect | None]], cells: list[list[str]]) -> list[list[str]]:
    """``cells`` with their leading group-label rows and the row under them joined into one header
    row. ``rects`` are the grid's cells, None where a spanning cell covers the place (as PyMuPDF's
    table finder gives them). Unchanged when the first row spans no columns, or is all one cell
    (a title set in the grid)."""
    columns = len(cells[0]) if cells else 0
    centres = _centres(rects, columns)
    groups = 0
    while groups < len(cells) - 2 and _has_group_label(rects[groups : groups + 2], cells[groups : groups + 2], centres):
        groups += 1
    if groups == 0:
        return cells
    header_rows = [_spread(rects[r], cells[r], centres) for r in range(groups + 1)]
    return [_joined(header_rows, columns), *cells[groups + 1 :]]


def _has_group_label(
    rows: Sequence[Sequence[Rect | None]], texts: Sequence[Sequence[str]], centres: Sequence[float]
) -> bool:
    """The first of two rows holds a labelled cell spanning the next column, and more than that one
    cell (a place left empty by a cell above that spans rows is no group), and each of its cells that
    spans no column has nothing of its own under it: a label over its column's labels spans down to
    them or stands over an empty place, while a row of values over values is data (a grid showing
    off its spans: "Top Left" over two columns, then "02 03 04" over "12 13 14")."""
    rects, below, row_texts, below_texts = rows[0], rows[1], texts[0], texts[1]
    spanned = [j for j in range(1, len(rects)) if rects[j] is None and _covers(rects, j, centres[j])]
    labelled = any(row_texts[_left(rects, j)] for j in spanned)
    single = [j for j in range(len(rects)) if rects[j] is not None and row_texts[j] and j + 1 not in spanned]
    over_values = any(j < len(below) and below[j] is not None and below_texts[j] for j in single)
    return labelled and sum(rect is not None for rect in rects) > 1 and not over_values


def _centres(rects: Sequence[Sequence[Rect | None]], columns: int) -> list[float]:
    """Each column's middle: from its narrowest cell (one that spans nothing)."""
    centres = []
    for j in range(columns):
        own = [rect for row in rects if j < len(row) and (rect := row[j]) is not None]
        narrowest = min(own, key=lambda rect: rect[2] - rect[0]) if own else None
        centres.append((narrowest[0] + narrowest[2]) / 2 if narrowest else 0.0)
    return centres


def _spread(rects: Sequence[Rect | None], texts: Sequence[str], centres: Sequence[float]) -> list[str]:
    """The row's texts with a spanning cell's label set in every column it covers."""
    spread = list(texts)
    for j, rect in enumerate(rects):
        if rect is None and j > 0 and _covers(rects, j, centres[j]):
            spread[j] = texts[_left(rects, j)]
    return spread


def _covers(rects: Sequence[Rect | None], j: int, centre: float) -> bool:
    """Whether the nearest cell left of place ``j`` in its row reaches over column ``j``'s middle."""
    left = _left(rects, j)
    rect = rects[left]
    return rect is not None and rect[2] >= centre


def _left(rects: Sequence[Rect | None], j: int) -> int:
    """The place of the nearest cell left of place ``j`` (0 when there is none)."""
    return next((i for i in range(j - 1, -1, -1) if rects[i] is not None), 0)


def _joined(rows: Sequence[Sequence[str]], columns: int) -> list[str]:
    """Each column's labels top down, a label repeated from the row above said once."""
    header = []
    for j in range(columns):
        labels: list[str] = []
        for row in rows:
            if row[j] and (not labels or labels[-1] != row[j]):
                labels.append(row[j])
        header.append(" ".join(labels))
    return header


def split_banded_labels(
    rects: Sequence[Sequence[Rect | None]], cells: list[list[str]], words: Sequence[Word]
) -> list[list[str]]:
    """``cells`` with a first row that is one cell over all the columns split into a label per
    column, where its words fall wholly inside the columns under it, every column gets some and
    each column's words start equally far in from its left edge (as column labels are set; a title
    centred over the columns is not)."""
    if len(rects) < 2 or not rects[0] or rects[0][0] is None or any(r is not None for r in rects[0][1:]):
        return cells
    band = rects[0][0]
    lefts = _column_lefts(rects, len(rects[0]))
    if len(rects[0]) < 2 or lefts is None:
        return cells
    columns, lefts = len(lefts), [*lefts, float(band[2])]
    x0, y0, x1, y1 = band[:4]
    inside = [w for w in words if x0 <= (w[0] + w[2]) / 2 <= x1 and y0 <= (w[1] + w[3]) / 2 <= y1]
    parts: list[list[Word]] = [[] for _ in range(columns)]
    for word in inside:
        j = next((j for j in range(columns) if lefts[j] <= word[0] and word[2] <= lefts[j + 1]), None)
        if j is None:  # a word across a column's edge: a spanning title
            return cells
        parts[j].append(word)
    if not all(parts):
        return cells
    insets = [min(w[0] for w in part) - lefts[j] for j, part in enumerate(parts)]
    if max(insets) - min(insets) > INSET_TOLERANCE:
        return cells
    labels = [clean_inline(" ".join(w[4] for w in sorted(part, key=lambda w: (w[5], w[6], w[7])))) for part in parts]
    return [labels, *cells[1:]]


def _column_lefts(rects: Sequence[Sequence[Rect | None]], columns: int) -> list[float] | None:
    """Each column's left edge, from the cells under the first row; None when a column has none."""
    lefts = []
    for j in range(columns):
        own = [float(rect[0]) for row in rects[1:] if j < len(row) and (rect := row[j]) is not None]
        if not own:
            return None
        lefts.append(min(own))
    return lefts

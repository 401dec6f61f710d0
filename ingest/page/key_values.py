"""Key/value rows of a business document: "Invoice No. ... 1043", "Due Date ... 13/04/2026".

Accounting software sets an invoice's or an order's fields as a stack of rows, each a short label
at one edge and its value ems to the right of it, often flush right at the block's edge; the totals
under a line-item table are set so too ("Subtotal ... 1,170.80", "VAT 20% ... 234.16"). MuPDF
returns each row's label and value as pieces of one block (or the labels as one block and the
values as the next, when they were written column by column), too far apart to be one line, so the
labels were read as one column of bare paragraphs ("Due Date") and the values as another
("13/04/2026"): no region said what any value was. A block whose every row is such a pair, at
least ``MIN_ROWS`` of them, labels at one edge and values at one edge, is read row by row, each
label with its value; its rows are set in one weight (a bold "Total" row stays with the totals). A
block of one such row is one when its value is an amount ("Balance due at 31/03/2026 ... 2,109.60").
The joined rows are marked (``TextLine.pair``): set in bold, they are still no heading.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from itertools import groupby

from docgraph.ingest.pdf.lines import TextLine

MIN_ROWS = 2
MAX_WORDS = 6  # a label or a value is a few words, not a sentence
EDGE_TOLERANCE = 2.0  # points: the labels (or values) of one block start or end at one edge
# "2,109.60", "£1,404.96", "(115.20)", "-96,00": a sum of money, with its two decimals
_AMOUNT = re.compile(r"[-\u2212(]?[£$€]?\s?\d{1,3}(?:[,.'\u00a0 ]?\d{3})*[.,]\d{2}\)?")


def join_key_value_rows(lines: Sequence[TextLine]) -> list[TextLine]:
    """``lines`` with the label and value of each row of a key/value block joined into one line;
    the block may come as two, the labels' and the values' (written column by column)."""
    blocks = [list(group) for _, group in groupby(lines, key=lambda line: line.block)]
    out: list[TextLine] = []
    k = 0
    while k < len(blocks):
        rows = _rows(blocks[k])
        paired = _paired_rows(blocks[k], blocks[k + 1]) if k + 1 < len(blocks) else []
        if _key_value_rows(rows):
            out.extend(_joined_rows(rows))
        elif paired and _key_value_rows(paired):
            out.extend(_joined_rows(paired))
            k += 1
        else:
            out.extend(blocks[k])
        k += 1
    return out


def _paired_rows(labels: Sequence[TextLine], values: Sequence[TextLine]) -> list[list[TextLine]]:
    """Rows of a label column and the value column after it, each label on its value's row; none
    when the two do not pair off row by row, or the labels do not read as labels (each ending in a
    colon, or all bold over values that are not): two addresses side by side pair off too."""
    if len(labels) != len(values):
        return []
    rows = [[label, value] for label, value in zip(labels, values, strict=True)]
    same = all(a.on_row_of(b) for a, b in rows)
    colons = all(label.text.rstrip().endswith(":") for label in labels)
    bold = all(label.bold for label in labels) and not any(value.bold for value in values)
    return rows if same and (colons or bold) else []


def _rows(lines: Sequence[TextLine]) -> list[list[TextLine]]:
    """Consecutive pieces on one row, in the order the block gives them (left to right)."""
    rows: list[list[TextLine]] = []
    for line in lines:
        if rows and line.on_row_of(rows[-1][0]):
            rows[-1].append(line)
        else:
            rows.append([line])
    return rows


def _key_value_rows(rows: Sequence[Sequence[TextLine]]) -> bool:
    if not rows or any(len(row) != 2 or not _pair(row[0], row[1]) for row in rows):
        return False
    if len(rows) < MIN_ROWS:
        return all(_AMOUNT.fullmatch(row[1].text.strip()) for row in rows)
    return _one_edge([row[0] for row in rows]) and _one_edge([row[1] for row in rows])


def _pair(label: TextLine, value: TextLine) -> bool:
    """A short label with letters, and a short value set right of it on its row; not code with its
    comment, nor a formula with its number (both keep their own columns)."""
    short = len(label.text.split()) <= MAX_WORDS and len(value.text.split()) <= MAX_WORDS
    worded = any(ch.isalpha() for ch in label.text) and "=" not in label.text
    prose = not (label.mono or value.mono or label.math or value.math)
    placed = label.horizontal and value.horizontal and value.bbox.x0 > label.bbox.x1
    return short and worded and prose and placed


def _one_edge(pieces: Sequence[TextLine]) -> bool:
    lefts = [piece.bbox.x0 for piece in pieces]
    rights = [piece.bbox.x1 for piece in pieces]
    return max(lefts) - min(lefts) <= EDGE_TOLERANCE or max(rights) - min(rights) <= EDGE_TOLERANCE


def _joined_rows(rows: Sequence[Sequence[TextLine]]) -> list[TextLine]:
    bold = all(piece.bold for row in rows for piece in row)
    return [_joined(row[0], row[1], bold) for row in rows]


def _joined(label: TextLine, value: TextLine, bold: bool) -> TextLine:
    return replace(
        label,
        text=f"{label.text.strip()} {value.text.strip()}",
        bbox=label.bbox.union(value.bbox),
        bold=bold,
        pair=True,
        chars=label.chars + value.chars,
        math=(label.math * label.chars + value.math * value.chars) / max(label.chars + value.chars, 1),
    )

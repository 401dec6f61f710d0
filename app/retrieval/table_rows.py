"""The rows of a table a question can name by label: a lease's particulars ("| Break Date | 24 June
2029 |") and a financial statement's line items ("| Operating profit | 4 | 48.3 | 45.7 |").

A question names such a row by its label alone ("When is the break date?", "What was operating
profit?"), and a line item's cell by its label and its column's heading too ("What was revenue in
2025?", or a date in that year: "net assets at 31 December 2025"): the label says what the row
is, its value or figures answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from docgraph.app.retrieval.dates import find_dates
from docgraph.app.retrieval.text import tokenize

# a capitalised label of one to three words: "Present", "In attendance", "Break Date"
LABEL_WORDS = r"[A-Z][A-Za-z'’-]*(?: [A-Za-z][A-Za-z'’-]*){0,2}"
_LABEL = re.compile(rf"^{LABEL_WORDS}$")
# a statement's figure: "412.6", "(251.8)", "41.2p", "£1,204m", "8%", "-3.1"; a dash for nil
_FIGURE = re.compile(r"^\(?[-–−]?[£$€¥]?\d[\d,]*(?:\.\d+)?\s?(?:%|p|m|bn|k)?\)?$|^[-–—]$")
_UNIT = re.compile(r"\s*\([^()]*\)\s*$")
_WORD = re.compile(r"[a-z]+")
# stop words that qualify a line item: "Other receivables", "Profit after taxation"
_QUALIFIERS = frozenset(["other", "before", "after", "under", "over", "more", "within"])
# a period a date ends: "the year ended 31 December 2025"
_PERIOD = re.compile(r"\b(?:(?:financial\s+)?year|period|months)\s+(?:ended|ending|to)\s+$", re.IGNORECASE)
_RULE = re.compile(r"^[\s|:-]*$")
_LETTER = re.compile(r"[^\W\d_]")
LINE_ITEMS_AT_LEAST = 3
CLIPPED_AT_LEAST = 3  # letters of a word cut short that still names the whole word
# Words that ask for what a named row holds and nothing else: "How much was revenue?"
VALUE_WORDS = frozenset(tokenize("much amount figure value"))


@dataclass(frozen=True, slots=True)
class NamedRows:
    """A table's row labels, and the words of its column headings (a statement's "2025", "Notes")."""

    labels: list[str]
    headings: set[str]


def table_cells(table: str) -> list[list[str]]:
    """A markdown table's rows as their cells, rule rows (and rows of empty cells) left out."""
    rows = [line.strip() for line in table.splitlines() if line.strip().startswith("|")]
    return [row_cells(row) for row in rows if not _RULE.match(row)]


def row_cells(row: str) -> list[str]:
    """A markdown table row's cells, stripped: "| Revenue | 412.6 |" -> ["Revenue", "412.6"]."""
    return [cell.strip() for cell in row.strip().strip("|").split("|")]


def named_rows(table: str) -> NamedRows | None:
    """The rows of a particulars table or of a table of line items, else None."""
    labels = particulars_labels(table)
    if labels:
        return NamedRows(labels, set())
    return line_items(table)


def particulars_labels(table: str) -> list[str]:
    """The labels of a table set as rows of a label and its value (three rows or more, two cells
    each, every first cell a capitalised label of one to three words without digits), else none."""
    rows = table_cells(table)
    labels = [row[0] for row in rows]
    if len(rows) < 3 or any(len(row) != 2 for row in rows) or not all(_LABEL.match(label) for label in labels):
        return []
    return labels


def line_items(table: str) -> NamedRows | None:
    """A table of line items: under its header row, each row a label and figures (a statement's
    Notes column and years, a note's analysis), a group's label or a subtotal's figures alone, three
    rows or more with both; a row with words past its label is no line item, and the table none."""
    lines = [line.strip() for line in table.splitlines() if line.strip()]
    if len(lines) < 2 or not lines[0].startswith("|") or not _RULE.match(lines[1]):
        return None
    header, body = row_cells(lines[0]), table_cells("\n".join(lines[2:]))
    if any(not all(not cell or _FIGURE.match(cell) for cell in row[1:]) for row in body):
        return None
    labelled = [row[0] for row in body if _LETTER.search(row[0]) and any(row[1:])]
    if len(labelled) < LINE_ITEMS_AT_LEAST:
        return None
    headings = {word for cell in header[1:] for word in tokenize(cell)}
    return NamedRows([row[0] for row in body if _LETTER.search(row[0])], headings)


def column_date_words(question: str, headings: set[str]) -> set[str]:
    """The words of each date ``question`` gives whose year heads a column, with the period it ends:
    "at 31 December 2025", "for the year ended 31 December 2025" name a statement's 2025 column."""
    words: set[str] = set()
    for (_, _, year), start, end in find_dates(question, whole=True):
        if str(year) in headings:
            period = _PERIOD.search(question[:start])
            words |= set(tokenize(question[period.start() if period else start : end]))
    return words


def label_named(label: set[str], words: set[str]) -> set[str]:
    """The question's ``words`` that name the row label's words ``label``, when they name them all
    (each the word or a clipped form of it: "tax" names "taxation"), else none."""
    matched = [{word for word in words if word == part or clipped(word, part)} for part in label]
    return set().union(*matched) if label and all(matched) else set()


def clipped(word: str, other: str) -> bool:
    """One word is the other cut short, of three letters or more: "tax" and "taxation", "admin"
    and "administrative", as a statement's label and a question write one line item."""
    short, long = sorted((word, other), key=len)
    return len(short) >= CLIPPED_AT_LEAST and long.startswith(short)


def naming_words(text: str) -> set[str]:
    """The words a row's label (its unit in brackets left out: "Basic earnings per share (pence)") or
    a question names a row by: its words as retrieval matches them, with the words that tell one
    line item from its neighbours though retrieval drops them ("Other receivables", "Profit before
    taxation")."""
    text = _UNIT.sub(" ", text)
    return set(tokenize(text)) | (set(_WORD.findall(text.lower())) & _QUALIFIERS)

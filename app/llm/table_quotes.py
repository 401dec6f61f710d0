"""A table quoted by its rows: the header, then the rows that share the most words with the question,
wherever they are in the table (the row that answers "the dose at a clearance of 40 ml/min")."""

from __future__ import annotations

import math
import re
from collections.abc import Collection

from docgraph.app.llm.question_terms import content_words, terms_in
from docgraph.app.llm.quote_length import MAX_QUOTE_CHARS, cut
from docgraph.app.llm.text_units import is_table_rule
from docgraph.app.retrieval.table_rows import clipped, row_cells

TABLE_ROWS_QUOTED = 2
_CODE = re.compile(r"^(?=.*[^\W\d_])(?=.*\d)\w+$")  # "e14", "f3a": letters and digits in one word


def markdown_rows(text: str) -> list[str]:
    """The rows of a markdown table (separator rows left out), each as one line."""
    lines = [line.strip() for line in text.splitlines()]
    return [line for line in lines if line.startswith("|") and not is_table_rule(line)]


def best_rows_quote(rows: list[str], terms: set[str], labels: Collection[str] = ()) -> str:
    """The header row, then the rows sharing the most words with the question, in table order; when
    none does, the rows from the first on, as many as the quote holds (the table as a whole is the
    answer: "Which sub-processors are listed in Annex III?"). A header row with no text (a table of
    label and value rows has none) is left out. Of a table whose rows are named by their ``labels``
    (:func:`app.retrieval.table_rows.named_rows`), the rows whose label the question names."""
    header, body = rows[0], rows[1:]
    if not header.replace("|", "").strip():
        header = ""
    named = code_rows(body, terms) or group_rows(body, labelled_rows(body, terms, labels))
    if named:  # "What does error E14 mean?", "What was operating profit?": the code's or label's row alone
        return cut(" ".join(_with_gaps(header, body, named)))
    shared = _row_scores(terms, body)
    ranked = sorted(range(len(body)), key=lambda i: (-shared[i], i))
    chosen = sorted(i for i in ranked[:TABLE_ROWS_QUOTED] if shared[i]) or _rows_that_fit(header, body)
    return cut(" ".join(_with_gaps(header, body, chosen)))


def subtotal_over_break(rows: list[str], terms: set[str], labels: Collection[str], following: list[str]) -> str:
    """The row of figures alone that opens the table's next part (``following``, over a page break)
    when a group the question names by its label runs to the end of this part (``rows``): its
    subtotal ("|  |  | (78.7) | (68.9) |" under "Current liabilities"), else nothing."""
    body, rest = rows[1:], following[1:]
    if not body or not rest or code_rows(body, terms):
        return ""
    named = labelled_rows(body, terms, labels)
    label, *figures = row_cells(rest[0])
    open_group = any(not any(row_cells(body[i])[1:]) and len(body) - 1 in group_rows(body, [i]) for i in named)
    closed = not row_cells(body[-1])[0] or row_cells(body[-1])[0].casefold().startswith("total")
    return rest[0] if open_group and not closed and not label and any(figures) else ""


def _with_gaps(header: str, body: list[str], chosen: list[int]) -> list[str]:
    """The header (when it has text) and the ``chosen`` rows, "… " where rows are left out."""
    parts = [header] if header else []
    for previous, i in zip([-1, *chosen], chosen, strict=False):
        parts.append(("… " if i > previous + 1 else "") + body[i])
    return parts


def group_rows(body: list[str], named: list[int]) -> list[int]:
    """``named`` rows, a group's label among them (a row of a label alone: a balance sheet's
    "Current assets") with the rows under it down to its subtotal (the first row of figures alone,
    or a "Total ..." row): the group's figure is its subtotal's, its items say what it is made of."""
    rows: list[int] = []
    for i in named:
        rows.append(i)
        if any(row_cells(body[i])[1:]):
            continue
        for j in range(i + 1, len(body)):
            label, *figures = row_cells(body[j])
            if not any(figures):  # the next group's label: this one has no subtotal here
                break
            rows.append(j)
            if not label or label.casefold().startswith("total"):  # its subtotal, or its total
                break
    return sorted(set(rows))


def code_rows(body: list[str], terms: set[str]) -> list[int]:
    """The rows with a cell that is nothing but a code the question names ("E14", "F3"): an error
    code's or a part's row, which the other rows' words ("error", "code") do not name."""
    codes = {term for term in terms if _CODE.match(term)}
    if not codes:
        return []
    return [i for i, row in enumerate(body) if any(_is_code_cell(cell, codes) for cell in row_cells(row))]


def labelled_rows(body: list[str], terms: set[str], labels: Collection[str]) -> list[int]:
    """The rows whose first cell is one of ``labels`` and holds no word but the question's (or one it
    clips: "tax" of "taxation"), of those the ones that hold the most of its words: the line item
    "Operating profit" of "What was operating profit?", not "Gross profit"; "Trade receivables",
    not "Other receivables"."""
    held: dict[int, int] = {}
    for i, row in enumerate(body):
        label = row_cells(row)[0]
        words = content_words(label)
        if label in labels and words and all(any(_names(term, word) for term in terms) for word in words):
            held[i] = sum(any(_names(term, word) for word in words) for term in terms)
    return [i for i, count in held.items() if count == max(held.values())]


def _names(term: str, word: str) -> bool:
    """The question's ``term`` names a label's ``word``: in any inflection, or cut short ("tax")."""
    return bool(terms_in({term}, word)) or clipped(term, word)


def _is_code_cell(cell: str, codes: set[str]) -> bool:
    words = content_words(cell)
    return len(words) == 1 and words <= codes and len(cell.split()) == 1


def _row_scores(terms: set[str], rows: list[str]) -> list[float]:
    """How well each row shares the question's words, a word counting for less the more rows hold
    it: "dose" in most rows of a dose table names none of them, "haemodialysis" names its row. A
    row under a parameter set over several rows holds the parameter's words too (:func:`_label_rows`)."""
    labels = _label_rows(rows)
    held = [terms_in(terms, row if labels[i] == i else f"{row} {rows[labels[i]]}") for i, row in enumerate(rows)]
    rows_with = {term: sum(term in found for found in held) for term in terms}
    return [sum(math.log(1 + len(rows) / rows_with[term]) for term in found) for found in held]


def _label_rows(body: list[str]) -> list[int]:
    """For each row, the row that names it: itself, or where its first cell is empty, the nearest
    row above with one. A datasheet sets one parameter over several rows of conditions
    ("Dropout Voltage | IOUT = 100 mA | 40 mV" over "| IOUT = 300 mA | 120 mV"); a question names
    the parameter and the condition both."""
    labels: list[int] = []
    for i, row in enumerate(body):
        first = row.strip().removeprefix("|").split("|", 1)[0]
        labels.append(labels[-1] if i and not first.strip() else i)
    return labels


def _rows_that_fit(header: str, body: list[str]) -> list[int]:
    """The first rows that fit in a quote after the header, whole (at least the first one)."""
    room, taken = MAX_QUOTE_CHARS - len(header), list[int]()
    for i, row in enumerate(body):
        room -= len(row) + 1
        if taken and room < 0:
            break
        taken.append(i)
    return taken

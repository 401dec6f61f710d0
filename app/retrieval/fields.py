"""A record's header fields a question names by label: "Who was present?" asks for the field
"Present: Jane Okafor (Chair), ...", "Who sent apologies?" for "Apologies: Sarah Collins, ...".

Minutes, memos and reports open with a stack of fields, each read as a region of its own (a label
ending in a colon and its value: :mod:`ingest.page.header_fields`). The value seldom holds the
question's words, the label does: a region that opens with a field label all of whose words the
question holds, in a stack of two or more such regions, is named by the question as a numbered
part is; and comes first when the question asks nothing else of it ("Who was present?"). A
notice's or a minute's outcome label ("Note:", "ACTION:") opens a paragraph, not a field.

A lease's or a contract's particulars are the same fields set as a table of label and value rows
("| Break Date | 24 June 2029 |"): a row's label names the table only when the question asks
nothing else ("When is the break date?"), as "Tenant" is in many questions that ask more of it.
So does a financial statement's line item ("What was operating profit?": "| Operating profit | 4 |
48.3 | 45.7 |"), with its column's heading too ("What was revenue in 2025?").
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from docgraph.app.retrieval.document_index import DocumentIndex
from docgraph.app.retrieval.table_rows import (
    LABEL_WORDS,
    VALUE_WORDS,
    column_date_words,
    label_named,
    named_rows,
    naming_words,
)
from docgraph.app.retrieval.text import tokenize
from docgraph.ingest.labels import MINUTE_LABEL, NOTICE_LABEL

# "Present: ...", "In attendance: ...": a capitalised label of one to three words, its colon, a value
_FIELD = re.compile(rf"^\s*({LABEL_WORDS}):[ \t]+\S")


def field_label(text: str) -> str | None:
    """The label ``text`` opens with as a field ("Present" of "Present: Jane Okafor ..."), if any."""
    found = _FIELD.match(text)
    if found is None or NOTICE_LABEL.match(found.group(1)) or MINUTE_LABEL.match(text):
        return None
    return found.group(1)


def field_regions(question: str, documents: Iterable[DocumentIndex]) -> dict[str, set[str]]:
    """The regions of ``documents`` that are fields of a stack whose label ``question`` names, each
    with its label's words."""
    words = set(tokenize(question))
    found: dict[str, set[str]] = {}
    for document in documents:
        rows = {row for word in words for row in document.region_bm25.rows_with(word)}
        for row in rows:
            label = field_label(document.regions[row].text)
            tokens = set(tokenize(label)) if label is not None else set()
            named = bool(tokens) and tokens <= words
            if not named or not _in_stack(document, row):
                continue
            found[document.regions[row].region_id] = tokens
    return found


def row_label_tables(question: str, documents: Iterable[DocumentIndex]) -> dict[str, set[str]]:
    """The tables of ``documents`` with a row whose label ``question`` names (a particulars table's,
    a statement's line item: :mod:`app.retrieval.table_rows`), each with the words that name it:
    the labels' (of every row it names), a line-item table's column headings, words asking a value."""
    words = naming_words(question)
    found: dict[str, set[str]] = {}
    for document in documents:
        rows = {row for word in words for row in document.region_bm25.rows_with(word)}
        for row in rows:
            region = document.regions[row]
            table = named_rows(region.text) if region.kind == "table" else None
            labels = [naming_words(label) for label in table.labels] if table else []
            named = [matched for tokens in labels if (matched := label_named(tokens, words))]
            if table and named:
                columns = table.headings | column_date_words(question, table.headings)
                found[region.region_id] = set().union(*named, columns, VALUE_WORDS)
    return found


def _in_stack(document: DocumentIndex, row: int) -> bool:
    """The region at ``row`` has a field next to it on its page: one of a stack of fields."""
    here = document.regions[row]
    around = (document.regions[k] for k in (row - 1, row + 1) if 0 <= k < len(document.regions))
    return any(other.page == here.page and field_label(other.text) is not None for other in around)

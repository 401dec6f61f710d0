"""The stored documents a question names: "What is the total of invoice 1043?" of a store of fifteen
invoices asks about ``invoice-1043``, "Does libtasn1 enforce SIZE constraints?" about the Libtasn1
manual.

A document is named by a word of its :attr:`~app.retrieval.document_index.DocumentIndex.name_texts`
(its file name, titles, a running head on half its pages) that the question writes as a name: with
a digit, an underscore, or a capital letter past the question's first word. A word every document
in scope is named by ("invoice" of fifteen invoices) names none of them, nor do a figure, table,
section or page label's words ("Table 3", "page 5"), which name parts of documents.

A date names the documents it is the date of ("the March meeting": the minutes headed "Date: 17
March 2026"; :mod:`app.retrieval.dates`), those it names most fully only.

An identifier that names a document ("1043", "HSX310", "libtasn1") says which document to read, not
which passage; a plain capitalised word that names one ("Luther" of a book titled after him) is
also what its passages are about, so the question keeps it, and so is a year ("revenue in 2025" of
the "Annual Report 2025": its statements' "2025" column, "the year ended 31 December 2025").
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from docgraph.app.retrieval.dates import Date, find_dates, fullness
from docgraph.app.retrieval.document_index import DocumentIndex
from docgraph.app.retrieval.fields import field_label
from docgraph.app.retrieval.kinds import named_label_words
from docgraph.app.retrieval.named_parts import part_label_words
from docgraph.app.retrieval.text import tokenize

_EDGES = "?.,;:!'’\"“”‘()[]"
_POSSESSIVE = re.compile(r"['’]s$")
MIN_NUMBER_DIGITS = 3  # a number names a document ("invoice 1043") from this many digits
_YEAR = re.compile(r"(?:19|20)\d\d")  # as :mod:`app.retrieval.dates` reads a year


@dataclass(frozen=True, slots=True)
class NamedDocuments:
    """The documents a question names, and the question without the identifiers that named them
    (which say which document to read, not which passage: "Invoice No. 1043" is no answer to "What
    is the total of invoice 1043?")."""

    doc_ids: frozenset[str]
    unnamed: str


def naming_words(question: str) -> set[str]:
    """The whole tokens of the words ``question`` writes as names ("1043", "libtasn1", "northgate" of
    "Northgate's"), less the words of the labels it names parts by ("Table 3", "page 5")."""
    labels = part_label_words(question) | named_label_words(question)
    words, dated = question.split(), _date_words(question)
    return {
        token
        for position, word in enumerate(words)
        if (token := _token(word))
        and token not in labels
        and position not in dated
        and _written_as_name(_bare(word), position)
    }


def _date_words(question: str) -> set[int]:
    """The positions of the words of the dates ``question`` writes ("17 March 2026"): a date names
    the documents it is the date of (:func:`header_dates`), not each one whose name holds "2026"."""
    spans = [(start, end) for _, start, end in find_dates(question)]
    words = re.finditer(r"\S+", question)
    return {i for i, word in enumerate(words) if any(word.start() < end and start < word.end() for start, end in spans)}


def named_documents(question: str, documents: Iterable[DocumentIndex]) -> NamedDocuments:
    """The ``documents`` whose names hold one of the question's :func:`naming_words` (none when
    the words name every one: one document in scope, fifteen invoices of one supplier), and the
    question without those of them that are identifiers whenever they name one, in scope alone too
    ("What is the maximum input voltage of the HSX310?" of its datasheet: "The HSX310 is a ..." is
    no answer either; "Where is Luther discussed?" keeps "Luther")."""
    candidates = list(documents)
    words = naming_words(question)
    named = [document for document in candidates if words & document.name_words]
    dated = _dated(question, candidates)
    if not named and not dated:
        return NamedDocuments(frozenset(), question)
    names = frozenset().union(*(document.name_words for document in named))
    identifiers = {word for word in words & names if _is_identifier(word) and not _YEAR.fullmatch(word)}
    words_of = _without_names(question.split(), identifiers, names, _date_words(question))
    unnamed = " ".join(words_of) if identifiers else question
    named = list({document.doc_id: document for document in [*named, *dated]}.values())
    lifted = frozenset(document.doc_id for document in named) if len(named) < len(candidates) else frozenset()
    return NamedDocuments(lifted, unnamed if tokenize(unnamed) else question)


def _dated(question: str, candidates: list[DocumentIndex]) -> list[DocumentIndex]:
    """The ``candidates`` a date in ``question`` names most fully, by their :func:`header_dates`
    ("the March meeting" names the minutes dated 17 March 2026; "17 March 2026" names those rather
    than a report dated "March 2026"). The date stays in the question: a passage may state it."""
    asked = [date for date, _, _ in find_dates(question)]
    if not asked:
        return []
    held = {document.doc_id: header_dates(document) for document in candidates}
    scores = {doc_id: max(fullness(date, dates) for date in asked) for doc_id, dates in held.items()}
    best = max(scores.values(), default=0)
    return [document for document in candidates if best and scores[document.doc_id] == best]


def header_dates(document: DocumentIndex) -> set[Date]:
    """The whole dates of ``document``'s names and of the date fields of its opening ("Date: 17
    March 2026"): the document's own date, not one it mentions ("Meeting: Board, 17 March 2026")."""
    dated = [text for text in document.opening if "date" in tokenize(field_label(text) or "")]
    return {date for text in [*document.name_texts, *dated] for date, _, _ in find_dates(text, True)}


def _without_names(words: list[str], naming: set[str], names: frozenset[str], dated: set[int]) -> list[str]:
    """``words`` without those that name the documents: each naming word, and the words of the
    documents' names next to it ("invoice" of "the total of invoice 1043", not "methods" of "What
    methods does zoo provide?", a title word that says what the document holds); a date's words
    (at the positions ``dated``) stay, as a passage may state the date."""
    tokens = [_token(word) for word in words]
    dropped = [token in naming for token in tokens]
    for start in [i for i, drop in enumerate(dropped) if drop]:
        for step in (-1, 1):
            i = start + step
            while 0 <= i < len(words) and not dropped[i] and i not in dated and tokens[i] in names:
                dropped[i] = True
                i += step
    return [word for word, drop in zip(words, dropped, strict=True) if not drop]


def _is_identifier(token: str) -> bool:
    """A token with a digit or an underscore ("1043", "hsx310", "asn1_der_decoding"): a label, not
    a subject a passage discusses."""
    return "_" in token or any(ch.isdigit() for ch in token)


def _token(word: str) -> str:
    """A question's ``word`` ("1043?", "Northgate's", "ReportLab") as its whole token ("1043",
    "northgate", "reportlab": not its parts)."""
    tokens = tokenize(_bare(word))
    return tokens[0] if tokens else ""


def _bare(word: str) -> str:
    """ "Northgate's," -> "Northgate": a word without its punctuation and possessive."""
    return _POSSESSIVE.sub("", word.strip(_EDGES))


def _written_as_name(word: str, position: int) -> bool:
    """A word with a digit or an underscore, or capitalised past the question's first word; not a
    number of one or two digits ("the 5 stages", "lecture 5"), which names too many things."""
    if word.isdigit():
        return len(word) >= MIN_NUMBER_DIGITS
    return _is_identifier(word) or (position > 0 and word[:1].isupper())

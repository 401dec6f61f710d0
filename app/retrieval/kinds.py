"""The region kinds a question names: "In the table of Emaxima mode commands, what does C-c C-u s
do?" looks for a table, "In the figure illustrating PKCS #11 module usage ..." for a figure.

BookRAG classifies queries to choose how to retrieve; here the class is only the kind of region a
question places its answer in, said in so many words: "the <up to four words> table", "Table 3",
"the ... figure / diagram / chart / plot / graph / screenshot / picture / illustration", "Figure 2".
A word that merely contains the noun (``write.table``, ``sqlTables``), "a table" (any table) and "the
table of contents" name no kind. The hybrid gives regions of a named kind a fixed bonus
(:attr:`app.retrieval.hybrid.HybridWeights.kind`); a question that names a label ("Figure 3")
gives it to that label's caption and what it captions, when a caption of that label is stored
(every region of the kind otherwise: :mod:`app.retrieval.labels`).
"""

from __future__ import annotations

import re

from docgraph.app.retrieval.text import tokenize
from docgraph.ingest.links.edges import DASHES

_BEFORE = r"\bthe (?:[\w-]+ ){0,4}"  # "the", then up to four words: "the flat contingency table"
_LABEL = r" (?:\d|[IVXL]+\b|[A-Z]\.\d)"  # "Table 3", "Table II", "Figure A.1"
_TABLE = re.compile(rf"(?i:{_BEFORE}tables?\b(?! of contents))|\b[Tt]ables?{_LABEL}")
_PICTURES = r"(?:figure|diagram|chart|plot|graph|screenshot|picture|illustration)s?\b(?! out)"
_FIGURE = re.compile(rf"(?i:{_BEFORE}{_PICTURES})|\b(?:[Ff]igs?\.|[Ff]igures?){_LABEL}")


_SEP = rf"[.{DASHES}]"
_ARABIC = rf"(?:[A-Z]{_SEP})?\d{{1,3}}(?:{_SEP}\d{{1,3}})*[a-zA-Z]?\b"  # 3, 2-1, A.1, 2a, 2A
_ROMAN = r"(?:[IVXL]{2,6}|[VXL]|I(?!\s+[a-z]))\b"  # II, V; an I before a lowercase word is the pronoun
_ITEM = re.compile(rf"{_ARABIC}|{_ROMAN}")
# "Figure 3", "Figures 3 and 4", "Tables 2, 3 or 5", "Fig. 2a", "TABLE II" (Roman numerals only after a
# capital: "which table I need" names none)
_NUMBERED = re.compile(
    r"\b(?P<word>[Tt]ables?|TABLES?|[Ff]igs?\.|FIGS?\.|[Ff]igures?|FIGURES?)\s*"
    rf"(?P<items>(?:{_ARABIC}|{_ROMAN})(?:\s*(?:,|and|or|&)\s*(?:{_ARABIC}|{_ROMAN}))*)"
)
_DASH = re.compile(f"[{DASHES}]")


def label_key(kind: str, number: str) -> tuple[str, str]:
    """("figure", "3"): a label as questions and captions both name it ("Table 2–1" is "Table 2-1")."""
    return kind, _DASH.sub("-", number.rstrip(".")).casefold()


def named_labels(question: str) -> frozenset[tuple[str, str]]:
    """The figure and table labels ``question`` names: "Figure 3", "Figures 3 and 4", "Table A.1"."""
    labels = set()
    for match in _NUMBERED.finditer(question):
        kind = "table" if match["word"][0] in "Tt" else "figure"
        for item in _ITEM.findall(match["items"]):
            if any(ch.isdigit() for ch in item) or match["word"][0].isupper():  # a Roman one after a capital
                labels.add(label_key(kind, item))
    return frozenset(labels)


def named_label_words(question: str) -> set[str]:
    """The words of the figure and table labels ``question`` names ("table" and "3" of "Table 3")."""
    return {word for match in _NUMBERED.finditer(question) for word in tokenize(match.group(0))}


def named_kinds(question: str) -> frozenset[str]:
    """The region kinds ``question`` names as where its answer is (``table``, ``figure``)."""
    kinds = set()
    if _TABLE.search(question):
        kinds.add("table")
    if _FIGURE.search(question):
        kinds.add("figure")
    return frozenset(kinds)

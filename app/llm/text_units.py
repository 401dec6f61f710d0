"""The units a passage is read in when only part of it is shown: sentences, and table rules.

One splitter for the extractive answer's quotes and for the focused excerpts the generator reads,
so both cut a passage at the same places. A full stop ends a sentence only before what can start
one (a capital, a digit, a quote or bracket), so "e.g. the" stays whole, and never after an
abbreviation that goes on ("Dr. Lee", "e.g. Adam") or a label's before its number or bracket
("Eq. (4)", "Fig. 3", "p. 12", "et al. (2019)", "Art. 28"), nor after a number that opens a unit ("4.
Critical Service Level Failure."), nor after a name's initial ("Buyer M. Okafor": a lone capital
before a capitalised word that is no function word, where "vitamin A. The" ends); CJK full stops
need no space after them.
"""

from __future__ import annotations

import re

from docgraph.app.retrieval.text import STOP_WORDS
from docgraph.ingest.labels import FIGURE_CAPTION_WORDS, REFERENCE_WORDS, TABLE_CAPTION_WORDS
from docgraph.ingest.pdf.text import SUPERSCRIPT_DIGITS

_MARKS = SUPERSCRIPT_DIGITS  # footnote marks, which may follow a full stop: "... in 2019.¹ The"
# A sentence starts with a capital of any alphabet ("Ö", "É", "Ё"), not only A-Z.
_CAPITALS = re.escape("".join(ch for ch in map(chr, range(0x3000)) if ch.isupper()))
_SENTENCE_END = re.compile(rf"(?<=[.!?{_MARKS}])\s+(?=[\"'(\[0-9{_CAPITALS}])|(?<=[。！？])\s*")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}")  # a markdown header separator, | --- | --- |


def _abbreviated_labels() -> frozenset[str]:
    """The label words of other languages written with a full stop ("Abb.", "Kap.", "Abschn.",
    "Рис."), as :mod:`ingest.labels` lists them for captions and references."""
    words = [*FIGURE_CAPTION_WORDS, *TABLE_CAPTION_WORDS]
    words += [pattern.replace("\\.", ".") for patterns in REFERENCE_WORDS.values() for pattern in patterns]
    return frozenset(word[:-1].lower() for word in words if re.fullmatch(r"[^\W\d_]+\.", word))


# Abbreviations a sentence goes on after, and labels abbreviated before a number or "(4)", German
# and French ones too: "(vgl. Tabelle 2)", "ca. 5 Minuten", "siehe Abb. 2", "S. 12" were cut in two.
_GOES_ON_AFTER = frozenset(
    {"cf", "e.g", "i.e", "vs", "viz", "approx", "dr", "mr", "mrs", "prof"}
    | {"vgl", "bzw", "ca", "ggf", "evtl", "inkl", "zzgl", "bspw", "gem", "env", "resp"}
)
# "et al." goes on before its year or reference, and may end a sentence ("... by Lee et al. We").
_LABELS = _abbreviated_labels() | frozenset(
    {"eq", "eqs", "fig", "figs", "sec", "secs", "sect", "tab", "ref", "refs", "no", "nos"}
    | {"al", "vol", "p", "pp", "ch", "chap", "thm", "lem", "prop"}
)
# Legal labels, before a number only: "Art. 28", "§ 257 Abs. 4", "para. 3", "Sch. 2", "cl. 4.2";
# "S. 12" (Seite), "max. 10 bar"; and a month before its day, as US dates are written ("Jun. 1, 2023").
_MONTHS = frozenset({"jan", "feb", "mar", "apr", "jun", "jul", "aug", "sep", "sept", "oct", "nov", "dec"})
_BEFORE_NUMBER = (
    frozenset({"art", "arts", "abs", "para", "paras", "sch", "cl", "subs", "nr", "s", "max", "min"}) | _MONTHS
)
# Two-word abbreviations ("z. B.", "d. h.", "u. a.", "p. ex."), whose stops end no sentence.
_TWO_WORDS = re.compile(r"(?<![\w.])(?:z\.\s?b|d\.\s?h|u\.\s?a|z\.\s?t|u\.\s?u|o\.\s?ä|i\.\s?d\.\s?r|p\.\s?ex)\.", re.I)
_WORD_BEFORE_STOP = re.compile(r"([\w.]+)\.$")
_ENUMERATOR = re.compile(r"^\(?\d{1,3}(?:\.\d{1,3})*$")  # "4" of "4. Critical Service Level Failure."
_INITIAL = re.compile(r"(?<![\w.])[A-Z]\.$")  # "M." of "M. Okafor", not "U.S." nor "Vol."
_NEXT_WORD = re.compile(r"[^\W\d_]+")


def sentences(text: str) -> list[str]:
    """``text``'s sentences, its whitespace runs made single spaces."""
    text = " ".join(text.split())
    units: list[str] = []
    start = 0
    masked = _TWO_WORDS.sub(lambda found: found.group(0).replace(".", "\0"), text)  # same length
    for end in _SENTENCE_END.finditer(masked):
        before = text[start : end.start()]
        if before.rstrip(_MARKS)[-1:] not in ("", ".", "!", "?", "。", "！", "？"):  # "cards¹ for" goes on
            continue
        if not _goes_on(before.rstrip(_MARKS), text[end.end() :]):
            units.append(text[start : end.start()])
            start = end.end()
    units.append(text[start:])
    return [unit for unit in units if unit]


def _goes_on(before: str, after: str) -> bool:
    """Whether the full stop ending ``before`` belongs to an abbreviation the sentence goes on after
    into ``after``."""
    next_char = after[:1]
    if _INITIAL.search(before):
        return _name_follows(after)
    word = _WORD_BEFORE_STOP.search(before)
    if not word:
        return False
    abbreviation = word.group(1).lower()
    if abbreviation in _GOES_ON_AFTER or _ENUMERATOR.match(before.strip().removesuffix(".")):
        return True  # a unit never is a bare number: "4." numbers the heading or item after it
    if abbreviation in _BEFORE_NUMBER:
        return next_char.isdigit()
    return abbreviation in _LABELS and (next_char.isdigit() or next_char in "([")


def _name_follows(after: str) -> bool:
    """``after`` opens with a capitalised word that is no function word: the surname after an
    initial ("P. Natarajan"); "The", "We", "In" open the next sentence."""
    word = _NEXT_WORD.match(after)
    return word is not None and word.group(0)[0].isupper() and word.group(0).lower() not in STOP_WORDS


def is_table_rule(line: str) -> bool:
    """Whether ``line`` is the rule under a markdown table's header."""
    return bool(_TABLE_RULE.match(line))

"""The units a passage is read in when only part of it is shown: sentences, and table rules.

One splitter for the extractive answer's quotes and for the focused excerpts the generator reads,
so both cut a passage at the same places. A full stop ends a sentence only before what can start
one (a capital, a digit, a quote or bracket), so "e.g. the" stays whole, and never after an
abbreviation that goes on ("Dr. Lee", "e.g. Adam") or a label's before its number or bracket
("Eq. (4)", "Fig. 3", "p. 12", "et al. (2019)", "Art. 28"), nor after a number that opens a unit ("4.
Critical Service Level Failure."); CJK full stops need no space after them.
"""

from __future__ import annotations

import re

_MARKS = "⁰¹²³⁴⁵⁶⁷⁸⁹"  # footnote marks, which may follow a full stop: "... in 2019.¹ The"
# A sentence starts with a capital of any alphabet ("Ö", "É", "Ё"), not only A-Z.
_CAPITALS = re.escape("".join(ch for ch in map(chr, range(0x3000)) if ch.isupper()))
_SENTENCE_END = re.compile(rf"(?<=[.!?{_MARKS}])\s+(?=[\"'(\[0-9{_CAPITALS}])|(?<=[。！？])\s*")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}")  # a markdown header separator, | --- | --- |


# Abbreviations a sentence goes on after, and labels abbreviated before a number or "(4)".
_GOES_ON_AFTER = frozenset({"cf", "e.g", "i.e", "vs", "viz", "approx", "dr", "mr", "mrs", "prof"})
# "et al." goes on before its year or reference, and may end a sentence ("... by Lee et al. We").
_LABELS = frozenset(
    {"eq", "eqs", "fig", "figs", "sec", "secs", "sect", "tab", "ref", "refs", "no", "nos"}
    | {"al", "vol", "p", "pp", "ch", "chap", "thm", "lem", "prop"}
)
# Legal labels, before a number only: "Art. 28", "§ 257 Abs. 4", "para. 3", "Sch. 2", "cl. 4.2".
_BEFORE_NUMBER = frozenset({"art", "arts", "abs", "para", "paras", "sch", "cl", "subs", "nr"})
_WORD_BEFORE_STOP = re.compile(r"([\w.]+)\.$")
_ENUMERATOR = re.compile(r"^\(?\d{1,3}(?:\.\d{1,3})*$")  # "4" of "4. Critical Service Level Failure."


def sentences(text: str) -> list[str]:
    """``text``'s sentences, its whitespace runs made single spaces."""
    text = " ".join(text.split())
    units: list[str] = []
    start = 0
    for end in _SENTENCE_END.finditer(text):
        before = text[start : end.start()]
        if before.rstrip(_MARKS)[-1:] not in ("", ".", "!", "?", "。", "！", "？"):  # "cards¹ for" goes on
            continue
        if not _goes_on(before.rstrip(_MARKS), text[end.end() : end.end() + 1]):
            units.append(text[start : end.start()])
            start = end.end()
    units.append(text[start:])
    return [unit for unit in units if unit]


def _goes_on(before: str, next_char: str) -> bool:
    """Whether the full stop ending ``before`` belongs to an abbreviation the sentence goes on after."""
    word = _WORD_BEFORE_STOP.search(before)
    if not word:
        return False
    abbreviation = word.group(1).lower()
    if abbreviation in _GOES_ON_AFTER or _ENUMERATOR.match(before.strip().removesuffix(".")):
        return True  # a unit never is a bare number: "4." numbers the heading or item after it
    if abbreviation in _BEFORE_NUMBER:
        return next_char.isdigit()
    return abbreviation in _LABELS and (next_char.isdigit() or next_char in "([")


def is_table_rule(line: str) -> bool:
    """Whether ``line`` is the rule under a markdown table's header."""
    return bool(_TABLE_RULE.match(line))

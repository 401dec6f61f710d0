"""The units a passage is read in when only part of it is shown: sentences, and table rules.

One splitter for the extractive answer's quotes and for the focused excerpts the generator reads,
so both cut a passage at the same places. A full stop ends a sentence only before what can start
one (a capital, a digit, a quote or bracket), so "e.g. the" and "fig. 3" stay whole; CJK full
stops need no space after them.
"""

from __future__ import annotations

import re

# A sentence starts with a capital of any alphabet ("Ö", "É", "Ё"), not only A-Z.
_CAPITALS = re.escape("".join(ch for ch in map(chr, range(0x3000)) if ch.isupper()))
_SENTENCE_END = re.compile(rf"(?<=[.!?])\s+(?=[\"'(\[0-9{_CAPITALS}])|(?<=[。！？])\s*")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}")  # a markdown header separator, | --- | --- |


def sentences(text: str) -> list[str]:
    """``text``'s sentences, its whitespace runs made single spaces."""
    return [unit for unit in _SENTENCE_END.split(" ".join(text.split())) if unit]


def is_table_rule(line: str) -> bool:
    """Whether ``line`` is the rule under a markdown table's header."""
    return bool(_TABLE_RULE.match(line))

"""Author lists written before a year in running text ("Zeileis and Grothendieck (2005)", "Kleiber
et al. 2008"): read backwards from the year, name by name, to the first word that cannot be part of
a name. :mod:`ingest.links.citations` matches them with the bibliography's entries.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

PARTICLES = frozenset({"van", "von", "der", "den", "de", "del", "della", "di", "da", "du", "dos", "la", "le", "ter"})
# Capitalised words that open a sentence or clause before an author's name.
OPENERS = frozenset(
    {"a", "also", "an", "and", "as", "both", "but", "by", "cf", "e.g", "eg", "following", "for", "from", "hence"}
    | {"however", "i.e", "ie", "in", "like", "of", "on", "see", "since", "the", "then", "this", "thus", "unlike"}
    | {"when", "whereas", "while", "with"}
)
MAX_RUN_CHARS = 300  # an author list is never longer; bounds the backward scan
_TOKEN = re.compile(r"(?P<etal>\bet\s+al\b\.?)|(?P<sep>,|&|\band\b)|(?P<word>[^\W\d_][\w'’\-]*\.?)|(?P<other>\S)")
_LONE_OPENER = re.compile(r"[^\W\d_][\w'’\-]*\s*,")  # "However," before the real first author


def surname_key(word: str) -> str:
    """Accents, case, hyphens and apostrophes do not tell names apart ("Müller-Hansen" ==
    "Mullerhansen"): a line-break hyphen can land inside a name."""
    folded = unicodedata.normalize("NFKD", word)
    return "".join(ch for ch in folded if ch.isalnum()).casefold()


@dataclass(frozen=True, slots=True)
class Authors:
    names: tuple[str, ...]  # surname keys in order
    et_al: bool
    start: int  # where the list starts in the text
    lone_first_word: bool  # the first "name" is one word and a comma: "However, Smith (2006)"


def _is_initial(word: str) -> bool:
    core = word.rstrip(".")
    if not core.isalpha() or not core[0].isupper():
        return False
    return len(core) == 1 or (core.isupper() and len(core) <= 3) or (word.endswith(".") and len(core) <= 2)


def _is_name_word(word: str) -> bool:
    core = word.rstrip(".")
    if word.endswith(".") and not _is_initial(word):
        return False  # "Cole." ends the previous sentence or entry
    return core[:1].isupper() or core.lower() in PARTICLES


def _surname(unit: list[str]) -> str:
    """The family name of one author: the last word that is no initial or particle ("R. A. Becker",
    "Zeileis A", "van der Vaart", "R Core Team"); a lone acronym ("IBM") stands for itself."""
    words = [w for w in unit if not _is_initial(w) and w.rstrip(".").lower() not in PARTICLES]
    if words:
        return surname_key(words[-1])
    if len(unit) == 1 and not unit[0].endswith(".") and len(unit[0]) > 1:
        return surname_key(unit[0])
    return ""  # initials only: the first names of an inverted "Zeileis, A."


def author_run(text: str, end: int, lo: int = 0) -> Authors | None:
    """The author list ending at ``end``: name units separated by commas, "and" or "&", read
    backwards until something that cannot be part of a name (lowercase word, digit, bracket)."""
    tokens = list(_TOKEN.finditer(text, max(lo, end - MAX_RUN_CHARS), end))
    units: list[list[re.Match[str]]] = [[]]
    et_al = False
    for token in reversed(tokens):
        kind = token.lastgroup
        if kind == "etal" and not any(units):
            et_al = True
        elif kind == "sep":
            if units[-1]:
                units.append([])
        elif kind == "word" and _is_name_word(token.group()):
            units[-1].insert(0, token)
        else:
            break
    units = _without_openers([unit for unit in reversed(units) if unit])
    names = tuple(name for name in (_surname([w.group() for w in unit]) for unit in units) if name)
    if not names:
        return None
    start = units[0][0].start()
    lone = len(units[0]) == 1 and len(names) > 1 and bool(_LONE_OPENER.match(text, start))
    return Authors(names, et_al, start, lone)


def _without_openers(units: list[list[re.Match[str]]]) -> list[list[re.Match[str]]]:
    """Drops capitalised sentence openers ("As Zeileis (2006)", "However, Smith (2006)") from the
    front of the list: they are read as part of a name only because they are capitalised."""
    while units and units[0][0].group().rstrip(".").lower() in OPENERS:
        units = units[1:] if len(units[0]) == 1 else [units[0][1:], *units[1:]]
    return units

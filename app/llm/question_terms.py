"""What of a question a passage holds: its content words in any inflection, and its numbers inside
the bands a passage gives ("a child of 20 kg" is in the row "15 kg to under 25 kg"). The extractive
answer picks its sentences, rows and list items by them."""

from __future__ import annotations

import math
import re

from docgraph.app.retrieval.relevance import word_forms
from docgraph.app.retrieval.text import tokenize

_NUMBER = re.compile(r"\d+(?:\.\d+)?")
# A reference code of letters and numbers cut by slashes ("A26/03", "M26/041", "HR/2024/7"): one
# term, whole, as a register or an action log names its entry; its parts name every other entry of
# the series ("M26" is in each row of an action log), a date's parts ("17/03/2026") are its own.
_CODE = re.compile(r"(?<![\w/.:])[A-Za-z]+\d*(?:/\w+)*/\w*\d\w*(?![\w/])")
# A band of values: "15 to <25", "10 kg to under 15 kg", "30–50"; and one bound: "<10", "≥45", "under 6".
_BAND = re.compile(
    r"(?<![\d.])(\d+(?:\.\d+)?)\s*(?:[a-z/%]+\s*)?(?:-|–|—|to)\s*(<|under|less than)?\s*(\d+(?:\.\d+)?)", re.I
)
_BOUND = re.compile(r"(?<![\w.])(<|>|≤|≥|under|over)\s*(\d+(?:\.\d+)?)", re.I)


def content_words(text: str) -> set[str]:
    """The words retrieval matches on (stop words out, plurals and spellings folded, CJK in pairs);
    a lone letter is left out, a lone digit kept ("exit code 3" names the table's row "3"); a
    reference code kept whole, not cut at its slashes ("m26/041")."""
    codes = {code.lower() for code in _CODE.findall(text)}
    return {word for word in tokenize(_CODE.sub(" ", text)) if len(word) > 1 or word.isdigit()} | codes


def shared_words(terms: set[str], text: str) -> int:
    """How many of the question's ``terms`` ``text`` holds, in any inflection, as abstention's
    coverage counts them ("tightened" is in "tighten the bolts to 45 Nm")."""
    return len(terms_in(terms, text))


def terms_in(terms: set[str], text: str) -> set[str]:
    """The question's ``terms`` that ``text`` holds, in any inflection; of its numbers, those inside
    a band ``text`` gives, not those it prints as a band's open end (:func:`numbers_in_bands`)."""
    found = {form for word in content_words(text) for form in word_forms(word)}
    inside, outside = numbers_in_bands(terms, text)
    return {term for term in terms if not found.isdisjoint(word_forms(term))} - outside | inside


Band = tuple[float, float, bool, bool]  # low, high, whether low itself is out, whether high is


def numbers_in_bands(terms: set[str], text: str) -> tuple[set[str], set[str]]:
    """The numbers among ``terms`` inside a band that ``text`` gives ("15 kg to under 25 kg",
    "10–29", "<10", "≥45 kg"), and those it prints as an end the band leaves out and no band holds
    ("25" of "15 to <25 kg"). A dosing table by weight or by creatinine clearance names a child of
    20 kg or a clearance of 40 ml/min by its band, never by the number itself."""
    numbers = {term: float(term) for term in terms if _NUMBER.fullmatch(term)}
    if not numbers:
        return set(), set()
    bands: list[Band] = [(float(m[1]), float(m[3]), False, bool(m[2])) for m in _BAND.finditer(text)]
    for bound in _BOUND.finditer(_BAND.sub(" ", text)):  # a bound of its own, not a band's upper one
        sign, limit = bound[1].lower(), float(bound[2])
        below = sign in ("<", "≤", "under")
        bands.append((-math.inf, limit, False, sign != "≤") if below else (limit, math.inf, sign != "≥", False))
    inside = {term for term, value in numbers.items() if any(_inside(value, band) for band in bands)}
    ends = {end for low, high, low_out, high_out in bands for end, out in ((low, low_out), (high, high_out)) if out}
    return inside, {term for term, value in numbers.items() if value in ends} - inside


def _inside(value: float, band: Band) -> bool:
    low, high, low_out, high_out = band
    return (low < value if low_out else low <= value) and (value < high if high_out else value <= high)

"""The dates a question names documents by: "What did the March meeting decide?", "the minutes of
17 March 2026", "the agenda for 17/03/2026". A meeting's papers carry its date in their titles or
opening lines ("Minutes of the Board meeting held on 17 March 2026"); a date the question writes
names the documents whose header date it is, and says which document to read, not which passage.

A date is (day, month, year), a part the text leaves out None. A month alone is one only when
capitalised past the question's first word ("May I ..." asks nothing of May).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

Date = tuple[int | None, int, int | None]

_MONTH_NAMES = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
]
MONTHS = {name: number for number, name in enumerate(_MONTH_NAMES, start=1)}
_MONTH = "|".join(name.capitalize() for name in _MONTH_NAMES)
_WRITTEN = re.compile(
    rf"\b(?:(?P<day>\d{{1,2}})(?:st|nd|rd|th)?\s+)?(?P<month>{_MONTH})\b(?:,?\s+(?P<year>(?:19|20)\d\d)\b)?"
)
_NUMERIC = re.compile(r"\b(?P<day>\d{1,2})[/.](?P<month>\d{1,2})[/.](?P<year>(?:19|20)\d\d)\b")  # day first
_ISO = re.compile(r"\b(?P<year>(?:19|20)\d\d)-(?P<month>\d\d)-(?P<day>\d\d)\b")


def find_dates(text: str, whole: bool = False) -> list[tuple[Date, int, int]]:
    """The dates written in ``text``, each with its span; a month alone only if capitalised past the
    text's start (a question's "May I" is none); ``whole``: only those with a year."""
    found: list[tuple[Date, int, int]] = []
    for pattern in (_WRITTEN, _NUMERIC, _ISO):
        for match in pattern.finditer(text):
            day, month, year = match.group("day"), match.group("month"), match.group("year")
            number = MONTHS[month.lower()] if month.isalpha() else int(month)
            if not 1 <= number <= 12 or (year is None and (whole or (day is None and match.start() == 0))):
                continue
            found.append(((int(day) if day else None, number, int(year) if year else None), *match.span()))
    return found


def fullness(asked: Date, held: Iterable[Date]) -> int:
    """How fully ``asked`` names a document whose header dates are ``held``: the most parts it gives
    that one of them bears, 0 when each bears another month, day or year."""
    best = 0
    for date in held:
        pairs = list(zip(asked, date, strict=True))
        if all(a is None or a == b for a, b in pairs):
            best = max(best, sum(a is not None for a, _ in pairs))
    return best

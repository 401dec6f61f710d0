"""The number a heading is written with ("2.3.1 Foo", "Appendix B", "Article 5", "第3章") and how
alike two headings' titles are, numbering aside: an outline entry is matched to its header region so.
"""

from __future__ import annotations

import re
import unicodedata
from difflib import SequenceMatcher

from docgraph.ingest.labels import APPENDIX_WORDS, CJK_HEADING_NUMBER, HEADING_WORDS, LEGAL_HEADING_NUMBER

HEADER_MATCH = 0.75  # title similarity at which an outline entry matches a header region

_HEADING_WORDS = "|".join(f for w in HEADING_WORDS for f in (w, w.upper()))
_APPENDIX_WORDS = "|".join(f for w in APPENDIX_WORDS for f in (w, w.upper()))
_NUMBERED = re.compile(
    rf"^(?:(?:[Cc]hapter|CHAPTER|[Ss]ection|SECTION|{_HEADING_WORDS})\s+)?"
    r"(\d{1,3}(?:\.\d{1,3})*|[A-Z](?:\.\d{1,3})+)\.?(?=[:\s]|$)"
)
_APPENDIX = re.compile(rf"^(?:[Aa]ppendix|APPENDIX|{_APPENDIX_WORDS})\s+([A-Z])\.?(?=[:\s]|$)")
# "A. Reference card", not an author line "A. Author, B. Author" (a second initial follows)
_LETTERED = re.compile(r"^([A-Z])\.\s+(?=[A-Z])(?!.*\b[A-Z]\.\s)")


def parse_number(title: str) -> str:
    """Section number written at the start of a title: "2.3.1 Foo" -> "2.3.1", "Appendix B" -> "B"."""
    text = title.strip()
    match = _number_match(text)
    return match.group(1) if match else ""


def level_of_number(number: str) -> int:
    return number.count(".") + 1


def normalise_title(text: str) -> str:
    folded = unicodedata.normalize("NFKC", text).casefold()
    return "".join(ch for ch in folded if ch.isalnum())


def strip_number(title: str) -> str:
    text = title.strip()
    match = _number_match(text)
    return text[match.end() :].lstrip(" :.–—-") if match else text


def _number_match(text: str) -> re.Match[str] | None:
    return (
        _NUMBERED.match(text)
        or _APPENDIX.match(text)
        or LEGAL_HEADING_NUMBER.match(text)
        or _LETTERED.match(text)
        or CJK_HEADING_NUMBER.match(text)
    )


def title_similarity(a: str, b: str) -> float:
    """1.0 for the same title up to case, spacing, punctuation and leading numbering; else a ratio
    (0.0 for pairs too different to reach ``HEADER_MATCH``)."""
    return max(_similarity(a, b), _similarity(strip_number(a), strip_number(b)))


def _similarity(a: str, b: str) -> float:
    na, nb = normalise_title(a), normalise_title(b)
    if not na or not nb:
        return 0.0
    if na == nb:
        return 1.0
    short, long = sorted((na, nb), key=len)
    if short in long and len(short) / len(long) >= 0.5:
        return 0.9
    matcher = SequenceMatcher(None, na, nb, autojunk=False)
    # Cheap upper bounds first: pairs that cannot reach a match threshold are not worth a full ratio.
    if matcher.real_quick_ratio() < HEADER_MATCH or matcher.quick_ratio() < HEADER_MATCH:
        return 0.0
    return matcher.ratio()

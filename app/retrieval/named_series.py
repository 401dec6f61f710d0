"""Parts of a series a document names by a word and a number ("Ground 1", "Issue 2"), and sections
a question asks for by their whole title ("What is the conclusion?"): the question's side of them."""

from __future__ import annotations

import re
from collections.abc import Iterable

from docgraph.app.retrieval.named_parts import WHERE_ONLY_WORDS
from docgraph.app.retrieval.text import tokenize

# A heading that opens with a word and a number is a part in a series of the document's own ("Ground
# 1: construction of clause 14.2", "Issue 2 – limitation"), which a question names by them ("What was
# Ground 1?") whatever the part's words; not a year ("Budget 2024") nor a dotted number.
_WORD_NUMBER = re.compile(r"\b([^\W\d_]{3,})\s+(\d{1,3})(?![\w.,]\d|\w)")
_HEADING_WORD_NUMBER = re.compile(r"^\s*([^\W\d_]{3,})\s+(\d{1,3})(?:\s*[:.–—-]\s|\s*$)")


def word_numbers(question: str) -> set[tuple[str, str]]:
    """The words with a number after them that ``question`` writes ("Ground 1" of "What was Ground
    1?"), folded to lower case: the series names a heading may open with."""
    return {(word.lower(), number) for word, number in _WORD_NUMBER.findall(question)}


def series_words(question: str, headings: Iterable[str] | None = None) -> set[str]:
    """The tokens of the words and numbers ``question`` writes (:func:`word_numbers`) that one of
    ``headings`` opens with (any, when None): they name the heading's part ("ground", "1"), and its
    text need not hold them."""
    named = word_numbers(question)
    if headings is not None:
        named &= {pair for heading in headings if (pair := heading_word_number(heading))}
    return {token for pair in named for token in tokenize(" ".join(pair))}


def asks_for_title(question: str, title: str) -> bool:
    """Whether ``question`` asks for nothing but the part ``title`` heads ("What is the conclusion?"
    of "Conclusion", "What are the facts?" of "The facts"): its words, but for those asking where, are
    the title's words."""
    words = set(tokenize(question)) - WHERE_ONLY_WORDS
    return bool(words) and words == set(tokenize(title))


def heading_word_number(title: str) -> tuple[str, str] | None:
    """The word and number a heading opens with as a part of a series ("Ground 1: construction of
    clause 14.2" -> ("ground", "1")), folded to lower case; None for any other heading."""
    match = _HEADING_WORD_NUMBER.match(title)
    return (match.group(1).lower(), match.group(2)) if match else None

"""Common English words (SCOWL up to size 35, four letters or more): whether a line-end hyphen
splits one word ("with-" | "out") or joins two ("read-" | "only")."""

from __future__ import annotations

import gzip
from functools import cache
from importlib import resources

_WORD_LIST = "common_words.txt.gz"  # its licence: common_words.NOTICE


@cache
def common_words() -> frozenset[str]:
    data = resources.files(__package__).joinpath(_WORD_LIST).read_bytes()
    return frozenset(gzip.decompress(data).decode("ascii").split())


def is_common_word(word: str) -> bool:
    """Whether ``word``, in any case, is a common English word."""
    return word.lower() in common_words()

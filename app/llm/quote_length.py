"""How long a quote may be: a reader sees the part of a passage that matters, not a page."""

from __future__ import annotations

MAX_QUOTE_CHARS = 360


def cut_start(quote: str) -> str:
    """``quote`` cut to a readable length from its start: its end runs on into the next part."""
    if len(quote) <= MAX_QUOTE_CHARS:
        return quote
    return "… " + quote[-MAX_QUOTE_CHARS:].split(" ", 1)[-1]


def cut(quote: str) -> str:
    """``quote`` cut to a readable length at a word, "…" where it goes on."""
    if len(quote) <= MAX_QUOTE_CHARS:
        return quote
    return quote[:MAX_QUOTE_CHARS].rsplit(" ", 1)[0] + " …"

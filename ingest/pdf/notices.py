"""The symbol before a safety notice's label: a hazard sign ("⚠") or a character of a symbol font
(ZapfDingbats, Wingdings) set on the row of the label's "CAUTION", "WARNING", "DANGER" or "NOTICE".

The symbol is no text: read with the label ("⚠WARNING", "· DANGER") it hides the label, so the
notice's text is cut from its label, or a dingbat read as a bullet makes the notice a list item.
The symbol is dropped; a bullet before a word that is no signal word set in capitals stays.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

# Signal words as safety standards set them (ANSI Z535, ISO 3864-2, their translations): in capitals.
_SIGNAL_WORDS = (
    r"(?:DANGER|WARNING|CAUTION|NOTICE|ATTENTION|IMPORTANT|GEFAHR|WARNUNG|VORSICHT|ACHTUNG|HINWEIS|"
    r"AVERTISSEMENT|PELIGRO|ADVERTENCIA|PRECAUCI[ÓO]N|AVISO|PERICOLO|AVVERTENZA)\b"
)
_SIGNAL_WORD = re.compile(rf"^\s*{_SIGNAL_WORDS}")
_SYMBOL_FONT = re.compile(r"dingbat|wingding|webding|symbol|awesome|icons?\b", re.IGNORECASE)
# Hazard signs of Unicode: warning sign, high voltage, no entry, radioactive, biohazard, skull,
# raised hand, stop sign, heavy exclamation marks.
_HAZARD_SIGNS = frozenset("\u26a0\u26a1\u26d4\u2622\u2623\u2620\u270b\U0001f6d1\u2757\u2755\u2762")
_LEADING_SIGN = re.compile(rf"^\s*[{''.join(sorted(_HAZARD_SIGNS))}]+\ufe0f?\s*(?={_SIGNAL_WORDS})")
ROW_SHARE = 0.5  # of the smaller height: a symbol and a label this much level share a row
NEAR_EM = 3.0  # the label starts at most this many em right of the symbol's end


def _is_symbol(span: dict[str, Any]) -> bool:
    text = str(span.get("text", "")).strip()
    if not text or len(text) > 2:
        return False
    return all(ch in _HAZARD_SIGNS for ch in text) or bool(_SYMBOL_FONT.search(str(span.get("font", ""))))


def _labels_after(symbol: dict[str, Any], span: dict[str, Any]) -> bool:
    """``span`` opens with a signal word set on the row of ``symbol``, right after it."""
    if not _SIGNAL_WORD.match(str(span.get("text", ""))):
        return False
    _, sy0, sx1, sy1 = (float(v) for v in symbol["bbox"])
    lx0, ly0, _, ly1 = (float(v) for v in span["bbox"])
    overlap = min(sy1, ly1) - max(sy0, ly0)
    level = overlap >= ROW_SHARE * min(sy1 - sy0, ly1 - ly0)
    em = max(float(span.get("size", 0.0)), 1.0)
    return level and sx1 - 1.0 <= lx0 <= sx1 + NEAR_EM * em


def drop_notice_symbols(blocks: Sequence[dict[str, Any]]) -> None:
    """Blank the symbol spans of ``blocks`` (a page's ``get_text("dict")`` blocks) that stand before
    a notice's signal word, in their block or another."""
    spans = [span for block in blocks for line in block.get("lines", ()) for span in line.get("spans", ())]
    symbols = [span for span in spans if _is_symbol(span)]
    for span in spans:  # "⚠ WARNING" set in one run of one font
        if (text := str(span.get("text", ""))) and text.lstrip()[:1] in _HAZARD_SIGNS:
            span["text"] = _LEADING_SIGN.sub("", text)
    for symbol in symbols:
        if any(span is not symbol and _labels_after(symbol, span) for span in spans):
            symbol["text"] = ""
            if "chars" in symbol:
                symbol["chars"] = []

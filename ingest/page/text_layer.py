"""Is a page's own text layer worth reading? (The ``auto`` reader's per-page switch.)"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

import pymupdf

from docgraph.ingest.floats.figures import text_over_background
from docgraph.ingest.page.scan import PageScan, page_sized_image
from docgraph.ingest.pdf import api as pdf_api
from docgraph.ingest.pdf.lines import TextLine

MIN_GOOD_CHARS = 10
MAX_BAD_CHAR_SHARE = 0.1  # more unmapped glyphs than this: the text layer is garbage
MAX_INVISIBLE_SHARE = 0.8  # more of a scan's text than this drawn invisible: an OCR layer
INVISIBLE = 3  # a text trace span's type for text drawn in render mode 3 (neither filled nor stroked)


def bad_char_share(lines: Sequence[TextLine]) -> float:
    """Share of characters that are replacement, private-use, control or unassigned code points."""
    total = bad = 0
    for line in lines:
        for ch in line.text:
            if ch.isspace():
                continue
            total += 1
            if ch == "\ufffd" or unicodedata.category(ch) in ("Co", "Cc", "Cn"):
                bad += 1
    return bad / total if total else 1.0


def has_good_text_layer(page: pymupdf.Page, scan: PageScan) -> bool:
    """The page's own text can be trusted: enough of it, mostly real characters, not a stamp on a
    scan, and not the invisible OCR layer of a searchable scan, whose one-size-fits-a-line glyphs
    (tesseract's GlyphLessFont, flagged monospaced) say nothing of headings, code or paragraphs."""
    chars = sum(line.chars for line in scan.lines)
    if not scan.has_text_layer or chars < MIN_GOOD_CHARS or bad_char_share(scan.lines) > MAX_BAD_CHAR_SHARE:
        return False
    if not page_sized_image(page):
        return True
    if invisible_share(page) > MAX_INVISIBLE_SHARE:
        return False
    return text_over_background(scan.lines)


def invisible_share(page: pymupdf.Page) -> float:
    """Share of the page's characters drawn invisible (render mode 3)."""
    total = hidden = 0
    for span in pdf_api.text_trace(page):
        count = len(span.get("chars", ()))
        total += count
        hidden += count if span.get("type") == INVISIBLE else 0
    return hidden / total if total else 0.0

"""Monospaced fonts told by their glyph widths, where neither the font's flags nor its name say so.

dvips and ps2pdf turn TeX's fonts into Type3 fonts named ``F45`` with no descriptor, so an R
vignette built that way (Debian's xts, for one) has its code in a typewriter font that neither
MuPDF's monospace flag nor the name marks, and its listings read as paragraphs. A simple font's
``/Widths`` array tells: in a typewriter font every glyph has the same advance.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

import pymupdf

from docgraph.ingest.pdf import api as pdf_api

MIN_GLYPHS = 12  # fewer glyphs prove nothing: a proportional font's digits share one width
SAME_WIDTH_SHARE = 0.95  # of the used glyphs, at the most common width
_SUBSET_PREFIX = re.compile(r"^[A-Z]{6}\+")


def fixed_pitch_fonts(page: pymupdf.Page) -> frozenset[str]:
    """Names (as text spans give them, without a subset prefix) of the page's fixed-pitch fonts."""
    fonts = pdf_api.simple_font_widths(page)
    names = (_SUBSET_PREFIX.sub("", name) for name, widths in fonts if is_fixed_pitch(widths))
    return frozenset(name for name in names if name)


def is_fixed_pitch(widths: Sequence[float]) -> bool:
    """Whether the glyphs a font has (width above 0) nearly all advance by one width."""
    used = [round(w, 2) for w in widths if w > 0]
    if len(used) < MIN_GLYPHS:
        return False
    return Counter(used).most_common(1)[0][1] >= SAME_WIDTH_SHARE * len(used)

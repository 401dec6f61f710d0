"""A slide deck's titles: each slide's heading is its first text, set at its top larger than the
bullets under it or in bold ("Two-Phase Locking (2PL)"; a beamer frame's title, "Beobachtungen zu
einem ägyptischen Text."). Set barely larger than the text, or ending in a full stop, it reads as a
paragraph to the rules that find headings in running text; on a slide it heads what follows."""

from __future__ import annotations

from collections.abc import Sequence

from docgraph.ingest.types import PageLayout, Region

TITLE_STEP = 1.0  # points over the body size that a slide's title is set in, at least (or bold)
MAX_TITLE_CHARS = 120
NO_TITLE_KINDS = frozenset({"page_header", "page_footer", "figure", "table"})  # may stand above a title


def promote_slide_titles(pages: Sequence[PageLayout], body_size: float) -> None:
    """On every page but the first (the title slide) of a deck, every page landscape, the first
    text region, a short paragraph set apart from the body, becomes a section header."""
    if len(pages) < 2 or not all(page.width > page.height for page in pages):
        return
    for page in pages[1:]:
        first = _first_text(page.regions)
        if first is not None and _title_like(first, body_size) and _has_text_under(page.regions, first):
            first.kind = "section_header"


def _first_text(regions: Sequence[Region]) -> Region | None:
    text = [r for r in regions if r.kind not in NO_TITLE_KINDS and r.text.strip()]
    return min(text, key=lambda r: r.bbox.y0, default=None)


def _title_like(region: Region, body_size: float) -> bool:
    text = region.text.strip()
    set_apart = region.font_size >= body_size + TITLE_STEP or region.bold
    return region.kind == "paragraph" and set_apart and "\n" not in text and len(text) <= MAX_TITLE_CHARS


def _has_text_under(regions: Sequence[Region], title: Region) -> bool:
    return any(r is not title and r.kind not in NO_TITLE_KINDS and r.bbox.y0 >= title.bbox.y1 for r in regions)

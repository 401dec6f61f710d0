"""A slide deck's titles: each slide's heading is its first text, set at its top larger than the
bullets under it or in bold ("Two-Phase Locking (2PL)"; a beamer frame's title, "Beobachtungen zu
einem ägyptischen Text."). Set barely larger than the text, or ending in a full stop, it reads as a
paragraph to the rules that find headings in running text; on a slide it heads what follows.

An agenda slide repeated before each part of a lecture sets the part to come in bold: that item is
no heading but one of the agenda's numbered items, read with the others."""

from __future__ import annotations

import re
from collections.abc import Sequence

from docgraph.ingest.types import PageLayout, Region, landscape_throughout

TITLE_STEP = 1.0  # points over the body size that a slide's title is set in, at least (or bold)
MAX_TITLE_CHARS = 120
NO_TITLE_KINDS = frozenset({"page_header", "page_footer", "figure", "table"})  # may stand above a title
ITEM_EDGE = 2.0  # points: an agenda's items start at one edge
_ITEM_NUMBER = re.compile(r"^\s*(\d{1,2})[.)]\s")


def promote_slide_titles(pages: Sequence[PageLayout], body_size: float) -> None:
    """On every page but the first (the title slide) of a deck, every page landscape, the first
    text region, a short paragraph set apart from the body, becomes a section header."""
    if len(pages) < 2 or not landscape_throughout(pages):
        return
    for page in pages[1:]:
        first = _first_text(page.regions)
        if first is not None and _title_like(first, body_size) and _has_text_under(page.regions, first):
            first.kind = "section_header"
        page.regions = _agenda_joined(page.regions)


def _agenda_joined(regions: list[Region]) -> list[Region]:
    """``regions`` with each numbered heading that goes on a numbered list next to it in reading
    order (item n between items n - 1 and n + 1, at their edge and size: an agenda's highlighted
    part) read into one list with it."""
    joined: list[Region] = []
    grown: set[int] = set()  # ids of the lists a heading was read into: the rest of the agenda goes on
    for region in sorted(regions, key=lambda r: r.order):
        last = joined[-1] if joined else None
        if last is not None and _goes_on(last, region, id(last) in grown):
            last.kind, last.text, last.bbox = "list", f"{last.text}\n{region.text}", last.bbox.union(region.bbox)
            last.bold = False
            grown.add(id(last))
        else:
            joined.append(region)
    for order, region in enumerate(joined):
        region.order = order
    return joined


def _goes_on(before: Region, after: Region, grown: bool) -> bool:
    """``after`` is the next numbered item of ``before``, one of them a heading (or ``before`` a
    list that took one in), the other a list or a heading."""
    kinds = {before.kind, after.kind}
    if not (grown or "section_header" in kinds) or not kinds <= {"section_header", "list"}:
        return False
    last = _ITEM_NUMBER.match(before.text.splitlines()[-1])
    first = _ITEM_NUMBER.match(after.text)
    aligned = abs(before.bbox.x0 - after.bbox.x0) <= ITEM_EDGE and abs(before.font_size - after.font_size) < 0.5
    return last is not None and first is not None and aligned and int(first.group(1)) == int(last.group(1)) + 1


def _first_text(regions: Sequence[Region]) -> Region | None:
    text = [r for r in regions if r.kind not in NO_TITLE_KINDS and r.text.strip()]
    return min(text, key=lambda r: r.bbox.y0, default=None)


def _title_like(region: Region, body_size: float) -> bool:
    text = region.text.strip()
    set_apart = region.font_size >= body_size + TITLE_STEP or region.bold
    return region.kind == "paragraph" and set_apart and "\n" not in text and len(text) <= MAX_TITLE_CHARS


def _has_text_under(regions: Sequence[Region], title: Region) -> bool:
    return any(r is not title and r.kind not in NO_TITLE_KINDS and r.bbox.y0 >= title.bbox.y1 for r in regions)

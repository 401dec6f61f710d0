"""Logos: a small picture printed at one place on most pages (a university's crest in each slide's
corner, a company's mark atop each page of a letter) is part of the page's design, as a running
head is. Left a figure, it was a region without text on every page whose embedding is only its
section's title, so it outranked the text under that title and answered nothing.

So is a drawing that holds the same words at one place on most pages: a beamer theme's sidebar, its
crest drawn with the lecture's outline beside it ("LOGIK Ziele und Inhalt Was ist Syntax? ..."),
read as one figure on every frame. It is kept as a running head (furniture), out of search."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from docgraph.ingest.page.scan import PageScan
from docgraph.ingest.types import BBox, PageLayout

MAX_LOGO_AREA = 0.03  # of the page's area, at most
MIN_LOGO_PAGES = 3
PLACE_GRID = 2.0  # points: pictures whose edges round alike on this grid sit at one place


def drop_logos(scans: Sequence[PageScan]) -> None:
    """Remove from each page's figures and photos the small pictures set at one place on at least
    half of the pages (and three)."""
    on_pages: Counter[tuple[int, ...]] = Counter()
    for scan in scans:
        on_pages.update({_place(box) for box in scan.photos if _small(box, scan)})
    logos = {place for place, count in on_pages.items() if count >= max(MIN_LOGO_PAGES, len(scans) / 2)}
    if not logos:
        return
    for scan in scans:
        kept = [box for box in scan.photos if _place(box) not in logos or not _small(box, scan)]
        dropped = [box for box in scan.photos if box not in kept]
        scan.figures = [box for box in scan.figures if box not in dropped]
        scan.photos = kept


def _place(box: BBox) -> tuple[int, ...]:
    return tuple(round(edge / PLACE_GRID) for edge in (box.x0, box.y0, box.x1, box.y1))


def _small(box: BBox, scan: PageScan) -> bool:
    return box.width * box.height <= MAX_LOGO_AREA * scan.width * scan.height


def mark_repeated_figures(pages: Sequence[PageLayout]) -> None:
    """Call a figure with words that is printed alike, at one place, on at least half of the pages
    (and three) a running head."""
    on_pages: Counter[tuple[tuple[int, ...], str]] = Counter()
    for page in pages:
        on_pages.update({_figure_key(r.bbox, r.text) for r in page.regions if r.kind == "figure" and r.text.strip()})
    repeated = {key for key, count in on_pages.items() if count >= max(MIN_LOGO_PAGES, len(pages) / 2)}
    for page in pages:
        for region in page.regions:
            if region.kind == "figure" and _figure_key(region.bbox, region.text) in repeated:
                region.kind = "page_header"


def _figure_key(box: BBox, text: str) -> tuple[tuple[int, ...], str]:
    return _place(box), " ".join(text.split())

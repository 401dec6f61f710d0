"""Renders a page with its regions' boxes drawn in, coloured by kind, for people to check layout."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pymupdf

from docgraph.errors import DocgraphError
from docgraph.ingest.pdf.api import MUPDF_LOCK, close, load_page, open_pdf
from docgraph.ingest.pdf.ocr import capped_dpi

KIND_COLOURS: dict[str, tuple[float, float, float]] = {
    "title": (0.8, 0.0, 0.0),
    "section_header": (0.9, 0.3, 0.0),
    "paragraph": (0.0, 0.4, 0.9),
    "list": (0.0, 0.6, 0.6),
    "table": (0.0, 0.6, 0.0),
    "figure": (0.6, 0.0, 0.7),
    "caption": (0.9, 0.0, 0.6),
    "formula": (0.5, 0.5, 0.0),
    "code": (0.3, 0.3, 0.3),
    "footnote": (0.6, 0.4, 0.2),
    "page_header": (0.6, 0.6, 0.6),
    "page_footer": (0.6, 0.6, 0.6),
}
# The one region a reader picked (a clicked citation): a highlighter yellow under a thick dark-amber
# frame, unlike any kind's colour, so it stands apart from the other highlighted regions.
CHOSEN_FILL: tuple[float, float, float] = (1.0, 0.86, 0.0)
CHOSEN_FRAME: tuple[float, float, float] = (0.75, 0.38, 0.0)
HIGHLIGHT_OPACITY = 0.18
CHOSEN_OPACITY = 0.45
MAX_RENDER_PIXELS = 16_000_000  # 4,000 x 4,000: a page image for a screen, whatever the page's size


def rgb_hex(colour: tuple[float, float, float]) -> str:
    """A drawing colour (0..1 channels) as ``#rrggbb`` for the browser."""
    return "#" + "".join(f"{round(channel * 255):02x}" for channel in colour)


def render_page(
    pdf: Path,
    page_number: int,
    regions: Iterable[dict[str, Any]],
    out: Path,
    dpi: int = 110,
    highlight: set[str] | None = None,
    chosen: str | None = None,
    turn: int = 0,
) -> Path:
    """Draw each region's bbox and ``order:kind`` label on page ``page_number`` (1-based); save a PNG.

    Regions in ``highlight`` (region ids) are filled pale in their kind's colour so cited evidence
    stands out; the ``chosen`` region (a clicked citation) is filled yellow in a thick frame.
    ``turn``: the page's stored turn (a scan read upright), whose frame the boxes are in.
    """
    with MUPDF_LOCK:
        doc = open_pdf(pdf)
        try:
            if not 1 <= page_number <= doc.page_count:
                raise DocgraphError(f"page {page_number} is out of range: the document has {doc.page_count} pages")
            page = load_page(doc, page_number - 1, turn)
            for region in regions:
                _draw_region(page, region, highlight or set(), chosen)
            out.parent.mkdir(parents=True, exist_ok=True)
            # a poster-sized page at the asked dpi is past what MuPDF renders (and what a screen shows)
            pixmap: Any = page.get_pixmap(dpi=capped_dpi(page.rect.width, page.rect.height, dpi, MAX_RENDER_PIXELS))
            pixmap.save(out)
        finally:
            close(doc)
    return out


def _draw_region(page: pymupdf.Page, region: dict[str, Any], highlight: set[str], chosen: str | None) -> None:
    x0, y0, x1, y1 = (float(v) for v in region["bbox"])
    colour = KIND_COLOURS.get(str(region["kind"]), (0.0, 0.0, 0.0))
    make_rect: Any = pymupdf.Rect
    rect = make_rect(x0, y0, x1, y1)
    if chosen is not None and region.get("region_id") == chosen:
        page.draw_rect(rect, color=CHOSEN_FRAME, fill=CHOSEN_FILL, fill_opacity=CHOSEN_OPACITY, width=3.0)
    else:
        filled = region.get("region_id") in highlight
        page.draw_rect(rect, color=colour, fill=colour if filled else None, fill_opacity=HIGHLIGHT_OPACITY, width=1.0)
    label = f"{region.get('order', '')}:{region['kind']}"
    page.insert_text((x0 + 1, max(y0 - 1.5, 6)), label, fontsize=6, color=colour)

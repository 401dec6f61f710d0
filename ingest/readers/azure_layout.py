"""Azure AI Document Intelligence ``prebuilt-layout`` results (AnalyzeResult JSON) as a DocumentLayout.

A pure function of the result dict (the REST schema, camelCase, as ``AnalyzeResult.as_dict()``
returns it), so it is tested offline on stored results. What maps to what:

* paragraphs -> regions; ``role``: title, sectionHeading -> section_header, pageHeader ->
  page_header, pageFooter -> page_footer, pageNumber -> page_header/footer by position,
  footnote, formulaBlock -> formula; no role -> paragraph (list when it starts with a bullet,
  caption when it reads "Figure 3: ...").
* tables -> table regions with cells (one region per page a table spans), their captions and
  footnotes -> caption/footnote regions; paragraphs inside cells are not repeated.
* figures -> figure regions (text: the paragraphs inside, shortened), captions -> captions.
* reading order: Azure's, i.e. the order of the elements' spans in ``content``; furniture goes
  last on its page, as everywhere in docgraph. Coordinates: inches -> PDF points.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from docgraph.ingest.floats.captions import CAPTION_DELIMITER_RE
from docgraph.ingest.floats.tables import to_markdown
from docgraph.ingest.page.blocks import BULLET_RE
from docgraph.ingest.pdf.text import join_lines, shorten
from docgraph.ingest.structure.continuity import mark_continuations
from docgraph.ingest.types import BBox, DocumentLayout, PageLayout, Region
from docgraph.records import FURNITURE_KINDS, RegionKind

ROLE_KINDS: dict[str, RegionKind] = {
    "title": "title",
    "sectionHeading": "section_header",
    "pageHeader": "page_header",
    "pageFooter": "page_footer",
    "footnote": "footnote",
    "formulaBlock": "formula",
}
UNIT_POINTS = {"inch": 72.0, "pixel": 1.0}
FIGURE_TEXT_LIMIT = 300
_ELEMENT = re.compile(r"^/paragraphs/(\d+)$")
_SELECTION_MARK = re.compile(r":(?:un)?selected:")
Json = Mapping[str, Any]


@dataclass(slots=True)
class _Item:
    """A region with its position in Azure's reading order (``offset`` into ``content``)."""

    page: int
    offset: float
    region: Region


@dataclass(frozen=True, slots=True)
class _PageFrame:
    width: float  # points
    height: float
    scale: float  # points per result unit


def layout_from_analyze_result(
    result: Json, path: Path, sha256: str = "", file_name: str | None = None
) -> DocumentLayout:
    """The :class:`DocumentLayout` of a ``prebuilt-layout`` AnalyzeResult."""
    frames = _frames(result)
    paragraphs: list[Json] = list(result.get("paragraphs") or [])
    owned = _owned_paragraphs(result)
    items: list[_Item] = []
    for index, paragraph in enumerate(paragraphs):
        if index not in owned:
            items.extend(_paragraph_items(paragraph, frames))
    for table in result.get("tables") or []:
        items.extend(_table_items(table, frames))
    for figure in result.get("figures") or []:
        items.extend(_figure_items(figure, paragraphs, frames))
    pages = _pages(frames, items)
    mark_continuations(pages)
    return DocumentLayout(
        path=path,
        file_name=file_name or path.name,
        sha256=sha256,
        title=_title(pages, path),
        page_count=len(pages),
        pages=pages,
        pages_without_text=[p.number for p in pages if not p.has_text_layer],
    )


def _frames(result: Json) -> dict[int, _PageFrame]:
    frames = {}
    for page in result.get("pages") or []:
        scale = UNIT_POINTS.get(str(page.get("unit", "inch")), 72.0)
        frames[int(page["pageNumber"])] = _PageFrame(float(page["width"]) * scale, float(page["height"]) * scale, scale)
    return frames


def _element_indexes(elements: Iterable[str] | None) -> set[int]:
    found = set()
    for element in elements or []:
        match = _ELEMENT.match(element)
        if match:
            found.add(int(match.group(1)))
    return found


def _owned_paragraphs(result: Json) -> set[int]:
    """Paragraphs that tables and figures (cells, captions, footnotes, inner text) already account for."""
    owned: set[int] = set()
    for table in result.get("tables") or []:
        for cell in table.get("cells") or []:
            owned |= _element_indexes(cell.get("elements"))
        owned |= _attached_elements(table)
    for figure in result.get("figures") or []:
        owned |= _element_indexes(figure.get("elements"))
        owned |= _attached_elements(figure)
    return owned


def _attached_elements(host: Json) -> set[int]:
    found = _element_indexes((host.get("caption") or {}).get("elements"))
    for footnote in host.get("footnotes") or []:
        found |= _element_indexes(footnote.get("elements"))
    return found


def _bbox(polygon: Iterable[float], scale: float) -> BBox:
    values = [float(v) * scale for v in polygon]
    xs, ys = values[0::2], values[1::2]
    return BBox(min(xs), min(ys), max(xs), max(ys))


def _regions_by_page(element: Json, frames: Mapping[int, _PageFrame]) -> dict[int, BBox]:
    """The element's box on each page it touches (several bounding regions on one page are merged)."""
    boxes: dict[int, BBox] = {}
    for region in element.get("boundingRegions") or []:
        page = int(region["pageNumber"])
        frame = frames.get(page)
        polygon = region.get("polygon") or []
        if frame is None or len(polygon) < 4:
            continue
        box = _bbox(polygon, frame.scale)
        boxes[page] = boxes[page].union(box) if page in boxes else box
    return boxes


def _offset(element: Json) -> float | None:
    spans = element.get("spans") or []
    return min((float(s["offset"]) for s in spans), default=None)


def _clean(text: str) -> str:
    return join_lines(_SELECTION_MARK.sub("", text).split("\n"))


def _paragraph_kind(paragraph: Json, text: str, box: BBox, frame: _PageFrame) -> RegionKind:
    role = paragraph.get("role")
    if role == "pageNumber":
        return "page_header" if (box.y0 + box.y1) / 2 < frame.height / 2 else "page_footer"
    if role in ROLE_KINDS:
        return ROLE_KINDS[str(role)]
    if CAPTION_DELIMITER_RE.match(text):
        return "caption"
    return "list" if BULLET_RE.match(text) else "paragraph"


def _paragraph_items(paragraph: Json, frames: Mapping[int, _PageFrame], kind: RegionKind | None = None) -> list[_Item]:
    text = _clean(str(paragraph.get("content", "")))
    boxes = _regions_by_page(paragraph, frames)
    if not text or not boxes:
        return []
    page = min(boxes)  # a paragraph belongs to the page it starts on
    box = boxes[page]
    chosen = kind or _paragraph_kind(paragraph, text, box, frames[page])
    offset = _offset(paragraph)
    return [_Item(page, offset if offset is not None else -1.0, Region(chosen, box, text))]


def _table_items(table: Json, frames: Mapping[int, _PageFrame]) -> list[_Item]:
    """One table region per page the table covers (rows go to the page of their first cell)."""
    boxes = _regions_by_page(table, frames)
    if not boxes:
        return []
    rows_by_page = _rows_by_page(table, frames, min(boxes))
    items = []
    parts = sorted(boxes)
    for k, page in enumerate(parts):
        cells = rows_by_page.get(page, [])
        text = to_markdown(cells) if cells else ""
        region = Region("table", boxes[page], text, cells=cells or None, continues=k < len(parts) - 1)
        offset = _offset(table) if k == 0 else None
        items.append(_Item(page, offset if offset is not None else -1.0, region))
    caption = table.get("caption")
    if caption:
        items.extend(_paragraph_items(caption, frames, "caption"))
    for footnote in table.get("footnotes") or []:
        items.extend(_paragraph_items(footnote, frames, "footnote"))
    return items


def _rows_by_page(table: Json, frames: Mapping[int, _PageFrame], first_page: int) -> dict[int, list[list[str]]]:
    columns = int(table.get("columnCount") or 0)
    grid: dict[int, list[str]] = {}
    row_page: dict[int, int] = {}
    for cell in table.get("cells") or []:
        row, col = int(cell.get("rowIndex", 0)), int(cell.get("columnIndex", 0))
        grid.setdefault(row, [""] * columns)
        if 0 <= col < columns:
            grid[row][col] = " ".join(_clean(str(cell.get("content", ""))).split())
        pages = _regions_by_page(cell, frames)
        if pages and row not in row_page:
            row_page[row] = min(pages)
    by_page: dict[int, list[list[str]]] = {}
    for row in sorted(grid):
        by_page.setdefault(row_page.get(row, first_page), []).append(grid[row])
    return by_page


def _figure_items(figure: Json, paragraphs: list[Json], frames: Mapping[int, _PageFrame]) -> list[_Item]:
    boxes = _regions_by_page(figure, frames)
    if not boxes:
        return []
    page = min(boxes)
    inner = sorted(_element_indexes(figure.get("elements")))
    text = shorten(
        " ".join(_clean(str(paragraphs[i].get("content", ""))) for i in inner if i < len(paragraphs)), FIGURE_TEXT_LIMIT
    )
    offset = _offset(figure)
    if offset is None and inner and inner[0] < len(paragraphs):
        offset = _offset(paragraphs[inner[0]])
    items = [_Item(page, offset if offset is not None else -1.0, Region("figure", boxes[page], text))]
    if figure.get("caption"):
        items.extend(_paragraph_items(figure["caption"], frames, "caption"))
    for footnote in figure.get("footnotes") or []:
        items.extend(_paragraph_items(footnote, frames, "footnote"))
    return items


def _pages(frames: Mapping[int, _PageFrame], items: list[_Item]) -> list[PageLayout]:
    pages = []
    for number in sorted(frames):
        frame = frames[number]
        mine = [it for it in items if it.page == number]
        _place_unanchored(mine)
        mine.sort(key=lambda it: (it.region.kind in FURNITURE_KINDS, it.offset, it.region.bbox.y0))
        regions = [it.region for it in mine]
        for order, region in enumerate(regions):
            region.order = order
        pages.append(
            PageLayout(
                number=number,
                width=frame.width,
                height=frame.height,
                regions=regions,
                header_text=" ".join(r.text for r in regions if r.kind == "page_header"),
                footer_text=" ".join(r.text for r in regions if r.kind == "page_footer"),
                has_text_layer=any(r.text for r in regions),
            )
        )
    return pages


def _place_unanchored(items: list[_Item]) -> None:
    """Items without a span (a figure with no text, a table's later part) go before what lies below them."""
    anchored = [it for it in items if it.offset >= 0]
    for item in items:
        if item.offset >= 0:
            continue
        below = [it.offset for it in anchored if it.region.bbox.y0 >= item.region.bbox.y0]
        above = [it.offset for it in anchored if it.region.bbox.y0 < item.region.bbox.y0]
        if below:
            item.offset = min(below) - 0.5
        else:
            item.offset = max(above, default=0.0) + 0.5


def _title(pages: list[PageLayout], path: Path) -> str:
    for page in pages:
        for region in page.regions:
            if region.kind == "title" and region.text.strip():
                return region.text.strip()
    return path.stem

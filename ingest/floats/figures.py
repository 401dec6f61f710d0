"""Figure areas: embedded images and clusters of vector drawings, minus tables and text boxes."""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import pairwise
from typing import Any

import pymupdf

from docgraph.ingest.pdf.lines import TextLine
from docgraph.ingest.types import BBox

MIN_FIGURE_SIDE = 16.0  # points
MIN_FIGURE_AREA = 900.0  # square points (30 x 30)
BACKGROUND_PAGE_SHARE = 0.8  # a drawing or image this large on a text page is a background
MAX_CLUSTERED_PATHS = 3000
MERGE_GAP = 8.0  # figure pieces closer than this belong to one figure
SHADED_BOX_COVER = 0.99  # a shaded box's strips abut; a mosaic plot's tiles leave thin gaps
SHADED_BOX_COLOURS = 2  # a fill, and perhaps a frame of another colour
SHADED_BOX_MAX_TILES = 400  # more rectangles than this: a chart, a pattern or a form
TEXT_BOX_SHARE = 0.35  # share of a candidate covered by prose lines that makes it a framed text box
LISTING_MIN_LINES = 3
_FIGURE_CAPTION = re.compile(r"^\s*(?:figure|fig\.)\s*\d", re.IGNORECASE)
LISTING_MIN_LETTERS = 30
LISTING_HEIGHT_SHARE = 0.5  # share of a candidate's height its text lines cover, for a listing
LISTING_SIZE_DROP = 3.0  # points: code is often set smaller than the body text
MIN_CHARS_OVER_BACKGROUND = 200  # this much text on a page-sized image is the page's own text,
STRIP_WIDTH_SHARE = 0.9  # of the page's width: a picture this wide and ...
STRIP_ASPECT = 8.0  # ... this many times wider than high is a band of the page's design
PANEL_COVER = 0.9  # of a box's area: a path this large is its frame or tint
MARK_EM = 2.0  # a mark drawn in a panel (an icon, a tick) is no larger than this many of its text's em
MIN_LARGE_TEXT_SIZE = 11.0  # and so is less set this large (a slide, a cover); else a scan's stamp


def text_over_background(lines: Sequence[TextLine]) -> bool:
    """Whether the text on a page-sized image is the page's own (the image is a background), not
    a stamp on a scan ("Downloaded from …"): plenty of it, or large (a slide's, a cover's)."""
    chars = sum(line.chars for line in lines)
    return chars > MIN_CHARS_OVER_BACKGROUND or _median_size(lines) > MIN_LARGE_TEXT_SIZE


def _median_size(lines: Sequence[TextLine]) -> float:
    """The font size of the median character."""
    sized = sorted((line.size, line.chars) for line in lines if line.chars)
    half, seen = sum(chars for _, chars in sized) / 2, 0
    for size, chars in sized:
        seen += chars
        if seen >= half:
            return size
    return 0.0


def _as_bbox(rect: Any) -> BBox:
    return BBox(float(rect[0]), float(rect[1]), float(rect[2]), float(rect[3]))


def _is_white(color: Any) -> bool:
    return color is not None and all(float(c) > 0.98 for c in color)


def _visible_paths(drawings: Sequence[dict[str, Any]], page_area: float) -> list[dict[str, Any]]:
    """Drop page-sized backgrounds and white fills, which are not part of any figure."""
    kept = []
    for path in drawings:
        rect = path["rect"]
        if abs(rect.width * rect.height) > BACKGROUND_PAGE_SHARE * page_area:
            continue
        if path.get("type") == "f" and _is_white(path.get("fill")):
            continue
        kept.append(path)
    return kept


def _only_rectangles(paths: Sequence[dict[str, Any]]) -> bool:
    return all(item[0] == "re" for path in paths for item in path.get("items", []))


def _overlap_share(box: BBox, others: Sequence[BBox]) -> float:
    if box.area <= 0:
        return 0.0
    return max((box.intersection_area(o) / box.area for o in others), default=0.0)


def _big_enough(box: BBox) -> bool:
    return box.width >= MIN_FIGURE_SIDE and box.height >= MIN_FIGURE_SIDE and box.area >= MIN_FIGURE_AREA


def drawing_figures(
    page: pymupdf.Page, drawings: Sequence[dict[str, Any]], tables: Sequence[BBox], lines: Sequence[TextLine]
) -> list[BBox]:
    page_area = page.rect.width * page.rect.height
    paths = _visible_paths(drawings, page_area)
    if not paths:
        return []
    rects = [(_as_bbox(p["rect"]), p) for p in paths]
    if len(paths) > MAX_CLUSTERED_PATHS:  # clustering is quadratic; huge vector art is one figure anyway
        union = rects[0][0]
        for rect, _ in rects[1:]:
            union = union.union(rect)
        return [union] if _big_enough(union) else []
    boxes = []
    for cluster in page.cluster_drawings(drawings=paths):
        box = _as_bbox(cluster)
        if not _big_enough(box) or _overlap_share(box, tables) > 0.3:
            continue
        members = [p for rect, p in rects if _inside(rect, box)]
        if len(members) <= 2 and _only_rectangles(members):
            continue  # a shaded or framed box around text, not a picture
        if _tiled_box(members, box) and _lines_inside(box, lines) and not figure_caption_near(box, lines):
            continue  # the same, shaded strip by strip; captioned, it shows a sample of text
        if _marked_panel(members, box, lines) and not figure_caption_near(box, lines):
            continue
        boxes.append(box)
    return boxes


def _tiled_box(members: Sequence[dict[str, Any]], box: BBox) -> bool:
    """Rectangles of one or two colours (a fill, perhaps a frame) that tile the whole box, as
    ``framed`` and ``fancyvrb`` shade a listing: a top band, then the left, middle and right of each
    line. A bar chart's bars and a mosaic plot's tiles leave gaps; a chart or a pattern has more
    rectangles or colours."""
    if not _only_rectangles(members) or len(members) > SHADED_BOX_MAX_TILES:
        return False
    if len({_colour_key(path) for path in members}) > SHADED_BOX_COLOURS:
        return False
    tiles = [_as_bbox(item[1]) for path in members if path.get("fill") is not None for item in path["items"]]
    return box.area > 0 and _union_area(tiles) >= SHADED_BOX_COVER * box.area


def _marked_panel(members: Sequence[dict[str, Any]], box: BBox, lines: Sequence[TextLine]) -> bool:
    """A framed or tinted box of text whose other drawings are marks no larger than its text, each
    before a line: the icon by a panel's heading and the tick or cross by each item, as an IPID or
    a fact sheet sets its panels. A diagram draws shapes, arrows or axes larger than its words."""
    inside = [line for line in _lines_inside(box, lines) if sum(ch.isalpha() for ch in line.text) >= 2]
    if not inside or box.area <= 0:
        return False
    frames = [path for path in members if _as_bbox(path["rect"]).area >= PANEL_COVER * box.area]
    marks = [_as_bbox(path["rect"]) for path in members if not any(path is frame for frame in frames)]
    em = max(line.size for line in inside)
    return (
        bool(frames)
        and _only_rectangles(frames)  # a frame, not a grid or a plot drawn across the box
        and all(max(rect.width, rect.height) <= MARK_EM * em and _opens_a_line(rect, inside) for rect in marks)
    )


def _opens_a_line(mark: BBox, lines: Sequence[TextLine]) -> bool:
    """``mark`` stands on the row of one of ``lines``, before its first word: the icon of a heading
    or an item. A crest or a picture's dots stand apart from the text."""
    middle = (mark.y0 + mark.y1) / 2
    return any(line.bbox.y0 <= middle <= line.bbox.y1 and mark.x1 <= line.bbox.x0 + 1.0 for line in lines)


def _lines_inside(box: BBox, lines: Sequence[TextLine]) -> list[TextLine]:
    """The horizontal lines whose centre lies in ``box``."""
    return [line for line in lines if line.horizontal and line.bbox.centre_in(box)]


def _colour_key(path: dict[str, Any]) -> tuple[tuple[float, ...], ...]:
    return tuple(tuple(round(float(c), 2) for c in path.get(key) or ()) for key in ("fill", "color"))


def _union_area(boxes: Sequence[BBox]) -> float:
    """Area covered by axis-aligned boxes, overlaps counted once: strip by strip across."""
    xs = sorted({x for b in boxes for x in (b.x0, b.x1)})
    total = 0.0
    for x0, x1 in pairwise(xs):
        mid = (x0 + x1) / 2
        total += _covered_length([(b.y0, b.y1) for b in boxes if b.x0 <= mid <= b.x1]) * (x1 - x0)
    return total


def _covered_length(spans: Sequence[tuple[float, float]]) -> float:
    """Length covered by intervals, overlaps counted once."""
    total, reach = 0.0, -float("inf")
    for start, end in sorted(spans):
        total += max(0.0, end - max(start, reach))
        reach = max(reach, end)
    return total


def _inside(inner: BBox, outer: BBox, slack: float = 1.0) -> bool:
    return (
        inner.x0 >= outer.x0 - slack
        and inner.y0 >= outer.y0 - slack
        and inner.x1 <= outer.x1 + slack
        and inner.y1 <= outer.y1 + slack
    )


def image_figures(page: pymupdf.Page, lines: Sequence[TextLine]) -> list[BBox]:
    page_box = _as_bbox(page.rect)
    page_area = page_box.area
    boxes = []
    for info in page.get_image_info():
        raw = _as_bbox(info["bbox"])
        box = BBox(
            max(raw.x0, page_box.x0), max(raw.y0, page_box.y0), min(raw.x1, page_box.x1), min(raw.y1, page_box.y1)
        )
        if not _big_enough(box):
            continue
        if box.area > BACKGROUND_PAGE_SHARE * page_area and text_over_background(lines):
            continue  # a background picture behind real text
        boxes.append(box)
    return boxes


def lone_pictures(page: pymupdf.Page, figures: Sequence[BBox], lines: Sequence[TextLine]) -> list[BBox]:
    """The figures that are one embedded picture alone (a photo): the box is the image's own,
    nothing drawn merged into it."""
    images = image_figures(page, lines)
    return [box for box in figures if any(_same_box(box, image) for image in images)]


def is_strip(box: BBox, page_width: float) -> bool:
    """A picture across the page and many times wider than high: a theme's band (the shaded head of
    a beamer slide, over its frame title), no photo that the text under it captions."""
    return box.width >= STRIP_WIDTH_SHARE * page_width and box.width >= STRIP_ASPECT * box.height


def _same_box(a: BBox, b: BBox, slack: float = 1.0) -> bool:
    return max(abs(a.x0 - b.x0), abs(a.y0 - b.y0), abs(a.x1 - b.x1), abs(a.y1 - b.y1)) <= slack


def merge_boxes(boxes: Sequence[BBox], gap: float = MERGE_GAP) -> list[BBox]:
    """Union boxes that overlap or lie within ``gap`` of each other, until stable."""
    merged = list(boxes)
    changed = True
    while changed:
        changed = False
        out: list[BBox] = []
        for box in merged:
            for k, other in enumerate(out):
                if box.near(other, gap):
                    out[k] = other.union(box)
                    changed = True
                    break
            else:
                out.append(box)
        merged = out
    return sorted(merged, key=lambda b: (b.y0, b.x0))


def is_text_box(box: BBox, lines: Sequence[TextLine], body_size: float, captioned: bool = False) -> bool:
    """True when text fills the box: a framed or shaded paragraph or listing, not a figure.

    ``captioned``: a "Figure n" caption sits at the box, so text in it is what the figure shows (a
    typesetting manual's sample paragraph), unless prose covers the box densely.
    """
    inside = _lines_inside(box, lines)
    prose = [ln for ln in inside if len(ln.text.strip()) >= 40 and abs(ln.size - body_size) <= 1.5]
    covered = sum(ln.bbox.area for ln in prose)
    if len(prose) >= 3 and box.area > 0 and covered / box.area >= TEXT_BOX_SHARE:
        return True
    sized = [ln for ln in inside if body_size - LISTING_SIZE_DROP <= ln.size <= body_size + 1.5]
    return not captioned and _listing(box, sized)


def figure_caption_near(box: BBox, lines: Sequence[TextLine]) -> bool:
    """Whether the first line below ``box`` or above it, among those overlapping it across, is a
    "Figure n" caption (however far: a figure's parts may stand between, side by side)."""
    across = [ln for ln in lines if box.x_overlap(ln.bbox) > 0]
    below = [ln for ln in across if ln.bbox.y0 >= box.y1 - 1.0]
    above = [ln for ln in across if ln.bbox.y1 <= box.y0 + 1.0]
    nearest = [min(below, key=lambda ln: ln.bbox.y0)] if below else []
    nearest += [max(above, key=lambda ln: ln.bbox.y1)] if above else []
    return any(_FIGURE_CAPTION.match(ln.text) for ln in nearest)


def _listing(box: BBox, lines: Sequence[TextLine]) -> bool:
    """Lines of words in text-sized type that run down most of the box from a few left edges: a
    listing (code in a shaded box: short lines, so little of the area is covered). A chart's labels
    and a diagram's boxed words are scattered, or numbers."""
    worded = [ln for ln in lines if sum(ch.isalpha() for ch in ln.text) >= 2]
    if len(worded) < LISTING_MIN_LINES or box.height <= 0:
        return False
    if sum(ch.isalpha() for ln in worded for ch in ln.text) < LISTING_MIN_LETTERS:
        return False
    indents = {round(ln.bbox.x0 / 2.0) for ln in worded}  # code keeps to a few indentation levels
    if len(indents) > 0.5 * len(worded):
        return False
    return _covered_length([(ln.bbox.y0, ln.bbox.y1) for ln in worded]) >= LISTING_HEIGHT_SHARE * box.height


def find_figures(
    page: pymupdf.Page, drawings: Sequence[dict[str, Any]], tables: Sequence[BBox], lines: Sequence[TextLine]
) -> list[BBox]:
    """Figure candidates: images and drawing clusters, merged, minus tables.

    Framed text boxes are removed later with :func:`is_text_box`, which needs the document's body
    font size.
    """
    candidates = image_figures(page, lines) + drawing_figures(page, drawings, tables, lines)
    return [box for box in merge_boxes(candidates) if _overlap_share(box, tables) <= 0.5]

"""Layout-model boxes turned into blocks: text from the page's lines, kind from the model."""

from __future__ import annotations

from dataclasses import dataclass, field

from docgraph.ingest.floats.captions import CAPTION_DELIMITER_RE
from docgraph.ingest.floats.layout_model import ModelBox
from docgraph.ingest.page.blocks import BULLET_RE, Block
from docgraph.ingest.page.classify import FIRST_NUMBERED_HEADING_RE
from docgraph.ingest.page.scan import PageScan
from docgraph.ingest.types import BBox
from docgraph.records import RegionKind

MIN_LINE_SHARE = 0.5  # share of a line's area inside a box for the line to belong to it
FURNITURE_BAND = 0.2  # the model's page headers/footers are trusted only this close to the edge


@dataclass(slots=True)
class ModelAssignment:
    blocks: list[Block] = field(default_factory=list)
    figures: list[tuple[BBox, list[int]]] = field(default_factory=list)
    header: set[int] = field(default_factory=set)
    footer: set[int] = field(default_factory=set)
    used: set[int] = field(default_factory=set)


def _best_box(line_box: BBox, boxes: list[ModelBox]) -> int | None:
    best, best_share = None, MIN_LINE_SHARE
    area = line_box.area or 1.0
    for k, box in enumerate(boxes):
        share = line_box.intersection_area(box.bbox) / area
        if share >= best_share:
            best, best_share = k, share
    return best


def model_blocks(scan: PageScan, used: set[int], title_allowed: bool) -> ModelAssignment:
    """Assign unused lines to model boxes; lines in no box are left for font classification."""
    boxes = [b for b in scan.model_boxes or [] if not (b.kind == "table" and b.cells)]
    members: list[list[int]] = [[] for _ in boxes]
    for index, line in enumerate(scan.lines):
        if index in used:
            continue
        k = _best_box(line.bbox, boxes)
        if k is not None:
            members[k].append(index)

    out = ModelAssignment()
    for box, indexes in zip(boxes, members, strict=True):
        out.used.update(indexes)
        if box.kind == "figure":
            out.figures.append((box.bbox, indexes))
            continue
        if not indexes:
            continue
        if box.kind in ("page_header", "page_footer") and _in_band(box.bbox, scan.height):
            (out.header if box.bbox.y1 <= scan.height / 2 else out.footer).update(indexes)
            continue
        block = Block([scan.lines[i] for i in indexes], source="model")
        block.list_item = bool(BULLET_RE.match(block.lines[0].text))
        block.kind = _refine(box.kind, block, title_allowed)
        out.blocks.append(block)
    return out


def _in_band(box: BBox, height: float) -> bool:
    return box.y1 <= FURNITURE_BAND * height or box.y0 >= (1 - FURNITURE_BAND) * height


def _refine(kind: RegionKind, block: Block, title_allowed: bool) -> RegionKind:
    """Small corrections the model cannot know: code fonts, caption numbering, one title only."""
    if kind in ("page_header", "page_footer"):
        return "paragraph"
    if kind in ("paragraph", "section_header", "title") and CAPTION_DELIMITER_RE.match(block.raw_text):
        return "caption"  # "Figure 2-1: ..." set like a heading is still a caption
    if kind == "title" and (not title_allowed or FIRST_NUMBERED_HEADING_RE.match(block.raw_text)):
        return "section_header"
    if kind == "paragraph":
        if block.mono:
            return "code"
        if block.list_item:
            return "list"
    return kind

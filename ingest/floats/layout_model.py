"""PyMuPDF's layout model (``pymupdf.layout``): boxes with classes, mapped to region kinds."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pymupdf

from docgraph.ingest.floats.tables import FoundTable, grid_cells, is_real_table
from docgraph.ingest.pdf import api as pdf_api
from docgraph.ingest.pdf.api import Word
from docgraph.ingest.types import BBox
from docgraph.records import RegionKind

MODEL_KINDS: dict[str, RegionKind] = {
    "text": "paragraph",
    "title": "title",
    "picture": "figure",
    "table": "table",
    "list-item": "list",
    "page-header": "page_header",
    "page-footer": "page_footer",
    "section-header": "section_header",
    "footnote": "footnote",
    "caption": "caption",
    "formula": "formula",
}
MIN_BOX_SIDE = 2.0


@dataclass(slots=True)
class ModelBox:
    bbox: BBox
    kind: RegionKind
    cells: list[list[str]] | None = None  # filled for tables whose grid the model predicted


def layout_model_available() -> bool:
    try:
        import pymupdf.layout  # importing it registers the model with pymupdf
    except ImportError:
        return False
    return callable(getattr(pymupdf, "_get_layout", None))


def run_layout_model(page: pymupdf.Page, words: Sequence[Word]) -> list[ModelBox]:
    """Classify the page's layout boxes with the model; tables get cells from the model's grid."""
    raw = pdf_api.layout_groups(page)
    boxes = []
    for group in raw:
        box = _model_box(group, words)
        if box is not None:
            boxes.append(box)
    return boxes


def _model_box(group: Any, words: Sequence[Word]) -> ModelBox | None:
    if isinstance(group, dict):
        coords, name = group["group_bbox"][:4], str(group["class_name"])
    else:  # the non-raw form: [x0, y0, x1, y1, class]
        coords, name = group[:4], str(group[4])
    bbox = BBox(*(float(v) for v in coords))
    kind = MODEL_KINDS.get(name)
    if kind is None or bbox.width <= MIN_BOX_SIDE or bbox.height <= MIN_BOX_SIDE:
        return None
    cells = None
    if kind == "table" and isinstance(group, dict):
        cells = _grid_table(bbox, group.get("table_grid"), words)
    return ModelBox(bbox, kind, cells)


def _grid_table(bbox: BBox, grid: Any, words: Sequence[Word]) -> list[list[str]] | None:
    if grid is None:
        return None
    rows = [float(v) for v in getattr(grid, "h_lines", []) or []]
    cols = [float(v) for v in getattr(grid, "v_lines", []) or []]
    cells = grid_cells(bbox, rows, cols, words)
    return cells if cells and is_real_table(cells) else None


def model_tables(boxes: Sequence[ModelBox]) -> list[FoundTable]:
    return [FoundTable(b.bbox, b.cells) for b in boxes if b.kind == "table" and b.cells]

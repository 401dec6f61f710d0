"""First pass over a page: everything later steps need, extracted once (the expensive part)."""

from __future__ import annotations

from dataclasses import dataclass, field

import pymupdf

from docgraph.ingest.floats.captioned_tables import find_captioned_tables
from docgraph.ingest.floats.continued_rows import LeadRows, lead_rows
from docgraph.ingest.floats.figures import find_figures, is_strip, lone_pictures
from docgraph.ingest.floats.framed_tables import find_framed_tables
from docgraph.ingest.floats.header_row_tables import find_header_row_tables
from docgraph.ingest.floats.image_text import ImageText
from docgraph.ingest.floats.label_rows import field_rows
from docgraph.ingest.floats.layout_model import ModelBox, model_tables, run_layout_model
from docgraph.ingest.floats.tables import FoundTable, drawn_as_chart, find_ruled_tables
from docgraph.ingest.floats.unruled_tables import find_unruled_tables
from docgraph.ingest.links.pdf_links import PageFrame, PageLink, page_frame, page_links
from docgraph.ingest.page.drawn_bullets import marked_lines
from docgraph.ingest.page.furniture import PageLines
from docgraph.ingest.page.line_numbers import drop_line_numbers
from docgraph.ingest.pdf import api as pdf_api
from docgraph.ingest.pdf.lines import TEXT_FLAGS, TextLine, extract_lines
from docgraph.ingest.pdf.widgets import FormField, form_fields, outside_fields
from docgraph.ingest.types import BBox

MIN_TEXT_CHARS = 10  # fewer visible characters than this on a page with a large image: a scan
SCAN_IMAGE_SHARE = 0.5


@dataclass(slots=True)
class PageScan:
    number: int  # 1-based
    width: float
    height: float
    lines: list[TextLine]
    frame: PageFrame  # where the links of other pages land on this one (ingest.links.pdf_links)
    tables: list[FoundTable] = field(default_factory=list)
    figures: list[BBox] = field(default_factory=list)
    charts: list[BBox] = field(default_factory=list)  # figures drawn as charts (``tables.drawn_as_chart``)
    photos: list[BBox] = field(default_factory=list)  # figures that are one embedded picture alone
    model_boxes: list[ModelBox] | None = None
    has_text_layer: bool = True
    image_text: list[ImageText] = field(default_factory=list)  # read by OCR in embedded pictures
    links: list[PageLink] = field(default_factory=list)  # to other places in the document
    turn: int = 0  # degrees it was turned clockwise to stand upright (a scan fed sideways)
    fields: list[FormField] = field(default_factory=list)  # its fillable form's fields
    lead: LeadRows | None = None  # its leading figure lines: a table's rows from the page before?

    def furniture_view(self) -> PageLines:
        """What furniture detection reads of the page: its lines, figures and tables."""
        tables = [table.bbox for table in self.tables]
        return PageLines(self.height, self.lines, self.figures, tables, self.number, self.width)


def scan_page(page: pymupdf.Page, use_model: bool) -> PageScan:
    textpage = page.get_textpage(flags=TEXT_FLAGS)
    drawings = page.get_drawings()
    fields = form_fields(page)
    lines = extract_lines(page, textpage, drawings, apart=[f.bbox for f in fields])
    lines = outside_fields(lines, fields)  # the fields say their values
    lines = marked_lines(lines, drawings, [BBox(*info["bbox"]) for info in page.get_image_info()])
    page_words = pdf_api.words(page, TEXT_FLAGS, textpage)
    ruled = find_ruled_tables(page, drawings, page_words)  # margin line numbers lie outside them
    lines, words = drop_line_numbers(lines, page_words, [table.bbox for table in ruled])
    chars = sum(line.chars for line in lines)
    scan = PageScan(
        number=page.number + 1,
        width=page.rect.width,
        height=page.rect.height,
        lines=lines,
        has_text_layer=_has_text_layer(page, chars),
        links=page_links(page, page_words),
        frame=page_frame(page),
        fields=fields,
    )
    if use_model:
        scan.model_boxes = run_layout_model(page, words)
        scan.tables = model_tables(scan.model_boxes)
        scan.figures = [b.bbox for b in scan.model_boxes if b.kind == "figure"]
    else:
        scan.tables = ruled
        scan.tables += find_unruled_tables(drawings, words, lines, [t.bbox for t in scan.tables])
        scan.tables += find_header_row_tables(words, lines, [t.bbox for t in scan.tables])
        scan.tables += find_framed_tables(drawings, words, [t.bbox for t in scan.tables], lines)
        scan.tables += find_captioned_tables(lines, words, [t.bbox for t in scan.tables])
        scan.tables = [table for table in scan.tables if not field_rows(table.cells)]  # a cover box's fields
        scan.lead = lead_rows(words, [t.bbox for t in scan.tables])
        scan.figures = find_figures(page, drawings, [t.bbox for t in scan.tables], lines)
        scan.charts = [box for box in scan.figures if drawn_as_chart(drawings, box)]
        scan.photos = lone_pictures(page, scan.figures, lines)
        bands = [box for box in scan.photos if is_strip(box, scan.width)]  # the design's, no figure
        scan.figures = [box for box in scan.figures if box not in bands]
        scan.photos = [box for box in scan.photos if box not in bands]
    return scan


def _has_text_layer(page: pymupdf.Page, chars: int) -> bool:
    """No text layer: (almost) no extractable characters, e.g. a scanned or blank page."""
    if chars >= MIN_TEXT_CHARS:
        return True
    if chars == 0:
        return False
    return not page_sized_image(page)  # a few stray characters on top of a page-sized image


def page_sized_image(page: pymupdf.Page) -> bool:
    """Whether an image covers at least SCAN_IMAGE_SHARE of the page (a scan, or a background)."""
    page_area = page.rect.width * page.rect.height
    for info in page.get_image_info():
        x0, y0, x1, y1 = info["bbox"]
        if (x1 - x0) * (y1 - y0) >= SCAN_IMAGE_SHARE * page_area:
            return True
    return False

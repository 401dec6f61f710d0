"""The ``native`` reader: typed regions in reading order from born-digital PDFs (PyMuPDF)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import pymupdf

from docgraph.ingest.floats.layout_model import layout_model_available
from docgraph.ingest.page.assemble import assemble_page
from docgraph.ingest.page.classify import FontStats, font_stats
from docgraph.ingest.page.continued_tables import continue_tables
from docgraph.ingest.page.furniture import FurnitureMarks, detect_furniture
from docgraph.ingest.page.logos import drop_logos, mark_repeated_figures
from docgraph.ingest.page.scan import PageScan, scan_page
from docgraph.ingest.page.slide_titles import promote_slide_titles
from docgraph.ingest.pdf.checks import load_page_checked
from docgraph.ingest.pdf.lines import TextLine
from docgraph.ingest.readers.paged import PageWindow, read_in_windows, scan_pages
from docgraph.ingest.structure.continuity import mark_continuations
from docgraph.ingest.types import DocumentLayout, PageLayout, ProgressCallback

Mode = Literal["layout", "fonts"]
DEFAULT_MODE: Mode = "fonts"  # measured: as accurate as the layout model here, and ~15x faster
DEFAULT_MAX_PAGES = 20_000  # a guard against runaway files; real manuals pass it
# Fewer characters than this outside tables (a one-page agenda, most of it its table: a title, a
# subtitle and a line of venue) say nothing of the body's size; the tables' lines count too then.
MIN_OUTSIDE_CHARS = 400


class NativeReader:
    """Reads PDFs that have a text layer.

    ``mode="fonts"`` types regions from font statistics; ``mode="layout"`` uses PyMuPDF's layout
    model for region boxes and kinds (much slower on CPU). Both share line extraction, furniture
    detection, reading order and continuation marking.
    """

    name = "native"

    def __init__(self, mode: Mode = DEFAULT_MODE, max_pages: int = DEFAULT_MAX_PAGES) -> None:
        if mode not in ("layout", "fonts"):
            raise ValueError(f"unknown reader mode {mode!r}; expected 'layout' or 'fonts'")
        if mode == "layout" and not layout_model_available():
            raise ValueError("reader mode 'layout' needs the pymupdf-layout package")
        if max_pages < 1:
            raise ValueError("max_pages must be at least 1")
        self.mode: Mode = mode
        self.max_pages = max_pages

    def read(self, path: Path, progress: ProgressCallback | None = None) -> DocumentLayout:
        return read_in_windows(self, Path(path), progress)

    def scan_window(self, path: Path, window: PageWindow, progress: ProgressCallback | None = None) -> list[PageScan]:
        return scan_pages(Path(path), self.max_pages, window, self._scan_page, progress)

    def assemble(self, scans: list[PageScan]) -> list[PageLayout]:
        return assemble_pages(scans)

    def _scan_page(self, doc: pymupdf.Document, index: int, name: str) -> PageScan:
        return scan_page(load_page_checked(doc, index, name), use_model=self.mode == "layout")


def assemble_pages(scans: list[PageScan]) -> list[PageLayout]:
    drop_logos(scans)
    stats, marks = body_stats(scans)
    continue_tables(scans, marks)
    first_text_page = next((s.number for s in scans if s.has_text_layer), 0)
    pages = []
    for scan, mark in zip(scans, marks, strict=True):
        pages.append(assemble_page(scan, stats, mark, title_allowed=scan.number == first_text_page))
    promote_slide_titles(pages, stats.body_size)
    mark_repeated_figures(pages)
    mark_continuations(pages)
    return pages


def body_stats(scans: list[PageScan]) -> tuple[FontStats, list[FurnitureMarks]]:
    """The body text's size and font, and each page's running heads and feet. In a slide deck the
    furniture can outweigh the text: a beamer navigation bar of section names and a footline of
    three boxes, set at 5 pt, hold more characters than a slide's few bullets, which were then all
    read as headings. So the body is counted again without the furniture, and where that changes
    its size, furniture is found again against the new size. Lines inside tables never count."""
    views = [scan.furniture_view() for scan in scans]
    outside = [text_lines(scan) for scan in scans]
    if sum(line.chars for lines in outside for _, line in lines) < MIN_OUTSIDE_CHARS:
        outside = [list(enumerate(scan.lines)) for scan in scans]
    stats = font_stats(line for lines in outside for _, line in lines)
    marks = detect_furniture(views, stats.body_size)
    text = [line for lines, mark in zip(outside, marks, strict=True) for i, line in lines if i not in mark]
    body = font_stats(text)
    if not text or body.body_size == stats.body_size:
        return stats, marks
    return body, detect_furniture(views, body.body_size)


def text_lines(scan: PageScan) -> list[tuple[int, TextLine]]:
    """The page's lines outside its tables, each with its index among the page's lines: a table's
    cells are often set smaller than the text, and in a datasheet, most of whose words are in
    tables, they would pass for the body size."""
    return [
        (i, line)
        for i, line in enumerate(scan.lines)
        if not any(line.bbox.centre_in(table.bbox) for table in scan.tables)
    ]

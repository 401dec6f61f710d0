"""The ``detector`` reader: a layout detector finds the regions, text comes from the PDF or OCR.

Per page: render at the detector's input size (about 90 dpi for a letter page) -> detect ->
SCAN box selection -> each region's text from the PDF's text layer inside the box or, where
the box holds none (scans, text set as images), from tesseract on a 250 dpi crop. On pages
without a usable text layer, ink outside every selected box is OCR'd too (the page with the
boxes painted out), so text the detector missed is not lost. The boxes then go through the
native reader's assembly (furniture, reading order, captions, tables, continuations), as the
PyMuPDF layout model's boxes do. OCR runs in a worker thread while the next page is detected.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import numpy as np
import pymupdf
from PIL import Image

from docgraph.ingest.floats.detector_tables import read_from_a_rule, table_cells
from docgraph.ingest.floats.image_text import ImageTextJob, submit_image_text
from docgraph.ingest.floats.ink_edges import widened_to_ink
from docgraph.ingest.floats.layout_model import MODEL_KINDS, ModelBox
from docgraph.ingest.floats.tables import FoundTable
from docgraph.ingest.page.assemble import assemble_page
from docgraph.ingest.page.classify import font_stats
from docgraph.ingest.page.furniture import detect_furniture
from docgraph.ingest.page.scan import PageScan, scan_page
from docgraph.ingest.page.text_layer import has_good_text_layer
from docgraph.ingest.pdf import api as pdf_api
from docgraph.ingest.pdf.api import Word
from docgraph.ingest.pdf.checks import load_page_checked
from docgraph.ingest.pdf.lines import TEXT_FLAGS, TextLine, lines_in
from docgraph.ingest.pdf.ocr import (
    DEFAULT_LANG,
    DEFAULT_OCR_DPI,
    OcrJob,
    OcrWord,
    read_by_ocr,
    render,
    submit_boxes,
    submit_remainder,
    words_as_tuples,
    words_to_lines,
)
from docgraph.ingest.pdf.orientation import upright_turn
from docgraph.ingest.readers.native import DEFAULT_MAX_PAGES
from docgraph.ingest.readers.native import assemble_pages as assemble_native
from docgraph.ingest.readers.paged import PageWindow, read_in_windows, scan_pages
from docgraph.ingest.structure.continuity import mark_continuations
from docgraph.ingest.types import BBox, DocumentLayout, PageLayout, ProgressCallback
from docgraph.models.layout_detector import Detection, LayoutDetector
from docgraph.models.runtimes import process_threads
from docgraph.models.scan_selection import SelectionParams, select
from docgraph.process_folders import process_temp_folder
from docgraph.records import RegionKind

DetectPages = Literal["all", "untexted"]

# Detector labels (lower-cased) beyond the DocLayNet names the layout model already maps.
EXTRA_KINDS: dict[str, RegionKind] = {
    "figure": "figure",
    "image": "figure",
    "paragraph": "paragraph",
    "plain text": "paragraph",
    "list": "list",
    "code": "code",
    "header": "page_header",
    "footer": "page_footer",
    "equation": "formula",
    "isolate_formula": "formula",
    "figure_caption": "caption",
    "table_caption": "caption",
    "table_footnote": "footnote",
}
DETECTOR_KINDS: dict[str, RegionKind] = {**MODEL_KINDS, **EXTRA_KINDS}
# A picture's words go to its figure's text (ingest.floats.image_text), not into the page's lines.
NO_OCR_KINDS: frozenset[RegionKind] = frozenset({"figure"})
OCR_FOLDER_PREFIX = "docgraph-ocr-"  # page images for tesseract, one folder per process (docgraph.process_folders)
TABLE_PSM = 4  # tesseract's "one column of text of varying sizes": the block mode (6) loses ruled cells
DUPLICATE_LINE_SHARE = 0.5  # an OCR line mostly on top of one already read was read twice
INK_LEVEL = 128  # grey values below this are ink
MIN_UNCOVERED_INK = 40  # ink pixels (at detection resolution) outside all boxes worth an OCR pass
MIN_REST_CONFIDENCE = 40.0  # words found outside all boxes are kept only when tesseract is fairly sure


def kind_for_label(label: str) -> RegionKind:
    """Our region kind for a detector class name (unknown classes read as paragraphs)."""
    return DETECTOR_KINDS.get(label.strip().lower(), "paragraph")


@dataclass(slots=True)
class PendingPage:
    """A page's scan waiting for its OCR; :meth:`finish` completes it."""

    scan: PageScan
    boxes: list[ModelBox]
    text_words: list[Word] = field(default_factory=list)  # text-layer words, for table cells
    box_job: OcrJob | None = None
    table_job: OcrJob | None = None  # table boxes: their rules break the block mode's lines
    rest_job: OcrJob | None = None
    image_job: ImageTextJob | None = None  # the text in the page's pictures (ingest.floats.image_text)
    as_read: bool = False  # a page the detector skipped: the native scan is the page, as it is

    def jobs(self) -> list[Future[list[list[OcrWord]]]]:
        image_job = self.image_job.job if self.image_job is not None else None
        jobs = (self.box_job, self.table_job, self.rest_job, image_job)
        return [job.future for job in jobs if job is not None]

    def finish(self) -> PageScan:
        scan = self.scan
        if self.image_job is not None:
            scan.image_text = self.image_job.texts()
        if self.as_read:  # its figures and tables are the native reader's, not (no) detections
            return scan
        ocr_words: list[OcrWord] = []
        for base, job in ((1, self.box_job), (3, self.table_job), (2, self.rest_job)):  # block numbers apart
            if job is None:
                continue
            words = [w for crop in job.words() for w in crop if job is not self.rest_job or _confident(w)]
            ocr_words += words
            scan.lines.extend(_new_lines(scan.lines, words_to_lines(words, block_base=base * 10**6)))
        cell_words = [w for w in ocr_words if not read_from_a_rule(w.text)]  # a text layer's "|" is a cell's
        _fill_table_cells(self.boxes, self.text_words + words_as_tuples(cell_words))
        scan.model_boxes = self.boxes
        scan.figures = [b.bbox for b in self.boxes if b.kind == "figure"]
        scan.tables = _merge_tables(scan.tables, self.boxes)
        scan.has_text_layer = any(line.chars for line in scan.lines)
        return scan


class DetectorReader:
    """Regions from a layout detector, text from the text layer or tesseract.

    ``detect_pages="untexted"`` runs the detector only on pages without a good text layer and
    reads the others like the native reader (the ``auto`` reader). The detector is loaded on
    first use, so such a reader costs nothing more than ``native`` on born-digital PDFs.
    A page's ``has_text_layer`` ends up true when it has text from either source.
    """

    name = "detector"

    def __init__(
        self,
        detector: LayoutDetector | None = None,
        selection: SelectionParams | None = None,
        max_pages: int = DEFAULT_MAX_PAGES,
        detect_pages: DetectPages = "all",
        ocr_dpi: int = DEFAULT_OCR_DPI,
        ocr_lang: str = DEFAULT_LANG,
        model_path: Path | None = None,
        ocr_workers: int | None = None,
        image_text: bool = True,
    ) -> None:
        ocr_workers = ocr_workers or default_ocr_workers()
        if max_pages < 1 or ocr_workers < 1:
            raise ValueError("max_pages and ocr_workers must be at least 1")
        if detect_pages not in ("all", "untexted"):
            raise ValueError(f"detect_pages must be 'all' or 'untexted', not {detect_pages!r}")
        self._detector = detector
        self.model_path = model_path
        self.selection = selection or SelectionParams()
        self.max_pages = max_pages
        self.detect_pages: DetectPages = detect_pages
        self.ocr_dpi = ocr_dpi
        self.ocr_lang = ocr_lang
        self.ocr_workers = ocr_workers
        self.image_text = image_text  # OCR the words drawn in the pictures of figures (ingest.floats.image_text)

    @property
    def detector(self) -> LayoutDetector:
        if self._detector is None:
            self._detector = LayoutDetector(self.model_path)
        return self._detector

    def read(self, path: Path, progress: ProgressCallback | None = None) -> DocumentLayout:
        return read_in_windows(self, Path(path), progress)

    def scan_window(self, path: Path, window: PageWindow, progress: ProgressCallback | None = None) -> list[PageScan]:
        """The window's pages; OCR runs in threads while the next page is detected."""
        with process_temp_folder(OCR_FOLDER_PREFIX) as tmp, ThreadPoolExecutor(self.ocr_workers) as pool:
            pending: list[PendingPage] = []

            def scan_one(doc: pymupdf.Document, index: int, name: str) -> PageScan:
                pending.append(self.scan(load_page_checked(doc, index, name), tmp, pool))
                _bound_backlog(pending, self.ocr_workers + 1)
                return pending[-1].scan

            scan_pages(Path(path), self.max_pages, window, scan_one, progress)
            return [p.finish() for p in pending]

    def assemble(self, scans: list[PageScan]) -> list[PageLayout]:
        return assemble_pages(scans)

    def scan(self, page: pymupdf.Page, workdir: Path, pool: Executor) -> PendingPage:
        """One page's first pass: the native scan, plus detected regions and OCR jobs where needed."""
        scan = scan_page(page, use_model=False)
        good = has_good_text_layer(page, scan)
        if not good and pdf_api.is_blank(page):  # nothing to detect or OCR: a blank page costs nothing
            return PendingPage(scan, [], as_read=True)
        if self.detect_pages == "untexted" and good:
            pending = PendingPage(scan, [], as_read=True)
            pending.image_job = self._submit_image_text(page, scan, scan.figures, workdir, pool)
            return pending
        if not good:  # a scan, or glyphs without usable Unicode: read nothing from the text layer
            scan = self._upright(page, scan, workdir)
            scan.lines, scan.tables, scan.figures = [], [], []
        image, detections = self.detect(page)
        boxes = self.select_boxes(page, detections)
        if not good:  # OCR reads inside the boxes: none may cut a word
            boxes = widened_to_ink(np.asarray(image.convert("L")) < INK_LEVEL, boxes, page.rect.width / image.width)
        pending = PendingPage(scan, boxes)
        if good and any(b.kind == "table" for b in boxes):
            pending.text_words = pdf_api.words(page, TEXT_FLAGS)
        figures = [b.bbox for b in boxes if b.kind == "figure"]  # a scan's page image is not one of them
        pending.image_job = self._submit_image_text(page, scan, figures, workdir, pool)
        empty = [b for b in boxes if b.kind not in NO_OCR_KINDS and not lines_in(b.bbox, scan.lines)]
        self._submit_crops(page, pending, empty, workdir, pool)
        if not good and uncovered_ink(image, [b.bbox for b in boxes], page.rect.width / image.width):
            pending.rest_job = submit_remainder(
                page, [b.bbox for b in boxes], workdir, pool, self.ocr_dpi, self.ocr_lang
            )
        return pending

    def _submit_crops(
        self, page: pymupdf.Page, pending: PendingPage, boxes: Sequence[ModelBox], workdir: Path, pool: Executor
    ) -> None:
        """OCR jobs for boxes the text layer left empty: tables apart, in tesseract's column mode."""
        tables = [b.bbox for b in boxes if b.kind == "table"]
        others = [b.bbox for b in boxes if b.kind != "table"]
        if others:
            pending.box_job = submit_boxes(page, others, workdir, pool, self.ocr_dpi, self.ocr_lang)
        if tables:
            pending.table_job = submit_boxes(
                page, tables, workdir, pool, self.ocr_dpi, self.ocr_lang, psm=TABLE_PSM, name="table"
            )

    def _upright(self, page: pymupdf.Page, scan: PageScan, workdir: Path) -> PageScan:
        """A scan fed upside down or sideways, turned upright (in memory) and scanned again."""
        turn = upright_turn(page, workdir)
        if not turn:
            return scan
        pdf_api.turn_page(page, turn)
        turned = scan_page(page, use_model=False)
        turned.turn = turn
        return turned

    def _submit_image_text(
        self, page: pymupdf.Page, scan: PageScan, figures: Sequence[BBox], workdir: Path, pool: Executor
    ) -> ImageTextJob | None:
        if not self.image_text:
            return None
        return submit_image_text(page, scan.lines, figures, workdir, pool, self.ocr_dpi, self.ocr_lang)

    def detect(self, page: pymupdf.Page) -> tuple[Image.Image, list[Detection]]:
        """The page rendered at the detector's input size, and detections with boxes in PDF points."""
        detector = self.detector
        dpi = 72.0 * max(detector.input_size) / max(page.rect.width, page.rect.height)
        image = Image.fromarray(render(page, dpi, gray=False))
        sx, sy = page.rect.width / image.width, page.rect.height / image.height
        detections = [
            Detection(d.x0 * sx, d.y0 * sy, d.x1 * sx, d.y1 * sy, d.score, d.class_id, d.label)
            for d in detector.detect(image)
        ]
        return image, detections

    def select_boxes(self, page: pymupdf.Page, detections: Sequence[Detection]) -> list[ModelBox]:
        chosen = select(
            detections,
            [d.box for d in detections],
            [d.score for d in detections],
            (page.rect.width, page.rect.height),
            self.selection,
        )
        return [ModelBox(BBox(*d.box), kind_for_label(d.label)) for d in chosen]


def default_ocr_workers() -> int:
    """One tesseract per core (at most 4): OCR, not detection, bounds the speed on scans."""
    return process_threads()


def _bound_backlog(pending: Sequence[PendingPage], limit: int) -> None:
    """Wait while more than ``limit`` OCR jobs are queued: their page images sit on disk until read."""
    while True:
        waiting = [f for page in pending for f in page.jobs() if not f.done()]
        if len(waiting) <= limit:
            return
        wait(waiting, return_when=FIRST_COMPLETED)


def assemble_pages(scans: list[PageScan]) -> list[PageLayout]:
    """The native reader's assembly; OCR'd pages are typed against OCR'd font statistics.

    OCR knows only a line's ink height, not its font size, so mixing both in one body-size
    estimate would make every OCR'd line look small (or large) next to real text.
    """
    ocr_lines = [ln for s in scans for ln in s.lines if read_by_ocr(ln)]
    if not ocr_lines:
        return assemble_native(scans)
    text_lines = [ln for s in scans for ln in s.lines if not read_by_ocr(ln)]
    ocr_stats = font_stats(ocr_lines)
    text_stats = font_stats(text_lines) if text_lines else ocr_stats
    marks = detect_furniture([s.furniture_view() for s in scans], text_stats.body_size)
    first_text_page = next((s.number for s in scans if s.has_text_layer), 0)
    pages = []
    for scan, mark in zip(scans, marks, strict=True):
        stats = ocr_stats if _mostly_ocr(scan.lines) else text_stats
        pages.append(assemble_page(scan, stats, mark, title_allowed=scan.number == first_text_page))
    mark_continuations(pages)
    return pages


def _mostly_ocr(lines: Sequence[TextLine]) -> bool:
    ocr = sum(ln.chars for ln in lines if read_by_ocr(ln))
    return ocr > 0 and 2 * ocr >= sum(ln.chars for ln in lines)


def uncovered_ink(image: Image.Image, boxes: Sequence[BBox], points_per_pixel: float) -> bool:
    """Whether the rendering has ink outside every box (a missed line of text, a page number)."""
    ink = np.asarray(image.convert("L")) < INK_LEVEL
    for box in boxes:
        x0, y0 = int(box.x0 / points_per_pixel) - 1, int(box.y0 / points_per_pixel) - 1
        x1, y1 = int(box.x1 / points_per_pixel) + 2, int(box.y1 / points_per_pixel) + 2
        ink[max(0, y0) : y1, max(0, x0) : x1] = False
    return int(ink.sum()) >= MIN_UNCOVERED_INK


def _confident(word: OcrWord) -> bool:
    return word.confidence >= MIN_REST_CONFIDENCE and any(ch.isalnum() for ch in word.text)


def _new_lines(existing: Sequence[TextLine], found: Sequence[TextLine]) -> list[TextLine]:
    """OCR lines not already read: overlapping boxes are cropped twice, each line is kept once.
    A read twice is mostly on top of the other and says mostly the same; the boxes of a skewed
    page's neighbouring lines overlap as much, with other words."""
    kept: list[TextLine] = []
    for line in found:
        if any(_read_twice(line, other) for other in [*existing, *kept]):
            continue
        kept.append(line)
    return kept


def _read_twice(line: TextLine, other: TextLine) -> bool:
    if line.bbox.intersection_area(other.bbox) < DUPLICATE_LINE_SHARE * (line.bbox.area or 1.0):
        return False
    words, others = _words_of(line.text), _words_of(other.text)
    return not words or len(words & others) >= DUPLICATE_LINE_SHARE * len(words)


def _words_of(text: str) -> set[str]:
    return set(re.findall(r"\w+", text.lower()))


def _fill_table_cells(boxes: Sequence[ModelBox], words: Sequence[Word]) -> None:
    for box in boxes:
        if box.kind == "table":
            box.cells = table_cells(box.bbox, words)


def _merge_tables(ruled: list[FoundTable], boxes: Sequence[ModelBox]) -> list[FoundTable]:
    """Ruled tables (exact cell geometry) win over detected ones they overlap."""
    tables = list(ruled)
    for box in boxes:
        if box.kind != "table" or not box.cells:
            continue
        if any(box.bbox.intersection_area(t.bbox) > 0 for t in ruled):
            box.cells = None  # its lines belong to the ruled table; the box adds nothing
            continue
        tables.append(FoundTable(box.bbox, box.cells))
    return tables

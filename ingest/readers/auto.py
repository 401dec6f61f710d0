"""The ``auto`` reader: per page, the native reader where the text layer is good, the detector elsewhere.

Born-digital pages are read exactly as ``native`` reads them (fonts, ruled tables, vector
figures); scanned pages, pages whose glyphs have no usable Unicode and scans with a small
text stamp go through layout detection and OCR. Furniture, reading order and continuations
are then worked out over the whole document at once, so a scanned page between two digital
ones still joins the reading chain.

Without OCR (``ocr=False``: tesseract is not installed) every page is read as ``native`` reads it,
so a mixed PDF still gives its born-digital pages instead of failing on its scanned ones.
"""

from __future__ import annotations

from concurrent.futures import Executor
from pathlib import Path

import pymupdf

from docgraph.ingest.page.scan import scan_page
from docgraph.ingest.pdf.ocr import DEFAULT_LANG, DEFAULT_OCR_DPI
from docgraph.ingest.readers.detector import DetectorReader, PendingPage
from docgraph.ingest.readers.native import DEFAULT_MAX_PAGES
from docgraph.models.layout_detector import LayoutDetector
from docgraph.models.scan_selection import SelectionParams


class AutoReader(DetectorReader):
    """A :class:`DetectorReader` that runs the detector (and OCR) only on pages without a good text layer."""

    name = "auto"

    def __init__(
        self,
        detector: LayoutDetector | None = None,
        selection: SelectionParams | None = None,
        max_pages: int = DEFAULT_MAX_PAGES,
        ocr_dpi: int = DEFAULT_OCR_DPI,
        ocr_lang: str = DEFAULT_LANG,
        model_path: Path | None = None,
        ocr_workers: int | None = None,
        ocr: bool = True,
        image_text: bool = True,
    ) -> None:
        super().__init__(
            detector=detector,
            selection=selection,
            max_pages=max_pages,
            detect_pages="untexted",
            ocr_dpi=ocr_dpi,
            ocr_lang=ocr_lang,
            model_path=model_path,
            ocr_workers=ocr_workers,
            image_text=image_text,
        )
        self.ocr = ocr

    def scan(self, page: pymupdf.Page, workdir: Path, pool: Executor) -> PendingPage:
        if self.ocr:
            return super().scan(page, workdir, pool)
        return PendingPage(scan_page(page, use_model=False), [], as_read=True)

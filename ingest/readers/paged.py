"""Reading a PDF in page windows: scan each window on its own (in parallel, anywhere), then
assemble the whole document once.

A paged reader's work splits in two: :meth:`PagedReader.scan_window` reads pages ``first`` to
``stop - 1`` into :class:`PageScan` records (small, picklable), and :meth:`PagedReader.assemble`
types them against statistics of the whole document (body font size, running heads and feet,
continuations across page breaks). ``read`` is the two run one after the other.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol, runtime_checkable

import pymupdf

from docgraph.ingest.links.pdf_links import landed_links
from docgraph.ingest.page.scan import PageScan
from docgraph.ingest.page.text_layer import MAX_BAD_CHAR_SHARE, bad_char_share
from docgraph.ingest.pdf import api as pdf_api
from docgraph.ingest.pdf.checks import check_page_damage, open_checked
from docgraph.ingest.pdf.text import clean_title
from docgraph.ingest.structure.ids import file_sha256
from docgraph.ingest.types import DocumentLayout, OutlineEntry, PageLayout, ProgressCallback, Reader

DEFAULT_WINDOW_PAGES = 32  # pages per scan task: small enough to spread a document over workers


@dataclass(frozen=True, slots=True)
class PageWindow:
    """Pages ``first`` .. ``stop - 1`` (0-based) of one document."""

    first: int
    stop: int

    def __len__(self) -> int:
        return self.stop - self.first


@runtime_checkable
class PagedReader(Reader, Protocol):
    max_pages: int

    def scan_window(self, path: Path, window: PageWindow, progress: ProgressCallback | None = None) -> list[PageScan]:
        """The scans of the window's pages, in page order."""
        ...

    def assemble(self, scans: list[PageScan]) -> list[PageLayout]:
        """Typed pages from the scans of every page of the document."""
        ...


PageScanner = Callable[[pymupdf.Document, int, str], PageScan]


def scan_pages(
    path: Path, max_pages: int, window: PageWindow, scan: PageScanner, progress: ProgressCallback | None = None
) -> list[PageScan]:
    """Open ``path`` (checked as a whole) and scan the window's pages with ``scan(doc, index, name)``,
    holding MuPDF's lock a page at a time (other threads' renders go in between)."""
    with pdf_api.MUPDF_LOCK:
        doc = open_checked(path, max_pages)
    try:
        scans = []
        for done, index in enumerate(range(window.first, min(window.stop, doc.page_count)), start=1):
            with pdf_api.MUPDF_LOCK:
                pdf_api.mupdf_warnings(reset=True)  # this page's warnings alone
                scans.append(scan(doc, index, path.name))
                check_page_damage(doc, index + 1, path.name)
            if progress is not None:
                progress(done, len(window))
        return scans
    finally:
        with pdf_api.MUPDF_LOCK:
            pdf_api.close(doc)


def page_count(path: Path, max_pages: int) -> int:
    """How many pages ``path`` has; a missing, broken or too long file is a BadDocumentError."""
    with pdf_api.MUPDF_LOCK:
        doc = open_checked(path, max_pages)
        try:
            return int(doc.page_count)
        finally:
            pdf_api.close(doc)


def page_windows(pages: int, size: int = DEFAULT_WINDOW_PAGES) -> list[PageWindow]:
    step = max(1, size)
    return [PageWindow(first, min(first + step, pages)) for first in range(0, pages, step)]


def read_in_windows(
    reader: PagedReader, path: Path, progress: ProgressCallback | None = None, size: int = DEFAULT_WINDOW_PAGES
) -> DocumentLayout:
    """``reader`` reading ``path`` window after window in this process (its ``read``)."""
    total = page_count(path, reader.max_pages)
    scans: list[PageScan] = []
    for window in page_windows(total, size):
        scans.extend(reader.scan_window(path, window, _shifted(progress, len(scans), total)))
    return layout_from_scans(path, reader, scans)


def _shifted(progress: ProgressCallback | None, before: int, whole: int) -> ProgressCallback | None:
    """A window's progress as progress through the whole document."""
    if progress is None:
        return None
    report = progress

    def shifted(done: int, total: int) -> None:
        report(before + done, whole)

    return shifted


def layout_from_scans(path: Path, reader: PagedReader, scans: Sequence[PageScan]) -> DocumentLayout:
    """The document read from the scans of all its pages (in page order)."""
    with pdf_api.MUPDF_LOCK:
        doc = open_checked(path, reader.max_pages)
        try:
            outline = document_outline(doc)
            metadata_title = (doc.metadata or {}).get("title", "") or ""
        finally:
            pdf_api.close(doc)
    ordered = sorted(scans, key=lambda scan: scan.number)
    pages = reader.assemble(ordered)
    return DocumentLayout(
        path=path,
        file_name=path.name,
        sha256=file_sha256(path),
        title=_title(metadata_title, pages, path),
        page_count=len(pages),
        pages=pages,
        outline=outline,
        pages_without_text=[p.number for p in pages if not p.has_text_layer],
        pages_with_unreadable_text=_unreadable_pages(ordered) if reader.name == "native" else [],
        links=landed_links([scan.links for scan in ordered], [scan.frame for scan in ordered]),
    )


def _unreadable_pages(scans: Sequence[PageScan]) -> list[int]:
    """Pages whose text layer the ``auto`` reader would not trust for its glyphs (it reads them by OCR)."""
    return [s.number for s in scans if s.has_text_layer and bad_char_share(s.lines) > MAX_BAD_CHAR_SHARE]


def document_outline(doc: pymupdf.Document) -> list[OutlineEntry]:
    entries = []
    for item in doc.get_toc(simple=True):
        level, title, page = int(item[0]), clean_title(str(item[1])), int(item[2])
        entries.append(OutlineEntry(level=level, title=title, page=max(page, 0)))
    return entries


def _title(metadata_title: str, pages: list[PageLayout], path: Path) -> str:
    title = clean_title(metadata_title)
    if title:
        return title
    for page in pages:
        for region in sorted(page.regions, key=lambda r: r.order):
            if region.kind == "title" and region.text.strip():
                return region.text.strip()
    return path.stem

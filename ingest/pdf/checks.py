"""Input validation for PDFs: every failure becomes a one-line :class:`BadDocumentError`."""

from __future__ import annotations

import re
from pathlib import Path

import pymupdf

from docgraph.errors import BadDocumentError
from docgraph.ingest.pdf import api as pdf_api

PDF_MAGIC = b"%PDF-"
MAGIC_WINDOW = 1024  # the PDF spec tolerates junk before the header; readers accept it within 1 KiB

# MuPDF warnings that mean content was lost, not merely repaired (seen on truncated files).
_DAMAGE_WARNINGS = re.compile(
    r"content stream is not a stream|cannot load object|premature end of data|"
    r"object is not a stream|syntax error|page tree load failed|non-page object in page tree",
    re.IGNORECASE,
)


def open_checked(path: Path, max_pages: int) -> pymupdf.Document:
    """Open ``path`` as a PDF or raise BadDocumentError naming the file and the cause."""
    name = path.name
    if not path.is_file():
        raise BadDocumentError(f"{name}: file not found or not a regular file")
    with path.open("rb") as handle:
        head = handle.read(MAGIC_WINDOW)
    if not head:
        raise BadDocumentError(f"{name}: file is empty")
    if PDF_MAGIC not in head:
        raise BadDocumentError(f"{name}: not a PDF (no %PDF- header)")
    pdf_api.mupdf_warnings(reset=True)
    try:
        doc = pdf_api.open_pdf(path)
    except Exception as exc:  # MuPDF raises several types for unreadable files
        raise BadDocumentError(f"{name}: corrupt or truncated PDF, cannot be opened ({_short(exc)})") from exc
    try:
        _check_document(doc, name, max_pages)
    except BadDocumentError:
        pdf_api.close(doc)
        raise
    return doc


def _check_document(doc: pymupdf.Document, name: str, max_pages: int) -> None:
    if doc.needs_pass:
        raise BadDocumentError(f"{name}: encrypted PDF needs a password")
    if doc.page_count == 0:
        if doc.is_repaired:
            raise BadDocumentError(f"{name}: corrupt or truncated PDF, no pages could be recovered")
        raise BadDocumentError(f"{name}: PDF has no pages")
    if doc.page_count > max_pages:
        raise BadDocumentError(
            f"{name}: {doc.page_count} pages exceeds the limit of {max_pages} (raise it with DOCGRAPH_MAX_PAGES)"
        )


def load_page_checked(doc: pymupdf.Document, index: int, name: str) -> pymupdf.Page:
    """Load page ``index`` (0-based) or raise BadDocumentError."""
    try:
        return pdf_api.load_page(doc, index)
    except Exception as exc:
        raise BadDocumentError(f"{name}: corrupt PDF, page {index + 1} cannot be loaded ({_short(exc)})") from exc


def check_page_damage(doc: pymupdf.Document, page_number: int, name: str) -> None:
    """After reading a page of a repaired document, fail if MuPDF reported lost content.

    MuPDF repairs a broken cross-reference table silently; a truncated file then opens with all
    its pages but some content streams missing. Only repaired documents are checked, so harmless
    warnings in healthy files (font substitutions and the like) never fail a read.
    """
    warnings = pdf_api.mupdf_warnings(reset=True)
    damage = _DAMAGE_WARNINGS.search(warnings) if doc.is_repaired else None
    if damage is not None:
        # The page being read when MuPDF lost an object, which need not be the page whose content it
        # was (reading page 1 of a file cut short can need objects of its last pages): said as such.
        said = next(line for line in warnings.splitlines() if damage.group(0) in line)
        raise BadDocumentError(
            f"{name}: corrupt or truncated PDF, MuPDF lost part of it while reading page {page_number} "
            f"({_first_chars(said)})"
        )


def _short(exc: Exception) -> str:
    return _first_chars(str(exc)) or type(exc).__name__


def _first_chars(text: str) -> str:
    return " ".join(text.split())[:120]

"""The PDF's own cross-references: link annotations that jump to another place in the document.

Generated manuals link their references whether or not the text says a number: DocBook and
AsciiDoc write "see Configure options", Sphinx the section's title, hyperref "Section 2.3" and
"(Hyndman 2002)". The reader keeps each such link's area and where it lands; ``ingest.link_references``
turns them into REF edges.
"""

from __future__ import annotations

import pymupdf

from ingest import pdf_api
from ingest.lines import TEXT_FLAGS
from ingest.types import BBox, InternalLink

# Link kinds that stay inside the document: an explicit destination, or a named one (resolved by
# PyMuPDF to a page and a point).
_INTERNAL = (pymupdf.LINK_GOTO, pymupdf.LINK_NAMED)


def internal_links(doc: pymupdf.Document) -> list[InternalLink]:
    """Every link of ``doc`` to a page of ``doc`` itself, in page order."""
    links: list[InternalLink] = []
    pages: dict[int, tuple[pymupdf.Matrix, float]] = {}  # target index -> (PDF-to-page matrix, height)
    for index in range(doc.page_count):
        source = pdf_api.load_page(doc, index)
        found = [link for link in source.get_links() if link.get("kind") in _INTERNAL]
        words = pdf_api.words(source, TEXT_FLAGS) if found else []
        for link in found:
            target = int(link.get("page", -1))
            if not 0 <= target < doc.page_count:
                continue
            if target not in pages:
                page = pdf_api.load_page(doc, target)
                pages[target] = (page.transformation_matrix, page.rect.height)
            x, y = _landing(link, *pages[target])
            rect = link["from"]
            text = _words_in(words, rect)
            links.append(InternalLink(index + 1, BBox(rect.x0, rect.y0, rect.x1, rect.y1), target + 1, x, y, text))
    return links


def _words_in(words: list[pdf_api.Word], rect: pymupdf.Rect) -> str:
    """The words whose middle lies in ``rect``, in reading order (``get_textbox`` is ~50 ms a call)."""
    inside = [w for w in words if rect.x0 <= (w[0] + w[2]) / 2 <= rect.x1 and rect.y0 <= (w[1] + w[3]) / 2 <= rect.y1]
    return " ".join(w[4] for w in inside)


def _landing(link: dict[str, object], matrix: pymupdf.Matrix, height: float) -> tuple[float | None, float | None]:
    """Where on the target page the link lands, top-left origin; (None, None) when it names only the page.

    PyMuPDF gives an explicit destination's point in page space, but a named destination's as written
    in the PDF (origin bottom-left), so that one goes through the page's transformation matrix. A
    point off the page (Texinfo's index links land above it) or at the origin (a "fit page"
    destination) says nothing about where on the page."""
    point = link.get("to")
    if not isinstance(point, pymupdf.Point):
        return None, None
    if link.get("kind") == pymupdf.LINK_NAMED:
        point = point * matrix
    if not 0 < point.y < height:
        return None, None
    return (point.x if point.x > 0 else None), point.y

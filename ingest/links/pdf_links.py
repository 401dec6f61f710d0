"""The PDF's own cross-references: link annotations that jump to another place in the document.

Generated manuals link their references whether or not the text says a number: DocBook and
AsciiDoc write "see Configure options", Sphinx the section's title, hyperref "Section 2.3" and
"(Hyndman 2002)". Each page's links are read in the page's scan (:func:`page_links`, with the words
the scan already has); once every page is scanned, :func:`landed_links` puts each landing point in
its target page's frame. ``ingest.links.link_references`` turns them into REF edges. A reader whose
regions come from elsewhere (``azure``) reads them all at once (:func:`document_links`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pymupdf

from docgraph.ingest.pdf import api as pdf_api
from docgraph.ingest.pdf.api import words_in_box
from docgraph.ingest.pdf.lines import TEXT_FLAGS
from docgraph.ingest.types import BBox, InternalLink

# Link kinds that stay inside the document: an explicit destination, or a named one (resolved by
# PyMuPDF to a page and a point).
_INTERNAL = (pymupdf.LINK_GOTO, pymupdf.LINK_NAMED)


@dataclass(frozen=True, slots=True)
class PageLink:
    """A link as read on its page, its landing point not yet in the target page's frame."""

    bbox: BBox
    text: str  # the linked words
    target: int  # 0-based index of the target page
    point: pymupdf.Point | None  # where it lands, as PyMuPDF gives it
    named: bool  # a named destination: ``point`` is as the PDF writes it (origin bottom-left)


@dataclass(frozen=True, slots=True)
class PageFrame:
    """What turns a point written in the PDF into the page's top-down frame, and the page's height."""

    from_pdf: pymupdf.Matrix
    height: float


def page_frame(page: pymupdf.Page) -> PageFrame:
    return PageFrame(page.transformation_matrix, page.rect.height)


def page_links(page: pymupdf.Page, words: Sequence[pdf_api.Word]) -> list[PageLink]:
    """The page's links to a page of its own document; ``words`` are the page's words."""
    links: list[PageLink] = []
    for link in pdf_api.links(page):
        if link.get("kind") not in _INTERNAL:
            continue
        rect = link["from"]
        box = BBox(rect.x0, rect.y0, rect.x1, rect.y1)
        point = link.get("to")
        text = " ".join(w[4] for w in words_in_box(box, words))
        named = link.get("kind") == pymupdf.LINK_NAMED
        links.append(
            PageLink(box, text, int(link.get("page", -1)), point if isinstance(point, pymupdf.Point) else None, named)
        )
    return links


def document_links(doc: pymupdf.Document) -> list[InternalLink]:
    """Every link of ``doc`` that lands on one of its pages, each page read as the scans read it
    (unrotated into the frame its text reads in, the frame region boxes are in)."""
    found: list[list[PageLink]] = []
    frames: list[PageFrame] = []
    for index in range(len(doc)):
        page = pdf_api.load_page(doc, index)
        found.append(page_links(page, pdf_api.words(page, TEXT_FLAGS)))
        frames.append(page_frame(page))
    return landed_links(found, frames)


def landed_links(links: Sequence[Sequence[PageLink]], frames: Sequence[PageFrame]) -> list[InternalLink]:
    """Every page's links (``links[i]`` those of page index i) that land on a page of the document,
    with the landing point in the target page's frame; ``frames[i]`` is page index i's frame."""
    landed: list[InternalLink] = []
    for index, found in enumerate(links):
        for link in found:
            if not 0 <= link.target < len(frames):
                continue
            x, y = _landing(link, frames[link.target])
            landed.append(InternalLink(index + 1, link.bbox, link.target + 1, x, y, link.text))
    return landed


def _landing(link: PageLink, frame: PageFrame) -> tuple[float | None, float | None]:
    """Where on the target page the link lands, top-left origin; (None, None) when it names only the page.

    PyMuPDF gives an explicit destination's point in page space, but a named destination's as written
    in the PDF (origin bottom-left), so that one goes through the page's transformation matrix. A
    point off the page (Texinfo's index links land above it) or at the origin (a "fit page"
    destination) says nothing about where on the page."""
    point = link.point
    if point is None:
        return None, None
    if link.named:
        point = point * frame.from_pdf
    if not 0 < point.y < frame.height:
        return None, None
    return (point.x if point.x > 0 else None), point.y

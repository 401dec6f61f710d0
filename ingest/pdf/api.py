"""Typed wrappers around the PyMuPDF calls the readers use.

Parts of PyMuPDF carry no annotations, which ``mypy --strict`` rejects at every call site; the
calls go through ``Any`` here once, with the return types the readers rely on.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pymupdf

from docgraph.ingest.types import BBox

Word = tuple[float, float, float, float, str, int, int, int]  # page.get_text("words") item

# PyMuPDF prints MuPDF's messages to stdout, where they would break `--json` output: they go to
# Python logging instead (stderr, warnings and up), and stdout stays the command's own.
_set_messages: Any = pymupdf.set_messages
_set_messages(pylogging=True, pylogging_name="pymupdf", pylogging_level=logging.WARNING)


# MuPDF's state (its context, its warnings buffer) is one per process and not safe to use from two
# threads at once, and a process may run several: the UI's sessions, the documents of one ingest.
# Every open, read, render and close of a PDF holds this lock; scans hold it a page at a time.
MUPDF_LOCK = threading.RLock()


def open_pdf(path: Path) -> pymupdf.Document:
    opener: Any = pymupdf.open
    doc: pymupdf.Document = opener(str(path), filetype="pdf")
    return doc


def close(doc: pymupdf.Document) -> None:
    handle: Any = doc
    handle.close()


def load_page(doc: pymupdf.Document, index: int, turn: int = 0) -> pymupdf.Page:
    """Page ``index`` (0-based), unrotated (see :func:`settle_rotation`), then turned ``turn``
    degrees clockwise: a stored page's turn (a scan read upright), the frame its regions are in."""
    handle: Any = doc
    page: pymupdf.Page = handle.load_page(index)
    settle_rotation(page)
    turn_page(page, turn)
    return page


def settle_rotation(page: pymupdf.Page) -> None:
    """Give a rotated page (``/Rotate``) rotation 0 in the frame its text reads left to right in.

    PyMuPDF gives text in the page's stored frame and renders it turned as shown, so readers, the
    layout and OCR models (which see renders) and drawn boxes would disagree on a rotated page. The
    usual one, a landscape table or a scan stored sideways, reads in the frame it is shown in: its
    content is turned into that frame (``remove_rotation``). A page whose text runs left to right
    as stored, shown sideways, keeps the stored frame and is rendered so. Either way every
    coordinate and every render of the page are in one frame, the frame its text reads in. The
    document is changed in memory only."""
    handle: Any = page
    if not handle.rotation:
        return
    if _reads_as_stored(page):
        handle.set_rotation(0)
    else:
        _redraw_turned(page, handle.rotation)


def turn_page(page: pymupdf.Page, turn: int) -> None:
    """Turn the page ``turn`` degrees clockwise, in memory: its content is redrawn in the turned
    frame (rotation 0), so coordinates and renders agree."""
    handle: Any = page
    if turn % 360:
        _redraw_turned(page, (handle.rotation + turn) % 360)


def _redraw_turned(page: pymupdf.Page, rotation: int) -> None:
    """Draw the page's content as shown at ``rotation`` (its visible part), at rotation 0."""
    handle: Any = page
    crop_to_visible(page)
    handle.set_rotation(rotation)
    handle.remove_rotation()


def crop_to_visible(page: pymupdf.Page) -> None:
    """Make the page's MediaBox its CropBox: ``remove_rotation`` turns the MediaBox, so a page cut
    by a CropBox would come out at its uncut size with its content moved."""
    handle: Any = page
    media, crop = handle.mediabox, handle.cropbox
    if crop == media:
        return
    # cropbox is given top-down (y from the top); set_mediabox takes the PDF's bottom-up frame
    make_rect: Any = pymupdf.Rect
    handle.set_mediabox(make_rect(crop.x0, media.y1 - crop.y1, crop.x1, media.y1 - crop.y0))


def _reads_as_stored(page: pymupdf.Page) -> bool:
    """Whether most of the page's text runs left to right in its stored (unrotated) frame."""
    along = total = 0
    for block in text_dict(page, flags=0)["blocks"]:
        for line in block.get("lines", ()):
            chars = sum(len(span["text"].strip()) for span in line["spans"])
            dx, dy = line["dir"]
            total += chars
            along += chars if dx > abs(dy) else 0
    return total > 0 and along * 2 > total


def mupdf_warnings(reset: bool = True) -> str:
    tools: Any = pymupdf.TOOLS
    return str(tools.mupdf_warnings(reset=reset) or "")


def text_dict(
    page: pymupdf.Page, flags: int, textpage: pymupdf.TextPage | None = None, with_chars: bool = False
) -> dict[str, Any]:
    """``get_text("dict")``; with ``with_chars``, "rawdict": each span has its ``chars`` (each with
    its ``c`` and ``bbox``) instead of its ``text``."""
    handle: Any = page
    data: dict[str, Any] = handle.get_text("rawdict" if with_chars else "dict", flags=flags, textpage=textpage)
    return data


def words(page: pymupdf.Page, flags: int, textpage: pymupdf.TextPage | None = None) -> list[Word]:
    handle: Any = page
    return [tuple(w) for w in handle.get_text("words", flags=flags, textpage=textpage)]


def links(page: pymupdf.Page) -> list[dict[str, Any]]:
    """``page.get_links()`` without each link's xref: PyMuPDF looks the page's annotations up again
    at every link's ``next`` to find it, so a page of 10,000 links took 81 s (0.55 s this way). The
    same dictionaries otherwise (checked on every page of the bench PDFs)."""
    found: list[dict[str, Any]] = []
    link = page.first_link
    while link:
        found.append(pymupdf.utils.getLinkDict(link, page.parent))
        raw = link.this.next()
        if not raw.m_internal:
            break
        following = pymupdf.Link(raw)  # type: ignore[no-untyped-call]
        following.thisown = True
        following.parent = link.parent
        for name, value in (("xref", 0), ("id", "")):  # what Link.next sets: no xref looked up
            setattr(following, name, value)
        link = following
    return found


def text_trace(page: pymupdf.Page) -> list[dict[str, Any]]:
    """The page's text spans as drawn: font, size, and how (``type`` 3: invisible)."""
    handle: Any = page
    spans: list[dict[str, Any]] = handle.get_texttrace()
    return spans


def find_tables(page: pymupdf.Page, **settings: Any) -> Any:
    """``page.find_tables``; returns its TableFinder (or None when PyMuPDF gave up)."""
    handle: Any = page
    return handle.find_tables(**settings)


def layout_groups(page: pymupdf.Page) -> list[Any]:
    """Run PyMuPDF's layout model on the page; raw groups (dicts with class, bbox, table grid)."""
    handle: Any = page
    handle.get_layout(return_raw=True)
    return list(handle.layout_information or [])


def simple_font_widths(page: pymupdf.Page) -> list[tuple[str, list[float]]]:
    """(base font name, glyph widths of its ``/Widths`` array) for each simple font on the page.

    Type0 (CID) fonts keep their widths elsewhere (``/W`` of the descendant font) and are left out,
    as are fonts whose array cannot be read as numbers.
    """
    handle: Any = page
    doc: Any = page.parent
    fonts = []
    for xref, _ext, font_type, base_font, *_rest in handle.get_fonts():
        if font_type == "Type0":
            continue
        kind, value = doc.xref_get_key(xref, "Widths")
        if kind == "xref":
            value = doc.xref_object(int(value.split()[0]))
        elif kind != "array":
            continue
        try:
            fonts.append((str(base_font), [float(v) for v in value.strip().strip("[]").split()]))
        except ValueError:
            continue
    return fonts


def is_blank(page: pymupdf.Page) -> bool:
    """Nothing is drawn on the page: no text, no image, no vector drawing (an empty content stream)."""
    untyped: Any = page
    if untyped.get_text("text").strip() or untyped.get_images(full=False):
        return False
    return not untyped.get_cdrawings()


def words_in_box(box: BBox, words: Sequence[Word]) -> list[Word]:
    """The words whose centre lies inside ``box``."""
    return [w for w in words if box.x0 <= (w[0] + w[2]) / 2 <= box.x1 and box.y0 <= (w[1] + w[3]) / 2 <= box.y1]

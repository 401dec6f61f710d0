"""Typed wrappers around the PyMuPDF calls the readers use.

Parts of PyMuPDF carry no annotations, which ``mypy --strict`` rejects at every call site; the
calls go through ``Any`` here once, with the return types the readers rely on.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pymupdf

Word = tuple[float, float, float, float, str, int, int, int]  # page.get_text("words") item


def open_pdf(path: Path) -> pymupdf.Document:
    opener: Any = pymupdf.open
    doc: pymupdf.Document = opener(str(path), filetype="pdf")
    return doc


def close(doc: pymupdf.Document) -> None:
    handle: Any = doc
    handle.close()


def load_page(doc: pymupdf.Document, index: int) -> pymupdf.Page:
    handle: Any = doc
    page: pymupdf.Page = handle.load_page(index)
    return page


def mupdf_warnings(reset: bool = True) -> str:
    tools: Any = pymupdf.TOOLS
    return str(tools.mupdf_warnings(reset=reset) or "")


def text_dict(page: pymupdf.Page, flags: int, textpage: pymupdf.TextPage | None = None) -> dict[str, Any]:
    handle: Any = page
    data: dict[str, Any] = handle.get_text("dict", flags=flags, textpage=textpage)
    return data


def words(page: pymupdf.Page, flags: int, textpage: pymupdf.TextPage | None = None) -> list[Word]:
    handle: Any = page
    return [tuple(w) for w in handle.get_text("words", flags=flags, textpage=textpage)]


def find_tables(page: pymupdf.Page, **settings: Any) -> Any:
    """``page.find_tables``; returns its TableFinder (or None when PyMuPDF gave up)."""
    handle: Any = page
    return handle.find_tables(**settings)


def layout_groups(page: pymupdf.Page) -> list[Any]:
    """Run PyMuPDF's layout model on the page; raw groups (dicts with class, bbox, table grid)."""
    handle: Any = page
    handle.get_layout(return_raw=True)
    return list(handle.layout_information or [])

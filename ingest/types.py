"""Plain records that flow from a reader to graph construction.

Readers produce a :class:`DocumentLayout`; :mod:`ingest.graph` turns it into a
:class:`~docgraph.records.GraphBatch` of node and edge records that a store in ``app`` writes.
Coordinates are PDF points with the origin at the top-left of the page.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from docgraph.records import RegionKind


@dataclass(frozen=True, slots=True)
class BBox:
    x0: float
    y0: float
    x1: float
    y1: float

    @property
    def width(self) -> float:
        return self.x1 - self.x0

    @property
    def height(self) -> float:
        return self.y1 - self.y0

    @property
    def area(self) -> float:
        return max(0.0, self.width) * max(0.0, self.height)

    def union(self, other: BBox) -> BBox:
        return BBox(min(self.x0, other.x0), min(self.y0, other.y0), max(self.x1, other.x1), max(self.y1, other.y1))

    def centre_in(self, outer: BBox) -> bool:
        """Whether this box's centre lies in ``outer`` (edges included)."""
        cx, cy = (self.x0 + self.x1) / 2, (self.y0 + self.y1) / 2
        return outer.x0 <= cx <= outer.x1 and outer.y0 <= cy <= outer.y1

    def near(self, other: BBox, gap: float) -> bool:
        """Whether the two boxes overlap or lie within ``gap`` of each other on both axes."""
        return (
            self.x0 - gap <= other.x1
            and other.x0 - gap <= self.x1
            and self.y0 - gap <= other.y1
            and other.y0 - gap <= self.y1
        )

    def x_overlap(self, other: BBox) -> float:
        """Width the two boxes share across (negative: the gap between them)."""
        return min(self.x1, other.x1) - max(self.x0, other.x0)

    def y_overlap(self, other: BBox) -> float:
        """Height the two boxes share down (negative: the gap between them)."""
        return min(self.y1, other.y1) - max(self.y0, other.y0)

    def intersection(self, other: BBox) -> BBox | None:
        """The box the two share; None when they do not overlap."""
        x0, y0 = max(self.x0, other.x0), max(self.y0, other.y0)
        x1, y1 = min(self.x1, other.x1), min(self.y1, other.y1)
        return BBox(x0, y0, x1, y1) if x1 > x0 and y1 > y0 else None

    def intersection_area(self, other: BBox) -> float:
        w = self.x_overlap(other)
        h = self.y_overlap(other)
        return w * h if w > 0 and h > 0 else 0.0

    def as_list(self) -> list[float]:
        return [round(self.x0, 2), round(self.y0, 2), round(self.x1, 2), round(self.y1, 2)]


@dataclass(slots=True)
class Region:
    """One typed layout region of a page.

    ``order`` is the region's position in its page's reading order (0-based, furniture included
    at the end). ``continues`` is set on a paragraph or table that runs on past a page (or column) break.
    ``ocr`` is set when some of its text was read by OCR (a scanned page, or text in a picture), so
    that readers of the graph can tell text the PDF holds from text tesseract guessed.
    """

    kind: RegionKind
    bbox: BBox
    text: str
    order: int = 0
    font_size: float = 0.0
    bold: bool = False
    cells: list[list[str]] | None = None
    continues: bool = False
    ocr: bool = False


@dataclass(slots=True)
class PageLayout:
    number: int  # 1-based physical page index
    width: float
    height: float
    regions: list[Region] = field(default_factory=list)
    header_text: str = ""
    footer_text: str = ""
    has_text_layer: bool = True
    turn: int = 0  # degrees the page was turned clockwise to read it (a scan fed sideways); boxes are in that frame

    @property
    def text(self) -> str:
        return "\n".join(r.text for r in self.regions if r.text)


class Sized(Protocol):
    @property
    def width(self) -> float: ...

    @property
    def height(self) -> float: ...


def landscape_throughout(pages: Sequence[Sized]) -> bool:
    """Whether there are pages and every one is wider than high: a slide deck, whose "slide 12" is
    its twelfth page and whose slides' titles head them."""
    return bool(pages) and all(page.width > page.height for page in pages)


@dataclass(frozen=True, slots=True)
class OutlineEntry:
    level: int  # 1 = top level
    title: str
    page: int  # 1-based; 0 when the entry points nowhere


@dataclass(frozen=True, slots=True)
class InternalLink:
    """A link annotation that jumps to a place in the same PDF ("see Configure options", "Table 2")."""

    page: int  # 1-based page the link is on
    bbox: BBox  # the link's clickable area on that page
    target_page: int  # 1-based
    target_x: float | None  # where on the target page it jumps to (top-left origin); None: the page
    target_y: float | None
    text: str = ""  # the linked words


@dataclass(slots=True)
class DocumentLayout:
    path: Path
    file_name: str
    sha256: str
    title: str
    page_count: int
    pages: list[PageLayout] = field(default_factory=list)
    outline: list[OutlineEntry] = field(default_factory=list)
    pages_without_text: list[int] = field(default_factory=list)
    # Pages whose text layer is mostly glyphs without usable Unicode (a font without a ToUnicode map),
    # stored as read: the native reader reads no page by OCR.
    pages_with_unreadable_text: list[int] = field(default_factory=list)
    links: list[InternalLink] = field(default_factory=list)


class ProgressCallback(Protocol):
    def __call__(self, done: int, total: int) -> None: ...


class Reader(Protocol):
    """Turns a PDF into typed regions, page by page, in reading order."""

    name: str

    def read(self, path: Path, progress: ProgressCallback | None = None) -> DocumentLayout: ...

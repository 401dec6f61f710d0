"""Make an image-only ("scanned") copy of a PDF: every page rendered to an image, no text layer.

Usage: python scripts/make_scanned.py SRC.pdf DST.pdf [--dpi 150] [--pages 1-3,7] [--color] [--turn 180]

Tests call :func:`make_scanned` to build small scanned fixtures in a temporary folder.
"""

from __future__ import annotations

import argparse
import io
import sys
from collections.abc import Sequence
from pathlib import Path

import pymupdf
from PIL import Image

DEFAULT_DPI = 150
JPEG_QUALITY = 85
TURNS = (0, 90, 180, 270)


def parse_pages(spec: str, page_count: int) -> list[int]:
    """'1-3,7' -> [1, 2, 3, 7] (1-based, clipped to the document); '' -> every page."""
    if not spec.strip():
        return list(range(1, page_count + 1))
    pages: list[int] = []
    for part in spec.split(","):
        first, _, last = part.strip().partition("-")
        start, end = int(first), int(last or first)
        pages.extend(n for n in range(start, end + 1) if 1 <= n <= page_count)
    return pages


def make_scanned(
    src: Path,
    dst: Path,
    dpi: int = DEFAULT_DPI,
    pages: Sequence[int] | None = None,
    gray: bool = True,
    turn: int = 0,
) -> Path:
    """Write ``dst``: the chosen pages (1-based; default all) of ``src`` as page-sized JPEG images,
    each turned ``turn`` degrees counter-clockwise (90, 180, 270: fed into the scanner sideways)."""
    with pymupdf.open(src) as source, pymupdf.open() as out:
        numbers = list(pages) if pages is not None else list(range(1, source.page_count + 1))
        colorspace = pymupdf.csGRAY if gray else pymupdf.csRGB
        for number in numbers:
            page = source[number - 1]
            pixmap = page.get_pixmap(dpi=dpi, colorspace=colorspace, alpha=False)
            width, height = (page.rect.width, page.rect.height)[:: 1 if turn % 180 == 0 else -1]
            target = out.new_page(width=width, height=height)
            target.insert_image(target.rect, stream=turned_jpeg(pixmap, turn))
        dst.parent.mkdir(parents=True, exist_ok=True)
        out.save(dst, garbage=3, deflate=True)
    return dst


def turned_jpeg(pixmap: pymupdf.Pixmap, turn: int) -> bytes:
    """The page image as JPEG, turned ``turn`` degrees counter-clockwise."""
    if turn not in TURNS:
        raise ValueError(f"turn must be one of {TURNS}, not {turn}")
    if turn == 0:
        return bytes(pixmap.tobytes("jpeg", jpg_quality=JPEG_QUALITY))
    image = Image.open(io.BytesIO(pixmap.tobytes("png"))).rotate(turn, expand=True)
    jpeg = io.BytesIO()
    image.save(jpeg, "JPEG", quality=JPEG_QUALITY)
    return jpeg.getvalue()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("src", type=Path)
    parser.add_argument("dst", type=Path)
    parser.add_argument("--dpi", type=int, default=DEFAULT_DPI)
    parser.add_argument("--pages", default="", help="1-based pages, e.g. 1-3,7 (default: all)")
    parser.add_argument("--color", action="store_true", help="keep colour (default: grayscale)")
    parser.add_argument("--turn", type=int, default=0, choices=TURNS, help="degrees counter-clockwise")
    args = parser.parse_args(argv)
    with pymupdf.open(args.src) as doc:
        pages = parse_pages(args.pages, doc.page_count)
    make_scanned(args.src, args.dst, args.dpi, pages, gray=not args.color, turn=args.turn)
    print(f"{args.dst}: {len(pages)} page(s) at {args.dpi} dpi")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Scanned pages as an office archive holds them: drawn with PyMuPDF, rendered to a grey image lying
slightly askew on the glass, and read back by tesseract and the ``auto`` reader."""

from __future__ import annotations

import io
import statistics
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pymupdf
from PIL import Image

from docgraph.ingest.pdf.ocr import submit_remainder, words_to_lines
from docgraph.ingest.readers.auto import AutoReader

BODY = (
    "Check the oil level weekly with the unit standing level and stopped for ten minutes. The oil must be "
    "visible between the two marks on the sight glass. If it is below the lower mark, top up with ISO VG 100 "
    "compressor oil through the filler plug. Do not overfill: oil above the upper mark is carried into the "
    "air line and from there into the tools, where it spoils paint and seals."
)


def scan_of(source: pymupdf.Document, out: Path, degrees: float, dpi: int = 200) -> Path:
    """``source``'s pages as an image-only PDF, each page turned ``degrees`` counter-clockwise."""
    with pymupdf.open() as scan:
        for page in source:
            pixmap = page.get_pixmap(dpi=dpi, colorspace=pymupdf.csGRAY)
            image = Image.frombytes("L", (pixmap.width, pixmap.height), pixmap.samples)
            jpeg = io.BytesIO()
            image.rotate(degrees, resample=Image.Resampling.BICUBIC, fillcolor=255).save(jpeg, "JPEG", quality=85)
            target = scan.new_page(width=page.rect.width, height=page.rect.height)
            target.insert_image(target.rect, stream=jpeg.getvalue())
        scan.save(out)
    return out


def test_a_skewed_scan_s_long_lines_read_no_larger_than_its_heading(tmp_path: Path) -> None:
    """A line's size was its box's height: on a page lying 1.2 degrees askew a 480-point body line
    rose 10 points, so it read larger than the headings, and numbered steps ("4. Refit the drain
    plug and tighten it to 25 Nm.") became sections that took the rest of the chapter."""
    with pymupdf.open() as doc:
        page = doc.new_page(width=595, height=842)
        page.insert_text((56, 90), "6.3 Checking the oil level", fontname="hebo", fontsize=15)
        page.insert_textbox(pymupdf.Rect(56, 110, 540, 400), BODY * 2, fontname="tiro", fontsize=11)
        scanned = scan_of(doc, tmp_path / "skewed.pdf", degrees=1.2)
    with pymupdf.open(scanned) as doc, ThreadPoolExecutor(1) as pool:
        (words,) = submit_remainder(doc[0], [], tmp_path, pool).words()
    lines = words_to_lines(words)
    [heading] = [line for line in lines if "Checking" in line.text]
    body = [line.size for line in lines if line.bbox.width > 300]
    assert len(body) >= 4
    assert heading.size >= 1.15 * statistics.median(body) and heading.size > max(body), (heading.size, body)
    assert max(body) <= 1.2 * min(body), body  # one font, one size, however far each line runs


STEPS = [
    "Run the compressor for five minutes, then stop and isolate it.",
    "Remove the filler plug and then the drain plug, and let the oil drain into a container.",
    "Clean the drain plug and fit a new sealing washer (part number CX-W014).",
    "Refit the drain plug and tighten it to 25 Nm.",
    "Fill with 1.8 litres of ISO VG 100 oil and refit the filler plug.",
]


def test_a_scanned_numbered_list_is_one_region(tmp_path: Path) -> None:
    """The layout model boxes each item of a list apart, and its boxes come by score, not by place:
    items were joined only where two happened to be neighbours in that order, so a scanned
    procedure of five steps was stored as four or five regions (a native read makes it one)."""
    steps = "".join(f"<li>{step}</li>" for step in STEPS)
    body = (
        "<h2>6.5 Changing the compressor oil</h2><p>Change the oil every 1,000 hours while it is still warm. "
        f"The sump holds 1.8 litres.</p><ol>{steps}</ol><p>Dispose of the old oil as oily waste.</p>"
    )
    with pymupdf.open() as doc:
        page = doc.new_page(width=595, height=842)
        page.insert_htmlbox(pymupdf.Rect(56, 60, 540, 500), body, css="body { font-family: serif; font-size: 11pt; }")
        scanned = scan_of(doc, tmp_path / "steps.pdf", degrees=0.0)
    [read] = AutoReader().read(scanned).pages
    lists = [region for region in read.regions if region.kind == "list"]
    assert len(lists) == 1, [region.text for region in lists]
    assert [line[:2] for line in lists[0].text.splitlines()] == ["1.", "2.", "3.", "4.", "5."], lists[0].text

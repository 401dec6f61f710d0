"""Text drawn inside embedded pictures: a diagram's labels, a screenshot's window titles.

A picture embedded as an image has no text layer, so a figure region made from it holds no words
and a question about what the diagram shows ("which component does the application go through to
reach the PKCS #11 providers?") can only match the caption. Every embedded image, as far as it lies
in a figure the page keeps (on a scanned page: a figure the detector found in the page image), and
that has no text-layer labels of its own, is read by tesseract in sparse-text mode (labels lie
scattered over a drawing, not in one block); the words it is sure of become the figure's text,
after any text-layer labels.

The reader that owns the OCR pool (``auto``, ``detector``) submits the crops while scanning a page
(:func:`submit_image_text`) and collects the text when the page is finished (:meth:`ImageTextJob.texts`).
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from pathlib import Path

import pymupdf

from docgraph.ingest.floats.figures import image_figures
from docgraph.ingest.pdf.lines import TextLine, lines_in
from docgraph.ingest.pdf.ocr import DEFAULT_LANG, DEFAULT_OCR_DPI, OcrJob, OcrWord, submit_boxes
from docgraph.ingest.types import BBox

SPARSE_TEXT_PSM = 11  # tesseract: find as much text as possible, in no particular order
MIN_WORD_CONFIDENCE = 70.0  # below this, words read from photos and screenshots are mostly noise
WORD_CHARS = 4  # a picture's text counts when one word has this many letters or digits
FIGURE_SHARE = 0.5  # share of the smaller of an image and a figure that must overlap for one to show the other


@dataclass(frozen=True, slots=True)
class ImageText:
    """What tesseract read in one embedded image (``box`` in page points)."""

    box: BBox
    text: str


@dataclass(slots=True)
class ImageTextJob:
    boxes: list[BBox]
    job: OcrJob

    def texts(self) -> list[ImageText]:
        """Wait for tesseract; the confident words of each image, in its line order."""
        found = []
        for box, words in zip(self.boxes, self.job.words(), strict=True):
            text = words_text(words)
            if text:
                found.append(ImageText(box, text))
        return found


def images_to_read(page: pymupdf.Page, lines: Sequence[TextLine], figures: Sequence[BBox]) -> list[BBox]:
    """The parts of ``page``'s embedded images worth reading: each image as far as it lies in a
    figure (a scanned page's image only where the detector saw a figure), without text-layer labels."""
    chosen = []
    for image in image_figures(page, lines):
        for figure in figures:
            part = image.intersection(figure)
            if part is None or part.area < FIGURE_SHARE * min(image.area, figure.area):
                continue  # a background or a table's picture: no figure was kept there
            if not lines_in(part, lines):  # with text-layer labels, its labels are in the text layer
                chosen.append(part)
    return chosen


def submit_image_text(
    page: pymupdf.Page,
    lines: Sequence[TextLine],
    figures: Sequence[BBox],
    folder: Path,
    pool: Executor,
    dpi: int = DEFAULT_OCR_DPI,
    lang: str = DEFAULT_LANG,
) -> ImageTextJob | None:
    """OCR the page's pictures (see :func:`images_to_read`) in ``pool``; None when it has none."""
    boxes = images_to_read(page, lines, figures)
    if not boxes:
        return None
    return ImageTextJob(boxes, submit_boxes(page, boxes, folder, pool, dpi, lang, SPARSE_TEXT_PSM, "image"))


def words_text(words: Sequence[OcrWord]) -> str:
    """The confident words (two or more letters or digits, one a letter) joined line by line; nothing
    unless one has at least WORD_CHARS of them (what a photo or a music score yields: "be", "sf")."""
    lines: dict[tuple[int, int, int], list[OcrWord]] = {}
    for word in words:
        if _readable(word):
            lines.setdefault((word.block, word.paragraph, word.line), []).append(word)
    if not any(sum(ch.isalnum() for ch in w.text) >= WORD_CHARS for line in lines.values() for w in line):
        return ""
    return " ".join(" ".join(w.text for w in sorted(line, key=lambda w: w.bbox.x0)) for line in lines.values())


def _readable(word: OcrWord) -> bool:
    alnum = sum(ch.isalnum() for ch in word.text)
    return word.confidence >= MIN_WORD_CONFIDENCE and alnum >= 2 and any(ch.isalpha() for ch in word.text)


def text_in(box: BBox, texts: Sequence[ImageText]) -> list[str]:
    """The text read in the images whose centre lies inside ``box``."""
    return [t.text for t in texts if t.box.centre_in(box)]

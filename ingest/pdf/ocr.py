"""OCR of page crops with the ``tesseract`` command (Debian package ``tesseract-ocr``).

All crops of a page go to one ``tesseract`` process (a list file of images, one "page" each),
which saves a process start and a language-model load per region. Tesseract runs on one
thread (``OMP_THREAD_LIMIT=1``): its OpenMP threads only slow things down on small crops and
starve the detector on a 2-core machine. Crops are rendered in the caller's thread (PyMuPDF is
not thread-safe) and the process can run in a worker thread while the next page is detected.
Word boxes are kept and mapped back to page points.
"""

from __future__ import annotations

import csv
import functools
import io
import math
import os
import shutil
import statistics
import subprocess
from collections.abc import Sequence
from concurrent.futures import Executor, Future
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pymupdf
from PIL import Image

from docgraph.errors import ModelError
from docgraph.ingest.pdf.lines import TextLine
from docgraph.ingest.pdf.text import normalize_chars
from docgraph.ingest.types import BBox

TESSERACT = "tesseract"
DEBIAN_PACKAGE = "tesseract-ocr"
DEFAULT_OCR_DPI = 250  # measured on scans: same word recall as 300 dpi, ~20% less OCR time
MAX_OCR_PIXELS = 60_000_000  # a page is rendered for OCR at no more pixels than this (A0 at 200 dpi)
DEFAULT_LANG = "eng"
BLOCK_PSM = 6  # a region crop is one uniform block of text
PAGE_PSM = 3  # a page (or what is left of it) needs tesseract's own layout analysis
CROP_MARGIN = 3.0  # points around each box: glyphs touching the crop edge are misread
OCR_TIMEOUT_S = 600.0
OCR_FONT = "ocr"
_WORD_LEVEL = "5"

Clip = tuple[float, float, float, float]  # x0, y0, x1, y1 in page points


@dataclass(frozen=True, slots=True)
class OcrWord:
    """One recognised word; ``bbox`` in image pixels or, once mapped, in page points."""

    text: str
    bbox: BBox
    confidence: float  # 0-100, tesseract's word confidence
    image: int  # index of the crop it came from
    block: int
    paragraph: int
    line: int


def tesseract_available() -> bool:
    return shutil.which(TESSERACT) is not None


def missing_languages(lang: str) -> list[str]:
    """The languages of ``lang`` ("eng", "eng+deu") tesseract has no data for (``--list-langs``;
    ``TESSDATA_PREFIX`` counts); none when tesseract is missing or cannot list them (said elsewhere,
    or by tesseract when it reads)."""
    installed = _installed_languages(shutil.which(TESSERACT), os.environ.get("TESSDATA_PREFIX", ""))
    if installed is None:
        return []
    return [name for name in (part.strip() for part in lang.split("+")) if name and name not in installed]


@functools.lru_cache(maxsize=4)
def _installed_languages(path: str | None, tessdata: str) -> frozenset[str] | None:
    """What ``tesseract --list-langs`` lists (tesseract 3 prints it on stderr); asked once per
    tesseract and data folder."""
    if path is None:
        return None
    try:
        done = subprocess.run([path, "--list-langs"], capture_output=True, timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    lines = (done.stdout + done.stderr).decode("utf-8", "replace").splitlines()
    return frozenset(line.strip() for line in lines if line.strip() and not line.startswith("List of"))


def no_language_installed(lang: str) -> bool:
    """Whether tesseract has data for none of ``lang``'s languages: then it cannot read at all
    (with one of "eng+deu" installed it reads with that one and only warns)."""
    named = [part for part in lang.split("+") if part.strip()]
    return bool(named) and len(missing_languages(lang)) == len(named)


def missing_language_message(missing: Sequence[str]) -> str:
    """What languages of DOCGRAPH_OCR_LANG without tesseract data mean, and the remedy."""
    named = ", ".join(f"`{lang}`" for lang in missing)
    packages = " ".join(language_package(lang) for lang in missing)
    return f"tesseract has no {named} language data (DOCGRAPH_OCR_LANG; apt-get install {packages})"


def language_package(lang: str) -> str:
    """Debian's package of a tesseract language: ``chi_sim`` -> ``tesseract-ocr-chi-sim``."""
    return f"{DEBIAN_PACKAGE}-{lang.strip().lower().replace('_', '-')}"


def require_tesseract() -> str:
    path = shutil.which(TESSERACT)
    if path is None:
        raise ModelError(
            f"OCR needs the `{TESSERACT}` command, which is not installed: "
            f"apt-get install {DEBIAN_PACKAGE} (Debian/Ubuntu package {DEBIAN_PACKAGE})"
        )
    return path


def ocr_image_files(
    paths: Sequence[Path],
    lang: str = DEFAULT_LANG,
    psm: int = BLOCK_PSM,
    dpi: int = DEFAULT_OCR_DPI,
    remove: bool = False,
) -> list[list[OcrWord]]:
    """Words per image (boxes in image pixels), all images in one tesseract run; ``remove`` deletes them after."""
    if not paths:
        return []
    exe = require_tesseract()
    if len(paths) == 1:
        source = paths[0]
    else:
        source = paths[0].with_name(paths[0].stem + "-list.txt")
        source.write_text("".join(f"{p}\n" for p in paths), encoding="utf-8")
    try:
        return parse_tsv(_run_tesseract(exe, source, lang, psm, dpi), len(paths))
    finally:
        if remove:  # crops of a long document would otherwise pile up until the read ends
            for path in {*paths, source}:
                path.unlink(missing_ok=True)


def _run_tesseract(exe: str, source: Path, lang: str, psm: int, dpi: int) -> str:
    env = {**os.environ, "OMP_THREAD_LIMIT": "1"}
    command = [exe, str(source), "-", "-l", lang, "--psm", str(psm), "--dpi", str(dpi), "tsv"]
    try:
        done = subprocess.run(command, capture_output=True, env=env, timeout=OCR_TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired as exc:
        raise ModelError(f"tesseract ran past {OCR_TIMEOUT_S:.0f}s") from exc
    if done.returncode != 0:
        if no_language_installed(lang):  # tesseract's words name a data file, not the setting or package
            raise ModelError(missing_language_message(missing_languages(lang)))
        message = " ".join(done.stderr.decode("utf-8", "replace").split())[:300]
        raise ModelError(f"tesseract failed (exit {done.returncode}): {message}")
    return done.stdout.decode("utf-8", "replace")


def parse_tsv(tsv: str, images: int) -> list[list[OcrWord]]:
    """Tesseract's TSV output into words per image (``page_num`` is the 1-based image index)."""
    words: list[list[OcrWord]] = [[] for _ in range(images)]
    reader = csv.DictReader(io.StringIO(tsv), delimiter="\t", quoting=csv.QUOTE_NONE)
    for row in reader:
        if row.get("level") != _WORD_LEVEL:
            continue
        text = normalize_chars(row.get("text") or "").strip()
        index = int(row["page_num"]) - 1
        if not text or not 0 <= index < images:
            continue
        left, top = float(row["left"]), float(row["top"])
        box = BBox(left, top, left + float(row["width"]), top + float(row["height"]))
        words[index].append(
            OcrWord(
                text, box, float(row["conf"]), index, int(row["block_num"]), int(row["par_num"]), int(row["line_num"])
            )
        )
    return words


@dataclass(slots=True)
class OcrJob:
    """Crops of one page sent to tesseract; :meth:`words` waits for it and maps boxes to page points."""

    clips: list[Clip]
    dpi: int
    future: Future[list[list[OcrWord]]]

    def words(self) -> list[list[OcrWord]]:
        scale = 72.0 / self.dpi
        per_image = self.future.result()
        return [[_to_page(w, clip, scale) for w in words] for words, clip in zip(per_image, self.clips, strict=True)]


def render(page: pymupdf.Page, dpi: float, clip: Clip | None = None, gray: bool = True) -> npt.NDArray[np.uint8]:
    """The page (or ``clip`` of it) rendered at ``dpi``: an (H, W) grey or (H, W, 3) RGB array."""
    handle: Any = page
    colorspace = pymupdf.csGRAY if gray else pymupdf.csRGB
    zoom = dpi / 72.0  # a matrix, not ``dpi=``: PyMuPDF rounds dpi to an integer
    matrix: Any = pymupdf.Matrix
    pixmap = handle.get_pixmap(matrix=matrix(zoom, zoom), clip=clip, colorspace=colorspace, alpha=False)
    channels = 1 if gray else 3
    rows = np.frombuffer(pixmap.samples, dtype=np.uint8).reshape(pixmap.height, pixmap.stride)
    pixels = rows[:, : pixmap.width * channels].copy()
    return pixels if gray else pixels.reshape(pixmap.height, pixmap.width, 3)


def crop_clip(page: pymupdf.Page, box: BBox, margin: float = CROP_MARGIN) -> Clip:
    area = page.rect
    return (
        max(area.x0, box.x0 - margin),
        max(area.y0, box.y0 - margin),
        min(area.x1, box.x1 + margin),
        min(area.y1, box.y1 + margin),
    )


def submit_boxes(
    page: pymupdf.Page,
    boxes: Sequence[BBox],
    folder: Path,
    pool: Executor,
    dpi: int = DEFAULT_OCR_DPI,
    lang: str = DEFAULT_LANG,
    psm: int = BLOCK_PSM,
    name: str = "box",
) -> OcrJob:
    """Render each box of ``page`` at ``dpi`` into ``folder`` and OCR the crops in ``pool``
    (tesseract page segmentation mode ``psm``; ``name`` keeps the crop files of callers apart)."""
    require_tesseract()
    dpi = capped_dpi(page.rect.width, page.rect.height, dpi)
    clips = [crop_clip(page, box) for box in boxes]
    paths = []
    for k, clip in enumerate(clips):
        path = folder / f"p{page.number + 1}-{name}{k}.pgm"
        Image.fromarray(render(page, dpi, clip)).save(path)
        paths.append(path)
    return OcrJob(clips, dpi, pool.submit(ocr_image_files, paths, lang, psm, dpi, True))


def submit_remainder(
    page: pymupdf.Page,
    covered: Sequence[BBox],
    folder: Path,
    pool: Executor,
    dpi: int = DEFAULT_OCR_DPI,
    lang: str = DEFAULT_LANG,
) -> OcrJob:
    """OCR the whole page with the ``covered`` boxes painted over in the paper's grey (its median
    pixel): text no region box holds. Painted white, the noise of a grey scan's paper beside them
    read as ink, and tesseract found no text at all on the rest of the page."""
    require_tesseract()
    dpi = capped_dpi(page.rect.width, page.rect.height, dpi)
    pixels = render(page, dpi)
    zoom = dpi / 72.0
    painted = np.zeros(pixels.shape, dtype=bool)
    for box in covered:
        x0, y0, x1, y1 = crop_clip(page, box, margin=1.0)
        painted[max(0, int(y0 * zoom)) : int(y1 * zoom) + 1, max(0, int(x0 * zoom)) : int(x1 * zoom) + 1] = True
    rest = pixels[~painted]  # the paper is what the boxes leave (a dark photo in one is not paper)
    pixels[painted] = int(np.median(rest)) if rest.size else 255
    path = folder / f"p{page.number + 1}-rest.pgm"
    Image.fromarray(pixels).save(path)
    height, width = pixels.shape
    full = (page.rect.x0, page.rect.y0, page.rect.x0 + width / zoom, page.rect.y0 + height / zoom)
    return OcrJob([full], dpi, pool.submit(ocr_image_files, [path], lang, PAGE_PSM, dpi, True))


def capped_dpi(width_pt: float, height_pt: float, dpi: int, max_pixels: int = MAX_OCR_PIXELS) -> int:
    """``dpi``, or less for a page so large that it would render past ``max_pixels`` (a 200-inch
    scanned poster at 250 dpi is 2.5 GB of grey pixels, before its copy and its file)."""
    pixels = (width_pt * dpi / 72.0) * (height_pt * dpi / 72.0)
    if pixels <= max_pixels:
        return dpi
    return max(1, int(dpi * math.sqrt(max_pixels / pixels)))


def _to_page(word: OcrWord, clip: Clip, scale: float) -> OcrWord:
    b = word.bbox
    box = BBox(clip[0] + b.x0 * scale, clip[1] + b.y0 * scale, clip[0] + b.x1 * scale, clip[1] + b.y1 * scale)
    return OcrWord(word.text, box, word.confidence, word.image, word.block, word.paragraph, word.line)


def read_by_ocr(line: TextLine) -> bool:
    """Whether tesseract read ``line`` (:func:`words_to_lines` names its font ``OCR_FONT``)."""
    return line.font == OCR_FONT


def words_to_lines(words: Sequence[OcrWord], block_base: int = 0) -> list[TextLine]:
    """Tesseract's lines as :class:`TextLine` records, so the native reader's steps apply.

    The font size is estimated from the ink height of the line's words (:func:`ink_size`), which
    is all OCR knows; it is only compared with other OCR'd lines. ``block`` numbers are offset by
    ``block_base`` so lines from different crops never share a block.
    """
    groups: dict[tuple[int, int, int, int], list[OcrWord]] = {}
    for word in words:
        groups.setdefault((word.image, word.block, word.paragraph, word.line), []).append(word)
    lines = []
    for (image, block, paragraph, _), members in groups.items():
        members.sort(key=lambda w: w.bbox.x0)
        box = members[0].bbox
        for word in members[1:]:
            box = box.union(word.bbox)
        text = " ".join(w.text for w in members)
        chars = sum(1 for ch in text if not ch.isspace())
        block_id = block_base + (image * 1000 + block) * 100 + paragraph
        lines.append(
            TextLine(
                text=text,
                bbox=box,
                size=ink_size(members),
                font=OCR_FONT,
                bold=False,
                mono=False,
                math=0.0,
                block=block_id,
                horizontal=True,
                chars=chars,
            )
        )
    lines.sort(key=lambda ln: (ln.block, ln.bbox.y0, ln.bbox.x0))
    return lines


def ink_size(words: Sequence[OcrWord]) -> float:
    """A line's size: the median height of its words, to the half point. The line's own box is
    no measure: on a page lying askew it grows with the line's length (a 450-point line at one
    degree rises 8 points), so a scan's long body lines looked larger than its headings."""
    return round(statistics.median(w.bbox.height for w in words) * 2) / 2


def words_as_tuples(words: Sequence[OcrWord]) -> list[tuple[float, float, float, float, str, int, int, int]]:
    """Words in PyMuPDF's ``get_text("words")`` shape, for the table helpers in :mod:`ingest.floats.tables`."""
    out = []
    for n, w in enumerate(words):
        out.append(
            (
                w.bbox.x0,
                w.bbox.y0,
                w.bbox.x1,
                w.bbox.y1,
                w.text,
                w.image * 1000 + w.block,
                w.paragraph * 1000 + w.line,
                n,
            )
        )
    return out

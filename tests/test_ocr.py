"""Tesseract OCR of page crops: words and boxes against the real text layer of the same page."""

from __future__ import annotations

import io
import re
import statistics
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pymupdf
import pytest
from PIL import Image

from docgraph.errors import ModelError
from docgraph.ingest.pdf.ocr import (
    DEFAULT_OCR_DPI,
    MAX_OCR_PIXELS,
    OcrWord,
    capped_dpi,
    ocr_image_files,
    parse_tsv,
    render,
    require_tesseract,
    submit_boxes,
    submit_remainder,
    words_to_lines,
)
from docgraph.ingest.types import BBox
from scripts.make_scanned import make_scanned

DEV = Path("/work/shared/bench/dev")
ABSTRACT = BBox(108.3, 278.8, 494.8, 384.4)  # zoo.pdf page 1, second abstract paragraph
INTRO_HEADER = BBox(247.2, 463.9, 355.8, 478.2)  # "1. Introduction"


def tokens(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def recall(found: list[str], expected: list[str]) -> float:
    pool = list(found)
    hits = 0
    for token in expected:
        if token in pool:
            pool.remove(token)
            hits += 1
    return hits / max(1, len(expected))


@pytest.fixture(scope="module")
def scanned_zoo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_scanned(DEV / "zoo.pdf", tmp_path_factory.mktemp("scan") / "zoo-p1.pdf", dpi=200, pages=[1])


def text_layer_words(box: BBox) -> list[tuple[float, float, float, float, str]]:
    with pymupdf.open(DEV / "zoo.pdf") as doc:
        words = doc[0].get_text("words")
    inside = [w for w in words if box.x0 <= (w[0] + w[2]) / 2 <= box.x1 and box.y0 <= (w[1] + w[3]) / 2 <= box.y1]
    return [(w[0], w[1], w[2], w[3], w[4]) for w in inside]


def test_crops_of_a_scan_read_like_the_text_layer(scanned_zoo: Path, tmp_path: Path) -> None:
    with pymupdf.open(scanned_zoo) as doc, ThreadPoolExecutor(1) as pool:
        page = doc[0]
        assert not page.get_text().strip()  # really image-only
        job = submit_boxes(page, [ABSTRACT, INTRO_HEADER], tmp_path, pool)
        abstract, header = job.words()
    truth = text_layer_words(ABSTRACT)
    assert recall(tokens(" ".join(w.text for w in abstract)), tokens(" ".join(w[4] for w in truth))) >= 0.9
    assert tokens(" ".join(w.text for w in header)) == ["1", "introduction"]
    # Word boxes come back in page points, on top of the text layer's boxes for the same words.
    by_text = {w[4]: w for w in truth}
    offsets = []
    for word in abstract:
        if word.text in by_text:
            x0, y0, x1, y1, _ = by_text[word.text]
            offsets.append(abs((word.bbox.x0 + word.bbox.x1) / 2 - (x0 + x1) / 2))
            offsets.append(abs((word.bbox.y0 + word.bbox.y1) / 2 - (y0 + y1) / 2))
    assert len(offsets) > 40 and statistics.median(offsets) < 1.5
    assert all(ABSTRACT.x0 - 4 <= w.bbox.x0 and w.bbox.x1 <= ABSTRACT.x1 + 4 for w in abstract)
    assert not list(tmp_path.iterdir())  # crops are removed once read


def test_remainder_reads_only_what_the_boxes_leave(scanned_zoo: Path, tmp_path: Path) -> None:
    with pymupdf.open(scanned_zoo) as doc, ThreadPoolExecutor(1) as pool:
        page = doc[0]
        covered = [BBox(0, 0, page.rect.width, 460), BBox(0, 480, page.rect.width, page.rect.height)]
        (words,) = submit_remainder(page, covered, tmp_path, pool).words()
    assert tokens(" ".join(w.text for w in words)) == ["1", "introduction"]
    assert all(w.bbox.y0 >= 460 and w.bbox.y1 <= 480 for w in words)


def noisy_grey_scan(src: Path, dst: Path) -> Path:
    """Page 1 of ``src`` as a grey scan: dark paper, sensor noise, salt and pepper, JPEG."""
    with pymupdf.open(src) as source, pymupdf.open() as out:
        page = source[0]
        pixmap = page.get_pixmap(dpi=200, colorspace=pymupdf.csGRAY, alpha=False)
        grey = np.frombuffer(pixmap.samples, dtype=np.uint8).reshape(pixmap.height, pixmap.width).astype(float)
        rng = np.random.default_rng(0)
        grey = 90 + grey * 110 / 255 + rng.normal(0, 18, grey.shape)
        salt = rng.random(grey.shape)
        grey[salt < 0.005], grey[salt > 0.995] = 0, 255
        jpeg = io.BytesIO()
        Image.fromarray(np.clip(grey, 0, 255).astype("uint8")).save(jpeg, "JPEG", quality=85)
        target = out.new_page(width=page.rect.width, height=page.rect.height)
        target.insert_image(target.rect, stream=jpeg.getvalue())
        out.save(dst)
    return dst


def test_the_remainder_of_a_noisy_grey_scan_is_read(tmp_path: Path) -> None:
    """The boxes were painted white: beside them the paper's noise read as ink, and tesseract found
    no word in the rest of the page (a review lost a paragraph, a heading and the furniture)."""
    sample = Path(__file__).resolve().parent.parent / "samples" / "docgraph-sample.pdf"
    scan = noisy_grey_scan(sample, tmp_path / "noisy.pdf")
    with pymupdf.open(sample) as doc:
        truth = [w[4] for w in doc[0].get_text("words") if 170 < w[1] < 300]
    with pymupdf.open(scan) as doc, ThreadPoolExecutor(1) as pool:
        page = doc[0]
        covered = [BBox(0, 0, page.rect.width, 170), BBox(0, 300, page.rect.width, page.rect.height)]
        (words,) = submit_remainder(page, covered, tmp_path, pool).words()
    assert recall(tokens(" ".join(w.text for w in words)), tokens(" ".join(truth))) >= 0.6


def test_the_paper_grey_is_the_rest_of_the_page_not_a_dark_photo_under_a_box(tmp_path: Path) -> None:
    """The grey the boxes are painted in was the whole page's median: a dark photo over most of
    the page made the painted box a dark blob, and the lines beside it were lost."""
    sample = Path(__file__).resolve().parent.parent / "samples" / "docgraph-sample.pdf"
    with pymupdf.open(sample) as source, pymupdf.open() as out:
        page = source[0]
        pixmap = page.get_pixmap(dpi=200, colorspace=pymupdf.csGRAY, alpha=False)
        grey = np.frombuffer(pixmap.samples, dtype=np.uint8).reshape(pixmap.height, pixmap.width).copy()
        top = grey.shape[0] // 4
        noise = np.random.default_rng(0).normal(0, 25, grey[top:].shape)
        grey[top:] = np.clip(40 + noise, 0, 255).astype("uint8")  # a dark photo under the first quarter
        jpeg = io.BytesIO()
        Image.fromarray(grey).save(jpeg, "JPEG", quality=85)
        target = out.new_page(width=page.rect.width, height=page.rect.height)
        target.insert_image(target.rect, stream=jpeg.getvalue())
        out.save(tmp_path / "dark.pdf")
        height, width = page.rect.height, page.rect.width
    with pymupdf.open(tmp_path / "dark.pdf") as doc, ThreadPoolExecutor(1) as pool:
        (words,) = submit_remainder(doc[0], [BBox(0, height / 4, width, height)], tmp_path, pool).words()
    read = tokens(" ".join(w.text for w in words))
    assert {"table", "introduction"} <= set(read), read


def test_words_group_into_lines_with_boxes() -> None:
    words = [
        OcrWord("world", BBox(40, 10, 70, 20), 90, 0, 1, 1, 1),
        OcrWord("Hello", BBox(10, 10, 35, 20), 95, 0, 1, 1, 1),
        OcrWord("Next", BBox(10, 30, 30, 40), 95, 0, 1, 1, 2),
        OcrWord("Other", BBox(10, 10, 30, 20), 95, 1, 1, 1, 1),  # same ids, another crop
    ]
    lines = words_to_lines(words)
    assert [ln.text for ln in lines] == ["Hello world", "Next", "Other"]
    assert lines[0].bbox == BBox(10, 10, 70, 20) and lines[0].chars == 10 and lines[0].size == 10.0
    assert len({ln.block for ln in lines}) == 2  # one block per crop


def test_parse_tsv_reads_word_rows_per_image() -> None:
    tsv = (
        "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext\n"
        "1\t1\t0\t0\t0\t0\t0\t0\t100\t50\t-1\t\n"
        "5\t1\t1\t1\t1\t1\t5\t6\t20\t10\t96.5\tﬁne\n"
        "5\t1\t1\t1\t1\t2\t30\t6\t20\t10\t91\t \n"
        '5\t2\t1\t1\t1\t1\t1\t2\t3\t4\t50\tx"y\n'
    )
    first, second = parse_tsv(tsv, 2)
    assert [(w.text, w.bbox, w.confidence) for w in first] == [("fine", BBox(5, 6, 25, 16), 96.5)]
    assert [(w.text, w.image) for w in second] == [('x"y', 1)]


def test_missing_tesseract_names_the_debian_package(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(ModelError, match=r"apt-get install tesseract-ocr"):
        require_tesseract()
    with pytest.raises(ModelError, match="tesseract-ocr"):
        ocr_image_files([tmp_path / "x.png"])


def test_tesseract_failure_is_a_model_error(tmp_path: Path) -> None:
    broken = tmp_path / "broken.png"
    broken.write_bytes(b"\x89PNG not really")
    with pytest.raises(ModelError, match="tesseract"):
        ocr_image_files([broken, broken])


def test_a_huge_scanned_page_is_rendered_for_ocr_within_the_pixel_cap() -> None:
    """A 200-inch poster at 250 dpi would be 2.5 GB of pixels; it is read at a lower dpi instead."""
    assert capped_dpi(612, 792, DEFAULT_OCR_DPI) == DEFAULT_OCR_DPI  # a letter page as it was
    document = pymupdf.open()
    poster = document.new_page(width=14_400, height=14_400)  # PDF's largest page
    dpi = capped_dpi(poster.rect.width, poster.rect.height, DEFAULT_OCR_DPI)
    pixels = render(poster, dpi)
    assert dpi < DEFAULT_OCR_DPI and pixels.size <= MAX_OCR_PIXELS

"""The detector and auto readers on real pages: born-digital, scanned (made on the fly) and mixed."""

from __future__ import annotations

import io
import os
import re
import subprocess
from pathlib import Path

import pymupdf
import pytest
from PIL import Image

from docgraph.app.config import Settings
from docgraph.app.pipeline.build import reader_build
from docgraph.app.pipeline.readers import READER_NAMES, make_reader, reader_notes
from docgraph.app.resources import SAMPLES_DIR
from docgraph.errors import ConfigError
from docgraph.ingest.floats.detector_tables import table_cells
from docgraph.ingest.page.scan import scan_page
from docgraph.ingest.page.text_layer import bad_char_share, has_good_text_layer, invisible_share
from docgraph.ingest.pdf.lines import TextLine
from docgraph.ingest.readers.auto import AutoReader
from docgraph.ingest.readers.detector import DetectorReader, kind_for_label
from docgraph.ingest.readers.native import NativeReader
from docgraph.ingest.types import BBox, DocumentLayout, PageLayout
from docgraph.records import FURNITURE_KINDS
from scripts.make_scanned import make_scanned

DEV = Path("/work/shared/bench/dev")
SAMPLE_PDF = SAMPLES_DIR / "docgraph-sample.pdf"
PDFS = Path(__file__).parent / "data" / "pdfs"
PAGES = [1, 2]  # zoo.pdf: title page, then a page with a running header and a footnote


def tokens(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def token_recall(found: str, expected: str) -> float:
    pool: dict[str, int] = {}
    for token in tokens(found):
        pool[token] = pool.get(token, 0) + 1
    hits = 0
    wanted = tokens(expected)
    for token in wanted:
        if pool.get(token, 0) > 0:
            pool[token] -= 1
            hits += 1
    return hits / max(1, len(wanted))


def body_text(page: PageLayout) -> str:
    return " ".join(r.text for r in sorted(page.regions, key=lambda r: r.order) if r.kind not in FURNITURE_KINDS)


def subset(src: Path, pages: list[int], out: Path) -> Path:
    with pymupdf.open(src) as doc, pymupdf.open() as part:
        for number in pages:
            part.insert_pdf(doc, from_page=number - 1, to_page=number - 1)
        part.save(out)
    return out


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("detector")


@pytest.fixture(scope="module")
def digital(folder: Path) -> Path:
    return subset(DEV / "zoo.pdf", PAGES, folder / "zoo-digital.pdf")


@pytest.fixture(scope="module")
def native(digital: Path) -> DocumentLayout:
    return NativeReader().read(digital)


@pytest.fixture(scope="module")
def scanned(folder: Path, digital: Path) -> DocumentLayout:
    scan = make_scanned(digital, folder / "zoo-scanned.pdf", dpi=200)
    return DetectorReader().read(scan)


def assert_orders_valid(layout: DocumentLayout) -> None:
    for page in layout.pages:
        orders = sorted(r.order for r in page.regions)
        assert orders == list(range(len(page.regions)))
        furniture = [r.order for r in page.regions if r.kind in FURNITURE_KINDS]
        body = [r.order for r in page.regions if r.kind not in FURNITURE_KINDS]
        assert not furniture or not body or min(furniture) > max(body)  # furniture last


def test_scanned_pages_are_read_by_ocr(scanned: DocumentLayout, native: DocumentLayout) -> None:
    assert scanned.page_count == 2 and scanned.pages_without_text == []
    assert all(p.has_text_layer for p in scanned.pages)  # text now, from OCR
    for ocr_page, text_page in zip(scanned.pages, native.pages, strict=True):
        assert token_recall(body_text(ocr_page), body_text(text_page)) >= 0.9
        assert token_recall(body_text(text_page), body_text(ocr_page)) >= 0.9  # little invented text
    assert_orders_valid(scanned)


def test_scanned_regions_are_typed_and_ordered(scanned: DocumentLayout) -> None:
    first = sorted(scanned.pages[0].regions, key=lambda r: r.order)
    kinds = {r.kind for r in first}
    assert {"title", "section_header", "paragraph"} <= kinds
    title = next(r for r in first if r.kind == "title")
    assert "class and methods for indexed totally" in " ".join(tokens(title.text))
    assert scanned.title == title.text
    headers = [r for r in first if r.kind == "section_header"]
    abstract = next(r for r in headers if tokens(r.text) == ["abstract"])
    intro = next(r for r in headers if tokens(r.text) == ["1", "introduction"])
    assert title.order < abstract.order < intro.order
    assert 240 < intro.bbox.y0 + 0 < 480 and intro.bbox.x0 > 200  # centred heading, where it is printed
    second = scanned.pages[1]
    assert "ordered observations" in " ".join(tokens(second.header_text))  # running header is furniture
    assert any(r.kind == "section_header" and "creation" in tokens(r.text) for r in second.regions)


def test_digital_pages_take_text_from_the_text_layer(digital: Path, native: DocumentLayout) -> None:
    layout = DetectorReader().read(digital)
    for page, text_page in zip(layout.pages, native.pages, strict=True):
        assert token_recall(body_text(page), body_text(text_page)) >= 0.98
        assert token_recall(body_text(text_page), body_text(page)) >= 0.98
    kinds = [r.kind for r in sorted(layout.pages[0].regions, key=lambda r: r.order)]
    assert kinds[0] == "title" and "section_header" in kinds
    assert_orders_valid(layout)


def layout_summary(doc: DocumentLayout) -> list[tuple[int, int, str, str, list[float]]]:
    return [(p.number, r.order, r.kind, r.text, r.bbox.as_list()) for p in doc.pages for r in p.regions]


def test_auto_equals_native_on_born_digital_pages(digital: Path, native: DocumentLayout) -> None:
    reader = AutoReader()
    layout = reader.read(digital)
    assert reader._detector is None  # never loaded: no page needed it
    assert layout_summary(layout) == layout_summary(native)
    assert layout.title == native.title


def test_auto_keeps_the_vector_figures_and_tables_native_finds() -> None:
    # The sample's figure is drawn with vector paths, and its table is ruled: no detection is
    # involved, so auto must not replace them with the (absent) detections of a skipped page.
    native = NativeReader().read(SAMPLE_PDF)
    assert {"figure", "table"} <= {r.kind for p in native.pages for r in p.regions}
    assert layout_summary(AutoReader().read(SAMPLE_PDF)) == layout_summary(native)


def test_auto_ocrs_only_the_scanned_page_of_a_mixed_pdf(folder: Path, digital: Path, native: DocumentLayout) -> None:
    scan = make_scanned(digital, folder / "scan-part.pdf", dpi=200, pages=[2])
    mixed = folder / "mixed.pdf"
    with pymupdf.open(digital) as doc, pymupdf.open(scan) as scanned_doc:
        doc.delete_page(1)
        doc.insert_pdf(scanned_doc)
        doc.save(mixed)
    layout = AutoReader().read(mixed)
    assert [r.text for r in layout.pages[0].regions] == [r.text for r in native.pages[0].regions]
    assert layout.pages[1].has_text_layer
    assert token_recall(body_text(layout.pages[1]), body_text(native.pages[1])) >= 0.9
    # The native reader leaves that page empty, and so does auto without OCR, reading as native does.
    alone = NativeReader().read(mixed)
    assert alone.pages_without_text == [2] and not body_text(alone.pages[1]).strip()
    assert layout_summary(AutoReader(ocr=False).read(mixed)) == layout_summary(alone)


def test_auto_without_tesseract_reads_as_native_and_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    settings = Settings()
    assert settings.reader == "auto"  # the default
    with_ocr = make_reader("auto", settings)
    monkeypatch.setenv("PATH", str(tmp_path))  # no tesseract on it
    without_ocr = make_reader("auto", settings)
    assert isinstance(with_ocr, AutoReader) and with_ocr.ocr
    assert isinstance(without_ocr, AutoReader) and not without_ocr.ocr
    assert reader_notes(with_ocr) == [] and reader_notes(NativeReader()) == []
    assert ["apt-get install tesseract-ocr" in note for note in reader_notes(without_ocr)] == [True]
    assert "ocr eng" in reader_build(with_ocr, settings)
    assert "ocr off" in reader_build(without_ocr, settings)  # stored scans are read again once it is installed


def test_without_tesseract_s_orientation_model_ingest_says_scans_are_read_as_they_lie(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A scan stored upside down was then read as mirrored nonsense without a word of why."""
    tessdata = tmp_path / "tessdata"
    tessdata.mkdir()
    (tessdata / "eng.traineddata").symlink_to(Path("/usr/share/tesseract-ocr/5/tessdata/eng.traineddata"))
    reader = make_reader("auto", Settings())
    assert reader_notes(reader) == []
    monkeypatch.setenv("TESSDATA_PREFIX", str(tessdata))
    [note] = reader_notes(reader)
    assert "scans are read as they lie" in note and "apt-get install tesseract-ocr-osd" in note


def test_text_layer_quality(folder: Path, digital: Path) -> None:
    stamped = make_scanned(digital, folder / "stamped.pdf", dpi=100, pages=[1])
    with pymupdf.open(stamped) as doc:
        doc[0].insert_text((72, 20), "Downloaded from the archive on 2024-01-01", fontsize=8)
        doc.save(folder / "stamped2.pdf")
    with pymupdf.open(folder / "stamped2.pdf") as doc, pymupdf.open(digital) as text_doc:
        stamp_page, text_page = doc[0], text_doc[0]
        stamp_scan = scan_page(stamp_page, use_model=False)
        assert stamp_scan.has_text_layer  # the native check alone would trust the stamp
        assert not has_good_text_layer(stamp_page, stamp_scan)
        assert has_good_text_layer(text_page, scan_page(text_page, use_model=False))
    line = TextLine("abc\ue000\ue001", BBox(0, 0, 10, 10), 10, "f", False, False, 0.0, 0, chars=5)
    assert bad_char_share([line]) == pytest.approx(0.4)


def test_a_slide_on_a_background_picture_is_read_from_its_text(tmp_path: Path) -> None:
    # Little text on a page-sized image, like a scan with a stamp, but large: a slide's own text.
    background = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 360, 203), 0)
    background.set_rect(background.irect, (230, 238, 250))
    with pymupdf.open() as doc:
        page = doc.new_page(width=720, height=405)
        page.insert_image(page.rect, pixmap=background)
        page.insert_text((50, 80), "Feeding programme", fontsize=30)
        for k, item in enumerate(["Penguins fed at 10:30 and 15:00", "Seals receive mackerel at 11:00"]):
            page.insert_text((70, 150 + 40 * k), "\u2022 " + item, fontsize=18)
        doc.save(tmp_path / "slide.pdf")
    with pymupdf.open(tmp_path / "slide.pdf") as doc:
        assert has_good_text_layer(doc[0], scan_page(doc[0], use_model=False))
    for reader in (NativeReader(), AutoReader()):
        [page] = reader.read(tmp_path / "slide.pdf").pages
        kinds = [r.kind for r in sorted(page.regions, key=lambda r: r.order)]
        assert kinds == ["title", "list"]  # the picture behind them is no figure swallowing them
        assert any("Seals receive mackerel at 11:00" in r.text for r in page.regions if r.kind == "list")


def searchable_scan(src: Path, folder: Path) -> Path:
    """A searchable scan as OCR software makes it: page images under tesseract's invisible text."""
    images = []
    with pymupdf.open(src) as doc:
        for page in doc:
            image = folder / f"searchable-{page.number}.png"
            page.get_pixmap(dpi=200, colorspace=pymupdf.csGRAY).save(image)
            images.append(str(image))
    (folder / "searchable.txt").write_text("\n".join(images) + "\n")
    subprocess.run(
        ["tesseract", str(folder / "searchable.txt"), str(folder / "searchable"), "pdf"],
        check=True,
        capture_output=True,
        env={**os.environ, "OMP_THREAD_LIMIT": "1"},
    )
    return folder / "searchable.pdf"


def test_a_searchable_scan_is_read_as_a_scan_not_from_its_invisible_ocr_layer(
    folder: Path, digital: Path, native: DocumentLayout
) -> None:
    searchable = searchable_scan(digital, folder)
    with pymupdf.open(searchable) as doc:
        for page in doc:
            assert invisible_share(page) == 1.0
            assert not has_good_text_layer(page, scan_page(page, use_model=False))
    # Read from that layer, its one-size-per-line glyphs of one width make the text typewritten:
    # read as text, not code (before typewritten documents were, every paragraph was code).
    as_text = NativeReader().read(searchable)
    assert sum(r.kind == "code" for p in as_text.pages for r in p.regions) <= 1
    layout = AutoReader().read(searchable)
    assert not [r for p in layout.pages for r in p.regions if r.kind == "code"]
    for page, text_page in zip(layout.pages, native.pages, strict=True):
        assert token_recall(body_text(page), body_text(text_page)) >= 0.9


def test_kinds_for_doclaynet_labels() -> None:
    expected = {
        "Caption": "caption",
        "Footnote": "footnote",
        "Formula": "formula",
        "List-item": "list",
        "Page-footer": "page_footer",
        "Page-header": "page_header",
        "Picture": "figure",
        "Section-header": "section_header",
        "Table": "table",
        "Text": "paragraph",
        "Title": "title",
    }
    assert {label: kind_for_label(label) for label in expected} == expected
    assert kind_for_label("Figure") == "figure" and kind_for_label("something-new") == "paragraph"


def test_table_cells_from_word_gaps() -> None:
    rows = [["Name", "Qty", "Price"], ["apple", "3", "1.20"], ["banana split", "12", "0.50"]]
    words = []
    for r, row in enumerate(rows):
        y = 100 + 14 * r
        for c, text in enumerate(row):
            x = 50 + 120 * c
            for k, part in enumerate(text.split()):
                words.append((x + 40 * k, y, x + 40 * k + 35, y + 10, part, 0, r, c * 10 + k))
    cells = table_cells(BBox(45, 95, 400, 145), words)
    assert cells == rows
    assert table_cells(BBox(45, 95, 400, 145), words[:2]) is None  # too few words for a grid
    # a text layer's "|" is a cell of an operators' table, not a rule read by OCR: it stays
    operators = [["Operator", "Meaning"], ["|", "bitwise or"], ["||", "logical or"]]
    words = [
        (50 + 120 * c, 100 + 14 * r, 50 + 120 * c + 35, 110 + 14 * r, text, 0, r, c)
        for r, row in enumerate(operators)
        for c, text in enumerate(row)
    ]
    assert table_cells(BBox(45, 95, 400, 145), words) == operators


def test_readers_are_registered(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("AZURE_DI_ENDPOINT", "AZURE_DI_KEY", "DOCGRAPH_AZURE_DI_ENDPOINT", "DOCGRAPH_AZURE_DI_KEY"):
        monkeypatch.delenv(name, raising=False)
    assert set(READER_NAMES) == {"native", "detector", "auto", "azure"}
    settings = Settings(max_pages=7)
    assert make_reader("detector", settings).name == "detector"
    auto = make_reader("auto", settings)
    assert isinstance(auto, AutoReader) and auto.max_pages == 7
    with pytest.raises(ConfigError, match=r"AZURE_DI_ENDPOINT.*AZURE_DI_KEY"):
        make_reader("azure", settings)
    assert make_reader("azure", Settings(azure_di_endpoint="https://x.example", azure_di_key="k")).name == "azure"
    with pytest.raises(ConfigError, match="choose one of"):
        make_reader("ocr", settings)


class NoDetector:
    """A layout detector that must not be asked: blank pages have nothing to detect or OCR."""

    input_size = (640, 640)

    def detect(self, image: object) -> list[object]:
        raise AssertionError("a blank page went to the layout detector")


def test_blank_pages_skip_detection_and_ocr(tmp_path: Path, digital: Path) -> None:
    blank = tmp_path / "blank.pdf"
    with pymupdf.open() as doc:
        for _ in range(40):
            doc.new_page()
        doc.save(blank, garbage=4, deflate=True)
    layout = AutoReader(detector=NoDetector()).read(blank)  # type: ignore[arg-type]
    assert len(layout.pages) == 40 and not any(page.regions for page in layout.pages)
    assert layout.pages_without_text == list(range(1, 41))
    # A blank page among text pages changes nothing else either.
    mixed = tmp_path / "mixed.pdf"
    with pymupdf.open(digital) as doc:
        doc.new_page(1)
        doc.save(mixed)
    read = AutoReader(detector=NoDetector()).read(mixed)  # type: ignore[arg-type]
    assert not read.pages[1].regions and [p.number for p in read.pages if p.regions] == [1, 3]


def skewed_scan(out: Path, degrees: float) -> Path:
    """The sample's first page scanned at 150 dpi, lying ``degrees`` askew on the glass."""
    with pymupdf.open(SAMPLE_PDF) as sample, pymupdf.open() as scan:
        page = sample[0]
        pixmap = page.get_pixmap(dpi=150, colorspace=pymupdf.csGRAY)
        image = Image.frombytes("L", (pixmap.width, pixmap.height), pixmap.samples).rotate(degrees, fillcolor=255)
        jpeg = io.BytesIO()
        image.save(jpeg, "JPEG", quality=85)
        target = scan.new_page(width=page.rect.width, height=page.rect.height)
        target.insert_image(target.rect, stream=jpeg.getvalue())
        scan.save(out)
    return out


def test_a_scan_lying_a_few_degrees_askew_keeps_every_line(tmp_path: Path) -> None:
    """The boxes of neighbouring lines of a skewed page overlap by half: every other line was
    dropped as read twice (247 of 494 words kept at 3 degrees)."""
    with pymupdf.open(SAMPLE_PDF) as sample:
        expected = sample[0].get_text()
    layout = AutoReader().read(skewed_scan(tmp_path / "skewed.pdf", 3.0))
    assert token_recall(" ".join(r.text for r in layout.pages[0].regions), expected) >= 0.9


def test_a_scanned_ruled_table_keeps_its_cells(tmp_path: Path) -> None:
    """Table crops went to tesseract's block mode, whose lines the rules break: a scanned table of
    20 cells read as '\\Birch 1655 AB'."""
    with pymupdf.open(PDFS / "water-report.pdf") as report, pymupdf.open() as scan:
        table = report[5].find_tables().tables[0]
        x0, y0, x1, y1 = table.bbox
        clip = pymupdf.Rect(x0 - 10, y0 - 10, x1 + 10, y1 + 10)
        pixmap = report[5].get_pixmap(dpi=150, clip=clip, colorspace=pymupdf.csGRAY)
        page = scan.new_page(width=612, height=792)
        page.insert_image(pymupdf.Rect(50, 100, 50 + clip.width, 100 + clip.height), stream=pixmap.tobytes("png"))
        scan.save(tmp_path / "table.pdf")
        cells = [str(cell) for row in table.extract() for cell in row]
    layout = AutoReader().read(tmp_path / "table.pdf")
    [read] = [r for r in layout.pages[0].regions if r.kind == "table"]
    assert token_recall(read.text, " ".join(cells)) >= 0.9, read.text


def test_a_scanned_table_with_vertical_rules_gets_its_cell_grid(tmp_path: Path) -> None:
    """OCR reads a table's vertical rules as "|" words: two of its six rows then crossed each column
    gutter, no gutter was left, and the table was stored as loose lines ("Seal pool 1,150 6") in a
    box cut to its words, so a question about the seal pool's area missed it."""
    layout = AutoReader().read(make_scanned(SAMPLE_PDF, tmp_path / "table.pdf", dpi=200, pages=[2]))
    [table] = [r for r in layout.pages[0].regions if r.kind == "table"]
    assert "| Seal pool | 1,150 | 6 |" in table.text and "| Red panda forest | 420 | 2 |" in table.text
    with pymupdf.open(SAMPLE_PDF) as sample:
        [drawn] = sample[1].find_tables().tables
    x0, y0, x1, y1 = drawn.bbox
    assert table.bbox.x0 <= x0 + 2 and table.bbox.y0 <= y0 + 2 and table.bbox.x1 >= x1 - 2 and table.bbox.y1 >= y1 - 2

"""Scanned pages through the default reader, from the command line: OCR'd with tesseract, and
without it the rest of the PDF still ingests and the user is told how to get the scans read."""

from __future__ import annotations

import io
import json
import os
import uuid
from pathlib import Path

import numpy as np
import pymupdf
import pytest
from PIL import Image
from typer.testing import CliRunner

from docgraph.app.cli.main import app
from docgraph.app.resources import SAMPLES_DIR
from scripts.make_scanned import make_scanned

SAMPLE = SAMPLES_DIR / "docgraph-sample.pdf"


@pytest.fixture
def cli_env(local_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOCGRAPH_HOME", str(local_home))
    monkeypatch.setenv("DOCGRAPH_STORE", "")
    monkeypatch.setenv("DOCGRAPH_GRAPH", f"cli_{uuid.uuid4().hex[:8]}")
    monkeypatch.delenv("DOCGRAPH_READER", raising=False)  # the default reader


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, " ".join(result.stdout.split()), " ".join(result.stderr.split())


def mixed_sample(folder: Path) -> Path:
    """The sample PDF with its page 2 replaced by a 200 dpi scan of itself."""
    scan = make_scanned(SAMPLE, folder / "page2-scan.pdf", dpi=200, pages=[2])
    mixed = folder / "mixed-sample.pdf"
    with pymupdf.open(SAMPLE) as doc, pymupdf.open(scan) as scanned:
        doc.insert_pdf(scanned, start_at=1)
        doc.delete_page(2)
        doc.save(mixed)
    return mixed


def page_text(page: int) -> str:
    code, out, _ = run(
        "cypher",
        "MATCH (r:Region {doc_id: 'mixed-sample', page: $page}) RETURN r.text AS text ORDER BY r.order",
        "--param",
        f"page={page}",
        "--json",
    )
    assert code == 0
    return " ".join(row["text"] for row in json.loads(out))


def ocr_marks() -> dict[int, set[bool]]:
    """Page -> the ``ocr`` values of its regions that hold text."""
    code, out, _ = run(
        "cypher",
        "MATCH (r:Region {doc_id: 'mixed-sample'}) WHERE r.text <> '' RETURN r.page AS page, r.ocr AS ocr",
        "--json",
    )
    assert code == 0
    marks: dict[int, set[bool]] = {}
    for row in json.loads(out):
        marks.setdefault(row["page"], set()).add(row["ocr"])
    return marks


def test_scanned_page_is_ocrd_by_default_and_without_tesseract_the_rest_still_ingests(
    cli_env: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mixed = mixed_sample(tmp_path)
    with pymupdf.open(mixed) as doc:
        assert doc.page_count == 3 and not doc[1].get_text().strip()

    path = os.environ["PATH"]
    (tmp_path / "bin").mkdir()
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))  # no tesseract on it
    code, out, err = run("ingest", str(mixed), "--no-embed")
    assert code == 0, err
    assert "OCR off: the `tesseract` command is not installed" in err
    assert "1 page(s) have no text: OCR would read them: apt-get install tesseract-ocr" in out
    assert page_text(2) == ""
    assert "Harbour Zoo" in page_text(1)
    assert ocr_marks() == {1: {False}, 3: {False}}
    code, out, _ = run("ingest", str(mixed), "--no-embed", "--force", "--json")
    assert code == 0
    [report] = json.loads(out)
    assert [n for n in report["notes"] if n.startswith("OCR off")]  # scripts see it too
    assert "1 page(s) have no text: OCR would read them: apt-get install tesseract-ocr" in report["notes"]

    monkeypatch.setenv("PATH", path)
    code, out, err = run("ingest", str(mixed), "--no-embed", "--json")
    assert code == 0, err
    [report] = json.loads(out)
    # The build named the missing OCR, so the file is read again now that tesseract is there.
    assert report["status"] == "replaced" and report["stats"]["pages_without_text"] == 0
    assert report["stats"]["ocr_pages"] == 1 and report["stats"]["ocr_regions"] >= 3
    assert "OCR off" not in err and report["notes"] == [
        "embeddings off (as asked): vector search and the GNN will not see these documents"
    ]
    assert "keeper's log records every feeding round" in page_text(2).replace("\u2019", "'")
    # The graph marks the scanned page's text as read by OCR, and only that page's.
    assert ocr_marks() == {1: {False}, 2: {True}, 3: {False}}


def test_an_ocr_language_without_tesseract_data_reads_the_rest_and_names_the_package(
    cli_env: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """DOCGRAPH_OCR_LANG=deu without its data failed the whole file, born-digital pages included,
    in tesseract's words ("Error opening data file .../deu.traineddata")."""
    mixed = mixed_sample(tmp_path)
    remedy = "tesseract has no `xqz` language data (DOCGRAPH_OCR_LANG; apt-get install tesseract-ocr-xqz)"
    monkeypatch.setenv("DOCGRAPH_OCR_LANG", "xqz")
    code, out, err = run("ingest", str(mixed), "--no-embed")
    assert code == 0, err
    assert f"OCR off: scanned pages and text in pictures stay unread: {remedy}" in err
    assert "1 page(s) have no text: OCR would read them: apt-get install tesseract-ocr-xqz" in out
    assert "Harbour Zoo" in page_text(1) and page_text(2) == ""
    # the detector reader reads the text layer where it can: the scanned page fails, in those words
    code, out, err = run("ingest", str(mixed), "--no-embed", "--force", "--reader", "detector")
    assert code == 1
    assert f"scanned pages and text in pictures fail to read: {remedy}" in err
    assert f"failed: {remedy}" in err and "Error opening data file" not in out + err
    # with one language tesseract has, it reads with that one, and says which it reads without
    monkeypatch.setenv("DOCGRAPH_OCR_LANG", "eng+xqz")
    code, out, err = run("ingest", str(mixed), "--no-embed", "--force")
    assert code == 0, err
    assert f"OCR reads without xqz: {remedy}" in err
    assert "keeper's log records every feeding round" in page_text(2).replace("\u2019", "'")


def test_the_native_reader_says_which_pages_hold_text_without_usable_characters(cli_env: None, tmp_path: Path) -> None:
    """Fonts without a ToUnicode map: the native reader stored "������" without a word, where a
    scan's empty pages get a hint; the auto reader reads such pages by OCR."""
    garbled = tmp_path / "no-unicode.pdf"
    with pymupdf.open(SAMPLE) as doc:
        for page in doc:
            for font in page.get_fonts(full=True):
                doc.xref_set_key(font[0], "ToUnicode", "null")
        doc.save(garbled, garbage=3)
    code, out, err = run("ingest", str(garbled), "--no-embed", "--reader", "native")
    assert code == 0, err
    hint = "3 page(s) hold text whose glyphs have no usable characters (a font without a ToUnicode map)"
    assert f"{hint}: `--reader auto` reads them with OCR" in out
    code, out, err = run("ingest", str(garbled), "--no-embed", "--force", "--json")
    assert code == 0, err
    [report] = json.loads(out)
    assert report["stats"]["pages_with_unreadable_text"] == 0 and report["stats"]["ocr_pages"] == 3


def turned_sample(folder: Path) -> Path:
    """The sample PDF with page 1 scanned as fed in sideways and page 2 upside down."""
    sideways = make_scanned(SAMPLE, folder / "sideways.pdf", dpi=200, pages=[1], turn=90)
    upside_down = make_scanned(SAMPLE, folder / "upside-down.pdf", dpi=200, pages=[2], turn=180)
    turned = folder / "turned-sample.pdf"
    with pymupdf.open(sideways) as doc, pymupdf.open(upside_down) as second, pymupdf.open(SAMPLE) as sample:
        doc.insert_pdf(second)
        doc.insert_pdf(sample, from_page=2, to_page=2)
        doc.save(turned)
    return turned


def words(text: str) -> set[str]:
    return {word for word in "".join(c if c.isalnum() else " " for c in text.lower()).split() if len(word) > 2}


def grey(png: Path | bytes, size: tuple[int, int]) -> np.ndarray:
    image = Image.open(io.BytesIO(png) if isinstance(png, bytes) else png).convert("L").resize(size)
    return np.asarray(image, dtype=np.float32)


def test_scans_fed_sideways_or_upside_down_are_read_upright_and_rendered_so(cli_env: None, tmp_path: Path) -> None:
    """They were read as they lay: the layout model and OCR made noise of the text."""
    code, out, err = run("ingest", str(turned_sample(tmp_path)), "--no-embed", "--json")
    assert code == 0, err
    code, out, _ = run(
        "cypher",
        "MATCH (p:Page {doc_id: 'turned-sample'}) RETURN p.number AS n, p.turn AS turn, p.width AS w, p.height AS h",
        "--json",
    )
    pages = {row["n"]: (row["turn"], row["w"], row["h"]) for row in json.loads(out)}
    assert pages == {1: (90, 595.0, 842.0), 2: (180, 595.0, 842.0), 3: (None, 595.0, 842.0)}
    with pymupdf.open(SAMPLE) as sample:
        for number in (1, 2):
            expected = words(sample[number - 1].get_text())
            found = words(" ".join(row["text"] for row in page_rows(number)))
            assert len(expected & found) >= 0.8 * len(expected), (number, sorted(expected - found))
            # The render (regions boxed) stands as the original page does, not as the scan lay.
            out_png = tmp_path / f"page{number}.png"
            code, _, err = run("render", "turned-sample", str(number), "-o", str(out_png), "--json")
            assert code == 0, err
            upright = sample[number - 1].get_pixmap(dpi=40).tobytes("png")
            size = (238, 337)
            rendered, original = grey(out_png, size), grey(upright, size)
            assert np.abs(rendered - original).mean() * 2 < np.abs(rendered - original[::-1, ::-1]).mean()
            assert Image.open(out_png).width < Image.open(out_png).height


def page_rows(page: int) -> list[dict[str, str]]:
    code, out, _ = run(
        "cypher",
        "MATCH (r:Region {doc_id: 'turned-sample', page: $page}) RETURN r.text AS text ORDER BY r.order",
        "--param",
        f"page={page}",
        "--json",
    )
    assert code == 0
    rows: list[dict[str, str]] = json.loads(out)
    return rows


def test_a_blank_page_is_not_said_to_have_been_read_by_ocr(cli_env: None, tmp_path: Path) -> None:
    """Blank pages skip OCR, yet the hint said "OCR found no text on them either"."""
    pdf = tmp_path / "with-blank.pdf"
    with pymupdf.open() as doc:
        doc.new_page().insert_text((72, 72), "Feeding times are posted at the gate.")
        doc.new_page()  # blank
        doc.save(pdf)
    code, out, err = run("ingest", str(pdf), "--no-embed", "--json")
    assert code == 0, err
    [report] = json.loads(out)
    assert report["stats"]["pages_without_text"] == 1 and report["stats"]["ocr_pages"] == 0
    assert report["notes"][-1] == (
        "1 page(s) have no text: they are blank, or OCR found no text on them either (blank pages are not sent to OCR)"
    )

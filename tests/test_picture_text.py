"""Text drawn inside embedded pictures (a diagram's labels) is read by OCR into the figure's region.

tests/data/pdfs/gnutls-p119.pdf is page 119 of the GnuTLS manual (GNU FDL 1.3+, as Debian's
gnutls-doc ships it). Its figure "PKCS #11 module usage" is a PNG: the boxes "User Application",
"GnuTLS", "Other crypto package" and the providers exist only as pixels, so before, the figure
region was empty and a question about what the diagram shows could match only the prose around it.
"""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest
from PIL import Image, ImageDraw, ImageFont

from docgraph.app.llm.service import ask
from docgraph.app.pipeline.build import build_ingest_pipeline, reader_build
from docgraph.app.pipeline.readers import make_reader
from docgraph.app.retrieval.registry import make_retriever
from docgraph.app.stores.falkordb_store import FalkorDBStore
from docgraph.ingest.floats.image_text import images_to_read
from docgraph.ingest.page.scan import scan_page
from docgraph.ingest.pdf.ocr import tesseract_available
from docgraph.ingest.readers.auto import AutoReader
from docgraph.ingest.types import DocumentLayout, Region
from docgraph.models.encoder_loader import load_encoder
from tests.llm_data import no_llm_settings

DIAGRAM = Path(__file__).parent / "data" / "pdfs" / "gnutls-p119.pdf"
LABELS = ("User Application", "Other crypto package", "Trusted Platform Module", "Gnome Keyring Daemon")

pytestmark = pytest.mark.skipif(not tesseract_available(), reason="needs tesseract (apt-get install tesseract-ocr)")


@pytest.fixture(scope="module")
def manual() -> DocumentLayout:
    return AutoReader().read(DIAGRAM)


def figures(layout: DocumentLayout) -> list[Region]:
    return [r for p in layout.pages for r in p.regions if r.kind == "figure"]


def test_the_diagram_s_labels_are_the_figure_s_text(manual: DocumentLayout) -> None:
    [figure] = figures(manual)
    for label in LABELS:
        assert label in figure.text
    # Only the figure holds them: the prose around it is read from the text layer as before.
    others = " ".join(r.text for p in manual.pages for r in p.regions if r.kind != "figure")
    assert "Other crypto package" not in others
    assert "PKCS #11 is plugin API allowing applications to access cryptographic operations" in others
    # The graph says which text tesseract read: the figure's, and no other region's.
    assert figure.ocr
    assert not any(r.ocr for p in manual.pages for r in p.regions if r is not figure)


def test_without_picture_ocr_the_figure_has_no_text() -> None:
    [figure] = figures(AutoReader(image_text=False).read(DIAGRAM))
    assert figure.text == "" and not figure.ocr


def test_the_build_says_whether_pictures_are_read(tmp_path: Path) -> None:
    on, off = no_llm_settings(tmp_path), no_llm_settings(tmp_path, picture_ocr=False)
    assert reader_build(make_reader("auto", on), on).endswith("ocr eng and pictures)")
    assert reader_build(make_reader("auto", off), off).endswith("ocr eng)")  # stored documents are read again
    assert reader_build(make_reader("native", on), on) == "reader native"


def _page_with_picture(out: Path, labels: str, text_layer_labels: bool) -> pymupdf.Page:
    image = Image.new("L", (900, 300), 255)
    draw = ImageDraw.Draw(image)
    draw.rectangle((20, 20, 880, 280), outline=0, width=4)
    draw.text((80, 110), labels, fill=0, font=ImageFont.load_default(size=56))
    png = out.with_suffix(".png")
    image.save(png)
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    page.insert_textbox(pymupdf.Rect(72, 72, 540, 200), "Body text of the page, a sentence or two. " * 6, fontsize=10)
    rect = pymupdf.Rect(100, 250, 460, 370)
    page.insert_image(rect, filename=str(png))
    if text_layer_labels:
        page.insert_text((130, 315), "Labels set in the text layer over it", fontsize=10)
    page.insert_text((200, 390), "Figure 1: A picture.", fontsize=9)
    return page


def test_a_picture_whose_labels_are_in_the_text_layer_is_not_read(tmp_path: Path) -> None:
    plain = _page_with_picture(tmp_path / "plain.pdf", "Storage Controller", text_layer_labels=False)
    scan = scan_page(plain, use_model=False)
    assert len(images_to_read(plain, scan.lines, scan.figures)) == 1
    labelled = _page_with_picture(tmp_path / "labelled.pdf", "Storage Controller", text_layer_labels=True)
    scan = scan_page(labelled, use_model=False)
    assert scan.figures and images_to_read(labelled, scan.lines, scan.figures) == []
    assert images_to_read(plain, scan_page(plain, use_model=False).lines, []) == []  # no figure kept there


def test_a_question_about_the_diagram_finds_the_figure(falkordb_store: FalkorDBStore, tmp_path: Path) -> None:
    settings = no_llm_settings(tmp_path)
    report = build_ingest_pipeline(falkordb_store, settings, embed=False).ingest(DIAGRAM)
    assert report.status == "ingested", report.error
    retriever = make_retriever("bm25-region", falkordb_store, load_encoder())

    question = "Which component besides GnuTLS does the user application go through to reach the providers?"

    first = retriever.retrieve(question, k=3)[0]
    assert first.kind == "figure" and "Other crypto package" in first.text
    answer = ask(question, falkordb_store, settings, retriever, k=3)  # no LLM: the passages, quoted
    assert answer.mode == "extractive" and "Other crypto package" in answer.answer.splitlines()[0]

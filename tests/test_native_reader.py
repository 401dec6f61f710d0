"""The native reader on the real dev PDFs, and its input validation on broken files."""

from __future__ import annotations

import hashlib
import re
import shutil
from pathlib import Path

import pymupdf
import pytest

from docgraph.errors import BadDocumentError
from docgraph.ingest.readers.native import NativeReader
from docgraph.ingest.structure.continuity import paragraph_continues, table_continues
from docgraph.ingest.types import BBox, DocumentLayout, PageLayout, Region
from docgraph.records import FURNITURE_KINDS

DEV = Path("/work/shared/bench/dev")
REPORTLAB = DEV / "reportlab-userguide.pdf"
ZOO = DEV / "zoo.pdf"
LIBTASN1 = DEV / "libtasn1.pdf"

pytestmark = pytest.mark.skipif(not DEV.is_dir(), reason="dev PDFs not available")


@pytest.fixture(scope="module")
def reportlab() -> DocumentLayout:
    return NativeReader().read(REPORTLAB)


@pytest.fixture(scope="module")
def zoo() -> DocumentLayout:
    return NativeReader().read(ZOO)


@pytest.fixture(scope="module")
def libtasn1() -> DocumentLayout:
    return NativeReader().read(LIBTASN1)


def regions(page: PageLayout, kind: str) -> list[Region]:
    return [r for r in sorted(page.regions, key=lambda r: r.order) if r.kind == kind]


def texts(page: PageLayout, kind: str) -> list[str]:
    return [r.text for r in regions(page, kind)]


def body(page: PageLayout) -> list[Region]:
    return [r for r in sorted(page.regions, key=lambda r: r.order) if r.kind not in FURNITURE_KINDS]


# ---- document level ---------------------------------------------------------------------------


@pytest.mark.slow
def test_document_metadata(reportlab: DocumentLayout) -> None:
    assert reportlab.file_name == "reportlab-userguide.pdf"
    assert reportlab.page_count == 134 == len(reportlab.pages)
    assert [p.number for p in reportlab.pages] == list(range(1, 135))
    assert reportlab.sha256 == hashlib.sha256(REPORTLAB.read_bytes()).hexdigest()
    assert reportlab.title == "ReportLab PDF Generation User Guide"  # from the metadata
    assert reportlab.pages_without_text == []
    assert len(reportlab.outline) == 104
    assert (reportlab.outline[1].level, reportlab.outline[1].title, reportlab.outline[1].page) == (
        1,
        "Chapter 1 Introduction",
        6,
    )


@pytest.mark.slow
def test_title_falls_back_to_first_title_region(libtasn1: DocumentLayout) -> None:
    # libtasn1.pdf has an empty metadata title; its cover page is set in a large bold font.
    assert libtasn1.title == "Libtasn1"
    assert regions(libtasn1.pages[0], "title")[0].text == "Libtasn1"


def test_default_mode_is_fonts_and_modes_are_checked() -> None:
    assert NativeReader().mode == "fonts"
    assert NativeReader().name == "native"
    with pytest.raises(ValueError, match="unknown reader mode"):
        NativeReader(mode="ocr")  # type: ignore[arg-type]


@pytest.mark.slow
def test_orders_are_a_chain_with_furniture_last(reportlab: DocumentLayout, zoo: DocumentLayout) -> None:
    for doc in (reportlab, zoo):
        for page in doc.pages:
            ordered = sorted(page.regions, key=lambda r: r.order)
            assert [r.order for r in ordered] == list(range(len(ordered)))
            kinds = [r.kind in FURNITURE_KINDS for r in ordered]
            assert kinds == sorted(kinds), f"furniture before content on page {page.number}"


# ---- section headers ---------------------------------------------------------------------------


@pytest.mark.slow
def test_known_section_headers(reportlab: DocumentLayout, libtasn1: DocumentLayout, zoo: DocumentLayout) -> None:
    assert "Chapter 2 Graphics and Text with pdfgen" in texts(reportlab.pages[10], "section_header")
    assert "2.3 Drawing Operations" in texts(reportlab.pages[11], "section_header")
    assert "7.4 TableStyle Commands" in texts(reportlab.pages[85], "section_header")
    # headings set in a code font are still headings
    assert "8.1 DocAssign(self, var, expr, life='forever')" in texts(reportlab.pages[90], "section_header")
    assert texts(libtasn1.pages[4], "section_header")[:2] == ["2 ASN.1 structure handling", "2.1 ASN.1 syntax"]
    assert "2.8. NA handling" in texts(zoo.pages[16], "section_header")
    # bold headings holding a word in the code font, which is not bold (2.2 was filed under 2.1)
    assert '2.2. Creation of "zooreg" objects' in texts(zoo.pages[5], "section_header")
    assert '3.4. The classes "yearmon" and "yearqtr": Roll your own index' in texts(zoo.pages[23], "section_header")
    assert "User Virtual BaseDocTemplate Methods" in texts(reportlab.pages[68], "section_header")
    # but a number alone in bold does not make a code line bold: the heading stays whole
    whole = "8.3 DocPara(self, expr, format=None, style=None, klass=None, escape=True)"
    assert whole in texts(reportlab.pages[90], "section_header")


@pytest.mark.slow
def test_every_outline_entry_is_found_as_a_header(reportlab: DocumentLayout, libtasn1: DocumentLayout) -> None:
    def key(text: str) -> str:
        return "".join(ch for ch in text.lower() if ch.isalnum())

    for doc in (reportlab, libtasn1):
        for entry in doc.outline:
            page = doc.pages[entry.page - 1]
            headers = [key(t) for t in texts(page, "section_header") + texts(page, "title")]
            assert any(key(entry.title) in h or h.endswith(key(entry.title)) for h in headers), entry


@pytest.mark.slow
def test_title_region_first_on_first_page(zoo: DocumentLayout) -> None:
    first = body(zoo.pages[0])[0]
    assert first.kind == "title"
    assert first.text == "zoo: An S3 Class and Methods for Indexed Totally Ordered Observations"
    assert first.font_size > 15 and first.bold


# ---- figures, captions, tables, code, lists, footnotes ---------------------------------------


@pytest.mark.slow
def test_vector_figure_with_caption_and_labels(zoo: DocumentLayout) -> None:
    page = zoo.pages[20]
    figure = regions(page, "figure")[0]
    caption = regions(page, "caption")[0]
    assert caption.text == "Figure 3: Empirical M-fluctuation process for Journals data"
    assert 0 <= caption.bbox.y0 - figure.bbox.y1 < 60  # directly below the plot
    assert caption.order == figure.order + 1
    assert "Empirical fluctuation process" in figure.text  # the rotated y-axis label
    assert "M−fluctuation test" in figure.text  # the plot title above the drawing


@pytest.mark.slow
def test_figure_caption_in_reportlab(reportlab: DocumentLayout) -> None:
    page = reportlab.pages[12]
    figure = regions(page, "figure")[0]
    caption = regions(page, "caption")[0]
    assert caption.text == 'Figure 2-1: "Hello World" in pdfgen'
    assert figure.text == "Hello World"
    assert figure.bbox.y1 < caption.bbox.y0
    assert texts(page, "paragraph")[2].startswith("The document generated by")


@pytest.mark.slow
def test_text_only_figure_is_built_from_lines_above_its_caption(reportlab: DocumentLayout) -> None:
    page = reportlab.pages[27]
    figure = regions(page, "figure")[0]
    assert "17.5 points: til her Daddy takes the keyboard away" in figure.text
    assert texts(page, "caption") == ["Figure 2-13: text in different fonts and sizes"]


@pytest.mark.slow
def test_ruled_table_cells_and_markdown(reportlab: DocumentLayout) -> None:
    table = regions(reportlab.pages[54], "table")[0]
    assert table.cells is not None
    assert table.cells[0] == ["fit", "Parameters Required", "Meaning"]
    assert ["FitV", "left", "Left coord at left of window, height scaled to fit"] in table.cells
    lines = table.text.splitlines()
    assert lines[0] == "| fit | Parameters Required | Meaning |"
    assert lines[1] == "| --- | --- | --- |"
    assert "| FitV | left | Left coord at left of window, height scaled to fit |" in lines


@pytest.mark.slow
def test_table_continued_on_next_page(reportlab: DocumentLayout) -> None:
    first = regions(reportlab.pages[111], "table")[-1]
    second = regions(reportlab.pages[112], "table")[0]
    assert first.continues and not second.continues
    assert first.cells and second.cells and len(first.cells[0]) == len(second.cells[0]) == 2
    assert [row[0] for row in second.cells[:2]] == ["Property", "barSpacing"]  # the first part's header again
    # Table 6-2 runs from page 78 to page 79 and its caption follows the second part.
    assert regions(reportlab.pages[77], "table")[-1].continues
    assert texts(reportlab.pages[78], "caption")[0] == "Table 6-2 - Synonyms for style attributes"


@pytest.mark.slow
def test_code_keeps_indentation_and_lists_are_merged(reportlab: DocumentLayout) -> None:
    code = regions(reportlab.pages[10], "code")[0]
    assert code.text.splitlines()[:3] == [
        "    from reportlab.pdfgen import canvas",
        "    def hello(c):",
        '        c.drawString(100,100,"Hello World")',
    ]
    lists = regions(reportlab.pages[5], "list")
    assert len(lists) == 2
    assert lists[0].text.splitlines() == [
        "• What is ReportLab all about, and why should I use it?",
        "• What is Python?",
        "• How do I get everything set up and running?",
    ]
    # the paragraph after the list shares its MuPDF block but starts left of the bullets
    assert any(t.startswith("We need your help") for t in texts(reportlab.pages[5], "paragraph"))


@pytest.mark.slow
def test_footnote_at_page_bottom(zoo: DocumentLayout) -> None:
    footnotes = texts(zoo.pages[16], "footnote")
    assert footnotes == ['¹⁰Coercion from "zoo" to "irts" is contained in the tseries package.']


# ---- furniture --------------------------------------------------------------------------------


@pytest.mark.slow
def test_running_headers_and_page_numbers(reportlab: DocumentLayout) -> None:
    page = reportlab.pages[11]
    assert page.header_text == "User Guide Chapter 2 Graphics and Text with pdfgen"
    assert page.footer_text == "Page 12"
    assert texts(page, "page_header") == [page.header_text]
    assert texts(page, "page_footer") == ["Page 12"]
    with_footer = [p for p in reportlab.pages if p.footer_text == f"Page {p.number}"]
    assert len(with_footer) >= 130
    # a chapter whose running title appears on a single page is still furniture (same place, same font)
    assert reportlab.pages[90].header_text == "User Guide Chapter 8 Programming Flowables"
    assert not any("Page 12" in r.text for r in body(page))


@pytest.mark.slow
def test_alternating_headers_and_roman_page_numbers(zoo: DocumentLayout, libtasn1: DocumentLayout) -> None:
    assert zoo.pages[16].header_text == "Achim Zeileis, Gabor Grothendieck 17"
    assert zoo.pages[17].header_text == "18 zoo: An S3 Class and Methods for Indexed Totally Ordered Observations"
    assert libtasn1.pages[2].header_text == "i"
    assert libtasn1.pages[11].header_text == "Chapter 4: Function reference 9"
    assert zoo.pages[0].header_text == ""  # the title page has no running header


# ---- continuation across page breaks ----------------------------------------------------------


@pytest.mark.slow
def test_paragraph_cut_by_page_break(zoo: DocumentLayout, reportlab: DocumentLayout) -> None:
    last = body(zoo.pages[16])
    cut = [r for r in last if r.continues]
    assert len(cut) == 1 and cut[0].kind == "paragraph"
    assert cut[0].text.endswith("na.contiguous extracts the longest")
    assert body(zoo.pages[17])[0].text.startswith("consecutive stretch of non-missing values.")
    split = [r for r in body(reportlab.pages[83]) if r.continues]
    assert split and split[0].text.endswith("by column when")


@pytest.mark.slow
def test_finished_paragraphs_do_not_continue(libtasn1: DocumentLayout, zoo: DocumentLayout) -> None:
    assert not any(r.continues for r in libtasn1.pages[24].regions)  # ends "... a libtasn1 function."
    flagged = [p.number for p in zoo.pages if any(r.continues and r.kind == "paragraph" for r in p.regions)]
    assert flagged == [1, 2, 17, 20, 21, 25]
    # a command ending a page whose output opens the next one (its header row indented) goes on there
    sessions = [p.number for p in zoo.pages if any(r.continues and r.kind == "code" for r in p.regions)]
    assert sessions == [12, 15, 19]


def _region(kind: str, text: str, cells: list[list[str]] | None = None) -> Region:
    return Region(kind, BBox(0, 0, 10, 10), text, cells=cells)  # type: ignore[arg-type]


def test_continuation_rules() -> None:
    assert paragraph_continues(_region("paragraph", "runs on into the"), _region("paragraph", "next page."))
    assert not paragraph_continues(_region("paragraph", "Ends here."), _region("paragraph", "lower start"))
    assert not paragraph_continues(_region("paragraph", "no stop"), _region("paragraph", "Capital start"))
    assert paragraph_continues(_region("paragraph", "a list of items,"), _region("paragraph", "Capital after comma"))
    assert not paragraph_continues(_region("paragraph", "no stop"), _region("section_header", "lower"))
    two = [["a", "b"], ["1", "2"]]
    assert table_continues(_region("table", "", two), _region("table", "", [["3", "4"]]))
    assert not table_continues(_region("table", "", two), _region("table", "", [["3", "4", "5"]]))
    assert not table_continues(_region("table", "", two), _region("table", "", [["New table", ""], ["x", "y"]]))


# ---- reader behaviour -------------------------------------------------------------------------


def test_progress_reports_every_page(tmp_path: Path) -> None:
    calls: list[tuple[int, int]] = []
    doc = pymupdf.open(ZOO)
    small = pymupdf.open()
    small.insert_pdf(doc, from_page=0, to_page=3)
    path = tmp_path / "four.pdf"
    small.save(path)
    layout = NativeReader().read(path, progress=lambda done, total: calls.append((done, total)))
    assert calls == [(1, 4), (2, 4), (3, 4), (4, 4)]
    assert layout.page_count == 4


def test_scanned_page_has_no_text_layer(tmp_path: Path) -> None:
    src = pymupdf.open(ZOO)
    out = pymupdf.open()
    out.insert_pdf(src, from_page=0, to_page=0)
    scan = out.new_page(width=src[1].rect.width, height=src[1].rect.height)
    scan.insert_image(scan.rect, pixmap=src[1].get_pixmap(dpi=72))  # page 2 as a picture only
    path = tmp_path / "scan.pdf"
    out.save(path)
    layout = NativeReader().read(path)
    assert layout.pages_without_text == [2]
    assert layout.pages[0].has_text_layer and not layout.pages[1].has_text_layer
    assert [r.kind for r in layout.pages[1].regions] == ["figure"]


def test_layout_model_mode_on_real_pages(tmp_path: Path) -> None:
    src = pymupdf.open(ZOO)
    out = pymupdf.open()
    for number in (1, 21):
        out.insert_pdf(src, from_page=number - 1, to_page=number - 1)
    path = tmp_path / "zoo-2p.pdf"
    out.save(path)
    layout = NativeReader(mode="layout").read(path)
    first, second = layout.pages
    assert body(first)[0].kind == "title"
    assert "1. Introduction" in texts(first, "section_header")
    assert texts(second, "caption") == ["Figure 3: Empirical M-fluctuation process for Journals data"]
    assert regions(second, "figure")
    assert "Achim Zeileis, Gabor Grothendieck" in second.header_text


# ---- bad input ----------------------------------------------------------------------------------


def test_text_file_named_pdf(tmp_path: Path) -> None:
    path = tmp_path / "notes.pdf"
    path.write_text("just some text, not a PDF\n")
    with pytest.raises(BadDocumentError, match=r"notes\.pdf: not a PDF"):
        NativeReader().read(path)


def test_missing_and_empty_files(tmp_path: Path) -> None:
    with pytest.raises(BadDocumentError, match=re.escape("missing.pdf: file not found")):
        NativeReader().read(tmp_path / "missing.pdf")
    (tmp_path / "empty.pdf").write_bytes(b"")
    with pytest.raises(BadDocumentError, match=re.escape("empty.pdf: file is empty")):
        NativeReader().read(tmp_path / "empty.pdf")


@pytest.mark.parametrize(("source", "share"), [(ZOO, 0.5), (ZOO, 0.05), (LIBTASN1, 0.5), (REPORTLAB, 0.5)])
def test_truncated_pdf(tmp_path: Path, source: Path, share: float) -> None:
    data = source.read_bytes()
    path = tmp_path / f"cut-{source.name}"
    path.write_bytes(data[: int(len(data) * share)])
    with pytest.raises(BadDocumentError, match=r"cut-.*: corrupt or truncated PDF"):
        NativeReader().read(path)


def test_a_file_cut_short_names_what_mupdf_lost_not_a_page_whose_content_is_whole(tmp_path: Path) -> None:
    """Cut at 70 %, a 60-page file opens with every page and its page tree broken: the error said
    "content of page 1 could not be read", of a page whose content is whole."""
    with pymupdf.open() as doc:
        for number in range(1, 61):
            doc.new_page().insert_text((72, 72), f"Section {number}: elephants live in herds.")
        data = doc.tobytes()
    cut = data[: int(len(data) * 0.7)]
    path = tmp_path / "cut.pdf"
    path.write_bytes(cut[: cut.rfind(b"endobj") + len(b"endobj")] + b"\n")
    with pytest.raises(BadDocumentError) as refused:
        NativeReader().read(path)
    said = str(refused.value)
    assert said.startswith("cut.pdf: corrupt or truncated PDF, MuPDF lost part of it while reading page "), said
    assert "content of page" not in said and said.endswith(")")  # MuPDF's own words, in brackets


def test_complete_copy_reads_fine(tmp_path: Path) -> None:
    path = tmp_path / "copy.pdf"
    shutil.copy(LIBTASN1, path)
    assert NativeReader().read(path).page_count == 36


def test_encrypted_pdf(tmp_path: Path) -> None:
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "secret")
    path = tmp_path / "locked.pdf"
    doc.save(path, encryption=pymupdf.PDF_ENCRYPT_AES_256, user_pw="user", owner_pw="owner")
    with pytest.raises(BadDocumentError, match=re.escape("locked.pdf: encrypted PDF needs a password")):
        NativeReader().read(path)


def test_zero_page_pdf(tmp_path: Path) -> None:
    # PyMuPDF refuses to save a document without pages, so the file is written by hand.
    objects = [b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [] /Count 0 >>"]
    data = b"%PDF-1.4\n"
    offsets = []
    for number, body_bytes in enumerate(objects, start=1):
        offsets.append(len(data))
        data += b"%d 0 obj\n" % number + body_bytes + b"\nendobj\n"
    xref = len(data)
    data += b"xref\n0 3\n0000000000 65535 f \n" + b"".join(b"%010d 00000 n \n" % o for o in offsets)
    data += b"trailer\n<< /Size 3 /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % xref
    path = tmp_path / "zero.pdf"
    path.write_bytes(data)
    with pytest.raises(BadDocumentError, match=re.escape("zero.pdf: PDF has no pages")):
        NativeReader().read(path)


def test_page_limit() -> None:
    refusal = "zoo.pdf: 30 pages exceeds the limit of 29 (raise it with DOCGRAPH_MAX_PAGES)"
    with pytest.raises(BadDocumentError, match=re.escape(refusal)):
        NativeReader(max_pages=29).read(ZOO)
    assert NativeReader(max_pages=30).read(ZOO).page_count == 30

"""Tables without a grid of rulings: framed by horizontal rules only (booktabs), or with no rules
at all next to their caption; on pages drawn here and on a real manual."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from docgraph.app.stores.falkordb_store import FalkorDBStore
from docgraph.ingest.floats.framed_tables import find_framed_tables
from docgraph.ingest.graph import build_graph
from docgraph.ingest.pdf import api as pdf_api
from docgraph.ingest.pdf.lines import TEXT_FLAGS, extract_lines
from docgraph.ingest.readers.native import NativeReader
from docgraph.ingest.types import DocumentLayout
from tests.conftest import TRAIN_DIR
from tests.llm_data import ask_of_pdf
from tests.test_two_column import COLUMNS, PAPER, typeset

ROWS = [
    ["Method", "DocVQA", "MMLong", "SlideVQA"],
    ["BM25", "41.2", "22.5", "30.1"],
    ["Dense", "55.3", "31.0", "44.8"],
    ["LOGOS", "63.9", "38.7", "52.6"],
]
PROSE = "The results are summarised in Table 2, which lists the accuracy of each method on the three datasets. "


CAPTION = "Table 2: Accuracy of each method on the three datasets."


def booktabs_page(out: Path, rows: list[list[str]] = ROWS, rules: bool = True, caption_below: bool = False) -> Path:
    """Prose, a caption, a table with a top rule, a rule under its header and a bottom rule (or no
    rules), prose. The caption is set above the table, or below it."""
    with pymupdf.open() as doc:
        page = doc.new_page(width=612, height=792)
        page.insert_textbox(pymupdf.Rect(72, 72, 540, 200), PROSE * 3, fontsize=10)
        y = 255.0
        if not caption_below:
            page.insert_text((72, y - 25), CAPTION, fontsize=9)
        lines = [(y - 12, 1.0), (y + 4, 0.5)]
        for row in rows:
            for x, cell in zip((110, 230, 330, 430), row, strict=True):
                page.insert_text((x, y), cell, fontsize=9)
            y += 14
        lines.append((y - 8, 1.0))
        for rule_y, width in lines if rules else []:
            page.draw_line((100, rule_y), (512, rule_y), width=width)
        if caption_below:
            page.insert_text((72, y + 8), CAPTION, fontsize=9)
            y += 20
        page.insert_textbox(pymupdf.Rect(72, y + 10, 540, y + 120), "LOGOS is best on every dataset. " * 6, fontsize=10)
        doc.save(out)
    return out


@pytest.fixture(scope="module")
def booktabs(tmp_path_factory: pytest.TempPathFactory) -> DocumentLayout:
    return NativeReader().read(booktabs_page(tmp_path_factory.mktemp("booktabs") / "booktabs.pdf"))


def test_a_booktabs_table_is_a_table_with_its_cells(booktabs: DocumentLayout) -> None:
    [table] = [r for r in booktabs.pages[0].regions if r.kind == "table"]
    assert table.cells == ROWS
    assert "| Dense | 55.3 | 31.0 | 44.8 |" in table.text
    # Its rows are no longer read into a paragraph.
    assert not any("55.3" in r.text for r in booktabs.pages[0].regions if r.kind == "paragraph")


def test_its_caption_and_the_text_that_cites_it_link_to_it(booktabs: DocumentLayout) -> None:
    batch = build_graph(booktabs)
    kinds = {n.key: n.props["kind"] for n in batch.nodes if n.label == "Region"}
    caption_of = [(kinds[e.src_key], kinds[e.dst_key]) for e in batch.edges if e.type == "CAPTION_OF"]
    refs = [(kinds[e.src_key], e.props["label"], kinds[e.dst_key]) for e in batch.edges if e.type == "REF"]
    assert caption_of == [("caption", "table")]
    assert refs == [("paragraph", "Table 2", "table")]


@pytest.mark.parametrize("caption_below", [False, True], ids=["caption-above", "caption-below"])
def test_a_table_with_no_rules_is_found_next_to_its_caption(tmp_path: Path, caption_below: bool) -> None:
    layout = NativeReader().read(booktabs_page(tmp_path / "plain.pdf", rules=False, caption_below=caption_below))
    [table] = [r for r in layout.pages[0].regions if r.kind == "table"]
    assert table.cells == ROWS
    batch = build_graph(layout)
    assert [e.dst_key for e in batch.edges if e.type == "CAPTION_OF"] == [
        n.key for n in batch.nodes if n.props.get("kind") == "table"
    ]


def test_a_source_note_and_the_next_heading_are_no_rows_of_an_unruled_table(tmp_path: Path) -> None:
    """A bulletin's unruled table took the line under it ("Source: ...") and the next section's
    heading as two more rows, and the section was gone; its header, centred over a wide column of
    row labels set flush left, fell in white of its own once the note no longer bridged them."""
    rows = [("16 to 24", "53.1", "12.6"), ("25 to 34", "84.0", "3.9"), ("35 to 49", "85.2", "3.0")]
    with pymupdf.open() as doc:
        page = doc.new_page(width=595, height=842)
        page.insert_text((56, 100), "Table 1: Rates by age group, per cent", fontsize=9)
        for x, header in ((120, "Age group"), (300, "Employment"), (420, "Unemployment")):
            page.insert_text((x, 122), header, fontsize=9)
        for i, row in enumerate(rows):
            for x, cell in zip((60, 320, 450), row, strict=True):
                page.insert_text((x, 137 + 15 * i), cell, fontsize=9)
        page.insert_text((56, 190), "Source: Labour Force Survey. Seasonally adjusted.", fontsize=8)
        page.insert_text((56, 220), "Earnings", fontname="hebo", fontsize=13)
        page.insert_textbox(pymupdf.Rect(56, 232, 540, 300), "Pay grew faster in the public sector. " * 4, fontsize=10)
        doc.save(tmp_path / "bulletin.pdf")
    regions = NativeReader().read(tmp_path / "bulletin.pdf").pages[0].regions
    [table] = [r for r in regions if r.kind == "table"]
    assert table.cells == [["Age group", "Employment", "Unemployment"], *map(list, rows)]
    assert [r.text for r in regions if r.kind == "section_header"] == ["Earnings"]
    assert any(r.text.startswith("Source: Labour Force Survey") for r in regions if r.kind == "paragraph")


def test_aligned_text_with_no_rules_and_no_caption_is_left_as_text(tmp_path: Path) -> None:
    pdf = booktabs_page(tmp_path / "plain.pdf", rules=False)
    with pymupdf.open(pdf) as doc:
        page = doc[0]
        page.add_redact_annot(page.search_for("Table 2:")[0])  # the caption's label goes
        page.apply_redactions()
        doc.save(tmp_path / "uncaptioned.pdf")
    layout = NativeReader().read(tmp_path / "uncaptioned.pdf")
    assert not [r for r in layout.pages[0].regions if r.kind == "table"]
    assert any("55.3" in r.text for r in layout.pages[0].regions if r.kind == "paragraph")


def test_prose_after_a_table_caption_is_no_table(tmp_path: Path) -> None:
    with pymupdf.open() as doc:
        page = doc.new_page(width=612, height=792)
        page.insert_text((72, 100), CAPTION, fontsize=9)
        page.insert_textbox(pymupdf.Rect(72, 110, 540, 300), PROSE * 5, fontsize=10)
        doc.save(tmp_path / "caption-then-prose.pdf")
    layout = NativeReader().read(tmp_path / "caption-then-prose.pdf")
    assert not [r for r in layout.pages[0].regions if r.kind == "table"]


def test_two_column_prose_between_header_and_footer_rules_is_no_table(tmp_path: Path) -> None:
    paper = typeset(PAPER, tmp_path / "paper.pdf")
    with pymupdf.open(paper) as doc:
        for page in doc:
            left, right = COLUMNS[0].x0, COLUMNS[1].x1
            page.draw_line((left, 60), (right, 60), width=0.5)  # under a running header
            page.draw_line((left, 730), (right, 730), width=0.5)  # over a footer
        doc.save(tmp_path / "ruled-paper.pdf")
        for page in pymupdf.open(tmp_path / "ruled-paper.pdf"):
            assert find_framed_tables(page.get_drawings(), pdf_api.words(page, TEXT_FLAGS)) == []
    layout = NativeReader().read(tmp_path / "ruled-paper.pdf")
    assert not [r for p in layout.pages for r in p.regions if r.kind == "table"]


def test_a_manual_table_framed_by_rules_keeps_its_rows() -> None:
    # gnuplot's command-line editing table (page 32): outer frame and rules, no column rulings.
    with pymupdf.open(TRAIN_DIR / "gnuplot.pdf") as doc:
        page = doc[31]
        [table] = find_framed_tables(page.get_drawings(), pdf_api.words(page, TEXT_FLAGS))
    assert ["Character", "Function"] in table.cells
    assert ["^B", "move back a single character."] in table.cells
    assert ["^K", "delete from current position to the end of line."] in table.cells


def test_the_extractive_answer_quotes_the_header_and_the_row_asked_about(
    falkordb_store: FalkorDBStore, tmp_path: Path
) -> None:
    # A long table: the row asked about lies far past the first few hundred characters.
    rows = [ROWS[0], *([f"Baseline{i:02d}", "10.0", "10.0", "10.0"] for i in range(30)), ROWS[2]]
    pdf = booktabs_page(tmp_path / "results.pdf", rows)
    result = ask_of_pdf(falkordb_store, pdf, "What accuracy does the Dense method reach on MMLong?", tmp_path)

    assert result.mode == "extractive"
    first = result.answer.splitlines()[0]
    assert first.startswith("1. “| Method | DocVQA | MMLong | SlideVQA | … | Dense | 55.3 | 31.0 | 44.8 |”")
    assert "Baseline" not in first


def test_a_code_listing_between_rules_stays_code(tmp_path: Path) -> None:
    listing = ["set   xrange  [0:10]", "plot  sin(x)  with lines", "set   yrange  [-1:1]", "show  grid    on"]
    with pymupdf.open() as doc:
        page = doc.new_page(width=612, height=792)
        page.insert_textbox(pymupdf.Rect(72, 72, 540, 150), PROSE * 2, fontsize=10)
        page.draw_line((72, 170), (540, 170), width=0.5)
        for i, line in enumerate(listing):
            page.insert_text((80, 190 + 13 * i), line, fontname="cour", fontsize=10)
        page.draw_line((72, 190 + 13 * len(listing)), (540, 190 + 13 * len(listing)), width=0.5)
        doc.save(tmp_path / "listing.pdf")
        words = pdf_api.words(page, TEXT_FLAGS)
        drawings = page.get_drawings()
        # Its aligned columns alone would pass for a table; its monospaced font says code.
        assert len(find_framed_tables(drawings, words)) == 1
        assert find_framed_tables(drawings, words, lines=extract_lines(page)) == []
    layout = NativeReader().read(tmp_path / "listing.pdf")
    kinds = [r.kind for r in layout.pages[0].regions]
    assert "table" not in kinds and "code" in kinds


def longtable(out: Path, rows_per_page: int = 30) -> Path:
    """A table broken by a page break, as LaTeX's longtable sets it: a top rule, the header and a
    rule under it on each page, rows running to the foot of the first page, a bottom rule on the last."""
    with pymupdf.open() as doc:
        for number in range(2):
            page = doc.new_page(width=612, height=792)
            y = 90.0
            if number == 0:
                page.insert_text((72, y - 20), CAPTION, fontsize=9)
            page.draw_line((100, y - 12), (512, y - 12), width=1)
            for x, cell in zip((110, 230, 330, 430), ROWS[0], strict=True):
                page.insert_text((x, y), cell, fontsize=9)
            page.draw_line((100, y + 4), (512, y + 4), width=0.5)
            for k in range(rows_per_page):
                y += 14
                row = [f"Method{number}{k:02d}", f"{k}.1", f"{k}.2", f"{k}.3"]
                for x, cell in zip((110, 230, 330, 430), row, strict=True):
                    page.insert_text((x, y), cell, fontsize=9)
            if number == 1:
                page.draw_line((100, y + 6), (512, y + 6), width=1)
        doc.save(out)
    return out


def test_a_table_broken_by_a_page_break_is_read_on_both_pages_and_joined(tmp_path: Path) -> None:
    layout = NativeReader().read(longtable(tmp_path / "longtable.pdf"))
    tables = [r for p in layout.pages for r in p.regions if r.kind == "table"]
    assert [len(t.cells or []) for t in tables] == [31, 31]  # the header and every row, on each page
    assert tables[0].cells and tables[0].cells[-1] == ["Method029", "29.1", "29.2", "29.3"]
    batch = build_graph(layout)
    kinds = {n.key: (n.props["kind"], n.props["page"]) for n in batch.nodes if n.label == "Region"}
    joined = [(kinds[e.src_key], kinds[e.dst_key]) for e in batch.edges if e.props.get("continuation")]
    assert joined == [(("table", 1), ("table", 2))]


def test_a_page_of_hatching_is_no_stack_of_tables(tmp_path: Path) -> None:
    # Hundreds of horizontal strokes (hatching, a form, a technical drawing) over aligned labels:
    # bands between them would pass for tables by the dozen.
    with pymupdf.open() as doc:
        page = doc.new_page(width=612, height=792)
        shape = page.new_shape()
        for i in range(400):
            x, y = 20 + (i * 37) % 300, 20 + (i * 53) % 750
            shape.draw_line((x, y), (x + 80 + i % 120, y))
        shape.finish(width=0.3)
        shape.commit()
        for i in range(50):
            page.insert_text((80, 30 + 14 * i), f"Part {i}        bolt {i}        steel", fontsize=8)
        doc.save(tmp_path / "hatching.pdf")
    with pymupdf.open(tmp_path / "hatching.pdf") as doc:
        page = doc[0]
        assert find_framed_tables(page.get_drawings(), pdf_api.words(page, TEXT_FLAGS)) == []


def test_a_heading_under_the_page_head_rule_is_no_row_of_the_table_below(tmp_path: Path) -> None:
    """A newsletter's events page: the running head's rule spans the page as the table's rules do,
    and the page's heading and its deck sit between it and the table. The table starts at its own
    top rule; the heading stays a heading."""
    events = [["Date", "Event", "Time"], ["Sat 5 April", "Footbridge working party", "10 am"]]
    events += [["Wed 9 April", "Committee meeting", "7.30 pm"], ["Sat 28 June", "Summer fete", "12 noon"]]
    with pymupdf.open() as doc:
        page = doc.new_page(width=595, height=842)
        page.insert_text((40, 28), "The Riverside Review  ·  Spring 2025", fontname="helv", fontsize=7.5)
        page.draw_line((40, 33), (555, 33), width=0.5)
        page.insert_text((40, 72), "What's on this spring", fontname="tibo", fontsize=22)
        page.insert_text((40, 90), "Dates for your diary from April to June.", fontname="tiit", fontsize=11)
        y = 104.0
        page.draw_line((40, y), (555, y), width=1)
        for r, row in enumerate(events):
            for x, cell in zip((43, 153, 373), row, strict=True):
                page.insert_text((x, y + 9.5), cell, fontname="hebo" if r == 0 else "helv", fontsize=8.5)
            y += 13
            page.draw_line((40, y), (555, y), width=1 if r in (0, len(events) - 1) else 0.3)
        page.insert_textbox(pymupdf.Rect(40, y + 20, 300, y + 200), PROSE * 3, fontname="tiro", fontsize=9.5)
        doc.save(tmp_path / "events.pdf")
    page_layout = NativeReader().read(tmp_path / "events.pdf").pages[0]
    [table] = [r for r in page_layout.regions if r.kind == "table"]
    assert table.cells == events
    assert any(r.kind in ("title", "section_header") and r.text == "What's on this spring" for r in page_layout.regions)


def test_totals_over_a_page_footer_rule_are_no_table(tmp_path: Path) -> None:
    """An invoice's last page: its item table ruled in a grid, the totals flush right under it, then
    well below the footer rule with the payment terms and the page number under it. The footer
    lines ran on past the rule as a table broken by the page would, so the totals and the terms
    were read as a table of three columns."""
    with pymupdf.open() as doc:
        page = doc.new_page(width=595, height=842)
        page.insert_text((50, 60), "Northgate Office Systems", fontsize=14)
        rows = [["Item", "Qty", "Amount"], ["NG-130 Chair kit", "3", "100.50"], ["NG-131 Chair kit", "4", "138.00"]]
        for k, row in enumerate(rows):
            page.draw_line((50, 100 + 16 * k), (545, 100 + 16 * k), width=0.5)
            page.insert_text((54, 111 + 16 * k), row[0], fontsize=9)
            page.insert_text((360, 111 + 16 * k), row[1], fontsize=9)
            page.insert_text((500, 111 + 16 * k), row[2], fontsize=9)
        page.draw_line((50, 148), (545, 148), width=0.5)
        for x in (50, 330, 460, 545):
            page.draw_line((x, 100), (x, 148), width=0.5)
        for k, (label, value) in enumerate([("Subtotal", "238.50"), ("VAT 20%", "47.70"), ("Total GBP", "286.20")]):
            page.insert_text((400, 160 + 13 * k), label, fontsize=9)
            page.insert_text((500, 160 + 13 * k), value, fontsize=9)
        page.draw_line((50, 760), (545, 760), width=0.5)
        page.insert_text((50, 772), "Payment terms: 30 days net from invoice date.", fontsize=7.5)
        page.insert_text((50, 782), "Page 2 of 2", fontsize=7.5)
        doc.save(tmp_path / "last-page.pdf")
    regions = NativeReader().read(tmp_path / "last-page.pdf").pages[0].regions
    tables = [r.text for r in regions if r.kind == "table"]
    assert len(tables) == 1 and "NG-131 Chair kit" in tables[0] and "Subtotal" not in tables[0]

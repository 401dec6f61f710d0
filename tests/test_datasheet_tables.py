"""A component datasheet's specification table: each section heading underlined across the page,
and under one of them a caption, a table framed by rules of its own (a top rule, a rule under the
header, a bottom rule) and its notes set small under the bottom rule, each opening with a mark
that the table's cells carry ("Supply current¹", "Dropout Voltage(3)").

The band between two headings' rules was read as a table too: the caption, the rows with their
first columns run together, the notes and the next heading in it, beside the real table. And the
notes ran on past the table's bottom rule as the rows of a table broken by the page do, so they
were read as its last rows, and their lines across the first columns merged those columns.

A table's notes sit mid-page, above the page's footnote zone: they were paragraphs, or one list
("(1) ...", "(2) ..."), so "footnote 2" named no note and the table's marks called none.
"""

from __future__ import annotations

from pathlib import Path

import pymupdf

from docgraph.app.stores.falkordb_store import FalkorDBStore
from docgraph.ingest.graph import build_graph
from docgraph.ingest.readers.native import NativeReader
from docgraph.ingest.types import PageLayout
from tests.llm_data import ask_of_pdf, hybrid_over

HEADER = ["Parameter", "Symbol", "Conditions", "Min", "Typ", "Max", "Unit"]
ROWS = [
    ["Supply voltage", "VDD", "", "1.62", "1.8", "3.6", "V"],
    ["Supply current¹", "IDD", "1 Hz output rate", "", "1.1", "2.0", "µA"],
    ["Heater current", "IHEAT", "VDD = 1.8 V", "", "6.2", "", "mA"],
    ["Humidity accuracy²", "", "20 %RH to 80 %RH", "", "±2", "±3.5", "%RH"],
    ["Temperature range", "TA", "", "−40", "", "+125", "°C"],
    ["SCL clock frequency", "fSCL", "", "", "", "1000", "kHz"],
]
NOTES = [
    "¹ Average current consumption at one measurement per second with the heater off.",
    "² Accuracy tolerance at 25 °C after reflow and 72 h rehydration at 75 %RH.",
]
COLUMNS = [50, 186, 252, 382, 416, 450, 484]
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
BOLD = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"


def _heading(page: pymupdf.Page, y: float, text: str) -> None:
    page.insert_text((50, y), text, fontsize=11, fontname="djb", fontfile=BOLD)
    page.draw_line((50, y + 3), (562, y + 3), width=0.5)


def specification_page(out: Path) -> Path:
    with pymupdf.open() as doc:
        page = doc.new_page(width=612, height=792)
        page.insert_text((50, 40), "HSX310", fontsize=10, fontname="djb", fontfile=BOLD)
        page.draw_line((50, 46), (562, 46), width=0.75)
        _heading(page, 82, "SPECIFICATIONS")
        page.insert_text((50, 100), "Table 1. Electrical Specifications", fontsize=8.5, fontname="djb", fontfile=BOLD)
        y = 110.0
        page.draw_line((50, y), (520, y), width=1)
        for r, row in enumerate([HEADER, *ROWS]):
            for x, cell in zip(COLUMNS, row, strict=True):
                font = ("djb", BOLD) if r == 0 else ("dj", FONT)
                page.insert_text((x + 3, y + 11), cell, fontsize=8, fontname=font[0], fontfile=font[1])
            y += 15
            if r == 0:
                page.draw_line((50, y), (520, y), width=0.5)
        page.draw_line((50, y), (520, y), width=1)
        for note in NOTES:
            y += 10
            page.insert_text((50, y), note, fontsize=7.5, fontname="dj", fontfile=FONT)
        _heading(page, y + 30, "PIN DESCRIPTIONS")
        about = "The HSX310 comes in a six-pin DFN package of 2 mm by 2 mm. Its I²C pins are described below. " * 3
        page.insert_textbox(pymupdf.Rect(50, y + 40, 562, y + 90), about, fontsize=9, fontname="dj", fontfile=FONT)
        page.draw_line((50, 752), (562, 752), width=0.5)
        page.insert_text((260, 765), "Rev. A | Page 2 of 4", fontsize=8)
        doc.save(out)
    return out


def _page(tmp_path: Path) -> PageLayout:
    return NativeReader().read(specification_page(tmp_path / "datasheet.pdf")).pages[0]


def test_the_table_is_read_once_with_its_columns_and_no_notes(tmp_path: Path) -> None:
    page = _page(tmp_path)
    [table] = [r for r in page.regions if r.kind == "table"]
    assert table.cells == [HEADER, *ROWS]


def test_the_notes_and_the_next_heading_stay_text(tmp_path: Path) -> None:
    page = _page(tmp_path)
    texts = {r.text: r.kind for r in page.regions}
    assert all(texts.get(note) in ("paragraph", "footnote") for note in NOTES)
    assert texts.get("PIN DESCRIPTIONS") == "section_header"
    assert texts.get("Table 1. Electrical Specifications") == "caption"


def test_the_notes_under_the_table_are_its_footnotes_called_by_its_marks(tmp_path: Path) -> None:
    layout = NativeReader().read(specification_page(tmp_path / "datasheet.pdf"))
    notes = [r.text for r in layout.pages[0].regions if r.kind == "footnote"]
    assert notes == NOTES
    batch = build_graph(layout)
    text = {n.key: n.props["text"] for n in batch.nodes if n.label == "Region"}
    kind = {n.key: n.props["kind"] for n in batch.nodes if n.label == "Region"}
    calls = [
        (kind[e.src_key], e.props["label"], text[e.dst_key]) for e in batch.edges if e.props.get("kind") == "footnote"
    ]
    # "I²C" in the text below calls no note: its "²" runs on into the name.
    assert sorted(calls) == [("table", "Note 1", NOTES[0]), ("table", "Note 2", NOTES[1])]


RULED_NOTES = [
    "(1) Minimum output load current is 0 µA.",
    "(2) Based on an end-point calculation using 1 mA and 300 mA loads.",
    "(3) Defined at 90% of the nominal output voltage.",
]
STEPS = ["1. Solder the part.", "2. Bake the board for one hour."]


def ruled_table_page(out: Path) -> Path:
    """A table ruled in a grid, its notes "(1) ..." under it, as TI sets them, then prose; and a
    second table with a numbered list under it that its cells do not mark."""
    rows = [["Parameter", "Min", "Max", "Unit"], ["Supply current(1)", "", "60", "µA"]]
    rows += [["Load regulation(2)", "", "0.005", "%/mA"], ["Dropout voltage(3)", "", "190", "mV"]]
    with pymupdf.open() as doc:
        page = doc.new_page(width=612, height=792)
        y = 80.0
        for table in (rows, [["Step", "Time"], ["Reflow", "60 s"], ["Cool", "120 s"]]):
            top = y
            for row in table:
                for k, cell in enumerate(row):
                    page.insert_text((53 + 150 * k, y + 11), cell, fontsize=8, fontname="dj", fontfile=FONT)
                page.draw_line((50, y), (50 + 150 * len(row), y), width=0.5)
                y += 15
            page.draw_line((50, y), (50 + 150 * len(table[0]), y), width=0.5)
            for k in range(len(table[0]) + 1):
                page.draw_line((50 + 150 * k, top), (50 + 150 * k, y), width=0.5)
            for note in RULED_NOTES if table is rows else STEPS:
                y += 10
                page.insert_text((50, y), note, fontsize=7.5, fontname="dj", fontfile=FONT)
            y += 12
            page.insert_textbox(pymupdf.Rect(50, y, 560, y + 60), PROSE, fontsize=9, fontname="dj", fontfile=FONT)
            y += 80
        doc.save(out)
    return out


PROSE = "The regulator is stable with a 1 µF ceramic output capacitor over the whole load range. " * 3


def test_numbered_notes_under_a_ruled_table_are_one_footnote_each(tmp_path: Path) -> None:
    regions = NativeReader().read(ruled_table_page(tmp_path / "ruled.pdf")).pages[0].regions
    assert [r.text for r in regions if r.kind == "footnote"] == RULED_NOTES
    assert any(r.kind == "list" and r.text.startswith("1. Solder") for r in regions)  # no marks call them
    kinds = [r.kind for r in regions if r.kind not in ("page_header", "page_footer")]
    assert kinds.index("footnote") < kinds.index("paragraph")  # read under the table, not after the page


def test_footnote_2_is_found_by_its_number(falkordb_store: FalkorDBStore, tmp_path: Path) -> None:
    hybrid = hybrid_over(falkordb_store, [ruled_table_page(tmp_path / "ruled.pdf")], tmp_path / "home")
    assert hybrid.retrieve("What does footnote 2 say?", 5)[0].text == RULED_NOTES[1]


SPEC_ROWS = [
    ["Parameter", "Conditions", "Typ", "Max", "Unit"],
    ["Supply current", "IOUT = 0 µA", "45", "60", "µA"],
    ["", "IOUT = 300 mA", "390", "520", "µA"],
    ["Dropout voltage", "IOUT = 100 mA", "40", "65", "mV"],
    ["", "IOUT = 300 mA", "120", "190", "mV"],
    ["Current limit", "VOUT = 90% of nominal", "480", "650", "mA"],
]


def spanned_rows_page(out: Path) -> Path:
    """A specification table ruled in a grid, each parameter named once over its rows of conditions."""
    with pymupdf.open() as doc:
        page = doc.new_page(width=612, height=792)
        page.insert_text((50, 70), "Table 1. Electrical Characteristics", fontsize=9, fontname="djb", fontfile=BOLD)
        x = [50, 170, 300, 350, 400, 450]
        y = 80.0
        for row in SPEC_ROWS:
            for left, cell in zip(x, row, strict=False):
                page.insert_text((left + 3, y + 11), cell, fontsize=8, fontname="dj", fontfile=FONT)
            page.draw_line((x[0], y), (x[-1], y), width=0.5)
            y += 15
        page.draw_line((x[0], y), (x[-1], y), width=0.5)
        for left in x:
            page.draw_line((left, 80), (left, y), width=0.5)
        page.insert_textbox(
            pymupdf.Rect(50, y + 20, 560, y + 80), "The regulator is stable with 1 µF. " * 4, fontsize=9
        )
        doc.save(out)
    return out


def test_a_row_under_its_parameter_is_quoted_by_the_parameter_and_its_condition(
    falkordb_store: FalkorDBStore, tmp_path: Path
) -> None:
    """ "Dropout voltage at 300 mA": the row that answers names the condition only; the parameter is
    the row above it. The quote was the supply current's 300 mA row and the dropout's 100 mA one."""
    pdf = spanned_rows_page(tmp_path / "spec.pdf")
    result = ask_of_pdf(falkordb_store, pdf, "What is the dropout voltage at 300 mA?", tmp_path / "home")
    first = result.answer.splitlines()[0]
    assert "| Dropout voltage | IOUT = 100 mA | 40 | 65 | mV | |  | IOUT = 300 mA | 120 | 190 | mV |" in first
    assert "390" not in first

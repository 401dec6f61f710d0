"""A component datasheet's specification table: each section heading underlined across the page,
and under one of them a caption, a table framed by rules of its own (a top rule, a rule under the
header, a bottom rule) and its notes set small under the bottom rule.

The band between two headings' rules was read as a table too: the caption, the rows with their
first columns run together, the notes and the next heading in it, beside the real table. And the
notes ran on past the table's bottom rule as the rows of a table broken by the page do, so they
were read as its last rows, and their lines across the first columns merged those columns.
"""

from __future__ import annotations

from pathlib import Path

import pymupdf

from docgraph.ingest.readers.native import NativeReader
from docgraph.ingest.types import PageLayout

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
        page.insert_text((50, y + 50), "The HSX310 comes in a six-pin DFN package.", fontsize=9)
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

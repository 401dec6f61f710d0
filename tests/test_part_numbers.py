"""A question that names a stored document by its part number ("... of the XYZ123?") is answered
from that document, and the number itself ranks none of its passages.

An engineer names the part in every question. Asked of the whole store, the part number is rare
there, so every passage that repeats it ("The XYZ123 is a low-dropout regulator ...") outscored
the table that answers, which does not print it, and within the document too the number lifted
those passages.
"""

from __future__ import annotations

from pathlib import Path

import pymupdf

from docgraph.app.stores.falkordb_store import FalkorDBStore
from tests.llm_data import hybrid_over

PARTS = {
    "xyz123": (
        "300 mA Low-Dropout Regulator",
        [
            "The XYZ123 is a low quiescent current linear regulator for portable equipment.",
            "The XYZ123 runs from 2.3 V to 5.5 V. The XYZ123 is stable with ceramic capacitors.",
            "An enable input turns the XYZ123 on and off. The XYZ123 protects itself against overload.",
            "Revision B of the XYZ123 data sheet updated Table 1, and Table 1 was moved to the first page.",
        ],
        [["Package", "Theta JA", "Unit"], ["5-lead TSOT", "170", "C/W"], ["6-lead LFCSP", "62", "C/W"]],
    ),
    "hsx310": (
        "Digital Humidity Sensor",
        [
            "The HSX310 measures relative humidity and temperature over I2C.",
            "The thermal resistance of the HSX310 package is low, so self-heating stays small.",
            "The HSX310 runs from 1.62 V to 3.6 V.",
        ],
        [["Register", "Address", "Default"], ["WHO_AM_I", "0x0F", "0xBC"], ["CTRL_REG1", "0x20", "0x00"]],
    ),
}


def datasheet(folder: Path, part: str) -> Path:
    subtitle, paragraphs, rows = PARTS[part]
    with pymupdf.open() as doc:
        page = doc.new_page(width=612, height=792)
        page.insert_text((50, 60), part.upper(), fontsize=22, fontname="hebo")
        page.insert_text((50, 84), subtitle, fontsize=12, fontname="hebo")
        y = 120.0
        page.insert_text((50, y), "General Description", fontsize=11, fontname="hebo")
        for text in paragraphs:
            page.insert_textbox(pymupdf.Rect(50, y + 8, 560, y + 40), text, fontsize=9)
            y += 34
        y += 20
        page.insert_text(
            (50, y), "Thermal Resistance" if part == "xyz123" else "Register Map", fontsize=11, fontname="hebo"
        )
        y += 16
        page.insert_text((50, y), "Table 1. Package data" if part == "xyz123" else "Table 1. Registers", fontsize=9)
        y += 6
        for row in rows:
            for k, cell in enumerate(row):
                page.insert_text(
                    (53 + 120 * k, y + 11), cell, fontsize=8, fontname="hebo" if row is rows[0] else "helv"
                )
            page.draw_line((50, y), (410, y), width=0.5)
            y += 15
        page.draw_line((50, y), (410, y), width=0.5)
        for k in range(4):
            page.draw_line((50 + 120 * k, y - 15 * len(rows)), (50 + 120 * k, y), width=0.5)
        doc.save(folder / f"{part}.pdf")
    return folder / f"{part}.pdf"


def test_a_question_naming_a_part_is_answered_from_its_datasheet(falkordb_store: FalkorDBStore, tmp_path: Path) -> None:
    hybrid = hybrid_over(falkordb_store, [datasheet(tmp_path, part) for part in PARTS], tmp_path / "home")
    for question in ("What is the theta JA of the XYZ123?", "Which package does the XYZ123 come in?"):
        top = hybrid.retrieve(question, 5)
        assert top[0].kind == "table" and "170" in top[0].text
        assert [hit.doc_id for hit in top[:3]] == ["xyz123"] * 3 and "named_document" in top[0].signals
    # asked of its datasheet alone, the number still ranks no passage
    top = hybrid.retrieve("What is the theta JA of the XYZ123?", 5, doc_id="xyz123")
    assert top[0].kind == "table" and "170" in top[0].text
    # "Table 1 of the XYZ123" asks for nothing but the table's place: the number asks nothing more.
    top = hybrid.retrieve("What does Table 1 of the XYZ123 list?", 3)
    assert {top[0].kind, top[1].kind} == {"table", "caption"} and "170" in (top[0].text + top[1].text)
    # A question that names no part is asked of every document.
    assert {hit.doc_id for hit in hybrid.retrieve("What is the supply voltage range?", 6)} == set(PARTS)

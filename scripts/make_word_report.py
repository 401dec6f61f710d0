"""Make tests/data/pdfs/water-report.pdf: a nine-page report as a word processor writes it.

A .docx built with python-docx (Word's default template: Title and Heading styles, "Table Grid"
tables, "List Bullet" items set in the Symbol font, a running header and footer), converted to PDF
by LibreOffice. The text is filler around a few facts the tests look for; the seed fixes it.

Usage (neither tool is a dependency of docgraph):
    pip install python-docx && apt-get install libreoffice-writer-nogui
    python scripts/make_word_report.py OUT_DIR   # writes OUT_DIR/water-report.docx and .pdf
"""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

from docx import Document  # type: ignore[import-not-found]

FILLER = (
    "the monitoring network recorded flow at each gauging station while field teams sampled groundwater "
    "levels in shallow wells across the eastern districts and compared them with the long term record"
)
WORDS = FILLER.split()
SECTIONS = [
    ("1 Introduction", ["1.1 Purpose of the survey", "1.2 Study area"]),
    ("2 Methods", ["2.1 Gauging stations", "2.2 Groundwater sampling", "2.3 Quality control"]),
    ("3 Results", ["3.1 Rainfall", "3.2 Reservoir storage", "3.3 Groundwater levels"]),
    ("4 Recommendations", ["4.1 Drought triggers", "4.2 Metering"]),
]
FACTS = {
    "1.2 Study area": "The study area covers 12,400 square kilometres and includes the Alder, Birch and Cedar "
    "river catchments.",
    "2.1 Gauging stations": "Forty-two gauging stations were operated, of which six were newly commissioned in "
    "March 2025.",
    "2.3 Quality control": "Every tenth sample was split and sent to an independent laboratory in Greenford for "
    "duplicate analysis.",
    "3.2 Reservoir storage": "Storage in Lake Mora fell from 88 percent in January to 61 percent in September, "
    "the lowest level since 2019.",
    "4.1 Drought triggers": "The Authority proposes to declare stage one drought when combined storage falls "
    "below 55 percent, instead of 45 percent.",
    "4.2 Metering": "Metering will be extended to all irrigation districts by June 2027 at an estimated cost of "
    "3.2 million.",
}
RAINFALL = [("Alder", (812, 790, 701)), ("Birch", (655, 640, 548)), ("Cedar", (930, 905, 786))]
RAINFALL += [("Dunmore", (702, 688, 610))]
BUDGET = [("Monitoring network", 1450, 320), ("Metering rollout", 210, 1800), ("Drought response", 640, 0)]
BUDGET += [("Laboratory services", 385, 45)]
WELLS = ["Well 17 at Harrow Farm", "Well 23 near Eastfield", "Well 31 on the Cedar floodplain"]


def filler(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(words)).capitalize() + "."


def add_table(doc: Document, caption: str, header: list[str], rows: list[list[str]]) -> None:
    doc.add_paragraph(caption)
    table = doc.add_table(rows=1, cols=len(header))
    table.style = "Table Grid"
    for cell, text in zip(table.rows[0].cells, header, strict=True):
        cell.text = text
    for row in rows:
        for cell, text in zip(table.add_row().cells, row, strict=True):
            cell.text = text


def add_subsection(doc: Document, rng: random.Random, title: str) -> None:
    doc.add_heading(title, 2)
    for _ in range(3):
        doc.add_paragraph(filler(rng, rng.randint(50, 110)))
    if title in FACTS:
        doc.add_paragraph(FACTS[title] + " " + filler(rng, 40))
    if title == "3.1 Rainfall":
        rows = [[name, *map(str, values)] for name, values in RAINFALL]
        add_table(doc, "Table 1: Annual rainfall by catchment (mm)", ["Catchment", "2023", "2024", "2025"], rows)
        doc.add_paragraph("The driest catchment relative to its average was Birch. " + filler(rng, 30))
    if title == "3.3 Groundwater levels":
        for item in ["Wells where the level fell by more than one metre:", *WELLS]:
            doc.add_paragraph(item, style="List Bullet")


def build(out_dir: Path) -> Path:
    rng = random.Random(3)
    doc = Document()
    section = doc.sections[0]
    section.header.paragraphs[0].text = "Regional Water Survey 2025 — Annual Report"
    section.footer.paragraphs[0].text = "Northern Basin Authority"
    doc.add_heading("Regional Water Survey 2025", 0)
    doc.add_paragraph("Annual report of the Northern Basin Authority, prepared by the Office of Hydrology.")
    doc.add_heading("Executive summary", 1)
    doc.add_paragraph(
        "Rainfall in 2025 was 14 percent below the ten-year average, and reservoir storage fell to 61 percent "
        "of capacity by the end of September. Demand from agriculture rose by 8 percent. The Authority "
        "recommends raising the drought trigger level and extending metering to all irrigation districts "
        "(see Section 4.2). Table 2 gives the budget for the coming year."
    )
    for title, subsections in SECTIONS:
        doc.add_heading(title, 1)
        doc.add_paragraph(filler(rng, 60))
        for subsection in subsections:
            add_subsection(doc, rng, subsection)
    rows = [[name, str(operating), str(capital)] for name, operating, capital in BUDGET]
    add_table(doc, "Table 2: Budget for 2026 by programme (thousands)", ["Programme", "Operating", "Capital"], rows)
    docx = out_dir / "water-report.docx"
    doc.save(str(docx))
    subprocess.run(["soffice", "--headless", "--convert-to", "pdf", "--outdir", str(out_dir), str(docx)], check=True)
    return out_dir / "water-report.pdf"


if __name__ == "__main__":
    print(build(Path(sys.argv[1])))

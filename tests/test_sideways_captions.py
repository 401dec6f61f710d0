"""A caption set sideways beside a sideways table is still its caption.

tests/data/pdfs/forecast-p4.pdf is page 4 of the forecast package's JSS paper ("Automatic Time Series
Forecasting: the forecast Package for R", GPL-3, as Debian's r-cran-forecast ships it). The page is
landscape content on a portrait page: Table 2 and its caption run bottom to top. Before, every
vertical block was a paragraph, so the caption was one and "Table 2" references elsewhere in the
paper resolved to that paragraph instead of the table.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from docgraph.ingest.graph import build_graph
from docgraph.ingest.readers.native import NativeReader
from docgraph.ingest.types import DocumentLayout

SIDEWAYS = Path(__file__).parent / "data" / "pdfs" / "forecast-p4.pdf"


@pytest.fixture(scope="module")
def page() -> DocumentLayout:
    return NativeReader().read(SIDEWAYS)


def test_the_sideways_caption_is_a_caption_of_the_table(page: DocumentLayout) -> None:
    regions = page.pages[0].regions
    [caption] = [r for r in regions if r.text.startswith("Table 2: Formulae for recursive calculations")]
    assert caption.kind == "caption"
    batch = build_graph(page)
    kinds = {n.key: n.props["kind"] for n in batch.nodes if n.label == "Region"}
    caption_of = [(kinds[e.src_key], kinds[e.dst_key]) for e in batch.edges if e.type == "CAPTION_OF"]
    assert caption_of == [("caption", "table")]


def test_other_sideways_text_stays_a_paragraph(page: DocumentLayout) -> None:
    vertical = [r for r in page.pages[0].regions if r.bbox.height > 3 * r.bbox.width and r.kind != "table"]
    assert vertical and all(r.kind in ("caption", "paragraph", "formula") for r in vertical)
    assert sum(r.kind == "caption" for r in vertical) == 1

"""A magazine's pull quote, set large between rules inside a column, cuts a paragraph in two: the
parts are still one paragraph in the graph (HAS_NEXT {continuation}), the quote read after them.
An index's group letter between two entries is no pull quote."""

from __future__ import annotations

from pathlib import Path

import pymupdf

from docgraph.ingest.graph import build_graph
from docgraph.ingest.readers.native import NativeReader
from docgraph.records import GraphBatch

BEFORE = (
    "The flood of November 2023, when the river rose over the Mill Road for the first time in thirty "
    "years, delayed the work by four months and soaked a delivery of shelving. The builders,"
)
AFTER = (
    "Fenwick and Sons, raised the floor by forty centimetres on the advice of the Environment Agency, "
    "and the children's corner now sits on a platform that doubles as a stage for story time."
)
QUOTE = "'More than six hundred people joined on the opening day.'"


def column(path: Path, quote: str, size: float) -> Path:
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((40, 70), "Riverside Library opens", fontname="tibo", fontsize=20)
    page.insert_textbox(pymupdf.Rect(216, 100, 376, 170), BEFORE, fontname="tiro", fontsize=9.5)
    page.draw_line((216, 180), (376, 180), width=1.2)
    page.insert_textbox(pymupdf.Rect(216, 186, 376, 262), quote, fontname="tiit", fontsize=size)
    page.draw_line((216, 266), (376, 266), width=1.2)
    page.insert_textbox(pymupdf.Rect(216, 276, 376, 350), AFTER, fontname="tiro", fontsize=9.5)
    doc.save(path)
    return path


def chain(batch: GraphBatch) -> list[tuple[str, bool]]:
    """The reading order: each body region's first words, and whether it runs on into the next."""
    text = {n.key: str(n.props["text"]) for n in batch.nodes if n.label == "Region"}
    edges = [e for e in batch.edges if e.type == "HAS_NEXT" and e.src_label == "Region"]
    return [(" ".join(text[e.src_key].split()[:2]), bool(e.props.get("continuation"))) for e in edges]


def test_a_paragraph_cut_by_a_pull_quote_goes_on_under_it(tmp_path: Path) -> None:
    batch = build_graph(NativeReader().read(column(tmp_path / "quote.pdf", QUOTE, 14)))
    assert chain(batch) == [("Riverside Library", False), ("The flood", True), ("Fenwick and", False)]


def test_a_group_letter_set_large_is_no_pull_quote(tmp_path: Path) -> None:
    batch = build_graph(NativeReader().read(column(tmp_path / "letter.pdf", "T", 14)))
    assert chain(batch) == [("Riverside Library", False), ("The flood", False), ("T", False)]

"""A question that names a figure or table by its label ("What does Figure 3 show?"): the kind
bonus goes to that label's caption and to what it captions (a table over its page break too), not
to every figure. A real local store, PDFs made here, the ONNX encoder."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from docgraph.app.config import Settings
from docgraph.app.pipeline.build import build_ingest_pipeline
from docgraph.app.pipeline.embedding import configured_encoder
from docgraph.app.retrieval.base import ScoredRegion
from docgraph.app.retrieval.kinds import named_labels
from docgraph.app.retrieval.registry import make_retriever
from docgraph.app.stores.base import GraphStore

SUBJECTS = [
    ("Layout of the intake pumps beside the river wall", "The intake draws river water through screens."),
    ("Wiring of the control cabinet and its relays", "Operators reset tripped relays after repairs."),
    ("Water flowing down through the sand filter beds", "Filters are backwashed when head loss is high."),
    ("The belt press squeezing water out of sludge", "Sludge is thickened and pressed into cake."),
]


@pytest.mark.parametrize(
    ("question", "labels"),
    [
        ("What does Figure 3 show?", {("figure", "3")}),
        ("As Fig. 2a shows, which curve is steeper?", {("figure", "2a")}),
        ("According to Table 6–2, what synonym can I use?", {("table", "6-2")}),
        ("Compare TABLE II with Figure A.1.", {("table", "ii"), ("figure", "a.1")}),
        ("Which tables does sqlTables list?", set()),
        ("In the figure of the filter beds, where does water flow?", set()),
    ],
)
def test_named_labels(question: str, labels: set[tuple[str, str]]) -> None:
    assert named_labels(question) == labels


def _manual(pdf: Path) -> None:
    """A page per figure (a picture, then "Figure N: ..."), then two tables over two pages each,
    one captioned above (pages 5 and 6), one below (8 and 9)."""
    with pymupdf.open() as doc:
        for number, (subject, prose) in enumerate(SUBJECTS, start=1):
            page = doc.new_page()
            page.insert_text((72, 80), f"{number} Part {number}", fontname="hebo", fontsize=14)
            page.insert_text((72, 110), prose, fontname="helv", fontsize=10)
            picture = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 120, 60), 0)
            picture.set_rect(picture.irect, (40 * number, 120, 200))
            page.insert_image(pymupdf.Rect(100, 140, 460, 320), pixmap=picture)
            page.insert_text((72, 350), f"Figure {number}: {subject}.", fontname="helv", fontsize=9)
        valves = [("Valve", "Setting")] + [(f"V-{n:02d}", f"{10 + n * 3} kPa") for n in range(60)]
        _table_over_two_pages(doc, valves, "Table 1: Valve settings.", above=True)
        doc.new_page().insert_text((72, 80), "The pumps run at the speeds below.", fontname="helv", fontsize=10)
        pumps = [("Pump", "Speed")] + [(f"P-{n:02d}", f"{900 + n * 7} rpm") for n in range(60)]
        _table_over_two_pages(doc, pumps, "Table 2: Pump speeds.", above=False)
        doc.save(pdf)


def _table_over_two_pages(doc: pymupdf.Document, rows: list[tuple[str, str]], caption: str, above: bool) -> None:
    """A ruled table of ``rows`` over two pages, ``caption`` above its first part or below its last."""
    for part, (top, chunk) in enumerate([(120, rows[:40]), (72, rows[40:])]):
        page = doc.new_page()
        if part == 0 and above:
            page.insert_text((72, 100), caption, fontname="helv", fontsize=9)
        for row, cells in enumerate(chunk):
            y = top + 16 * row
            page.draw_rect(pymupdf.Rect(72, y, 372, y + 16), color=(0, 0, 0), width=0.5)
            page.draw_line((222, y), (222, y + 16), color=(0, 0, 0), width=0.5)
            for x, cell in zip((75, 225), cells, strict=True):
                page.insert_text((x, y + 12), cell, fontname="helv", fontsize=9)
        if part == 1 and not above:
            page.insert_text((72, top + 16 * len(chunk) + 20), caption, fontname="helv", fontsize=9)


def _bonused(hits: list[ScoredRegion]) -> set[tuple[int, str]]:
    return {(hit.page, hit.kind) for hit in hits if "kind" in hit.signals}


def test_a_named_label_gives_the_bonus_to_its_caption_and_what_it_captions(
    falkordb_store: GraphStore, tmp_path: Path
) -> None:
    """Every figure gained the bonus for "Figure 3", lifting the other three over the text of the
    page that answers."""
    settings = Settings(home=tmp_path / "home", graph=falkordb_store.graph_name, store="")
    _manual(tmp_path / "manual.pdf")
    assert build_ingest_pipeline(falkordb_store, settings).ingest(tmp_path / "manual.pdf").status == "ingested"
    falkordb_store.wait_for_indexes()
    hybrid = make_retriever("hybrid", falkordb_store, configured_encoder(settings), settings=settings)

    hits = hybrid.retrieve("What does Figure 3 show?", 40)
    assert _bonused(hits) == {(3, "caption"), (3, "figure")}
    assert hits[0].page == 3
    assert _bonused(hybrid.retrieve("What does Table 1 give for valve V-45?", 40)) == {
        (5, "caption"),
        (5, "table"),
        (6, "table"),
    }
    assert _bonused(hybrid.retrieve("What speed does Table 2 give for pump P-05?", 40)) == {
        (8, "table"),
        (9, "table"),
        (9, "caption"),
    }
    # A label no caption has: every figure, as for "the figure of ..."
    assert _bonused(hybrid.retrieve("What does Figure 9 show?", 40)) == {(n, "figure") for n in range(1, 5)}

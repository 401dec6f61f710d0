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
        (
            "Compare Figures 3 and 4, then Tables 2, 5 or 6.",
            {("figure", "3"), ("figure", "4"), ("table", "2"), ("table", "5"), ("table", "6")},
        ),
        ("Which table I should use for the pumps?", set()),
        ("Which tables does sqlTables list?", set()),
        ("In the figure of the filter beds, where does water flow?", set()),
    ],
)
def test_named_labels(question: str, labels: set[tuple[str, str]]) -> None:
    assert named_labels(question) == labels


def _manual(pdf: Path) -> None:
    """Pages 1-4: a picture each, "Figure N: ..." under it; page 5: Figure 5 at its foot, its caption
    atop page 6. Pages 7-8: Table 1, captioned above; pages 9-10: Table 2 captioned below its second
    part, and Table 3 right under that caption, running on to page 11 and captioned below there."""
    with pymupdf.open() as doc:
        for number, (subject, prose) in enumerate(SUBJECTS, start=1):
            page = doc.new_page()
            page.insert_text((72, 80), f"{number} Part {number}", fontname="hebo", fontsize=14)
            page.insert_text((72, 110), prose, fontname="helv", fontsize=10)
            _picture(page, pymupdf.Rect(100, 140, 460, 320), number)
            page.insert_text((72, 350), f"Figure {number}: {subject}.", fontname="helv", fontsize=9)
        page = doc.new_page()
        page.insert_text((72, 80), "The screens are cleaned by a raking machine.", fontname="helv", fontsize=10)
        _picture(page, pymupdf.Rect(100, 500, 460, 740), 5)
        page = doc.new_page()
        page.insert_text((72, 80), "Figure 5: The raking machine lifting debris.", fontname="helv", fontsize=9)
        page.insert_text((72, 110), "The machine runs every hour.", fontname="helv", fontsize=10)
        valves = [("Valve", "Setting")] + [(f"V-{n:02d}", f"{10 + n * 3} kPa") for n in range(60)]
        page = doc.new_page()
        page.insert_text((72, 100), "Table 1: Valve settings.", fontname="helv", fontsize=9)
        _table(page, valves[:40], 120)
        _table(doc.new_page(), valves[40:], 72)
        pumps = [("Pump", "Speed")] + [(f"P-{n:02d}", f"{900 + n * 7} rpm") for n in range(49)]
        motors = [("Motor", "Rating")] + [(f"M-{n:02d}", f"{5 + n} kW") for n in range(47)]
        page = doc.new_page()
        page.insert_text((72, 80), "The pumps run at the speeds below.", fontname="helv", fontsize=10)
        _table(page, pumps[:40], 100)
        page = doc.new_page()
        end = _table(page, pumps[40:], 72)
        page.insert_text((72, end + 20), "Table 2: Pump speeds.", fontname="helv", fontsize=9)
        _table(page, motors[:28], end + 50)
        page = doc.new_page()
        end = _table(page, motors[28:], 72)
        page.insert_text((72, end + 20), "Table 3: Motor ratings.", fontname="helv", fontsize=9)
        doc.save(pdf)


def _picture(page: pymupdf.Page, rect: pymupdf.Rect, shade: int) -> None:
    picture = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 120, 60), 0)
    picture.set_rect(picture.irect, (40 * shade, 120, 200))
    page.insert_image(rect, pixmap=picture)


def _table(page: pymupdf.Page, rows: list[tuple[str, str]], top: float) -> float:
    """A ruled two-column table of ``rows`` from ``top``; where it ends."""
    for row, cells in enumerate(rows):
        y = top + 16 * row
        page.draw_rect(pymupdf.Rect(72, y, 372, y + 16), color=(0, 0, 0), width=0.5)
        page.draw_line((222, y), (222, y + 16), color=(0, 0, 0), width=0.5)
        for x, cell in zip((75, 225), cells, strict=True):
            page.insert_text((x, y + 12), cell, fontname="helv", fontsize=9)
    return top + 16 * len(rows)


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
    assert _bonused(hybrid.retrieve("Compare Figures 3 and 4.", 40)) == {
        (n, kind) for n in (3, 4) for kind in ("caption", "figure")
    }
    assert _bonused(hybrid.retrieve("What does FIGURE 5 show?", 40)) == {(5, "figure"), (6, "caption")}
    assert _bonused(hybrid.retrieve("What does Table 1 give for valve V-45?", 40)) == {
        (7, "caption"),
        (7, "table"),
        (8, "table"),
    }
    assert _bonused(hybrid.retrieve("What speed does Table 2 give for pump P-05?", 40)) == {
        (9, "table"),
        (10, "table"),
        (10, "caption"),
    }
    assert _bonused(hybrid.retrieve("What rating does Table 3 give for motor M-30?", 40)) == {
        (10, "table"),
        (11, "table"),
        (11, "caption"),
    }
    # A label no caption has: every region of its kind, as for "the figure of ..."; a found one of
    # another kind does not narrow this one
    every_figure = {(n, "figure") for n in range(1, 6)}
    assert _bonused(hybrid.retrieve("What does Figure 9 show?", 40)) == every_figure
    named = _bonused(hybrid.retrieve("Does Figure 9 match the valves of Table 1?", 40))
    assert named == every_figure | {(7, "caption"), (7, "table"), (8, "table")}


LEAD = (
    "Drivers log each refuelling at the depot pump, and the depot manager checks the log against the "
    "supplier's delivery notes every month. Vehicles that idle for long spells at loading bays burn far "
    "more than the route planners expect, so the depots with the busiest bays appear high in the list. "
    "New vans delivered in the spring replaced the oldest diesel vehicles on the town routes. "
)


def _report(pdf: Path, title: str, tables: list[tuple[str, list[tuple[str, str]]]]) -> None:
    """A report of one page per table: a heading, a sentence on what the table shows, the ruled
    table, and its caption ("Table N: ...") under it."""
    with pymupdf.open() as doc:
        for number, (subject, rows) in enumerate(tables, start=1):
            page = doc.new_page()
            page.insert_text((72, 60), title, fontname="hebo", fontsize=14)
            lead = f"Table {number} shows the {subject.lower()} for 2023. " + (
                LEAD * 3 if number == 3 else "As the table shows, 3 sites opened and 3 closed."
            )
            page.insert_textbox(pymupdf.Rect(72, 80, 520, 300), lead, fontsize=10)
            end = _table(page, rows, 310)
            page.insert_text((72, end + 20), f"Table {number}: {subject}.", fontname="helv", fontsize=9)
        doc.save(pdf)


def test_a_question_asking_only_what_a_label_shows_puts_that_label_first_across_a_store(
    falkordb_store: GraphStore, tmp_path: Path
) -> None:
    """An analyst asked "What does Table 3 show?" of a store of reports, one of which has a Table 3:
    its caption ranked under the other reports' tables (the question has no other word to rank by).
    The named label's caption and table come first, as a named page's regions do."""
    settings = Settings(home=tmp_path / "home", graph=falkordb_store.graph_name, store="")
    pipeline = build_ingest_pipeline(falkordb_store, settings)
    sites = [("Site", "Staff")] + [(f"Site {n}", f"{30 + 3 * n} staff") for n in range(12)]
    sales = [("Quarter", "Sales")] + [(f"Q{n % 4 + 1} {2020 + n // 4}", f"{300 + 13 * n} k") for n in range(12)]
    fuel = [("Depot", "Litres")] + [(f"Depot {n}", f"{1200 + 31 * n} l") for n in range(12)]
    for name, tables in [
        ("north", [("Staff numbers by site", sites), ("Quarterly sales", sales)]),
        ("south", [("Quarterly sales", sales), ("Staff numbers by site", sites)]),
        ("east", [("Staff numbers by site", sites), ("Quarterly sales", sales)]),
        ("fleet", [("Quarterly sales", sales), ("Staff numbers by site", sites), ("Fuel used by depot", fuel)]),
    ]:
        _report(tmp_path / f"{name}.pdf", f"{name.title()} region annual report", tables)
        assert pipeline.ingest(tmp_path / f"{name}.pdf").status == "ingested"
    falkordb_store.wait_for_indexes()
    hybrid = make_retriever("hybrid", falkordb_store, configured_encoder(settings), settings=settings)

    hits = hybrid.retrieve("What does Table 3 show?", 10)
    assert {(hit.doc_id, hit.page, hit.kind) for hit in hits[:2]} == {("fleet", 3, "caption"), ("fleet", 3, "table")}
    # A question that asks something of the table ranks by its words as before: the label's regions
    # gain the kind bonus, not the first places
    hits = hybrid.retrieve("Which depot used the most fuel in Table 3?", 10)
    assert "part" not in hits[0].signals

"""A service technician's manuals: an espresso machine's service manual (safety notices behind
their symbols, a descaling procedure run on over a page break, an error-code table over two
pages, a spec sheet) and a printer's two-column user guide (a procedure run on into the next
column), a one-page service bulletin under its running head and a manual page with margin notes,
read and asked as a technician asks them. PDFs made in tests/service_manuals.py and
tests/service_pages.py."""

from __future__ import annotations

from dataclasses import replace
from itertools import pairwise
from pathlib import Path

import pytest

from docgraph.app.llm.context import Passage, build_context
from docgraph.app.llm.extractive import quote_across_breaks
from docgraph.app.llm.question_terms import content_words
from docgraph.app.llm.service import ask
from docgraph.app.retrieval.named_parts import named_notices
from docgraph.app.retrieval.text import fold, tokenize
from docgraph.app.stores.falkordb_store import FalkorDBStore
from docgraph.ingest.graph import build_graph
from docgraph.ingest.readers.native import NativeReader
from docgraph.ingest.structure.continuity import list_continues
from docgraph.ingest.types import BBox, DocumentLayout, Region
from docgraph.records import FURNITURE_KINDS
from tests.llm_data import ask_of_pdf, hybrid_over, no_llm_settings
from tests.service_manuals import (
    DESCALING,
    ERRORS,
    NOTICES,
    PARTS,
    REVISIONS,
    TONER,
    printer_guide,
    service_manual,
    spec_sheet,
)
from tests.service_pages import (
    BULLETIN_HEAD,
    CLEANING,
    GRINDER,
    MARGIN_NOTES,
    margin_notes_manual,
    service_bulletin,
    short_right_column,
)


@pytest.fixture(scope="module")
def manual(tmp_path_factory: pytest.TempPathFactory) -> DocumentLayout:
    return NativeReader().read(service_manual(tmp_path_factory.mktemp("manual") / "es200.pdf"))


def in_order(layout: DocumentLayout) -> list[Region]:
    return [region for page in layout.pages for region in sorted(page.regions, key=lambda r: r.order)]


def test_a_notice_keeps_its_label_after_its_symbol(manual: DocumentLayout) -> None:
    # The CAUTION behind a drawn triangle, the WARNING behind a "⚠" glyph, the DANGER behind a
    # ZapfDingbats triangle: each label opens a paragraph with its notice's text.
    regions = in_order(manual)
    for label, text in NOTICES.items():
        found = [region for region in regions if text[:40] in region.text]
        assert len(found) == 1 and found[0].kind == "paragraph", (label, found)
        assert found[0].text.startswith(f"{label} {text[:40]}")
    assert not any(region.kind == "list" and "DANGER" in region.text for region in regions)


def continued(layout: DocumentLayout) -> list[tuple[str, str]]:
    """The (first line, first line) of each region and the region it goes on in."""
    regions = [region for region in in_order(layout) if region.kind not in FURNITURE_KINDS]
    return [
        (last.text.splitlines()[0], first.text.splitlines()[0]) for last, first in pairwise(regions) if last.continues
    ]


def test_a_procedure_run_on_over_a_page_break_is_one_list(manual: DocumentLayout) -> None:
    # Steps 1 to 5 end page 1, steps 6 to 8 open page 2 (its running head read apart)
    assert manual.pages[1].regions[0].text.startswith("6. Open the steam valve")
    pairs = continued(manual)
    assert (
        "1. Empty the drip tray and the water tank, and remove the water filter.",
        "6. Open the steam valve for 10 seconds every 2 minutes until the tank is empty.",
    ) in pairs
    edges = build_graph(manual).edges
    assert any(edge.type == "HAS_NEXT" and edge.props.get("continuation") for edge in edges)


def test_a_list_that_starts_again_at_one_is_another_list() -> None:
    # Two procedures, each numbered from 1, the second opening the next page: not one list.
    assert not list_continues(_list("1. Open the cover.\n2. Lift the lever."), _list("1. Fill the tank."))
    assert not list_continues(_list("1. Open the cover.\n2. Lift the lever."), _list("3) Fill the tank."))
    assert list_continues(_list("(a) Open the cover.\n(b) Lift the lever."), _list("(c) Fill the tank."))


def _list(text: str) -> Region:
    return Region(kind="list", bbox=BBox(60, 100, 530, 200), text=text, order=0)


def test_a_procedure_run_on_into_the_next_column_is_one_list(tmp_path: Path) -> None:
    # Steps 1 to 4 end the left column of the printer guide, 5 and 6 head the right column.
    guide = NativeReader().read(printer_guide(tmp_path / "lp40.pdf"))
    assert (
        "1. Open the front cover by pulling the release lever.",
        "5. Slide the new cartridge into the printer until it locks.",
    ) in continued(guide)


def first_quote(store: FalkorDBStore, pdf: Path, question: str, home: Path) -> str:
    answer = ask_of_pdf(store, pdf, question, home).answer
    return answer.splitlines()[0]


def test_how_to_descale_quotes_the_whole_procedure_in_order(falkordb_store: FalkorDBStore, tmp_path: Path) -> None:
    # Steps 1 to 5 end page 1 and 6 to 8 open page 2: all eight, in order, after the lead-in.
    pdf = service_manual(tmp_path / "es200.pdf")
    quote = first_quote(falkordb_store, pdf, "How do I descale the machine?", tmp_path / "home")
    assert quote.startswith("1. “To descale the machine:” “1. Empty the drip tray")
    at = [quote.find(f"{k}. {step}") for k, step in enumerate(DESCALING, 1)]
    assert -1 not in at and at == sorted(at), quote


def test_how_to_replace_the_toner_quotes_both_columns_steps(falkordb_store: FalkorDBStore, tmp_path: Path) -> None:
    pdf = printer_guide(tmp_path / "lp40.pdf")
    quote = first_quote(falkordb_store, pdf, "How do I replace the toner cartridge?", tmp_path / "home")
    at = [quote.find(f"{k}. {step}") for k, step in enumerate(TONER, 1)]
    assert -1 not in at and at == sorted(at), quote


def test_what_an_error_code_means_quotes_its_row_alone(falkordb_store: FalkorDBStore, tmp_path: Path) -> None:
    # "error" is in E16's meaning too; the code names E14's row alone.
    pdf = service_manual(tmp_path / "es200.pdf")
    home = tmp_path / "home"
    hybrid = hybrid_over(falkordb_store, [pdf], home)
    answer = ask("What does error E14 mean?", falkordb_store, no_llm_settings(home), hybrid, k=8).answer
    row = "| E14 | Boiler temperature sensor open circuit | Check the NTC connector J4; replace the NTC sensor. |"
    quotes = [line.split("“", 1)[1].split("”")[0] for line in answer.splitlines() if "| Code |" in line]
    assert quotes == [f"| Code | Meaning | Remedy | … {row}"], answer


def test_a_code_row_is_quoted_from_the_part_of_a_table_that_holds_it() -> None:
    # The error table runs over a page break; the part retrieved first lacks the row asked about.
    header = "| Code | Meaning | Remedy |\n| --- | --- | --- |\n"
    first = _table("p2:r4", 2, header + "| E04 | Flow meter gives no pulses | Replace the flow meter. |")
    rest = _table(
        "p3:r0",
        3,
        header + "| E14 | Sensor open circuit | Replace the NTC sensor. |\n| E16 | Firmware error | Reload. |",
    )
    context = build_context([first, replace(rest, via="continues", of_hit=first.region_id)])
    quote, parts = quote_across_breaks(first, context, content_words("What does error E14 mean?"))
    assert quote == "| Code | Meaning | Remedy | | E14 | Sensor open circuit | Replace the NTC sensor. |"
    assert [part.region_id for part in parts] == [rest.region_id]


def _table(ref: str, page: int, text: str) -> Passage:
    return Passage(f"es200@1:{ref}", "es200", page, 0, "table", (60, 60, 535, 400), text)


def test_codes_meet_without_their_padding_and_abbreviations_spelled_out() -> None:
    # "What does error E5 mean?" of a table listing "E05"; "typical" of a spec sheet's "Typ" column
    assert tokenize("What does error E5 mean?") == tokenize("What does error E05 mean?")
    assert fold("F003") == fold("F3") and fold("E10") != fold("E1")
    for short, word in [("Rev.", "revision"), ("Typ", "typical"), ("Max", "maximum"), ("Qty", "quantity")]:
        assert tokenize(short) == tokenize(word)
    assert tokenize("Figs. 2 and 3, Eq. 4") == tokenize("figures 2 and 3, equation 4")
    # abbreviations of several words stay as they are: "min" is a minimum or a minute
    assert [fold(word) for word in ("min", "sec", "temp", "ch")] == ["min", "sec", "temp", "ch"]


def test_what_error_e5_means_finds_the_row_of_e05(falkordb_store: FalkorDBStore, tmp_path: Path) -> None:
    pdf = service_manual(tmp_path / "es200.pdf")
    home = tmp_path / "home"
    hybrid = hybrid_over(falkordb_store, [pdf], home)
    quote = ask("What does error E5 mean?", falkordb_store, no_llm_settings(home), hybrid, k=8).answer
    assert "| E05 | Pump overload | Descale the machine; check the pump for blockage. |" in quote


def test_a_notice_named_by_its_label_is_quoted(falkordb_store: FalkorDBStore, tmp_path: Path) -> None:
    # "notice" is in the paragraph before the notices ("Read these safety notices ..."), "CAUTION"
    # only in the notice it labels: the question names that notice, and asks only what it says.
    pdf = service_manual(tmp_path / "es200.pdf")
    home = tmp_path / "home"
    hybrid = hybrid_over(falkordb_store, [pdf], home)
    for question in ("What does the CAUTION notice say?", "What does the CAUTION say about the boiler?"):
        result = ask(question, falkordb_store, no_llm_settings(home), hybrid, k=8)
        assert not result.abstained and result.answer.startswith(f"1. “CAUTION {NOTICES['CAUTION'][:30]}"), (
            result.answer
        )
    assert named_notices("What does the danger label say?") == {"DANGER"}
    assert not named_notices("Which warning messages does the compiler print?")
    assert not named_notices("How long is the notice period?")


def test_a_header_row_set_on_a_tables_one_rule_heads_the_table(tmp_path: Path) -> None:
    # A word processor's light table style: a bold header over one rule, no rule over it, a rule
    # under the last row. Codes, dates and part numbers hold no column of numbers.
    sheet = NativeReader().read(spec_sheet(tmp_path / "sheet.pdf"))
    tables = [region for region in in_order(sheet) if region.kind == "table"]
    assert [table.cells[:2] for table in tables if table.cells] == [
        [["Code", "Meaning", "Remedy"], list(ERRORS[0])],
        [list(PARTS[0]), list(PARTS[1])],
        [list(REVISIONS[0]), list(REVISIONS[1])],
    ]
    assert not any(region.text in ("Code Meaning Remedy", "Rev. Date Changes") for region in in_order(sheet))


def test_a_one_page_bulletins_running_head_is_a_page_header(tmp_path: Path) -> None:
    # Set small over a rule atop the only page: no other page repeats it, its place and type say it.
    bulletin = NativeReader().read(service_bulletin(tmp_path / "sb.pdf"))
    regions = in_order(bulletin)
    assert [(r.kind, r.text) for r in regions if r.kind == "page_header"] == [("page_header", BULLETIN_HEAD)]
    assert not [r for r in regions if r.kind != "page_header" and "SB-2025-07" in r.text]
    assert regions[0].kind == "title" and regions[0].text == "Replacement of the boiler temperature sensor"


def test_a_margin_note_leaves_the_paragraph_beside_it_whole(tmp_path: Path) -> None:
    # Each note is written after the body line it is anchored to, on that line's row, set small.
    manual = NativeReader().read(margin_notes_manual(tmp_path / "notes.pdf"))
    texts = [(r.kind, r.text) for r in in_order(manual)]
    assert ("paragraph", GRINDER) in texts
    for note, _ in MARGIN_NOTES:
        assert ("paragraph", note) in texts


def test_a_short_right_column_is_read_after_the_left_one(tmp_path: Path) -> None:
    # "Supplies" and its three lines head the right column beside a full left column of text.
    guide = NativeReader().read(short_right_column(tmp_path / "guide.pdf"))
    page = sorted(guide.pages[0].regions, key=lambda r: r.order)
    texts = [r.text for r in page if r.kind not in FURNITURE_KINDS]
    assert texts.index("Supplies") == len(CLEANING) + 1 and texts[0] == "Cleaning the printer"
    assert texts[1 : len(CLEANING) + 1] == CLEANING

"""An electronics engineer's datasheet, read and asked as an engineer asks it: the maximum ratings,
a pin, a value at a test condition, a note, the block diagram, the register that enables the
watchdog. The PDF is made in tests/datasheets.py (a regulator's five pages, as TI sets them)."""

from __future__ import annotations

from pathlib import Path

import pytest

from docgraph.app.llm.service import ask
from docgraph.app.retrieval.hybrid import HybridRetriever
from docgraph.app.stores.falkordb_store import FalkorDBStore
from docgraph.ingest.graph import build_graph
from docgraph.ingest.readers.native import NativeReader
from docgraph.ingest.types import DocumentLayout
from docgraph.records import FURNITURE_KINDS
from tests.datasheets import (
    ABS_MAX_NOTES,
    APPLICATIONS,
    EC_NOTES,
    FEATURES_LEFT,
    FEATURES_RIGHT,
    THERMAL_NOTES,
    datasheet,
)
from tests.llm_data import hybrid_over, no_llm_settings


@pytest.fixture(scope="module")
def layout(tmp_path_factory: pytest.TempPathFactory) -> DocumentLayout:
    return NativeReader().read(datasheet(tmp_path_factory.mktemp("datasheet") / "xld3305.pdf"))


def notes_on(layout: DocumentLayout, page: int) -> list[str]:
    return [r.text for r in sorted(layout.pages[page - 1].regions, key=lambda r: r.order) if r.kind == "footnote"]


def test_a_notes_lines_set_in_under_its_mark_stay_in_the_note(layout: DocumentLayout) -> None:
    """A note wraps with a hanging indent, its other lines in under its mark ("(1) Stresses beyond
    ... These are stress" over "ratings only; ..."): they were a footnote of their own, so note 1 was
    quoted cut off mid-sentence. Low on the page (the footnote zone) and mid-page under a table."""
    assert notes_on(layout, 2) == ABS_MAX_NOTES
    assert notes_on(layout, 3) == THERMAL_NOTES


def test_the_notes_under_a_tables_continued_part_are_its_footnotes(layout: DocumentLayout) -> None:
    """The electrical characteristics run on over a page break; their notes under the second part
    answer marks of both parts ("Dropout voltage(1)" is on the page before). They were a list."""
    assert notes_on(layout, 4) == EC_NOTES


def test_the_features_right_column_is_read_under_its_heading(layout: DocumentLayout) -> None:
    """The features are set in two columns under "1 Features", "2 Applications" under both at the
    left: the heading was read as the left column's end, so the right column's features went under
    Applications."""
    page = sorted(layout.pages[0].regions, key=lambda r: r.order)
    texts = [r.text.splitlines()[0] for r in page if r.kind not in FURNITURE_KINDS]
    at = texts.index("1 Features")
    assert texts[at : at + 4] == [
        "1 Features",
        f"• {FEATURES_LEFT[0]}",
        f"• {FEATURES_RIGHT[0]}",
        "2 Applications",
    ]
    batch = build_graph(layout)
    sections = {n.key: n.props["title"] for n in batch.nodes if n.label == "Section"}
    first = {n.key: str(n.props["text"]).splitlines()[0] for n in batch.nodes if n.label == "Region"}
    under = {
        first[e.src_key]: sections[e.dst_key]
        for e in batch.edges
        if e.type == "IS_UNDER" and e.src_key in first and e.dst_key in sections
    }
    assert under[f"• {FEATURES_RIGHT[0]}"] == "1 Features"


def test_a_tables_marks_call_its_own_notes(layout: DocumentLayout) -> None:
    """TI sets a note's mark raised in brackets: "(unless otherwise noted)⁽¹⁾" over the ratings,
    "Tstg(2)", "Dropout voltage(1)" in the cells. They called no note. A table's mark calls its own
    note, read after it: the electrical characteristics' "(1)" is under their part on the next
    page, not the thermal table's note (1) on the page of the mark."""
    batch = build_graph(layout)
    text = {n.key: str(n.props["text"]) for n in batch.nodes if n.label == "Region"}
    kind = {n.key: str(n.props["kind"]) for n in batch.nodes if n.label == "Region"}
    calls = [
        (kind[e.src_key], e.props["label"], text[e.dst_key]) for e in batch.edges if e.props.get("kind") == "footnote"
    ]
    assert sorted(calls) == sorted(
        [
            ("paragraph", "Note 1", ABS_MAX_NOTES[0]),
            ("table", "Note 2", ABS_MAX_NOTES[1]),
            ("table", "Note 1", THERMAL_NOTES[0]),
            ("table", "Note 1", EC_NOTES[0]),
            ("table", "Note 2", EC_NOTES[1]),
        ]
    )


def first_lines(store: FalkorDBStore, hybrid: HybridRetriever, home: Path, question: str) -> list[str]:
    return ask(question, store, no_llm_settings(home), hybrid, k=8).answer.splitlines()


@pytest.fixture
def asked(falkordb_store: FalkorDBStore, tmp_path: Path) -> tuple[FalkorDBStore, HybridRetriever, Path]:
    hybrid = hybrid_over(falkordb_store, [datasheet(tmp_path / "xld3305.pdf")], tmp_path / "home")
    return falkordb_store, hybrid, tmp_path / "home"


def test_a_note_asked_by_number_is_quoted_whole(asked: tuple[FalkorDBStore, HybridRetriever, Path]) -> None:
    lines = first_lines(*asked, "What does Note 1 say?")
    assert lines[0].startswith(f"1. “{ABS_MAX_NOTES[0]}”"), lines


def test_a_note_of_a_table_is_the_note_its_marks_call(asked: tuple[FalkorDBStore, HybridRetriever, Path]) -> None:
    """Each table numbers its notes from 1: "note 2 of Table 2" is the storage note under the
    ratings, not the electrical characteristics' note 2, which was quoted before it; and it is
    asked for, not the table, which only says which note 2 (the table was quoted first)."""
    for question, note, others in [
        ("What does note 2 of Table 2 say?", ABS_MAX_NOTES[1], [EC_NOTES[1]]),
        ("What does Note 1 of Table 4 say?", THERMAL_NOTES[0], [ABS_MAX_NOTES[0], EC_NOTES[0]]),
    ]:
        lines = first_lines(*asked, question)
        assert lines[0].startswith(f"1. “{note}”"), lines  # the note asked for, not its table
        assert not any(other[:40] in line for other in others for line in lines), lines


def test_a_chart_and_its_caption_are_one_quote(asked: tuple[FalkorDBStore, HybridRetriever, Path]) -> None:
    """A chart's caption and its axes were two of the three quotes, leaving no room for the row of
    the electrical characteristics that states the quiescent current at 25 °C."""
    lines = first_lines(*asked, "What is the quiescent current at 25 °C?")
    assert lines[0].startswith("1. “Figure 3. Quiescent Current vs Temperature” “") and "TEMPERATURE (°C)" in lines[0]
    assert any("| IQ Quiescent current | IOUT = 0 mA, TJ = 25°C |  | 25 | 35 | µA |" in line for line in lines), lines
    lines = first_lines(*asked, "Show the block diagram")
    assert lines[0].startswith("1. “Figure 1. Functional Block Diagram” “Bandgap Reference Error Amplifier")
    assert lines[0].endswith("[xld3305 p.1 #r9] [xld3305 p.1 #r8]"), lines  # the caption and the diagram
    assert not any(line.startswith("2. “Figure 1.") for line in lines)


def test_a_table_and_its_caption_are_one_quote(asked: tuple[FalkorDBStore, HybridRetriever, Path]) -> None:
    """The table's caption says which limits its rows are (absolute maximum or recommended); quoted
    apart, it took the last quote from the electrical characteristics' row of the current limit."""
    lines = first_lines(*asked, "What is the maximum supply voltage?")
    assert lines[0].startswith("1. “Table 2. Absolute Maximum Ratings” “|  | MIN | MAX | UNIT |"), lines
    assert not any("“Table 2. Absolute Maximum Ratings”" in line for line in lines[1:]), lines
    lines = first_lines(*asked, "What is the current limit?")
    row = "| ILIM Output current limit | VOUT = 90% of VOUT(nom) | 350 | 500 | 700 | mA |"
    assert any(row in line for line in lines), lines


def test_a_list_asked_for_by_its_heading_is_quoted_whole(asked: tuple[FalkorDBStore, HybridRetriever, Path]) -> None:
    """ "What are the features?": no bullet says "feature", its heading does; one bullet was quoted
    from each column, the first, as if it alone answered."""
    lines = first_lines(*asked, "What are the features?")
    for features in (FEATURES_LEFT, FEATURES_RIGHT):
        assert any(all(f"• {item}" in line for item in features) for line in lines[:2]), lines
    lines = first_lines(*asked, "What are the applications?")
    assert lines[0].startswith(f"1. “{' '.join(f'• {item}' for item in APPLICATIONS)}”"), lines


def test_what_an_engineer_asks_is_quoted_from_the_row_that_answers(
    asked: tuple[FalkorDBStore, HybridRetriever, Path],
) -> None:
    """A pin by number, the maximum rating, the storage range, the thermal resistance, the
    register that enables the watchdog: each answered by its table's row, under the header."""
    expected = {
        "What is pin 5?": "| 5 | SDA | I/O | I²C serial data input and output, open drain.",
        "What is the maximum supply voltage?": "| Input voltage, VIN | –0.3 | 7.0 | V |",
        "What is the storage temperature range?": "| Storage temperature, Tstg(2) | –65 | 150 | °C |",
        "What is the thermal resistance junction to ambient?": "| RθJA Junction-to-ambient thermal resistance |",
        "Which register enables the watchdog?": "| 0x03 | WDCTRL | R/W | 0x00 | Watchdog control: WDEN (bit 7)",
        "What is the shutdown current?": "| ISHDN Shutdown current | VEN = 0 V |  | 0.1 | 1 | µA |",
    }
    for question, row in expected.items():
        lines = first_lines(*asked, question)
        assert any(row in line for line in lines[:2]), (question, lines)

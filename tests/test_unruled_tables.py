"""Tables with no grid of rulings as office suites draw them: a slide's table on filled, banded rows,
and a spreadsheet printed without gridlines, one rule under its header. Charts, call-out boxes and
prose under a rule stay what they are."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from docgraph.ingest.readers.native import NativeReader
from docgraph.ingest.types import DocumentLayout

HEADCOUNT = [
    ["Depot", "Headcount Q2", "Headcount Q3", "Change"],
    ["Oslo", "142", "148", "+6"],
    ["Tampere", "96", "71", "-25"],
    ["Verona", "188", "190", "+2"],
    ["Lyon", "134", "131", "-3"],
]
FLEET = [
    ["Class", "Count", "Electric", "Age", "Km Q3", "Fuel (L)", "L/100 km", "Upkeep", "Owned"],
    ["Tractor 40t", "168", "14", "4.2", "9,840,000", "2,951,000", "30.0", "1,412,000", "Lease"],
    ["Rigid 18t", "121", "11", "5.8", "4,212,000", "1,094,000", "26.0", "688,500", "Own"],
    ["Rigid 12t", "74", "8", "6.1", "2,130,000", "447,000", "21.0", "341,200", "Own"],
    ["Van 3.5t", "49", "4", "3.4", "1,388,000", "128,000", "9.2", "96,750", "Lease"],
]
PROSE = (
    "Depots report their headcount at the end of each quarter. The figures below count full-time "
    "equivalents, so two part-time drivers count as one. Temporary staff hired for the peak are left out. "
)


def _read(path: Path) -> DocumentLayout:
    return NativeReader().read(path)


def _tables(layout: DocumentLayout) -> list[list[list[str]]]:
    return [r.cells or [] for page in layout.pages for r in page.regions if r.kind == "table"]


def banded_slide(out: Path) -> Path:
    """A landscape slide: a title, a table on a dark header band and rows banded in two tints."""
    with pymupdf.open() as doc:
        page = doc.new_page(width=960, height=540)
        page.insert_text((48, 60), "Depot Headcount", fontsize=28)
        x0, y0, width, height = 80.0, 110.0, 190.0, 34.0
        for i, row in enumerate(HEADCOUNT):
            fill = (0.1, 0.3, 0.5) if i == 0 else (0.87, 0.91, 0.96) if i % 2 else (0.95, 0.96, 0.98)
            top = y0 + i * height
            page.draw_rect(pymupdf.Rect(x0, top, x0 + 4 * width, top + height), color=None, fill=fill)
            for j, cell in enumerate(row):
                page.insert_text((x0 + j * width + 10, top + 22), cell, fontsize=16)
        page.insert_text((80, 320), "Headcount at quarter end, full-time equivalents.", fontsize=12)
        doc.save(out)
    return out


def spreadsheet_page(out: Path, closing_rule: bool = False, header_band: bool = False, rows: int = 4) -> Path:
    """A sheet printed without gridlines: a title, a header row over one rule, numbers set flush
    right; perhaps a second rule closing the table, or the header on a filled band, no rule; the
    first ``rows`` rows of the fleet."""
    widths = [80, 50, 50, 40, 70, 70, 60, 70, 50]
    edges = [36.0]
    for width in widths:
        edges.append(edges[-1] + width)
    with pymupdf.open() as doc:
        page = doc.new_page(width=842, height=595)
        page.insert_text((36, 60), "Fleet by vehicle class, Q3 2024", fontsize=12)
        y = 90.0
        for i, row in enumerate(FLEET[: rows + 1]):
            for j, cell in enumerate(row):
                numeric = i > 0 and 0 < j < len(row) - 1
                x = edges[j + 1] - 4 - pymupdf.get_text_length(cell, fontsize=8.5) if numeric else edges[j] + 3
                page.insert_text((x, y), cell, fontsize=8.5)
            if i == 0 and header_band:
                page.draw_rect(pymupdf.Rect(edges[0], y - 11, edges[-1], y + 5), color=None, fill=(0.85, 0.89, 0.95))
            elif i == 0:
                page.draw_line((edges[0], y + 4), (edges[-1], y + 4), width=0.8)
            y += 16
        if closing_rule:
            page.draw_line((edges[0], y - 11), (edges[-1], y - 11), width=0.8)
        page.insert_text((36, y + 20), "Fuel is counted at the pump, in litres.", fontsize=8.5)
        doc.save(out)
    return out


def bar_chart_page(out: Path) -> Path:
    """A bar chart: filled bars of one width, each with its value over it and its name under the axis."""
    with pymupdf.open() as doc:
        page = doc.new_page(width=960, height=540)
        page.insert_text((48, 60), "On-Time Delivery by Region", fontsize=28)
        axis = 420.0
        for k, (name, value) in enumerate([("North", 96), ("South", 81), ("East", 92), ("West", 88)]):
            left = 120.0 + k * 120
            top = axis - value * 3
            page.draw_rect(pymupdf.Rect(left, top, left + 70, axis), color=None, fill=(0.1, 0.3, 0.5))
            page.insert_text((left + 22, top - 6), f"{value}%", fontsize=12)
            page.insert_text((left + 18, axis + 18), name, fontsize=12)
        page.draw_line((110, axis), (600, axis), width=1)
        doc.save(out)
    return out


def callout_page(out: Path) -> Path:
    """A paragraph on a filled call-out box, prose around it."""
    with pymupdf.open() as doc:
        page = doc.new_page(width=612, height=792)
        page.insert_textbox(pymupdf.Rect(72, 72, 540, 160), PROSE * 2, fontsize=10)
        page.draw_rect(pymupdf.Rect(72, 170, 540, 236), color=None, fill=(0.9, 0.93, 0.97))
        page.insert_textbox(pymupdf.Rect(80, 176, 532, 232), "Note: " + PROSE, fontsize=10)
        page.insert_textbox(pymupdf.Rect(72, 250, 540, 340), PROSE * 2, fontsize=10)
        doc.save(out)
    return out


def two_column_page(out: Path) -> Path:
    """A heading over a rule, then two columns of prose."""
    with pymupdf.open() as doc:
        page = doc.new_page(width=612, height=792)
        page.insert_text((72, 90), "Quarterly Report", fontsize=16)
        page.draw_line((72, 98), (540, 98), width=0.8)
        page.insert_textbox(pymupdf.Rect(72, 104, 296, 400), PROSE * 4, fontsize=10)
        page.insert_textbox(pymupdf.Rect(316, 104, 540, 400), PROSE * 4, fontsize=10)
        doc.save(out)
    return out


def lists_page(out: Path) -> Path:
    """Under ruled headings: a key/value list, and a contents list of numbers, titles and pages."""
    with pymupdf.open() as doc:
        page = doc.new_page(width=612, height=792)
        page.insert_text((72, 90), "Vehicle", fontsize=12)
        page.draw_line((72, 96), (540, 96), width=0.8)
        for k, (key, value) in enumerate([("Make", "Volvo FH"), ("Year", "2021"), ("Axles", "3"), ("Km", "412,000")]):
            page.insert_text((72, 112 + 14 * k), key, fontsize=10)
            page.insert_text((200, 112 + 14 * k), value, fontsize=10)
        page = doc.new_page(width=612, height=792)  # one rule a page: two would frame a booktabs band
        page.insert_text((72, 220), "Contents", fontsize=12)
        page.draw_line((72, 226), (540, 226), width=0.8)
        chapters = ["Introduction", "Fleet and fuel", "Safety", "Staffing", "Outlook"]
        for k, title in enumerate(chapters):
            y = 242 + 14 * k
            page.insert_text((72, y), str(k + 1), fontsize=10)
            page.insert_text((96, y), title, fontsize=10)
            page.insert_text(
                (530 - pymupdf.get_text_length(str(3 + 4 * k), fontsize=10), y), str(3 + 4 * k), fontsize=10
            )
        doc.save(out)
    return out


def test_a_slide_table_on_banded_rows_is_a_table(tmp_path: Path) -> None:
    layout = _read(banded_slide(tmp_path / "slide.pdf"))
    assert _tables(layout) == [HEADCOUNT]
    [table] = [r for r in layout.pages[0].regions if r.kind == "table"]
    assert table.text.startswith("| Depot | Headcount Q2 | Headcount Q3 | Change |\n| --- |")
    assert "| Tampere | 96 | 71 | -25 |" in table.text
    assert not any(r.kind == "figure" for r in layout.pages[0].regions)  # the bands are no picture


def test_a_sheet_with_one_rule_under_its_header_is_a_table(tmp_path: Path) -> None:
    layout = _read(spreadsheet_page(tmp_path / "sheet.pdf"))
    assert _tables(layout) == [FLEET]
    [table] = [r for r in layout.pages[0].regions if r.kind == "table"]
    assert "| Rigid 12t | 74 | 8 | 6.1 | 2,130,000 | 447,000 | 21.0 | 341,200 | Own |" in table.text
    others = [r.text for r in layout.pages[0].regions if r.kind != "table"]
    assert others == ["Fleet by vehicle class, Q3 2024", "Fuel is counted at the pump, in litres."]


def test_a_sheet_closed_by_a_second_rule_keeps_its_header_row(tmp_path: Path) -> None:
    assert _tables(_read(spreadsheet_page(tmp_path / "closed.pdf", closing_rule=True))) == [FLEET]


def test_a_sheet_with_its_header_on_a_filled_band_is_a_table(tmp_path: Path) -> None:
    assert _tables(_read(spreadsheet_page(tmp_path / "band.pdf", header_band=True))) == [FLEET]


@pytest.mark.parametrize("rows", [1, 2])
def test_a_row_or_two_between_a_header_band_and_a_closing_rule_are_a_table(tmp_path: Path, rows: int) -> None:
    """An invoice's one or two line items: a filled header band, the rows, a rule closing them."""
    path = spreadsheet_page(tmp_path / "items.pdf", closing_rule=True, header_band=True, rows=rows)
    assert _tables(_read(path)) == [FLEET[: rows + 1]]


def test_two_rows_under_a_header_band_alone_are_no_table(tmp_path: Path) -> None:
    path = spreadsheet_page(tmp_path / "items.pdf", header_band=True, rows=2)
    assert _tables(_read(path)) == []


def test_a_bar_chart_with_value_labels_is_no_table(tmp_path: Path) -> None:
    layout = _read(bar_chart_page(tmp_path / "chart.pdf"))
    assert _tables(layout) == []
    assert any(r.kind == "figure" for r in layout.pages[0].regions)


def test_a_filled_call_out_box_is_no_table(tmp_path: Path) -> None:
    assert _tables(_read(callout_page(tmp_path / "callout.pdf"))) == []


def test_a_key_value_list_and_a_contents_list_under_rules_are_no_tables(tmp_path: Path) -> None:
    assert _tables(_read(lists_page(tmp_path / "lists.pdf"))) == []


def test_two_columns_of_prose_under_a_ruled_heading_are_no_table(tmp_path: Path) -> None:
    assert _tables(_read(two_column_page(tmp_path / "columns.pdf"))) == []

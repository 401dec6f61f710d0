"""Ruled tables as office and HTML tools draw them: header cells shaded (and each header word
shaded again), a group label spanning the columns under it. Each column's header must name the
numbers under it. Pages made here with PyMuPDF's HTML layout, read by the native reader."""

from __future__ import annotations

from pathlib import Path

import pymupdf

from docgraph.ingest.readers.native import NativeReader

CSS = """
table {border-collapse: collapse; width: 100%; font-size: 9px; font-family: sans-serif;}
td, th {border: 0.5px solid #444; padding: 2px 4px;}
th {background-color: #e8e8e8;}
td.n, th.n {text-align: right;}
"""

REGIONS = """
<table>
<tr><th>Region</th><th class="n">Q1 2024</th><th class="n">Q2 2024</th><th class="n">Total</th></tr>
<tr><td>North</td><td class="n">98.2</td><td class="n">101.5</td><td class="n">199.7</td></tr>
<tr><td>South</td><td class="n">121.4</td><td class="n">118.8</td><td class="n">240.2</td></tr>
</table>"""


def table_page(out: Path, html: str) -> Path:
    """A page with a line of prose and the HTML table under it."""
    with pymupdf.open() as doc:
        page = doc.new_page(width=595, height=842)
        page.insert_text((56, 80), "Revenue by region, in millions of pounds.", fontsize=10)
        page.insert_htmlbox(pymupdf.Rect(56, 100, 539, 400), html, css=CSS)
        doc.save(out)
    return out


def table_rows(path: Path) -> list[list[str]]:
    """The cells of the one table the reader finds on the page."""
    tables = [r for r in NativeReader().read(path).pages[0].regions if r.kind == "table"]
    assert len(tables) == 1, [t.text for t in tables]
    assert tables[0].cells is not None
    return tables[0].cells


def test_shaded_header_words_do_not_split_columns(tmp_path: Path) -> None:
    """A header cell's shading laid again behind its word is the cell's colour: it draws no edge,
    so the words' boxes (one per word, touching) must not part the cell into columns of their own
    (which set "Q1" over an empty column and its numbers under the column before)."""
    rows = table_rows(table_page(tmp_path / "regions.pdf", REGIONS))
    assert rows == [
        ["Region", "Q1 2024", "Q2 2024", "Total"],
        ["North", "98.2", "101.5", "199.7"],
        ["South", "121.4", "118.8", "240.2"],
    ]


SEGMENTS = """
<table>
<tr><th rowspan="2">Segment</th><th colspan="2">Volume (kt)</th><th colspan="2">Cost</th><th rowspan="2">Note</th></tr>
<tr><th class="n">2023</th><th class="n">2024</th><th class="n">Fuel</th><th class="n">Per unit</th></tr>
<tr><td>Road</td><td class="n">18,240</td><td class="n">19,610</td><td class="n">212.4</td><td class="n">26.19</td>
<td>5</td></tr>
<tr><td>Rail</td><td class="n">7,905</td><td class="n">7,322</td><td class="n">48.1</td><td class="n">14.90</td>
<td>6</td></tr>
</table>"""


def test_group_labels_name_each_column_they_span(tmp_path: Path) -> None:
    """A two-row header, "Volume (kt)" over 2023 and 2024, "Cost" over Fuel and Per unit, with
    "Segment" and "Note" spanning both rows: one header row that names each column in full,
    where the group label stood over its first column only and its second row read as data."""
    rows = table_rows(table_page(tmp_path / "segments.pdf", SEGMENTS))
    assert rows == [
        ["Segment", "Volume (kt) 2023", "Volume (kt) 2024", "Cost Fuel", "Cost Per unit", "Note"],
        ["Road", "18,240", "19,610", "212.4", "26.19", "5"],
        ["Rail", "7,905", "7,322", "48.1", "14.90", "6"],
    ]


QUARTERS = """
<table>
<tr><th rowspan="2">Region</th><th colspan="3">2024</th><th rowspan="2" class="n">Average</th></tr>
<tr><th class="n">Q1</th><th class="n">Q2</th><th class="n">Q3</th></tr>
<tr><td>North</td><td class="n">13.2</td><td class="n">13.6</td><td class="n">14.1</td><td class="n">13.6</td></tr>
<tr><td>Wales</td><td class="n">12.4</td><td class="n">12.8</td><td class="n">13.0</td><td class="n">12.7</td></tr>
</table>"""


def test_a_place_under_a_cell_spanning_rows_is_no_group(tmp_path: Path) -> None:
    """ "Average" spans both header rows, so the second row ends in an empty place right of "Q3":
    that is no group label over the next column, and the first row of numbers stays a row."""
    rows = table_rows(table_page(tmp_path / "quarters.pdf", QUARTERS))
    assert rows == [
        ["Region", "2024 Q1", "2024 Q2", "2024 Q3", "Average"],
        ["North", "13.2", "13.6", "14.1", "13.6"],
        ["Wales", "12.4", "12.8", "13.0", "12.7"],
    ]


SPANS = """
<table>
<tr><td colspan="2" rowspan="2">Top Left</td><td class="n">02</td><td class="n">03</td><td class="n">04</td></tr>
<tr><td class="n">12</td><td class="n">13</td><td class="n">14</td></tr>
<tr><td class="n">20</td><td class="n">21</td><td class="n">22</td><td class="n">23</td><td class="n">24</td></tr>
<tr><td class="n">30</td><td class="n">31</td><td class="n">32</td><td class="n">33</td><td class="n">34</td></tr>
</table>"""


def test_a_cell_spanning_columns_over_a_row_of_values_is_no_group_label(tmp_path: Path) -> None:
    """A grid showing off its spans (the ReportLab guide's "Top Left" over two columns and two
    rows): its first row holds values over values, so it is data, not a header to join."""
    rows = table_rows(table_page(tmp_path / "spans.pdf", SPANS))
    assert [row[2:] for row in rows[:2]] == [["02", "03", "04"], ["12", "13", "14"]]


PROPERTIES = [
    ("visible", "Whether the axis is drawn at all, though it still sets the scale"),
    ("strokeColor", "The colour of the axis line and of its tick marks"),
    ("strokeWidth", "The width of the axis line in points, one by default"),
    ("tickUp", "How far above the axis the tick marks reach, in points"),
    ("tickDown", "How far below the axis the tick marks reach, in points"),
    ("labels", "The labels of the tick marks, each set under its mark"),
]


def test_a_continued_part_of_label_rows_takes_the_header_it_continues(tmp_path: Path) -> None:
    """A table of properties shaded header "Property | Meaning" runs on over a page break; the part
    on the next page, plain rows of a name and its meaning, reads as label and value rows with no
    header of its own. It takes the table's header, with no empty header row left over it."""

    def rows(items: list[tuple[str, str]]) -> str:
        return "".join(f"<tr><td>{name}</td><td>{meaning}</td></tr>" for name, meaning in items)

    out = tmp_path / "properties.pdf"
    with pymupdf.open() as doc:
        first = doc.new_page(width=595, height=842)
        first.insert_text((56, 700), "The axis has these properties.", fontsize=10)
        head = "<tr><th>Property</th><th>Meaning</th></tr>"
        first.insert_htmlbox(pymupdf.Rect(56, 710, 539, 800), f"<table>{head}{rows(PROPERTIES[:2])}</table>", css=CSS)
        second = doc.new_page(width=595, height=842)
        second.insert_htmlbox(pymupdf.Rect(56, 60, 539, 300), f"<table>{rows(PROPERTIES[2:])}</table>", css=CSS)
        second.insert_text((56, 330), "A value axis has the same properties.", fontsize=10)
        doc.save(out)

    pages = NativeReader().read(out).pages
    part = next(region for region in pages[1].regions if region.kind == "table")
    assert part.cells == [["Property", "Meaning"], *[list(row) for row in PROPERTIES[2:]]]

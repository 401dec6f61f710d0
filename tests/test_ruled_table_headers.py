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

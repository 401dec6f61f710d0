"""A datasheet's typical-performance chart, its axis names set small and bold under and beside it,
in a document whose words are mostly in tables set smaller than its prose.

The body size was taken over every line, the tables' cells included, so it came out as the
tables' size: the axis name under each chart ("LOAD CURRENT (mA)") was then no smaller than the
body text, a bold line of it, and read as a section heading that the chart's caption, and the next
chart, went under.
"""

from __future__ import annotations

from pathlib import Path

import pymupdf

from docgraph.ingest.graph import build_graph
from docgraph.ingest.readers.native import NativeReader

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
BOLD = "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf"
PROSE = [
    "VIN = (VOUT + 0.5 V) or 2.3 V, whichever is greater; EN = VIN; IOUT = 10 mA; CIN = COUT = 1 µF; TA = 25°C, "
    "unless otherwise noted. Minimum and maximum limits are guaranteed by production test at 25°C.",
    "Limits over the full junction temperature range are guaranteed by design and characterization. The "
    "regulator is stable with any ceramic output capacitor of 1 µF or more over the whole load range.",
    "The curves below are measured on the evaluation board at VIN = 5 V and VOUT = 3.3 V, with both "
    "capacitors placed close to the pins, unless otherwise noted on the curve itself.",
]


def _text(page: pymupdf.Page, at: tuple[float, float], text: str, size: float, bold: bool = False) -> None:
    page.insert_text(at, text, fontsize=size, fontname="djb" if bold else "dj", fontfile=BOLD if bold else FONT)


def _page(doc: pymupdf.Document, heading: str) -> pymupdf.Page:
    """A page under the part's running head and footer, opening with a heading and a paragraph."""
    page = doc.new_page(width=612, height=792)
    number = len(doc)
    _text(page, (50, 40), "XYZ123", 10, bold=True)
    page.draw_line((50, 46), (562, 46), width=0.75)
    _text(page, (260, 765), f"Rev. C | Page {number} of 3", 8)
    _text(page, (50, 110), heading, 11, bold=True)
    page.insert_textbox(pymupdf.Rect(50, 118, 562, 160), PROSE[number - 1], fontsize=9, fontname="dj", fontfile=FONT)
    return page


def _table_page(doc: pymupdf.Document, part: int) -> None:
    """A page of specifications: a ruled table of 30 rows set in 8 points."""
    page = _page(doc, f"SPECIFICATIONS, PART {part}")
    y = 170.0
    for k in range(30):
        row = [f"Output voltage accuracy at load step {k}", "VOUT", "IOUT = 10 mA to 300 mA", "-1", "+1", "%"]
        for x, cell in zip((53, 233, 293, 433, 473, 513), row, strict=True):
            _text(page, (x, y + 11), cell, 8)
        page.draw_line((50, y), (562, y), width=0.5)
        y += 15
    page.draw_line((50, y), (562, y), width=0.5)
    for x in (50, 230, 290, 430, 470, 510, 562):
        page.draw_line((x, 170), (x, y), width=0.5)


def _chart(page: pymupdf.Page, x0: float, y0: float, axis: str, caption: str) -> None:
    """A line chart: frame, grid, tick values, a curve, axis names in bold 7.5 points, caption."""
    w, h = 190.0, 140.0
    page.draw_rect(pymupdf.Rect(x0, y0, x0 + w, y0 + h), width=0.6)
    for k in range(5):
        x, y = x0 + k * w / 4, y0 + h - k * h / 4
        page.draw_line((x, y0), (x, y0 + h), color=(0.75, 0.75, 0.75), width=0.3)
        page.draw_line((x0, y), (x0 + w, y), color=(0.75, 0.75, 0.75), width=0.3)
        _text(page, (x - 4, y0 + h + 9), str(100 * k), 7)
        _text(page, (x0 - 16, y + 2.5), str(40 * k), 7)
    page.draw_polyline([pymupdf.Point(x0 + i * w / 20, y0 + h - i * i * h / 400) for i in range(21)], width=1)
    _text(page, (x0 + 60, y0 + h + 20), axis, 7.5, bold=True)
    page.insert_text((x0 - 24, y0 + 110), "DROPOUT (mV)", fontsize=7.5, rotate=90, fontname="djb", fontfile=BOLD)
    _text(page, (x0 - 20, y0 + h + 34), caption, 8, bold=True)


def typical_performance(out: Path) -> Path:
    with pymupdf.open() as doc:
        _table_page(doc, 1)
        _table_page(doc, 2)
        page = _page(doc, "TYPICAL PERFORMANCE CHARACTERISTICS")
        _chart(page, 90, 180, "LOAD CURRENT (mA)", "Figure 4. Dropout Voltage vs. Load Current")
        _chart(page, 360, 180, "INPUT VOLTAGE (V)", "Figure 5. Dropout Voltage vs. Input Voltage")
        doc.save(out)
    return out


def test_an_axis_name_under_a_chart_is_part_of_the_chart(tmp_path: Path) -> None:
    layout = NativeReader().read(typical_performance(tmp_path / "charts.pdf"))
    regions = layout.pages[2].regions
    headers = [r.text for r in regions if r.kind == "section_header"]
    assert headers == ["TYPICAL PERFORMANCE CHARACTERISTICS"]
    figures = [r.text for r in regions if r.kind == "figure"]
    assert any("LOAD CURRENT (mA)" in text for text in figures)
    batch = build_graph(layout)
    sections = {n.key: n.props["title"] for n in batch.nodes if n.label == "Section"}
    text = {n.key: n.props["text"] for n in batch.nodes if n.label == "Region"}
    under = {
        text[e.src_key]: sections[e.dst_key] for e in batch.edges if e.type == "IS_UNDER" and e.dst_key in sections
    }
    assert under["Figure 4. Dropout Voltage vs. Load Current"] == "TYPICAL PERFORMANCE CHARACTERISTICS"


def test_a_caption_wrapped_after_vs_keeps_its_last_line(tmp_path: Path) -> None:
    """A narrow chart's caption wraps after "vs." ("... Rejection Ratio vs." over "Frequency"): the
    full stop ended no sentence, so the second line was no part of the caption, and, set small
    beside the chart, went into the chart as one of its labels."""
    with pymupdf.open() as doc:
        page = _page(doc, "TYPICAL PERFORMANCE CHARACTERISTICS")
        _chart(page, 90, 180, "FREQUENCY (Hz)", "Figure 5. Power Supply Rejection Ratio vs.")
        _text(page, (70, 364), "Frequency", 8, bold=True)
        doc.save(tmp_path / "wrapped.pdf")
    regions = NativeReader().read(tmp_path / "wrapped.pdf").pages[0].regions
    assert [r.text for r in regions if r.kind == "caption"] == ["Figure 5. Power Supply Rejection Ratio vs. Frequency"]
    assert not any(r.text.endswith("Frequency") for r in regions if r.kind == "figure")

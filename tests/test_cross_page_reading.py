"""Text that runs on over a page break past what sits between its parts: a table set at the top of
the next page, and the bulletless tail of a list item. PDFs made here, read by the native reader."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from docgraph.ingest.graph import build_graph
from docgraph.ingest.readers.native import NativeReader

FILLER = (
    "The plant keeps a written record of every inspection so that the auditors can trace what was done "
    "and when. Each record names the person who did the work and the parts that were replaced."
)
LEAD = 13.5


def wrapped(text: str, width: float) -> list[str]:
    """``text`` broken into lines of 10-point Helvetica at most ``width`` points wide."""
    lines, current = [], ""
    for word in text.split():
        longer = f"{current} {word}".strip()
        if pymupdf.get_text_length(longer, "helv", 10) <= width:
            current = longer
        else:
            lines, current = [*lines, current], word
    return [*lines, current]


def _filled_first_page(doc: pymupdf.Document) -> pymupdf.Page:
    page = doc.new_page()
    page.insert_text((72, 72), "Transfer Switch Guide", fontname="hebo", fontsize=16)
    _fill(page, 110.0, 8)
    return page


def _fill(page: pymupdf.Page, top: float, paragraphs: int) -> float:
    """``paragraphs`` paragraphs of filler from ``top`` down; where the next line would go."""
    y = top
    for _ in range(paragraphs):
        for line in wrapped(FILLER, 440):
            page.insert_text((72, y), line, fontname="helv", fontsize=10)
            y += LEAD
        y += 8
    return y


def _ruled_table(page: pymupdf.Page, rows: list[tuple[str, str]], top: float, header: bool) -> float:
    for row, cells in enumerate(rows):
        y = top + 16 * row
        page.draw_rect(pymupdf.Rect(72, y, 372, y + 16), color=(0, 0, 0), width=0.5)
        page.draw_line((272, y), (272, y + 16), color=(0, 0, 0), width=0.5)
        for x, cell in zip((75, 275), cells, strict=True):
            page.insert_text((x, y + 12), cell, fontname="hebo" if header and row == 0 else "helv", fontsize=9)
    return top + 16 * len(rows)


def _titled_table(doc: pymupdf.Document, title: str, rows: list[tuple[str, str]]) -> None:
    """A page with a title and a ruled table under it, its first row the header."""
    page = doc.new_page()
    page.insert_text((72, 72), title, fontname="hebo", fontsize=14)
    _ruled_table(page, rows, 100, True)


def _cross_page_steps(pdf: Path) -> list[tuple[str, str, bool]]:
    batch = build_graph(NativeReader().read(pdf))
    text = {node.key: str(node.props.get("text", "")) for node in batch.nodes if node.label == "Region"}
    return [
        (text[edge.src_key][-20:], text[edge.dst_key][:20], bool(edge.props.get("continuation")))
        for edge in batch.edges
        if edge.type == "HAS_NEXT" and edge.src_label == "Region" and edge.props.get("cross_page")
    ]


def test_a_paragraph_runs_on_past_a_table_set_at_the_top_of_the_next_page(tmp_path: Path) -> None:
    """The page break led from the cut paragraph to the table, and its second half stood alone:
    "... has been stable for a full five" / "minutes, which is known as the retransfer delay ..."."""
    cut = wrapped(
        "The automatic transfer switch hands the load to the generator within ten seconds of a mains failure, "
        "and it returns the load to the mains only after the mains voltage has been stable for a full five "
        "minutes, which is known as the retransfer delay; the electrician sets it on the front panel.",
        440,
    )
    pdf = tmp_path / "switch.pdf"
    with pymupdf.open() as doc:
        first = _filled_first_page(doc)
        for i, line in enumerate(cut[:2]):
            first.insert_text((72, 720 + LEAD * i), line, fontname="helv", fontsize=10)
        second = doc.new_page()
        _ruled_table(
            second, [("Setting", "Value"), ("Transfer delay", "10 s"), ("Retransfer delay", "5 min")], 72, True
        )
        for i, line in enumerate(cut[2:]):
            second.insert_text((72, 150 + LEAD * i), line, fontname="helv", fontsize=10)
        doc.save(pdf)
    assert ("for a full five", "minutes, which is kn", True) in [
        (last[-15:], first, continues) for last, first, continues in _cross_page_steps(pdf)
    ]


def test_a_list_item_cut_by_a_page_break_runs_on_in_its_tail(tmp_path: Path) -> None:
    """The tail of a bulleted item on the next page has no bullet, so it is read as a paragraph:
    "... to the laboratory courier at" ended the list, and "the gate, and never ..." began nothing."""
    item = wrapped(
        "Keep the sample bottle closed and in the cool box at a temperature between two and eight degrees "
        "Celsius from the moment it is filled until it is handed over to the laboratory courier at the gate, "
        "and never leave it in direct sunlight.",
        width=420,
    )
    pdf = tmp_path / "sampling.pdf"
    with pymupdf.open() as doc:
        first = _filled_first_page(doc)
        first.insert_text((72, 720), "\u2022", fontname="helv", fontsize=10)
        for i, line in enumerate(item[:2]):
            first.insert_text((86, 720 + LEAD * i), line, fontname="helv", fontsize=10)
        second = doc.new_page()
        for i, line in enumerate(item[2:]):
            second.insert_text((86, 72 + LEAD * i), line, fontname="helv", fontsize=10)
        second.insert_text((72, 120), "\u2022", fontname="helv", fontsize=10)
        second.insert_text((86, 120), "Sign the chain-of-custody form.", fontname="helv", fontsize=10)
        doc.save(pdf)
    steps = _cross_page_steps(pdf)
    assert any(last.endswith("courier at") and continues for last, _, continues in steps), steps


def test_a_table_continued_without_its_header_row_takes_the_header_of_its_first_part(tmp_path: Path) -> None:
    """The part on the next page read its first data row as its header ("| S-213 | Pump hall |"),
    and no column was named in it: a quote or an embedding of "S-221 | 45" said nothing of days."""
    sensors = [(f"S-2{n:02d}", f"{30 + n} days") for n in range(40)]
    pdf = tmp_path / "sensors.pdf"
    with pymupdf.open() as doc:
        _titled_table(doc, "Calibration intervals", [("Sensor", "Calibration interval"), *sensors[:36]])
        _ruled_table(doc.new_page(), sensors[36:], 72, False)
        doc.save(pdf)
    pages = NativeReader().read(pdf).pages
    (continued,) = [region for region in pages[1].regions if region.kind == "table"]
    assert continued.text.splitlines()[0] == "| Sensor | Calibration interval |", continued.text
    assert "| S-236 | 66 days |" in continued.text
    assert any(region.continues for region in pages[0].regions if region.kind == "table")


@pytest.mark.parametrize(
    "said", ["Table 1 (continued)", "Table 1 continued", "Table 1 cont'd", "Table 1 (continued on p. 3)"]
)
def test_a_table_continued_under_a_continued_caption_is_still_its_first_parts(tmp_path: Path, said: str) -> None:
    """A second part under "Table 1 (continued)" was taken for a table of its own (a caption before
    it): no continuation, and its first data row read as its header."""
    sensors = [(f"S-2{n:02d}", f"{30 + n} days") for n in range(40)]
    pdf = tmp_path / "sensors.pdf"
    with pymupdf.open() as doc:
        _titled_table(doc, "Table 1: Calibration intervals", [("Sensor", "Calibration interval"), *sensors[:36]])
        second = doc.new_page()
        second.insert_text((72, 72), said, fontname="helv", fontsize=10)
        _ruled_table(second, sensors[36:], 90, False)
        doc.save(pdf)
    pages = NativeReader().read(pdf).pages
    (continued,) = [region for region in pages[1].regions if region.kind == "table"]
    assert continued.text.splitlines()[0] == "| Sensor | Calibration interval |", continued.text
    assert any(region.continues for region in pages[0].regions if region.kind == "table")


def test_a_number_in_a_table_at_the_top_of_a_page_is_no_page_number(tmp_path: Path) -> None:
    """A table continued at the top of a page opened with a row "S-236 | 40": its "40", in the band
    where page numbers stand, was read as the page's header besides its cell."""
    sensors = [(f"S-2{n:02d}", f"{30 + n * 7 % 50}") for n in range(40)]  # not a run of line numbers
    pdf = tmp_path / "intervals.pdf"
    with pymupdf.open() as doc:
        _titled_table(doc, "Calibration intervals (days)", [("Sensor", "Days"), *sensors[:34]])
        second = doc.new_page()
        _ruled_table(second, sensors[34:], 72, False)
        for number, page in enumerate(doc, start=1):  # page numbers at the foot, as a book has them
            page.insert_text((300, 756), str(number), fontname="helv", fontsize=9)
        doc.save(pdf)
    pages = NativeReader().read(pdf).pages
    assert [region.text for page in pages for region in page.regions if region.kind == "page_header"] == []
    assert [region.kind for region in pages[1].regions] == ["table", "page_footer"]


def test_a_ruled_tables_column_of_numbers_rising_by_one_is_kept(tmp_path: Path) -> None:
    """A last column counting up by one (64, 65, 66, ...) was taken for line numbers printed in the
    margin and dropped: the table kept its first column and lost the other."""
    rows = [(f"Batch {n}", f"{64 + n}") for n in range(8)]
    pdf = tmp_path / "batches.pdf"
    with pymupdf.open() as doc:
        _titled_table(doc, "Samples per batch", [("Batch", "Samples"), *rows])
        doc.save(pdf)
    (table,) = [region for page in NativeReader().read(pdf).pages for region in page.regions if region.kind == "table"]
    assert "| Batch 0 | 64 |" in table.text and "| Batch 7 | 71 |" in table.text, table.text


def test_a_new_captioned_table_atop_the_next_page_keeps_its_own_header(tmp_path: Path) -> None:
    """A table of the same columns opening the next page under its own caption ("Table 2: ...") was
    taken for the continuation of the one before, and given that one's header over its own."""
    sensors = [(f"S-2{n:02d}", f"{30 + n} days") for n in range(36)]
    pdf = tmp_path / "two-tables.pdf"
    with pymupdf.open() as doc:
        _titled_table(doc, "Calibration intervals", [("Sensor", "Calibration interval"), *sensors])
        second = doc.new_page()
        second.insert_text((72, 72), "Table 2: Rated power of the pumps", fontname="helv", fontsize=10)
        _ruled_table(second, [("Pump", "Rated power"), *[(f"P-{n}", f"{100 + n} kW") for n in range(6)]], 90, True)
        doc.save(pdf)
    pages = NativeReader().read(pdf).pages
    (pumps,) = [region for region in pages[1].regions if region.kind == "table"]
    assert pumps.text.startswith("| Pump | Rated power |\n| --- | --- |\n| P-0 | 100 kW |"), pumps.text
    assert not any(region.continues for region in pages[0].regions)


def test_a_paragraph_cut_inside_a_name_after_its_underscore_runs_on(tmp_path: Path) -> None:
    """A developer manual's "... set CONFIG_" | "TRUE before ..." was two paragraphs: the next page
    starts with a capital and "CONFIG_" ends no sentence but did not say it runs on either."""
    pdf = tmp_path / "config.pdf"
    with pymupdf.open() as doc:
        first = _filled_first_page(doc)
        cut = "To keep the parsed settings after the file is closed, set the option CONFIG_"
        first.insert_text((72, 740), "The reader frees its buffers when it returns.", fontname="helv", fontsize=10)
        first.insert_text((72, 740 + LEAD), cut, fontname="helv", fontsize=10)
        second = doc.new_page()
        rest = "OPTION_KEEP_PARSED before calling config_read_file()."
        second.insert_text((72, 72), rest, fontname="helv", fontsize=10)
        doc.save(pdf)
    steps = _cross_page_steps(pdf)
    runs_on = [last.endswith("CONFIG_") and first.startswith("OPTION_KEEP") and on for last, first, on in steps]
    assert any(runs_on), steps


def test_a_reference_cut_after_its_series_name_runs_on_into_its_number(tmp_path: Path) -> None:
    """A standard's bibliography entry cut by the page break after "RFC" ("... BCP 14, RFC" | "2119,
    March 1997.") was two regions, the number on the next page read as a paragraph of its own."""
    pdf = tmp_path / "standard.pdf"
    with pymupdf.open() as doc:
        page = doc.new_page()
        page.insert_text((72, 72), "2 Normative references", fontname="hebo", fontsize=12)
        y = _fill(page, 100.0, 6)
        entries = [
            "IETF RFC 5280, Internet X.509 Public Key Infrastructure Certificate and CRL Profile, May 2008",
            "IETF RFC 8446, The Transport Layer Security (TLS) Protocol Version 1.3, August 2018",
            "Bradner, S., Key words for use in RFCs to Indicate Requirement Levels, BCP 14, RFC",
        ]
        for entry in entries:
            page.insert_text((72, y + 8), entry, fontname="helv", fontsize=10)
            y += LEAD + 8
        following = doc.new_page()
        following.insert_text((72, 72), "2119, March 1997.", fontname="helv", fontsize=10)
        following.insert_text((72, 110), "3 Terms and definitions", fontname="hebo", fontsize=12)
        doc.save(pdf)
    assert _cross_page_steps(pdf) == [(" Levels, BCP 14, RFC", "2119, March 1997.", True)]

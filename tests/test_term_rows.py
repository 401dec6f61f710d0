"""An option list (term in typewriter, description on its row further right) reads as one list.

The terms used to come out as a column of one-line code regions and the descriptions as
paragraphs read after them, past the next heading, so "--timeout MS" lost "(default 5000)".
"""

from __future__ import annotations

from pathlib import Path

import pymupdf

from docgraph.ingest.readers.native import NativeReader

OPTIONS = [
    ("--retries N", ["Number of reconnect attempts (default 3)."]),
    ("--timeout MS", ["Connect timeout in milliseconds (default 5000)."]),
    ("-v, --verbose", ["Print each frame sent and received, with its", "length and the time it took."]),
    ("--ca-file PATH", ["Trust the certificates in PATH as well."]),
]


def _options_page(path: Path) -> Path:
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.insert_text((72, 90), "5 The nlctl command", fontsize=16, fontname="hebo")
    page.insert_text((72, 115), "nlctl is the command line client. Usage: nlctl [OPTIONS] HOST", fontsize=10)
    y = 140.0
    for term, description in OPTIONS:
        page.insert_text((84, y), term, fontsize=9, fontname="cour")
        for line in description:
            page.insert_text((200, y), line, fontsize=10, fontname="helv")
            y += 13
        y += 3
    page.insert_text((72, y + 20), "6 Changelog", fontsize=16, fontname="hebo")
    page.insert_text((72, y + 45), "Version 3.2.0 added the --ca-file option.", fontsize=10)
    doc.save(path)
    return path


def _struct_beside_note(path: Path) -> Path:
    """A struct's listing with a note beside its first line, three times: no term list."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    y = 90.0
    for name in ("arg_str", "arg_rex", "arg_file"):
        page.insert_text((72, y), f"struct {name}", fontsize=10, fontname="cour")
        page.insert_text((300, y), f"For options read into {name}.", fontsize=10)
        for member in ("{", "    struct arg_hdr hdr;", "    int count;", "};"):
            y += 13
            page.insert_text((90, y), member, fontsize=10, fontname="cour")
        y += 40
    doc.save(path)
    return path


def test_each_option_keeps_its_description_in_one_list(tmp_path: Path) -> None:
    regions = NativeReader().read(_options_page(tmp_path / "options.pdf")).pages[0].regions
    lists = [region for region in regions if region.kind == "list"]
    assert len(lists) == 1
    assert lists[0].text.split("\n") == [
        "--retries N Number of reconnect attempts (default 3).",
        "--timeout MS Connect timeout in milliseconds (default 5000).",
        "-v, --verbose Print each frame sent and received, with its length and the time it took.",
        "--ca-file PATH Trust the certificates in PATH as well.",
    ]
    order = [region.text for region in regions]
    assert order.index(lists[0].text) < order.index("6 Changelog")


def test_a_listing_with_a_note_beside_its_first_line_stays_whole(tmp_path: Path) -> None:
    regions = NativeReader().read(_struct_beside_note(tmp_path / "structs.pdf")).pages[0].regions
    assert not any(region.kind == "list" for region in regions)
    assert not any("struct arg_str" in region.text and "For options" in region.text for region in regions)


def test_a_paragraph_indented_less_than_the_descriptions_is_no_part_of_the_last_item(tmp_path: Path) -> None:
    """The Asymptote manual's operator lists: "The usual boolean operators are also defined:" set with
    a paragraph's first-line indent, under "^ power; ...", was read into that item, and the next
    list into the same list."""
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    y = 90.0
    for group in (
        [("-", "subtraction"), ("*", "multiplication"), ("^", "power")],
        [("==", "equals"), ("!=", "not equals"), ("<", "less than")],
    ):
        for term, description in group:
            page.insert_text((72, y), term, fontsize=9, fontname="cour")
            page.insert_text((130, y), description, fontsize=10, fontname="helv")
            y += 19
        page.insert_text((87, y), "The usual boolean operators are also defined:", fontsize=10, fontname="helv")
        y += 21
    doc.save(tmp_path / "operators.pdf")
    regions = NativeReader().read(tmp_path / "operators.pdf").pages[0].regions
    assert [(r.kind, r.text.split("\n")[0]) for r in regions] == [
        ("list", "- subtraction"),
        ("paragraph", "The usual boolean operators are also defined:"),
        ("list", "== equals"),
        ("paragraph", "The usual boolean operators are also defined:"),
    ]

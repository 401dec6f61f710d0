"""Lists as a presentation program exports them (ingest/page/merge.py, ingest/page/list_rows.py).

A slide sets its bullets in one size and its sub-bullets smaller, indented under them, each piece
a block of its own. A sub-item longer than its item made the list's (character-weighted) size the
smaller one, the indent allowed for the next item shrank below a level's, and the second sub-item
was cut from its item and read with the next top-level item. Sub-items that open a list block
(their item is on the page before) are not read with the next top-level item either. An agenda
sets "Slide 3" at the right of each numbered item, on its baseline: the items were read as
separate lists and the cells as detached paragraphs after them.
"""

from __future__ import annotations

from pathlib import Path

import pymupdf

from docgraph.ingest.readers.native import NativeReader

WIDTH, HEIGHT = 960, 540  # a 16:9 slide
DEJAVU = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"  # Debian's fonts-dejavu-core (make sysdeps)


def _slide(doc: pymupdf.Document, title: str) -> pymupdf.Page:
    page = doc.new_page(width=WIDTH, height=HEIGHT)
    page.insert_font(fontname="dv", fontfile=DEJAVU)  # embedded, as office exports do: bullets keep Unicode
    page.insert_text((40, 62), title, fontname="hebo", fontsize=28)
    return page


def _bullets(page: pymupdf.Page, items: list[tuple[int, str]], x: float = 48, y: float = 120) -> None:
    """PowerPoint's way: the glyph apart from the text, sub-items 4 points smaller and 36 in."""
    for level, text in items:
        size = 20 if level == 0 else 16
        left = x + 36 * level
        page.insert_text((left, y + size), "\u2022" if level == 0 else "\u2013", fontname="dv", fontsize=size)
        page.insert_textbox(pymupdf.Rect(left + 22, y, x + 840, y + 200), text, fontname="dv", fontsize=size)
        y += size * 1.25 + (14 if level == 0 else 8)


def _list_regions(path: Path, page_number: int) -> list[str]:
    layout = NativeReader().read(path)
    page = next(p for p in layout.pages if p.number == page_number)
    return [r.text for r in sorted(page.regions, key=lambda r: r.order) if r.kind == "list"]


def _lines(text: str) -> list[str]:
    return [line.split()[0] + " " + line.split()[1] for line in text.splitlines()]


def test_sub_items_longer_than_their_item_stay_under_it(tmp_path: Path) -> None:
    doc = pymupdf.open()
    page = _slide(doc, "Q3 Highlights")
    _bullets(
        page,
        [
            (0, "Shipments up 8.4% year on year"),
            (1, "Strongest growth in the Nordic region (+14.2%) by far"),
            (1, "Southern region flat after losing the Medivo contract"),
            (2, "Medivo moved to a regional carrier in July"),
            (1, "Western region up 6.0%"),
            (0, "On-time delivery reached 94.1% against a target of 95.0%"),
            (0, "Two depots closed for refit"),
        ],
    )
    path = tmp_path / "deck.pdf"
    doc.save(path)
    (items,) = _list_regions(path, 1)
    assert _lines(items) == [
        "\u2022 Shipments",
        "\u2013 Strongest",
        "\u2013 Southern",
        "\u2013 Medivo",
        "\u2013 Western",
        "\u2022 On-time",
        "\u2022 Two",
    ]


def test_an_agenda_keeps_each_rows_slide_number(tmp_path: Path) -> None:
    doc = pymupdf.open()
    page = _slide(doc, "Agenda")
    topics = ["Q3 Highlights", "On-Time Delivery by Region", "Cost per Shipment", "Fleet and Fuel"]
    for k, topic in enumerate(topics):
        baseline = 140 + 44 * k
        page.insert_text((60, baseline), f"{k + 1}.", fontname="hebo", fontsize=20)
        page.insert_text((100, baseline), topic, fontname="dv", fontsize=20)
        page.insert_text((700, baseline), f"Slide {k + 3}", fontname="dv", fontsize=14)
    path = tmp_path / "agenda.pdf"
    doc.save(path)
    layout = NativeReader().read(path)
    texts = [r.text for r in layout.pages[0].regions if r.kind not in ("section_header", "title")]
    assert texts == [
        "1. Q3 Highlights Slide 3\n2. On-Time Delivery by Region Slide 4\n3. Cost per Shipment Slide 5\n"
        "4. Fleet and Fuel Slide 6"
    ]


def test_a_short_line_beside_one_item_stays_apart(tmp_path: Path) -> None:
    """One item with a note at its right is no column of cells: the note is not taken into it."""
    doc = pymupdf.open()
    page = _slide(doc, "Next steps")
    _bullets(page, [(0, "Pilot electric trucks"), (0, "Approve the barriers budget")])
    page.insert_text((700, 140), "Owner: Luca", fontname="dv", fontsize=14)
    path = tmp_path / "note.pdf"
    doc.save(path)
    assert _list_regions(path, 1) == ["\u2022 Pilot electric trucks\n\u2022 Approve the barriers budget"]


def test_a_column_of_text_beside_a_bulleted_list_is_no_row_cells(tmp_path: Path) -> None:
    """A bulleted list beside a column of key facts on the same baselines took one fact into each
    item ("Faster onboarding for new staff Launch: March 2024"): only numbered rows have cells."""
    doc = pymupdf.open()
    page = _slide(doc, "Why we switch")
    _bullets(page, [(0, "Faster onboarding"), (0, "Lower running cost"), (0, "Better support")])
    for baseline, fact in ((140, "Launch: March 2024"), (179, "Budget: 2 million"), (218, "Owner: Operations")):
        page.insert_text((520, baseline), fact, fontname="dv", fontsize=15)
    path = tmp_path / "facts.pdf"
    doc.save(path)
    assert _list_regions(path, 1) == ["\u2022 Faster onboarding\n\u2022 Lower running cost\n\u2022 Better support"]


def test_sub_items_opening_a_page_are_not_glued_to_the_next_item(tmp_path: Path) -> None:
    """Sub-items that go on from their item on the page before end where the next item starts."""
    doc = pymupdf.open()
    for page_number in range(2):
        page = doc.new_page(width=612, height=792)
        page.insert_font(fontname="dv", fontfile=DEJAVU)
        if page_number == 0:
            page.insert_textbox(pymupdf.Rect(72, 600, 540, 700), "The branches are:", fontname="dv", fontsize=11)
            page.insert_text((81, 716), "\u2022 stable: the next release is made from it", fontname="dv", fontsize=11)
            continue
        page.insert_text((102, 108), "\u2022 translation: translators push to it", fontname="dv", fontsize=11)
        page.insert_text((102, 124), "\u2022 dev/foo: any new branch under dev/", fontname="dv", fontsize=11)
        page.insert_text((81, 140), "\u2022 regression tests: a thousand files", fontname="dv", fontsize=11)
        page.insert_text((81, 156), "\u2022 reviews: after finishing a patch", fontname="dv", fontsize=11)
    path = tmp_path / "branches.pdf"
    doc.save(path)
    assert [_lines(text) for text in _list_regions(path, 2)] == [
        ["\u2022 translation:", "\u2022 dev/foo:"],
        ["\u2022 regression", "\u2022 reviews:"],
    ]


NEWS = (
    "More than ninety members crowded into the Church Hall on the evening of 12 March for the "
    "forty-third Annual General Meeting, the largest turnout since the campaign to save the towpath. "
)


def test_a_contents_box_keeps_each_entrys_page_number(tmp_path: Path) -> None:
    """A newsletter's "In this issue" box: titles at the left, their page numbers flush right and
    no leaders. Each number is read after its title, not as a column of bare numbers after them."""
    entries = [("New library opens its doors", "2"), ("What's on: spring events", "3")]
    entries += [("Treasurer's report", "4"), ("Allotment news", "4"), ("AGM continued", "5")]
    doc = pymupdf.open()
    for number in (1, 2):
        page = doc.new_page(width=595, height=842)
        page.insert_textbox(pymupdf.Rect(40, 130, 370, 700), NEWS * 20, fontname="tiro", fontsize=9.5)
        page.insert_text((40, 815), f"Spring 2025 | {number}", fontname="helv", fontsize=8)
    page = doc[0]
    page.draw_rect(pymupdf.Rect(393, 132, 555, 250), color=(0.2, 0.3, 0.6), width=0.8)
    page.insert_text((400, 149), "In this issue", fontname="hebo", fontsize=11)
    for k, (title, number) in enumerate(entries):
        y = 166 + 13 * k
        page.insert_text((400, y), title, fontname="helv", fontsize=8.5)
        right = 548 - pymupdf.get_text_length(number, fontname="hebo", fontsize=8.5)
        page.insert_text((right, y), number, fontname="hebo", fontsize=8.5)
    doc.save(tmp_path / "contents-box.pdf")
    texts = [r.text for r in NativeReader().read(tmp_path / "contents-box.pdf").pages[0].regions]
    assert not [t for t in texts if t.strip().isdigit() and t.strip() != "1"]
    box = next(t for t in texts if "New library" in t)
    assert " ".join(f"{title} {number}" for title, number in entries) in box

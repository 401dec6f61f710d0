"""What a page's top and foot hold over several pages: running heads told from what they are not (a
short book's running title that changes with each chapter, a letterhead atop every page, a table
header repeated atop each page, a title repeated atop a two-page menu, a byline over a page that
opens with a year), small type's first lines, and a word hyphenated over a page break. PDFs made
here, read by the native reader (helpers from tests/test_cross_page_reading.py)."""

from __future__ import annotations

from pathlib import Path

import pymupdf

from docgraph.ingest.readers.native import NativeReader
from tests.test_cross_page_reading import (
    FILLER,
    LEAD,
    _cross_page_steps,
    _fill,
    _filled_first_page,
    _ruled_table,
    wrapped,
)


def _chapters_pdf(pdf: Path, chapters: list[str], running_title: bool) -> None:
    """Two pages a chapter, its heading atop its first page's text; with ``running_title`` the
    chapter's title also heads every page of it in small bold type, as books print it."""
    with pymupdf.open() as doc:
        for chapter in chapters:
            for half in range(2):
                page = doc.new_page()
                if running_title:
                    page.insert_text((72, 48), chapter, fontname="hebo", fontsize=9)
                y = 84.0
                if half == 0:
                    page.insert_text((72, y), chapter, fontname="hebo", fontsize=16)
                    y += 30
                words = FILLER.split()
                turned = " ".join(words[doc.page_count :] + words[: doc.page_count])  # no line twice atop a page
                for line in wrapped(turned, 440) * 4:
                    page.insert_text((72, y), line, fontname="helv", fontsize=10)
                    y += LEAD
                page.insert_text((300, 756), str(doc.page_count), fontname="helv", fontsize=9)
        doc.save(pdf)


def test_a_running_title_that_changes_with_each_short_chapter_is_no_section(tmp_path: Path) -> None:
    """Each chapter's title atop its two pages repeated on too few pages to be taken as a running
    header: every page's head became a section of its own, the chapters' sections doubled."""
    chapters = ["1 Intake screens", "2 Coagulation", "3 Filtration", "4 Disinfection"]
    _chapters_pdf(tmp_path / "manual.pdf", chapters, running_title=True)
    pages = NativeReader().read(tmp_path / "manual.pdf").pages
    headings = [region.text for page in pages for region in page.regions if region.kind == "section_header"]
    heads = [region.text for page in pages for region in page.regions if region.kind == "page_header"]
    assert headings == chapters
    assert heads == [chapter for chapter in chapters for _ in range(2)]


def test_a_chapter_heading_atop_each_chapters_first_page_stays_a_section(tmp_path: Path) -> None:
    """Headings at one place and in one font on several pages, the first line of each, are no
    running title: no larger text repeats them."""
    chapters = ["1 Intake screens", "2 Coagulation", "3 Filtration", "4 Disinfection"]
    _chapters_pdf(tmp_path / "manual.pdf", chapters, running_title=False)
    pages = NativeReader().read(tmp_path / "manual.pdf").pages
    assert [region.text for page in pages for region in page.regions if region.kind == "section_header"] == chapters
    assert [region.text for page in pages for region in page.regions if region.kind == "page_header"] == []


def test_a_word_hyphenated_over_a_page_break_is_stored_whole(tmp_path: Path) -> None:
    """ "... to stop further chlori-" | "nation in the bottle": neither part held the word, so
    searching "chlorination" missed the passage; a real hyphen ("read-" | "only") stays."""
    pdf = tmp_path / "sampling.pdf"
    with pymupdf.open() as doc:
        for last_line, next_line in (
            ("The sample bottles contain a reagent to stop further chlori-", "nation in the bottle before it is read."),
            ("The field sheet is kept in a folder that is read-", "only at the far end of the network."),
        ):
            page = _filled_first_page(doc) if doc.page_count == 0 else doc.new_page()
            page.insert_text((72, 720), last_line, fontname="helv", fontsize=10)
            following = doc.new_page()
            following.insert_text((72, 72), next_line, fontname="helv", fontsize=10)
            following.insert_text((72, 100), "The end of the section.", fontname="helv", fontsize=10)
        doc.save(pdf)
    steps = _cross_page_steps(pdf)
    assert [(last[-12:], first[:12], continues) for last, first, continues in steps if continues] == [
        ("chlorination", "in the bottl", True),
        ("is read-only", "at the far e", True),
    ]


def test_a_word_hyphenated_over_a_page_break_and_a_table_atop_the_next_page_is_stored_whole(
    tmp_path: Path,
) -> None:
    """With a table set at the top of the next page between its parts, the word stayed split."""
    pdf = tmp_path / "switch.pdf"
    with pymupdf.open() as doc:
        first = _filled_first_page(doc)
        first.insert_text((72, 720), "The switch returns the load once the mains is sta-", fontname="helv", fontsize=10)
        second = doc.new_page()
        _ruled_table(
            second, [("Setting", "Value"), ("Transfer delay", "10 s"), ("Retransfer delay", "5 min")], 72, True
        )
        second.insert_text((72, 150), "ble for five minutes, the retransfer delay.", fontname="helv", fontsize=10)
        doc.save(pdf)
    assert ("the mains is stable", "for five minutes, th", True) in [
        (last[-19:], first, continues) for last, first, continues in _cross_page_steps(pdf)
    ]


def test_alternating_running_heads_of_a_short_book_are_headers(tmp_path: Path) -> None:
    """In a five-page book the book's title headed two pages and a chapter's one, too few for the
    text to repeat, and no heading repeats them larger: they were read as body text, and a word
    hyphenated over the page break was joined to the head ("incre-Water ...")."""
    pdf = tmp_path / "handbook.pdf"
    heads = {2: "Water Works Handbook", 4: "Water Works Handbook", 5: "2 Coagulation"}
    with pymupdf.open() as doc:
        for number in range(1, 6):
            page = doc.new_page()
            if number in heads:
                page.insert_text((72, 48), heads[number], fontname="heit", fontsize=8)
            y = 84.0
            if number in (1, 3):
                for line in (f"Chapter {1 + number // 3}", "Intake" if number == 1 else "Coagulation"):
                    page.insert_text((72, y), line, fontname="hebo", fontsize=16)
                    y += 24
            words = FILLER.split()
            for line in wrapped(" ".join(words[number:] + words[:number]), 440) * 3:
                page.insert_text((72, y), line, fontname="helv", fontsize=10)
                y += LEAD
            if number == 1:
                page.insert_text((72, y), "Screens are raked so that incre-", fontname="helv", fontsize=10)
            if number == 2:  # the rest of the word, first under the head
                page.insert_text((72, 72), "mental builds stay quick.", fontname="helv", fontsize=10)
            page.insert_text((300, 756), str(number), fontname="helv", fontsize=9)
        doc.save(pdf)
    pages = NativeReader().read(pdf).pages
    assert [r.text for p in pages for r in p.regions if r.kind == "page_header"] == [heads[n] for n in (2, 4, 5)]
    assert not any(r.text in heads.values() for p in pages for r in p.regions if r.kind != "page_header")
    assert (" so that incremental", "builds stay quick.", True) in _cross_page_steps(pdf)


TREES = ["Alder", "Birch", "Cedar", "Elm", "Fir", "Hazel", "Larch", "Maple", "Oak", "Pine"]
BIRDS = ["Crane", "Dove", "Eagle", "Finch", "Gull", "Heron", "Ibis", "Jay", "Kite", "Lark"]


def test_pages_of_small_type_keep_their_first_lines(tmp_path: Path) -> None:
    """References set smaller than the body, from the top of four pages, lost each page's first
    entry to the running-head rule (a first line, smaller than the body, at one place on several
    pages)."""
    pdf = tmp_path / "report.pdf"
    words = FILLER.split()
    with pymupdf.open() as doc:
        for number in range(3):
            page = doc.new_page()
            lines = wrapped(" ".join(words[number:] + words[:number]), 440) * 25
            for row, line in enumerate(lines[:52]):
                page.insert_text((72, 60 + 13 * row), line, fontname="helv", fontsize=10)
        for number in range(4):
            page = doc.new_page()
            for row in range(40):
                n = number * 40 + row
                name = f"{TREES[n % 10]} {BIRDS[n // 10 % 10]}, {TREES[n // 100]}"
                entry = f"{name}. On filters of the {BIRDS[n % 10]} plant."
                page.insert_text((72, 60 + 12 * row), entry, fontname="helv", fontsize=9)
        doc.save(pdf)
    pages = NativeReader().read(pdf).pages
    assert [r.text for p in pages for r in p.regions if r.kind in ("page_header", "page_footer")] == []


def test_a_letterhead_on_every_page_is_no_section_after_the_first(tmp_path: Path) -> None:
    """A memo's 18-point company name atop both pages was set too large to be a running head: it
    was a section on page 2, which cut the paragraph running over the break. On page 1 it stays
    what it was (there it may be the title: a two-page menu repeats "Spring Menu")."""
    pdf = tmp_path / "memo.pdf"
    with pymupdf.open() as doc:
        doc.new_page()
        doc.new_page()
        first, second = doc[0], doc[1]
        first.insert_text((72, 130), "MEMORANDUM", fontname="hebo", fontsize=14)
        y = _fill(first, 160.0, 7)
        first.insert_text(
            (72, y + 40), "Please brief your shift leaders and confirm to me", fontname="helv", fontsize=10
        )
        second.insert_text((72, 160), "by e-mail that you have done so by Friday.", fontname="helv", fontsize=10)
        for page in (first, second):
            page.insert_text((72, 60), "CORVANE LOGISTICS", fontname="hebo", fontsize=18)
        doc.save(pdf)
    pages = NativeReader().read(pdf).pages
    assert (pages[0].regions[0].kind, pages[0].regions[0].text) == ("title", "CORVANE LOGISTICS")
    assert [r.text for r in pages[1].regions if r.kind == "page_header"] == ["CORVANE LOGISTICS"]
    assert ("and confirm to me", "by e-mail that you h", True) in [
        (last[-17:], first, continues) for last, first, continues in _cross_page_steps(pdf)
    ]


def test_a_table_header_repeated_atop_each_page_is_no_running_head(tmp_path: Path) -> None:
    """A spreadsheet's header row, repeated atop every page its table runs over, sat in the top band
    on several pages and was read into the running head as well as the table."""
    pdf = tmp_path / "kpis.pdf"
    with pymupdf.open() as doc:
        for number in range(3):
            page = doc.new_page()
            page.insert_text((72, 30), "Depot KPIs Q3", fontname="helv", fontsize=8)
            rows = [("Depot", "Shipments")] + [(f"Depot {number}-{row}", f"{1000 + row:,}") for row in range(20)]
            _ruled_table(page, rows, 48, True)
        doc.save(pdf)
    pages = NativeReader().read(pdf).pages
    heads = [region.text for page in pages for region in page.regions if region.kind == "page_header"]
    assert heads == ["Depot KPIs Q3"] * 3
    assert all(page.regions[0].kind == "table" and "| Depot | Shipments |" in page.regions[0].text for page in pages)


def test_a_one_line_byline_does_not_run_on_into_a_page_that_opens_with_a_year(tmp_path: Path) -> None:
    """A paragraph ending on a lowercase word runs on into one opening with a numeral ("the server
    draws" | "731 W ..."), but "Prepared by the operations team" | "2023 was a difficult year" was
    joined too: a short line without a full stop is a byline or a label more often."""
    pdf = tmp_path / "report.pdf"
    with pymupdf.open() as doc:
        first = _filled_first_page(doc)
        first.insert_text((72, 740), "Prepared by the operations team", fontname="helv", fontsize=10)
        doc.new_page().insert_text((72, 72), "2023 was a difficult year for the supplier network.", fontsize=10)
        doc.save(pdf)
    assert [(last, first, continues) for last, first, continues in _cross_page_steps(pdf)] == [
        (" the operations team", "2023 was a difficult", False)
    ]


def test_a_two_page_menu_keeps_its_title_repeated_atop_both_pages(tmp_path: Path) -> None:
    """Taken as a letterhead on every page, the title "Spring Menu" became page 1's running head and
    "Starters" the title."""
    pdf = tmp_path / "menu.pdf"
    with pymupdf.open() as doc:
        for course, dishes in (
            ("Starters", ["Tomato soup 6.50", "Green salad 7.00"]),
            ("Desserts", ["Apple pie 5.00"]),
        ):
            page = doc.new_page()
            page.insert_text((220, 60), "Spring Menu", fontname="hebo", fontsize=30)
            page.insert_text((72, 120), course, fontname="hebo", fontsize=16)
            for n, dish in enumerate(dishes):
                page.insert_text((72, 150 + 20 * n), dish, fontname="helv", fontsize=11)
        doc.save(pdf)
    first, second = NativeReader().read(pdf).pages
    assert [(r.kind, r.text) for r in first.regions if r.kind in ("title", "page_header")] == [("title", "Spring Menu")]
    assert [r.text for r in second.regions if r.kind == "page_header"] == ["Spring Menu"]

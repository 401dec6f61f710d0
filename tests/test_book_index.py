"""A history book's index: two columns of short entries "term, page, page" under their letters,
sub-entries a level in, long entries run over onto lines further in, as LaTeX's theindex sets
them. A PDF made here, read by the native reader, and an entry quoted for a question.

Before, each letter's entries were one paragraph ("Leipzig Disputation (1519), 28-30 Leo X, Pope,
25, 32 Luther, Martin, 12, 45-47, 103 at Worms, ..."), and a page number run over to a block's top
was read as a footnote: "Which pages discuss Luther?" could not quote the entry alone."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from docgraph.app.llm.extractive import best_quote, content_words
from docgraph.ingest.readers.native import NativeReader

SIZE, LEAD, TOP, BOTTOM = 8.5, 10.5, 125.0, 590.0
COLUMNS = (60.0, 222.0)
WIDTH = 150.0
RUN_OVER, SUB = 20.0, 10.0
ENTRIES = [
    ("A", None),
    *[("Agricola, Johann, 33, 58", 0), ("Anabaptists, 71-74, 120", 0), ("in Münster, 73", 1)],
    *[("persecution of, 74, 121", 1), ("Augsburg Confession, 88, 90-93", 0), ("Augsburg, Diet of (1530), 88", 0)],
    ("B", None),
    *[("Basel, printing in, 14, 19, 102", 0), ("Bible, German translation of, 40-44, 66", 0)],
    *[("September Testament (1522), 41", 1), ("Bucer, Martin, 95, 97", 0), ("Bugenhagen, Johannes, 60", 0)],
    ("C", None),
    *[("Calvin, John, 110-115", 0), ("Catechisms, 62-65", 0), ("Charles V, Emperor, 36, 87-89, 118", 0)],
    *[("Cranach, Lucas, the Elder, painter and printer of Wittenberg, 22, 46, 51-53", 0)],
    ("E", None),
    *[("Eck, Johann, 28-30", 0), ("Erasmus, Desiderius, 17, 54-57", 0), ("on free will, 56", 1)],
    ("F", None),
    *[("Frankfurt book fair, 15, 20", 0), ("Frederick the Wise, Elector of Saxony, 27, 35, 38, 41-44", 0)],
    ("L", None),
    *[("Leipzig Disputation (1519), 28-30", 0), ("Leo X, Pope, 25, 32", 0), ("Luther, Martin, 12, 45-47, 103", 0)],
    *[("at Worms, 36-38", 1), ("on printing, 45", 1), ("marriage of, 59", 1), ("Ninety-five Theses, 23-26", 1)],
    ("M", None),
    *[("Melanchthon, Philipp, 48, 88, 91", 0), ("Müntzer, Thomas, 76-80", 0)],
    ("P", None),
    *[("Pamphlets, 18-22, 44, 82", 0), ("illustrated, 51", 1), ("prices of, 19", 1)],
    *[("Peasants' War (1525), 75-82", 0), ("Printers, see Basel; Wittenberg", 0)],
    ("S", None),
    *[("Saxony, Electorate of, 27, 58", 0), ("Schmalkaldic League, 96-99, 117", 0), ("Spalatin, Georg, 35", 0)],
    ("W", None),
    *[("Wittenberg, 12, 16, 21-23, 58", 0), ("university of, 13", 1), ("Worms, Diet of (1521), 36-38", 0)],
    ("Z", None),
    ("Zwingli, Huldrych, reformer of Zürich, 84-86, 94", 0),
]
BODY = (
    "The printers of Wittenberg worked for a market that stretched from Basel to Danzig, and they chose"
    " what to print by what would sell at the fairs of Leipzig and Frankfurt rather than by what the"
    " theologians of the university thought most needful. "
)


def _wrapped(text: str, measure: float) -> list[str]:
    """``text`` in lines of at most ``measure`` points, the run-over lines ``RUN_OVER`` narrower."""
    lines, current = [], ""
    for word in text.split():
        longer = f"{current} {word}".strip()
        room = measure - (RUN_OVER if lines else 0.0)
        if pymupdf.get_text_length(longer, "tiro", SIZE) <= room:
            current = longer
        else:
            lines, current = [*lines, current], word
    return [*lines, current]


def _entry_lines(text: str, level: int | None) -> list[tuple[float, str, str]]:
    """(indent, font, text) of each line an entry or a letter is set on."""
    if level is None:
        return [(0.0, "tibo", text)]
    lines = _wrapped(text, WIDTH - SUB * level)
    return [(SUB * level + (RUN_OVER if k else 0.0), "tiro", line) for k, line in enumerate(lines)]


def _index_page(page: pymupdf.Page) -> None:
    page.insert_text((60, 40), "INDEX", fontname="tiro", fontsize=8)
    page.insert_text((196, 95), "Index", fontname="tibo", fontsize=16)
    page.insert_text((210, 615), "211", fontname="tiro", fontsize=9)
    column, y = 0, TOP
    for text, level in ENTRIES:
        lines = _entry_lines(text, level)
        y += LEAD if level is None and y > TOP else 0.0
        if y + LEAD * len(lines) > BOTTOM or (level is None and text == "L"):  # "L" heads the second column
            column, y = column + 1, TOP
        for indent, font, line in lines:
            page.insert_text((COLUMNS[column] + indent, y), line, fontname=font, fontsize=SIZE)
            y += LEAD


def _book(pdf: Path) -> None:
    with pymupdf.open() as doc:
        for number in range(208, 211):
            page = doc.new_page(width=432, height=648)
            page.insert_text((60, 40), "PRINT AND REFORMATION", fontname="tiro", fontsize=8)
            page.insert_textbox(pymupdf.Rect(60, 70, 372, 590), BODY * 5, fontname="tiro", fontsize=10.5)
            page.insert_text((210, 615), str(number), fontname="tiro", fontsize=9)
        _index_page(doc.new_page(width=432, height=648))
        doc.save(pdf)


@pytest.fixture
def index_page(tmp_path: Path) -> list[tuple[str, str]]:
    _book(tmp_path / "book.pdf")
    page = NativeReader().read(tmp_path / "book.pdf").pages[3]
    return [(r.kind, r.text) for r in page.regions if r.kind not in ("page_header", "page_footer")]


def test_each_entry_of_an_index_is_an_item_of_its_letters_list(index_page: list[tuple[str, str]]) -> None:
    lists = [text.split("\n") for kind, text in index_page if kind == "list"]
    assert [items[0] for items in lists] == [
        "Agricola, Johann, 33, 58",
        "Basel, printing in, 14, 19, 102",
        "Calvin, John, 110-115",
        "Eck, Johann, 28-30",
        "Frankfurt book fair, 15, 20",
        "Leipzig Disputation (1519), 28-30",  # the second column, after the first
        "Melanchthon, Philipp, 48, 88, 91",
        "Pamphlets, 18-22, 44, 82",
        "Saxony, Electorate of, 27, 58",
        "Wittenberg, 12, 16, 21-23, 58",
        "Zwingli, Huldrych, reformer of Zürich, 84-86, 94",  # a letter's one entry, run over
    ]
    assert lists[5] == [
        "Leipzig Disputation (1519), 28-30",
        "Leo X, Pope, 25, 32",
        "Luther, Martin, 12, 45-47, 103",
        "at Worms, 36-38",  # a sub-entry is an item of its own
        "on printing, 45",
        "marriage of, 59",
        "Ninety-five Theses, 23-26",
    ]
    # an entry run over onto the next line, at a word or after a comma, is one item
    assert "Cranach, Lucas, the Elder, painter and printer of Wittenberg, 22, 46, 51-53" in lists[2]
    assert "Frederick the Wise, Elector of Saxony, 27, 35, 38, 41-44" in lists[4]
    assert [kind for kind, _ in index_page].count("footnote") == 0
    assert ("paragraph", "L") in index_page  # a letter stays over its entries


def test_a_question_about_a_name_quotes_its_entry(index_page: list[tuple[str, str]]) -> None:
    entries = next(text for kind, text in index_page if kind == "list" and "Luther" in text)
    assert best_quote(entries, content_words("Which pages discuss Luther?"), "list") == "Luther, Martin, 12, 45-47, 103"

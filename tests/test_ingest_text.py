"""Text clean-up: ligatures, whitespace, hyphenation repair, sentence boundaries."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from docgraph.ingest.floats.tables import to_markdown
from docgraph.ingest.page.furniture import furniture_key, is_page_number
from docgraph.ingest.pdf.lines import TEXT_FLAGS, TextLine, extract_lines
from docgraph.ingest.pdf.text import (
    clean_inline,
    ends_sentence,
    join_code_lines,
    join_lines,
    join_two,
    keeps_hyphen,
    normalize_chars,
    shorten,
    starts_lowercase,
)
from docgraph.ingest.readers.native import NativeReader


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("\ufb01nd the \ufb02ow", "find the flow"),
        ("e\ufb00ect, o\ufb03ce, ba\ufb04e", "effect, office, baffle"),
        ("\ufb05op \ufb06ep", "stop step"),
        ("no\u00a0break\u2009thin", "no break thin"),
        ("zero\u200bwidth\ufeff", "zerowidth"),
        (
            "the tapir \u202eeats leaves\u202c daily",
            "the tapir eats leaves daily",
        ),  # an override kept reversed the line
        ("\u2067\u05e9\u05dc\u05d5\u05dd\u2069 and \u200fmark", "\u05e9\u05dc\u05d5\u05dd and mark"),
        # shaped Arabic (presentation forms, lam-alef one glyph) as the letters a question is typed in
        ("\ufe97\ufe84\ufedb\ufede \ufef7", "\u062a\u0623\u0643\u0644 \u0644\u0623"),
    ],
)
def test_normalize_chars_expands_ligatures_and_odd_spaces(raw: str, expected: str) -> None:
    assert normalize_chars(raw) == expected


def test_clean_inline_makes_one_line() -> None:
    raw = "Figure   2:\nExamples   of  multiple\tpanel plots "
    assert clean_inline(raw) == "Figure 2: Examples of multiple panel plots"


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        (["the infor-", "mation is here"], "the information is here"),
        (["a read-", "only file"], "a read-only file"),
        (["the built-", "in function"], "the built-in function"),
        (["an Anglo-", "Saxon word"], "an Anglo-Saxon word"),
        (["see UTF-", "8 encoding"], "see UTF-8 encoding"),
        (["an XML-", "based format"], "an XML-based format"),
        (["a state-of-", "the-art method"], "a state-of-the-art method"),
        (["self-", "contained"], "self-contained"),
        (["compu-", "tation, and"], "computation, and"),
        (["is ex-", "panded"], "is expanded"),
        (["the co-", "efficient"], "the coefficient"),
        (["do it with-", "out the key"], "do it without the key"),  # "out" ends compounds too
        (["keep run-", "ning"], "keep running"),  # "run" starts compounds too
        (["turn it clock-", "wise."], "turn it clockwise."),
        (["an ELE-", "MENT tag"], "an ELEMENT tag"),  # a word in capitals
        (["Some-", "thing else"], "Something else"),
        (["a feed-", "forward path"], "a feedforward path"),  # no common word, no known compound
        (["the A-", "side of it"], "the A-side of it"),  # a one-letter head: a compound
        (["the CO-", "OP shop"], "the CO-OP shop"),  # a short word in capitals: more often a compound
        (["within forty-", "five (45) days"], "within forty-five (45) days"),
        (["soft\u00ad", "ware"], "software"),
        (["range 1-", "5"], "range 1-5"),
        (["plain line", "next line"], "plain line next line"),
        (["  spaced   out ", "", "  words  "], "spaced out words"),
        (["the \ufb01rst", "de\ufb01ni-", "tion"], "the first definition"),
    ],
)
def test_join_lines_repairs_hyphenation(lines: list[str], expected: str) -> None:
    assert join_lines(lines) == expected


def test_keeps_hyphen_rules() -> None:
    assert not keeps_hyphen("infor", "mation")
    assert keeps_hyphen("read", "only")  # known compound suffix
    assert keeps_hyphen("well", "known")  # known compound prefix
    assert keeps_hyphen("non", "Linear")  # uppercase continuation
    assert keeps_hyphen("ISO", "latin")  # capitals inside the first part


def test_a_common_word_hyphenated_at_a_line_end_is_read_whole(tmp_path: Path) -> None:
    """A word split where its halves also end or start compounds ("with-" | "out", "run-" | "ning",
    "clock-" | "wise") was stored with the hyphen, so searching "without" missed the passage."""
    pdf = tmp_path / "wrapped.pdf"
    lines = ["The operator may stop the spindle with-", "out the key while the program is run-", "ning."]
    with pymupdf.open() as doc:
        page = doc.new_page()
        for number, line in enumerate(lines):
            page.insert_text((72, 100 + 13 * number), line, fontname="helv", fontsize=10)
        doc.save(pdf)
    texts = [region.text for page in NativeReader().read(pdf).pages for region in page.regions]
    assert texts == ["The operator may stop the spindle without the key while the program is running."]


def test_a_figure_in_brackets_after_its_number_word_goes_on_with_the_sentence(tmp_path: Path) -> None:
    """A contract's "at least ninety" | "(90) days before ..." was cut at the bracket, as if "(90)"
    opened a list item: the clause was a paragraph ending "ninety" and a list "(90) days ...". Only
    a number word is so repeated: "(1)" after "... all of the following" opens the list."""
    pdf = tmp_path / "clause.pdf"
    lines = [
        "The Agreement renews for one year unless a party gives notice at least ninety",
        "(90) days before the end of the Initial Term. The Supplier shall then do all of the following",
        "(1) keep a record of each renewal;",
        "(2) send the Customer a copy.",
    ]
    with pymupdf.open() as doc:
        page = doc.new_page()
        for number, line in enumerate(lines):
            page.insert_text((72, 100 + 12.5 * number), line, fontname="helv", fontsize=10)
        doc.save(pdf)
    regions = [region for page in NativeReader().read(pdf).pages for region in page.regions]
    assert [region.kind for region in regions] == ["paragraph", "list"]
    assert "notice at least ninety (90) days before" in regions[0].text
    assert regions[1].text.startswith("(1) keep a record")


def test_join_two_without_hyphen_adds_one_space() -> None:
    assert join_two("alpha ", " beta") == "alpha beta"
    assert join_two("", "beta") == "beta"
    assert join_two("dash -", "next") == "dash - next"  # a spaced dash is punctuation, not a break


def test_join_two_mends_a_name_broken_after_an_underscore() -> None:
    assert join_two("imply IDN2_NFC_", "INPUT .") == "imply IDN2_NFC_INPUT ."
    assert join_two("fill in ___", "here") == "fill in ___ here"  # a blank to fill in is no name


def test_join_code_lines_keeps_indentation() -> None:
    text = join_code_lines([("def f(x):", 0), ("return x  ", 4), ("   ", 0)])
    assert text == "def f(x):\n    return x"


def test_join_code_lines_keeps_one_blank_line_inside_a_listing() -> None:
    rows = [("", 0), ("import sys", 0), ("", 0), ("", 0), ("def f(x):", 0), ("return x", 4), ("", 0)]
    assert join_code_lines(rows) == "import sys\n\ndef f(x):\n    return x"


@pytest.mark.parametrize(
    ("text", "expected"),
    [("It ends.", True), ('He said "yes."', True), ("A question?", True), ("goes on and", False), ("items:", True)],
)
def test_ends_sentence(text: str, expected: bool) -> None:
    assert ends_sentence(text) is expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [("continues here", True), ('"quoted" start', True), ("Capital", False), ("123 numbers", False), ("", False)],
)
def test_starts_lowercase(text: str, expected: bool) -> None:
    assert starts_lowercase(text) is expected


def test_shorten_cuts_on_word_boundary() -> None:
    assert shorten("alpha beta gamma", 11) == "alpha beta…"
    assert shorten("short", 10) == "short"


@pytest.mark.parametrize("text", ["12", "Page 12", "- 7 -", "xii", "iv", "3 of 40", "Seite 4"])
def test_page_numbers_are_recognised(text: str) -> None:
    assert is_page_number(text)


@pytest.mark.parametrize("text", ["Introduction", "Chapter 4: Function reference 9", "2.3 Drawing"])
def test_other_band_text_is_not_a_page_number(text: str) -> None:
    assert not is_page_number(text)


def test_furniture_key_ignores_numbers_and_roman_numerals() -> None:
    assert furniture_key("Chapter 4: Function reference 16") == furniture_key("Chapter 4: Function  reference 17")
    assert furniture_key("Preface  xii") == furniture_key("Preface iv")
    assert furniture_key("User Guide") != furniture_key("Chapter 1 Introduction")


def test_markdown_table_escapes_pipes_and_pads_rows() -> None:
    md = to_markdown([["a", "b|c"], ["1"]])
    assert md.splitlines() == ["| a | b\\|c |", "| --- | --- |", "| 1 |  |"]


def _line_of(*pieces: tuple[str, str]) -> TextLine:
    """One line drawn as ``(text, base-14 font)`` pieces side by side."""
    with pymupdf.open() as doc:
        page = doc.new_page()
        x = 72.0
        for text, font in pieces:
            page.insert_text((x, 100), text, fontname=font, fontsize=11)
            x += pymupdf.get_text_length(text, fontname=font, fontsize=11)
        [line] = extract_lines(page, page.get_textpage(flags=TEXT_FLAGS), page.get_drawings())
    return line


def test_a_code_word_in_a_bold_heading_keeps_it_bold_but_a_bold_code_word_makes_no_line_bold() -> None:
    """zoo's "2.2. Creation of "zooreg" objects" (zooreg in the code font, not bold) was not bold
    and so no heading; a code line with one bold code word ("\\clef bass c4 d e f") must not become
    bold (LilyPond's listings split into pieces), nor must "8.3 " in bold before a signature."""
    assert _line_of(("2.2. Creation of ", "Times-Bold"), ('"zooreg"', "Courier"), (" objects", "Times-Bold")).bold
    assert not _line_of(("\\clef bass", "Courier-Bold"), (" c4 d e f g4 a b c", "Courier")).bold
    assert not _line_of(("8.3 ", "Times-Bold"), ("DocPara(self, expr, format=None,", "Courier")).bold
    # a bold run-in label before a command is no bold line either (it became a heading)
    assert not _line_of(("Usage: ", "Times-Bold"), ("docgraph ingest FILE.pdf --force --reader auto", "Courier")).bold
    assert (
        _line_of(
            ("A heading", "Times-Bold"),
        ).bold
        and not _line_of(
            ("A sentence.", "Times-Roman"),
        ).bold
    )


def test_a_suspended_hyphen_before_a_conjunction_is_kept_with_its_space() -> None:
    """ "Der Ein-" | "und Ausschalter" was stored "Einund Ausschalter", "pre-" | "and post-processing"
    "preand"; "col-" | "or" is still "color"."""
    assert join_two("Der Ein-", "und Ausschalter") == "Der Ein- und Ausschalter"
    assert join_two("Ansaug-", "oder Abluftöffnungen") == "Ansaug- oder Abluftöffnungen"
    assert join_two("the pre-", "and post-processing steps") == "the pre- and post-processing steps"
    assert join_two("the col-", "or of the line") == "the color of the line"


def test_a_hyphen_before_a_hyphenated_rest_is_kept() -> None:
    """ "case-" | "by-case" was "caseby-case", "black-" | "on-white" "blackon-white" (gnuplot)."""
    assert join_two("on a case-", "by-case basis") == "on a case-by-case basis"
    assert join_two("is black-", "on-white.") == "is black-on-white."
    assert join_two("docu-", "ment-based") == "document-based"

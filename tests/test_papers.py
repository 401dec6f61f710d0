"""A real two-column physics paper: displayed equations come out as one formula region each, and
its tables' captions, numbered in Roman numerals, as captions.

tests/data/pdfs/apssamp.pdf is REVTeX 4.1's sample paper for the APS journals (TeX Live's
revtex4-1 documentation, LPPL), as Debian's texlive-publishers-doc ships it. Read by hand: page 3
sets equations (1) and (2) one above the other in the left column, equation (2.6') in the right
column at the height of (1), and an eqnarray (4) whose left-hand side, fraction and bracket are
separate pieces of the text layer; page 4 sets the subequations (6a) and (6b). Before the pieces
were joined, page 3 alone had 31 regions of at most four characters ("b", "τ", "i<j"). Pages 4
and 5 hold TABLE I to TABLE IV, whose captions were read as paragraphs.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from docgraph.ingest.graph import build_graph
from docgraph.ingest.page.display_math import prose_words
from docgraph.ingest.pdf.lines import is_math_char
from docgraph.ingest.readers.native import NativeReader
from docgraph.ingest.types import DocumentLayout, Region

PAPER = Path(__file__).parent / "data" / "pdfs" / "apssamp.pdf"


@pytest.fixture(scope="module")
def paper() -> DocumentLayout:
    return NativeReader().read(PAPER)


def regions(layout: DocumentLayout, number: int, kind: str | None = None) -> list[Region]:
    page = next(p for p in layout.pages if p.number == number)
    return [r for r in sorted(page.regions, key=lambda r: r.order) if kind is None or r.kind == kind]


def numbered(layout: DocumentLayout, number: int, tag: str) -> Region:
    found = [r for r in regions(layout, number, "formula") if r.text.endswith(tag)]
    assert len(found) == 1, [r.text for r in regions(layout, number, "formula")]
    return found[0]


def test_the_pieces_of_an_equation_are_one_formula_ending_in_its_number(paper: DocumentLayout) -> None:
    first = numbered(paper, 3, "(1)")
    assert first.text.startswith("χ+(p) ≲[2|p|(|p| + pz)]⁻¹/2")  # the exponent raised
    assert "px + ipy" in first.text
    eqnarray = numbered(paper, 3, "(4)")
    assert eqnarray.text.startswith("M =ig²")
    assert "Z(4E1E2)¹/2(l²" in eqnarray.text  # the fraction, a piece of its own in the text layer


def test_equations_stacked_in_one_display_stay_apart(paper: DocumentLayout) -> None:
    assert numbered(paper, 3, "(1)") is not numbered(paper, 3, "(2)")
    assert numbered(paper, 4, "(6a)").text.startswith("M =ig²")
    assert "abcdefαβγδ" in numbered(paper, 4, "(6b)").text


def test_formulas_in_two_columns_at_one_height_are_not_joined(paper: DocumentLayout) -> None:
    left = numbered(paper, 3, "(1)")
    assert left.bbox.x1 < 306  # the gutter: the right column's (2.6') starts at x = 323
    assert not any("(2.6′)" in r.text for r in regions(paper, 3, "formula"))


def test_the_math_pages_are_left_with_no_lone_symbols(paper: DocumentLayout) -> None:
    texts = [r.text for number in (3, 4) for r in regions(paper, number) if r.kind in ("paragraph", "formula")]
    assert [text for text in texts if len(text) <= 4] == []


def test_prose_beside_an_equation_stays_prose(paper: DocumentLayout) -> None:
    texts = {r.text: r.kind for r in regions(paper, 3)}
    assert texts["Note the open one in Eq. (2)."] == "paragraph"
    lead_in = "Below we have numbered single-line equations; this is the most common type of equation in "
    lead_in += "Physical Review:"
    assert texts[lead_in] == "paragraph"


def test_a_reference_to_an_equation_links_its_formula(paper: DocumentLayout) -> None:
    batch = build_graph(paper)
    texts = {n.key: str(n.props["text"]) for n in batch.nodes if n.label == "Region"}
    links = {
        (e.props["label"], texts[e.dst_key].rsplit(" ", 1)[-1])
        for e in batch.edges
        if e.type == "REF" and e.props["kind"] == "equation"
    }
    assert ("Equation 2", "(2)") in links
    assert ("Equation 6b", "(6b)") in links


def test_tables_numbered_in_roman_numerals_have_captions(paper: DocumentLayout) -> None:
    captions = [r.text.split(".")[0] for number in (4, 5) for r in regions(paper, number, "caption")]
    assert [c for c in captions if c.startswith("TABLE")] == ["TABLE I", "TABLE II", "TABLE III", "TABLE IV"]


def test_unruled_tables_under_captions_of_many_lines_are_tables(paper: DocumentLayout) -> None:
    """TABLE I's caption runs to eight lines (one of them with a wide space after a full stop) over
    a table with no rules drawn; the table starts below the caption's last line."""
    (table,) = regions(paper, 4, "table")
    assert table.cells[:2] == [["Lefta", "Centeredb", "Decimal", "Right"], ["1", "2", "3.001", "4"]]
    batch = build_graph(paper)
    texts = {n.key: str(n.props["text"]) for n in batch.nodes if n.label == "Region"}
    captioned = {texts[e.src_key].split(".")[0] for e in batch.edges if e.type == "CAPTION_OF"}
    assert captioned >= {"TABLE I", "TABLE II", "TABLE III", "TABLE IV"}


@pytest.mark.parametrize(
    ("char", "math"),
    [("𝑥", True), ("∑", True), ("≪", True), ("⟨", True), ("x", False), ("→", False), ("α", False), ("-", False)],
)
def test_math_characters_whatever_the_font(char: str, math: bool) -> None:
    """Unicode math fonts (newtx, Libertinus Math) carry the italic x of a formula as U+1D465."""
    assert is_math_char(char) is math


@pytest.mark.parametrize(
    ("text", "words"),
    [("lim (1)", 0), ("Es = −E0il0.05b1,39M1,39,", 0), ("1,39 and Bml", 2), ("where M1l and N1l are", 3)],
)
def test_words_of_prose(text: str, words: int) -> None:
    assert prose_words(text) == words


ELSEVIER = Path(__file__).parent / "data" / "pdfs" / "elstest-5p.pdf"


@pytest.fixture(scope="module")
def elsevier() -> DocumentLayout:
    """elsarticle's test document: formulas in Times (txfonts), not in a math font."""
    return NativeReader().read(ELSEVIER)


def test_a_line_of_prose_cut_at_inline_subscripts_is_one_paragraph(elsevier: DocumentLayout) -> None:
    """MuPDF cut "Here A^ml_1,39 and B^ml_1,39 are the translational coefficients." into three blocks
    at the subscripts, side by side on one line."""
    texts = [r.text for r in regions(elsevier, 2, "paragraph")]
    assert any(t.startswith("Here Aml 1,39 and Bml 1,39 are the translational coefficients.") for t in texts)
    assert not any(t in ("Here Aml", "1,39 and Bml") for t in texts)


def test_formulas_in_a_text_font_are_formulas(elsevier: DocumentLayout) -> None:
    first = numbered(elsevier, 2, "(1)")
    assert first.text.startswith("Ei =")
    assert "(M1l −iN1l)" in first.text


def test_an_enumerated_paragraph_wrapping_to_the_margin_is_one_region(paper: DocumentLayout) -> None:
    """ "a. Note (Fourth-level head is run in) The width-" is indented as a paragraph's first line; its
    next line, "changing commands only ...", starts at the column's edge, in another text block."""
    found = [r for r in regions(paper, 1) if r.text.startswith("a. Note (Fourth-level head is run in)")]
    assert len(found) == 1
    assert "commands only take effect in two-column formatting." in found[0].text
    assert not any(r.text.startswith("changing commands only") for r in regions(paper, 1))

"""Footnote marks and exponents set raised and small after a word: read as superscripts
("processor¹", "10⁻³", "ax²"), not glued on as digits ("processor1", "103", "ax2"), and searched as
the word before them."""

from __future__ import annotations

from pathlib import Path

import pymupdf

from docgraph.app.llm.text_units import sentences
from docgraph.app.retrieval.text import tokenize
from docgraph.ingest.pdf.text import ends_sentence
from docgraph.ingest.readers.native import NativeReader

PDFS = Path(__file__).parent / "data" / "pdfs"


def _texts(pdf: Path) -> list[str]:
    return [region.text for page in NativeReader().read(pdf).pages for region in page.regions]


def _after(page: pymupdf.Page, x: float, y: float, text: str, size: float = 10) -> float:
    """``text`` set from ``x`` on the baseline ``y``; where it ends."""
    page.insert_text((x, y), text, fontname="helv", fontsize=size)
    return x + pymupdf.get_text_length(text, "helv", size)


def test_a_raised_mark_or_exponent_is_a_superscript_and_a_lowered_index_is_not(tmp_path: Path) -> None:
    with pymupdf.open() as doc:
        page = doc.new_page()
        x = _after(page, 72, 100, "The scheduler runs on each processor")
        x = _after(page, x, 96, "1", 6)  # raised: a footnote mark
        x = _after(page, x, 100, " and needs 10")
        x = _after(page, x, 96, "-", 6)  # an exponent set in two pieces
        x = _after(page, x, 96, "3", 6)
        x = _after(page, x, 100, " s per task on core E")
        x = _after(page, x, 102, "1", 6)  # lowered: an index
        _after(page, x, 100, " of the node.")
        doc.save(tmp_path / "marks.pdf")
    assert _texts(tmp_path / "marks.pdf")[0] == (
        "The scheduler runs on each processor¹ and needs 10⁻³ s per task on core E1 of the node."
    )


def test_a_raised_letter_marking_a_table_note_is_a_superscript(tmp_path: Path) -> None:
    """The clinical review: a dose table's cell read "Not recommendeda", its note mark glued on as a
    letter, so the cell was never found by "recommended". One raised letter is a mark; a raised
    word ("5th") is left as set."""
    with pymupdf.open() as doc:
        page = doc.new_page()
        x = _after(page, 72, 100, "Below 10 ml/min: Not recommended")
        _after(page, x, 96, "a", 6)
        x = _after(page, 72, 140, "Take the 5")
        x = _after(page, x, 136, "th", 6)
        _after(page, x, 140, " dose with food.")
        doc.save(tmp_path / "notes.pdf")
    texts = _texts(tmp_path / "notes.pdf")
    assert texts[0] == "Below 10 ml/min: Not recommendedᵃ"
    assert texts[1] == "Take the 5th dose with food."
    assert "recommended" in tokenize(texts[0]) and "recommendeda" not in tokenize(texts[0])


def test_footnote_marks_in_real_papers() -> None:
    """A conference template's mark after a full stop, where MuPDF ends a block: the sentence ends
    there, the paragraph runs on; a manual's mark after a word."""
    assert [text for text in _texts(PDFS / "ieeeconf-p2-5.pdf") if "a BibTEX bibliography.¹ IEEEconf also" in text]
    assert [text for text in _texts(PDFS / "gnutls-p119.pdf") if "smart cards¹," in text]
    # the note's own mark, at its line's start, where MuPDF flags no superscript
    notes = [
        r.text for p in NativeReader().read(PDFS / "ieeeconf-p2-5.pdf").pages for r in p.regions if r.kind == "footnote"
    ]
    assert [text for text in notes if text.startswith("¹latex8.bst is in fact identical")]
    # the same without a mark: a full line ending a sentence, the next flush under it at line spacing
    assert [text for text in _texts(PDFS / "apssamp.pdf") if "\\footnotetext[#1]{#2}. #1 is a numeric" in text]


def test_a_superscript_is_no_part_of_the_word_it_follows() -> None:
    assert tokenize("processor¹ and 10⁻³ Pa") == ["processor", "10", "pa"]
    assert tokenize("processor1") == ["processor1"]  # a name with a digit stays whole


def test_a_mark_after_a_full_stop_ends_the_sentence() -> None:
    assert sentences("The rows of matrices.² The zoo object. Smart cards¹ for keys.") == [
        "The rows of matrices.²",
        "The zoo object.",
        "Smart cards¹ for keys.",
    ]
    assert ends_sentence("for such examples.⁵") and not ends_sentence("smart cards¹")

"""Text in a frame or on a shaded background is text, not a figure; a sample a figure shows is not.

tests/data/pdfs/topletter-p3.pdf is page 3 of the TOPletter class documentation (TeX Live, LPPL, as
Debian's texlive-publishers-doc ships it): a 24-line LaTeX listing in a drawn frame, short lines of
typewriter type. Before listings were told from figures, the frame was a figure region whose text,
cut at 500 characters, stood in for the listing.
"""

from __future__ import annotations

from pathlib import Path

from docgraph.ingest.floats.figures import figure_caption_near, is_text_box
from docgraph.ingest.pdf.lines import TextLine
from docgraph.ingest.readers.native import NativeReader
from docgraph.ingest.types import BBox

LETTER = Path(__file__).parent / "data" / "pdfs" / "topletter-p3.pdf"


def test_a_framed_listing_is_code_not_a_figure() -> None:
    regions = NativeReader().read(LETTER).pages[0].regions
    assert not any(r.kind == "figure" for r in regions)
    code = " ".join(r.text for r in regions if r.kind == "code")
    assert "\\documentclass[english]{TOPletter}" in code
    assert "\\nome{Walt DISNEY}" in code
    assert "\\end{document}" in code


def test_a_listing_cut_by_mupdf_is_joined_where_no_blank_line_parts_it() -> None:
    """MuPDF hands the letter's listing over as eight blocks: one per part between blank lines, and
    the names part cut in three where lines are set a little apart. Those three are one region; the
    parts a blank line apart stay regions of their own."""
    code = [r.text for r in NativeReader().read(LETTER).pages[0].regions if r.kind == "code"]
    letter = [text for text in code if "\\dipartimentoDi{Automatica" not in text]  # one listing is above
    assert [text.splitlines()[0] for text in letter] == [
        "\\documentclass[english]{TOPletter}",
        "\\IfLanguageName{italian}{ %% italian names",
        "%% personal details",
        "%% Subject",
        "\\begin{document}",
        "\\lipsum",
    ]
    names = letter[1].splitlines()
    assert len(names) == 7 and "  \\dipartimentoDi{Comics and Cartoons}" in names  # indentation kept


def _line(text: str, x0: float, y0: float, size: float = 9.0) -> TextLine:
    return TextLine(text, BBox(x0, y0, x0 + 6 * len(text), y0 + size), size, "cmtt", False, True, 0.0, 0)


BOX = BBox(100, 100, 400, 170)
LISTING = [_line("def main(argv):", 110, 105), _line("    parse(argv)", 110, 117), _line("    return run()", 110, 129)]
LISTING += [_line("if __name__ == '__main__':", 110, 141), _line("    main(sys.argv)", 110, 153)]


def test_short_lines_down_a_box_from_one_edge_are_a_listing() -> None:
    assert is_text_box(BOX, LISTING, body_size=10.0)


def test_a_listing_a_figure_caption_names_stays_a_figure() -> None:
    assert not is_text_box(BOX, LISTING, body_size=10.0, captioned=True)


def test_scattered_labels_and_numbers_are_a_figure() -> None:
    ticks = [_line(f"{v:.1f}", 104, 102 + 13 * k) for k, v in enumerate([0.0, 0.5, 1.0, 1.5, 2.0])]
    labels = [_line("input stage", 150, 110), _line("encoder block", 250, 130), _line("output layer", 320, 150)]
    assert not is_text_box(BOX, ticks + labels, body_size=10.0)


def test_the_nearest_line_under_a_figure_decides_whether_it_is_captioned() -> None:
    beside = _line("x = 1", 10, 180)  # left of the box: not across it
    caption = _line("Figure 6-1: The default style", 120, 400)
    prose = _line("The text goes on below the box.", 110, 220)
    assert figure_caption_near(BOX, [beside, caption])
    assert not figure_caption_near(BOX, [beside, prose, caption])

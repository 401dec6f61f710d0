"""A code listing that MuPDF cut into blocks is joined again (ingest/page/merge.py), and only then.

Texinfo sets a long function signature on several lines, the later ones indented under its
arguments (asymptote's manual: ``void draw(picture pic=currentpicture, ...`` on one line,
``align align=NoAlign, pen p=currentpen, ...`` under it), and MuPDF returns the indented part as a
block of its own; R vignettes leave a blank line between a command and its output. Each piece was a
code region, so a signature's arguments were cut from its name. Parts of a listing with a blank line
between them stay apart (one record layout of a file format each, say), except a session's output
under the command that printed it.
"""

from __future__ import annotations

from docgraph.ingest.page.blocks import Block
from docgraph.ingest.page.classify import FontStats
from docgraph.ingest.page.merge import merge_blocks
from docgraph.ingest.pdf.lines import TextLine
from docgraph.ingest.types import BBox

SIZE = 9.0
STATS = FontStats(body_size=10.0, body_font="lmroman10")


def _row(text: str, x0: float, y0: float) -> TextLine:
    box = BBox(x0, y0, x0 + 5.4 * len(text), y0 + SIZE)
    return TextLine(text, box, SIZE, "lmmono", False, True, 0.0, 0, chars=len(text.replace(" ", "")))


def _code(rows: list[str], x0: float, y0: float) -> Block:
    return Block([_row(text, x0, y0 + 11 * k) for k, text in enumerate(rows)], "code")


def _merged(*blocks: Block) -> list[str]:
    return [b.text_for("code") for b in merge_blocks(list(blocks), STATS)]


def test_a_wrapped_signature_is_one_code_region() -> None:
    name = _code(["void draw(picture pic=currentpicture, path g,"], 90, 100)
    arguments = _code(["align align=NoAlign,", "pen p=currentpen);"], 144, 113)
    (signature,) = _merged(name, arguments)
    assert signature.splitlines()[0] == "void draw(picture pic=currentpicture, path g,"
    assert signature.splitlines()[1].startswith(" " * 10 + "align")  # indented under the arguments


def test_a_command_and_its_output_a_blank_line_apart_are_one_listing() -> None:
    command = _code(["R> z1[3:7]"], 81, 100)
    output = _code(["2004-01-19 2004-01-25", "-0.2982353 0.6862577"], 81, 122)  # one blank line
    assert _merged(command, output) == ["R> z1[3:7]\n\n2004-01-19 2004-01-25\n-0.2982353 0.6862577"]


def test_the_next_command_after_an_output_starts_a_region() -> None:
    command = _code(["> class(m)"], 81, 100)
    output = _code(['[1] "matrix" "array"'], 81, 122)
    following = _code(["> str(m)"], 81, 144)
    assert _merged(command, output, following) == ['> class(m)\n\n[1] "matrix" "array"', "> str(m)"]


def test_parts_of_a_listing_a_blank_line_apart_stay_apart() -> None:
    header = _code(["Header:", "2 CARD16 MAJOR_VERSION", "2 CARD16 MINOR_VERSION"], 120, 100)
    aliases = _code(["AliasList:", "4 CARD32 N_ALIASES"], 120, 100 + 3 * 11 + 11)  # one blank line
    assert len(_merged(header, aliases)) == 2


def test_listings_far_apart_or_side_by_side_stay_apart() -> None:
    first = _code(["x = 1", "y = 2"], 81, 100)
    far = _code(["z = 3"], 81, 100 + 22 + 3 * SIZE)  # more than two blank lines down
    beside = _code(["w = 4"], 320, 100)  # the next column, level with it
    assert len(_merged(first, far)) == 2
    assert len(_merged(first, beside)) == 2


def test_text_left_of_the_listing_is_not_part_of_it() -> None:
    indented = _code(["    return run()"], 140, 100)
    margin_note = _code(["main(sys.argv)  # entry"], 60, 113)  # under it, but from two em further left
    assert len(_merged(indented, margin_note)) == 2

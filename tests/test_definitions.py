"""Texinfo definition lines (``@deftypefun`` and kin) come out whole: signature, wrapped lines, label.

GNU reference manuals (libtasn1 in the dev set, libidn2, gnutls) print each function as a line at
the margin with its category right-aligned on it, the rest of a long signature indented under it
and the description indented less. The signature used to be cut into two or three regions and the
label "[Function]" was a paragraph of its own.
"""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from docgraph.ingest.page.definitions import join_definition_lines
from docgraph.ingest.pdf.lines import TextLine
from docgraph.ingest.readers.native import NativeReader
from docgraph.ingest.types import BBox

LIBTASN1 = Path("/work/shared/bench/dev/libtasn1.pdf")


def _line(text: str, x0: float, y0: float, size: float = 12.0, block: int = 0, mono: bool = False) -> TextLine:
    box = BBox(x0, y0, x0 + 0.5 * size * len(text), y0 + size)
    return TextLine(text, box, size, "CMSL10", False, mono, 0.0, block, chars=len(text.replace(" ", "")))


def _texts(lines: list[TextLine]) -> list[str]:
    return [line.text for line in join_definition_lines(lines)]


def test_a_signature_its_wrapped_line_and_its_label_are_one_line() -> None:
    lines = [
        _line("int asn1_parser2tree (const char * file, asn1 node *", 90, 198, block=4),
        _line("[Function]", 474, 199, size=10.9, block=4),
        _line("definitions, char * error_desc)", 140, 211, block=5),
        _line("file: specify the path and the name of file.", 119, 225, size=10.9, block=5),
    ]
    assert _texts(lines) == [
        "int asn1_parser2tree (const char * file, asn1 node * definitions, char * error_desc) [Function]",
        "file: specify the path and the name of file.",
    ]


def test_a_label_glued_to_the_line_goes_after_the_whole_signature() -> None:
    lines = [
        _line("int asn1_delete_element (asn1 node structure, const char * [Function]", 90, 609),
        _line("element_name)", 140, 622),
        _line("structure: pointer to the structure.", 119, 636, size=10.9, block=1),
    ]
    assert _texts(lines)[0] == "int asn1_delete_element (asn1 node structure, const char * element_name) [Function]"


def test_a_variable_definition_takes_its_label_from_the_next_block() -> None:
    lines = [
        _line("idn2_flags IDN2_USE_STD3_ASCII_RULES", 90, 677, size=10.9, mono=True),
        _line("[Global flag]", 464, 677, size=10.9, block=1),
        _line("Use STD3 ASCII rules.", 119, 690, size=10.9, block=1),
    ]
    joined = join_definition_lines(lines)
    assert [line.text for line in joined] == [
        "idn2_flags IDN2_USE_STD3_ASCII_RULES [Global flag]",
        "Use STD3 ASCII rules.",
    ]
    assert joined[0].mono  # still the typewriter line it was
    assert joined[0].block != joined[1].block  # and not part of the description's block


def test_prose_ending_in_a_bracketed_word_is_left_alone() -> None:
    lines = [
        _line("The algorithm is the one described in [Knuth]", 90, 100, size=10.9),
        _line("and it runs in linear time.", 90, 113, size=10.9),
    ]
    assert _texts(lines) == [line.text for line in lines]


@pytest.mark.skipif(not LIBTASN1.exists(), reason=f"{LIBTASN1} not present")
def test_the_function_reference_of_a_gnu_manual_has_whole_signatures() -> None:
    page = NativeReader().read(LIBTASN1).pages[10]  # p.11: asn1_parser2tree, asn1_parser2array
    texts = [region.text for region in page.regions]
    assert "int asn1_parser2tree (const char * file, asn1_node * definitions, char * error_desc) [Function]" in texts
    assert not any(text.strip() == "[Function]" for text in texts)
    assert "definitions, char * error_desc)" not in texts


def _texinfo_page(path: Path) -> Path:
    """A page as texinfo sets ``@deftypefun`` with ``@deftypefunx``: two definitions sharing one
    description, then a name too long for its arguments, which go under it in smaller type."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)

    def put(x: float, y: float, text: str, size: float = 10.9, font: str = "helv") -> None:
        page.insert_text((x, y), text, fontsize=size, fontname=font)

    put(90, 100, "void conf_init (conf_t * conf)", 12, "cour")
    put(474, 100, "[Function]")
    put(90, 117, "void conf_destroy (conf_t * conf)", 12, "cour")
    put(474, 117, "[Function]")
    put(119, 134, "These functions initialize and destroy the configuration object conf.")
    put(90, 160, "double conf_setting_get_float", 12, "cour")
    put(474, 160, "[Function]")
    put(140, 175, "(const conf_setting_t * setting)", 10.9, "cour")
    put(119, 190, "This function returns the value of the given setting as a double.")
    doc.save(path)
    return path


def test_a_group_of_definitions_and_arguments_under_a_long_name_come_out_whole(tmp_path: Path) -> None:
    page = NativeReader().read(_texinfo_page(tmp_path / "texinfo.pdf")).pages[0]
    texts = [region.text for region in page.regions]
    joined = " | ".join(texts)
    assert "void conf_init (conf_t * conf) [Function]" in joined
    assert "void conf_destroy (conf_t * conf) [Function]" in joined
    assert "double conf_setting_get_float (const conf_setting_t * setting) [Function]" in texts
    assert not any(text.strip() == "[Function]" for text in texts)
    assert any(text.startswith("This function returns the value") for text in texts)

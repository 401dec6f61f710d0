"""Typewriter fonts whose flags and names do not say so are told by their glyph widths.

tests/data/pdfs/xts-p6.pdf is page 6 of the vignette of the R package xts as Debian's r-cran-xts
ships it: built with dvips and ps2pdf, every font is a Type3 font named ``F29``, ``F45``, ...,
so the R session on the page read as paragraphs ("> require(xts) > data(sample_matrix) > ...").
The train set's shared-mime-info spec sets its XML in Nimbus Mono L (``NimbusMonL-Regu``), which
MuPDF does not flag as monospaced either.
"""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from docgraph.ingest.pdf.fixed_pitch import fixed_pitch_fonts, is_fixed_pitch
from docgraph.ingest.readers.native import NativeReader
from tests.conftest import TRAIN_DIR

XTS_PAGE = Path(__file__).parent / "data" / "pdfs" / "xts-p6.pdf"
MIME_SPEC = TRAIN_DIR / "shared-mime-info-spec.pdf"
TIMES_LOWERCASE = [444, 500, 444, 500, 444, 333, 500, 500, 278, 278, 500, 278, 778, 500, 500, 500, 500, 333]


def test_a_font_whose_glyphs_share_one_width_is_fixed_pitch() -> None:
    assert is_fixed_pitch([0.0] * 32 + [43.59] * 79 + [0.0] * 20)


def test_a_proportional_font_is_not() -> None:
    assert not is_fixed_pitch(TIMES_LOWERCASE)


def test_a_few_glyphs_of_one_width_prove_nothing() -> None:
    assert not is_fixed_pitch([500.0] * 10)  # a proportional font's digits alone
    assert not is_fixed_pitch([500.0] * 10 + [250.0, 250.0])  # digits, space and full stop


def test_the_type3_typewriter_fonts_of_a_dvips_vignette_are_found() -> None:
    with pymupdf.open(XTS_PAGE) as doc:
        fonts = fixed_pitch_fonts(doc[0])
    assert {"F45", "F51"} <= fonts  # the session's input and output
    assert "F29" not in fonts  # the body text


def test_an_r_session_in_a_type3_typewriter_font_is_code() -> None:
    regions = NativeReader().read(XTS_PAGE).pages[0].regions
    session = [r.text for r in regions if r.kind == "code"]
    assert session[0].splitlines() == [
        "> require(xts)",
        "> data(sample_matrix)",
        "> class(sample_matrix)",
        "",
        '[1] "matrix" "array"',  # the output goes with its command, the next command starts a region
    ]
    assert [text.splitlines()[0] for text in session[1:]] == [
        "> str(sample_matrix)",
        "> matrix_xts <- as.xts(sample_matrix,dateFormat='Date')",
        "> df_xts <- as.xts(as.data.frame(sample_matrix),",
    ]
    assert not any("> require(xts)" in r.text for r in regions if r.kind == "paragraph")


@pytest.mark.skipif(not MIME_SPEC.exists(), reason=f"{MIME_SPEC} not present")
def test_xml_in_nimbus_mono_is_code() -> None:
    page = NativeReader().read(MIME_SPEC).pages[5]
    (example,) = [r for r in page.regions if r.kind == "code" and "<mime-type" in r.text]
    assert example.text.splitlines()[:3] == [
        '<?xml version="1.0"?>',
        "<mime-info xmlns=’http://www.freedesktop.org/standards/shared-mime-info’>",
        '  <mime-type type="text/x-diff">',
    ]

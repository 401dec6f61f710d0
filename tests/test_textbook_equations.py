"""An analysis textbook's numbered displays as a student meets them: "f(x) = g(x) + C  for all
x ∈ A   (3.7)", words between and after its sides, centred with its number at the right margin, is
a formula that "(3.7)" refers to, not a paragraph. PDFs set like LaTeX's book class
(:mod:`tests.textbooks`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from docgraph.ingest.readers.native import NativeReader
from tests.textbooks import analysis_book


@pytest.fixture
def book(tmp_path: Path) -> Path:
    return analysis_book(tmp_path / "book.pdf")


def _regions(pdf: Path) -> list[tuple[str, str]]:
    layout = NativeReader().read(pdf)
    return [(r.kind, r.text) for page in layout.pages for r in page.regions]


def test_a_numbered_display_with_words_between_its_sides_is_a_formula(book: Path) -> None:
    regions = _regions(book)
    assert ("formula", "f(x) = g(x) + C for all x ∈ A (3.7)") in regions
    # the sentence it interrupts stays prose on both sides, and a one-line exercise stays a paragraph
    kinds = {text[:12]: kind for kind, text in regions}
    assert kinds["whenever A i"] == "paragraph" and kinds["3.7. Give an"] == "paragraph"
    assert kinds["A function w"] == "paragraph"

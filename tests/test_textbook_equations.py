"""An analysis textbook's numbered displays as a student meets them: "f(x) = g(x) + C  for all
x ∈ A   (3.7)", words between and after its sides, centred with its number at the right margin, is
a formula that "(3.7)" refers to, not a paragraph. PDFs set like LaTeX's book class
(:mod:`tests.textbooks`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from docgraph.app.retrieval.base import Retriever
from docgraph.app.retrieval.named_parts import named_parts
from docgraph.app.stores.falkordb_store import FalkorDBStore
from docgraph.ingest.readers.native import NativeReader
from tests.llm_data import hybrid_over
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


def test_a_question_names_an_equation_by_its_number() -> None:
    assert [(m.kind, m.number) for m in named_parts("What is equation (3.7)?")] == [("equation", "3.7")]


@pytest.fixture
def book_hybrid(falkordb_store: FalkorDBStore, tmp_path: Path, book: Path) -> Retriever:
    return hybrid_over(falkordb_store, [book], tmp_path / "home")


def test_an_equation_asked_for_by_number_is_its_formula(book_hybrid: Retriever) -> None:
    # the sentence after it says "equation (3.7)" twice; the formula only prints its number
    top = book_hybrid.retrieve("What is equation (3.7)?", 5)[0]
    assert top.text == "f(x) = g(x) + C for all x ∈ A (3.7)" and "part" in top.signals

"""An analysis textbook's numbered statements as a student asks of them: "by Theorem 3.2" in the
text refers to the theorem, "Prove Lemma 3.1" names the lemma and is answered by its own proof, not
by another proof that cites it; each glossary entry and each answer to an exercise at the back of
the book is a paragraph of its own. PDFs set like LaTeX's book class (:mod:`tests.textbooks`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from docgraph.app.llm.service import ask
from docgraph.app.retrieval.base import Retriever
from docgraph.app.retrieval.named_parts import asks_for_proof, named_parts
from docgraph.app.stores.falkordb_store import FalkorDBStore
from docgraph.ingest.graph import build_graph
from docgraph.ingest.links.statements import proofs, statement_head
from docgraph.ingest.readers.native import NativeReader
from tests.llm_data import hybrid_over, no_llm_settings
from tests.textbooks import ANSWERS, CHORD_NOTE, FILLER, GLOSSARY, MVT, analysis_book, margin_note_page


@pytest.fixture
def book(tmp_path: Path) -> Path:
    return analysis_book(tmp_path / "book.pdf")


def _regions(pdf: Path) -> list[tuple[str, str, str]]:
    layout = NativeReader().read(pdf)
    return [(f"{page.number}:{n}", r.kind, r.text) for page in layout.pages for n, r in enumerate(page.regions)]


def test_a_statement_named_in_the_text_is_referred_to(book: Path) -> None:
    batch = build_graph(NativeReader().read(book), ingested_at="x", ingest_id="y")
    texts = {n.key: str(n.props["text"]) for n in batch.nodes if n.label == "Region"}
    refs = {
        (texts[e.src_key][:12], e.props["label"], texts[e.dst_key][:12])
        for e in batch.edges
        if e.type == "REF" and e.dst_key in texts
    }
    assert ("Example 3.3.", "Theorem 3.2", "Theorem 3.2 ") in refs  # "..., by Theorem 3.2, because ..."
    assert ("Proof. Apply", "Lemma 3.1", "Lemma 3.1 (R") in refs


def test_a_proof_belongs_to_the_statement_before_it_or_the_one_it_names(book: Path) -> None:
    regions = _regions(book)
    text = {region_id: text for region_id, _, text in regions}
    heads = {statement_head(t): region_id for region_id, _, t in regions if statement_head(t)}
    found = {text[statement][:9]: [text[p][:12] for p in ids] for statement, ids in proofs(regions).items()}
    assert found == {"Lemma 3.1": ["Proof. A con"], "Theorem 3": ["Proof. Apply"]}
    assert set(heads) >= {("lemma", "3.1"), ("theorem", "3.2"), ("example", "3.3"), ("definition", "3.0")}
    named = [("s", "paragraph", "Lemma 2.1. X is compact."), ("t", "paragraph", "Theorem 2.2. Y holds.")]
    late = [("p", "paragraph", "Proof of Lemma 2.1. Cover X by open sets."), ("q", "paragraph", "Proof. Omitted.")]
    assert proofs(named + late) == {"s": ["p"]}  # a plain proof after another proof belongs to none


def test_a_question_names_a_statement() -> None:
    assert [(m.kind, m.number) for m in named_parts("Prove Lemma 2.1")] == [("lemma", "2.1")]
    assert [(m.kind, m.number) for m in named_parts("What does Theorem 3.2 say?")] == [("theorem", "3.2")]


@pytest.fixture
def book_hybrid(falkordb_store: FalkorDBStore, tmp_path: Path, book: Path) -> Retriever:
    return hybrid_over(falkordb_store, [book], tmp_path / "home")


def test_a_statement_asked_for_by_number_is_found_with_its_own_proof(book_hybrid: Retriever) -> None:
    hits = book_hybrid.retrieve("Prove Lemma 3.1", 5)
    assert [hit.text[:16] for hit in hits[:2]] == ["Lemma 3.1 (Rolle", "Proof. A continu"]
    assert book_hybrid.retrieve("What does Theorem 3.2 say?", 5)[0].text.startswith("Theorem 3.2 (Mean")


def test_a_statement_head_alone_on_its_line_is_no_heading(tmp_path: Path) -> None:
    # amsthm's break style: "Theorem 3.2 (Mean value theorem)" in bold fills its line, no full stop
    regions = _regions(analysis_book(tmp_path / "break.pdf", alone=True))
    assert not [text for _, kind, text in regions if kind == "section_header" and text.startswith("Theorem")]
    statement = [text for _, kind, text in regions if kind == "paragraph" and text.startswith("Theorem 3.2")]
    assert statement == [f"Theorem 3.2 (Mean value theorem) {MVT}"]


def test_the_proof_joins_its_statement_only_when_a_proof_is_asked(
    book_hybrid: Retriever, falkordb_store: FalkorDBStore, tmp_path: Path
) -> None:
    assert asks_for_proof("Prove Lemma 2.1") and asks_for_proof("What is the proof of Theorem 3.2?")
    assert not asks_for_proof("What does Theorem 3.2 say?")
    hits = book_hybrid.retrieve("What does Theorem 3.2 say?", 5)
    assert [hit.text[:11] for hit in hits if "part" in hit.signals] == ["Theorem 3.2"]
    result = ask("What does Theorem 3.2 say?", falkordb_store, no_llm_settings(tmp_path), book_hybrid)
    assert result.answer.startswith("1. “Theorem 3.2 (Mean value theorem).") and "Proof." not in result.answer


def test_an_exercise_numbered_without_its_word_is_found_by_it(book: Path, book_hybrid: Retriever) -> None:
    batch = build_graph(NativeReader().read(book), ingested_at="x", ingest_id="y")
    numbered = [n for n in batch.nodes if n.label == "Region" and str(n.props["text"]).startswith("3.4. Show")]
    assert len(numbered) == 1  # the Exercises section's "3.4. Show that ...", no "Exercise" before it
    top = book_hybrid.retrieve("What is Exercise 3.4?", 5)[0]
    assert top.text.startswith("3.4. Show that a function") and "part" in top.signals


@pytest.fixture
def back_matter(tmp_path: Path) -> Path:
    return analysis_book(tmp_path / "book.pdf", back_matter=True)


def test_each_answer_to_an_exercise_is_a_paragraph_of_its_own(back_matter: Path) -> None:
    # "3.4  By the mean value ..." | "3.5  The function ...": set without space between them
    paragraphs = [text for _, kind, text in _regions(back_matter) if kind == "paragraph"]
    for number, text in ANSWERS:
        assert f"{number} {text}" in paragraphs


def test_the_answer_to_an_exercise_is_found_by_its_number(
    falkordb_store: FalkorDBStore, tmp_path: Path, back_matter: Path
) -> None:
    # "3.5  The function ..." under "Answers to exercises" answers "3.5. Prove that ..." in the
    # Exercises section: asked for, the answer comes with its exercise, as a proof with its lemma.
    hybrid = hybrid_over(falkordb_store, [back_matter], tmp_path / "home")
    answer = f"3.5 {ANSWERS[1][1]}"
    hits = hybrid.retrieve("What is the answer to Exercise 3.5?", 5)
    assert answer in [hit.text for hit in hits[:2] if "part" in hit.signals], [hit.text for hit in hits]
    assert answer not in [hit.text for hit in hybrid.retrieve("What is Exercise 3.5?", 5) if "part" in hit.signals]


def test_each_glossary_entry_is_a_paragraph_of_its_own(back_matter: Path) -> None:
    # "**chord** The segment ..." | "**critical point** A point ...": lower-case terms run on no sentence
    paragraphs = [text for _, kind, text in _regions(back_matter) if kind == "paragraph"]
    for term, text in GLOSSARY:
        assert f"{term} {text}" in paragraphs


def test_a_term_asked_about_finds_its_glossary_entry(
    falkordb_store: FalkorDBStore, tmp_path: Path, back_matter: Path
) -> None:
    hybrid = hybrid_over(falkordb_store, [back_matter], tmp_path / "home")
    top = hybrid.retrieve("What is a critical point?", 5)[0]
    assert top.text == f"critical point {GLOSSARY[1][1]}"


def test_a_margin_note_in_the_bodys_type_stands_apart_from_its_paragraph(tmp_path: Path) -> None:
    # Set in the body's type beside the paragraph's third line, written after it where \marginpar
    # anchors it: it was read into the paragraph's sentences ("... real valued and The chord's defined ...").
    found = [text for _, _, text in _regions(margin_note_page(tmp_path / "note.pdf"))]

    assert (FILLER * 4).strip() in found
    assert " ".join(CHORD_NOTE) in found

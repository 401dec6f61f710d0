"""A home-insurance policyholder's documents: the policy wording (bold defined terms inside its
sentences, "What is covered" / "What is not covered" tables, a FAQ of bold questions, a complaints
section) and the IPID (boxed panels with icons in two columns), made by tests/policy_wordings.py
as an insurer's typesetting sets them, read and asked about as the policyholder asks."""

from __future__ import annotations

from pathlib import Path

import pytest

from docgraph.app.config import Settings
from docgraph.app.llm.answer import AnswerResult
from docgraph.app.llm.service import ask
from docgraph.app.retrieval.hybrid import HybridRetriever
from docgraph.app.retrieval.relevance import named_words, word_forms
from docgraph.app.stores.falkordb_store import FalkorDBStore
from docgraph.ingest.readers.native import NativeReader
from docgraph.ingest.types import DocumentLayout
from tests.llm_data import hybrid_over
from tests.policy_wordings import COMPLAINT_LINES, COMPLAINT_WAYS, COMPLAINT_WRAPPED, ipid_pdf, wording_pdf


@pytest.fixture
def policy(falkordb_store: FalkorDBStore, tmp_path: Path) -> HybridRetriever:
    pdfs = [wording_pdf(tmp_path / "wording.pdf"), ipid_pdf(tmp_path / "ipid.pdf")]
    return hybrid_over(falkordb_store, pdfs, tmp_path / "home")


def _ask(store: FalkorDBStore, retriever: HybridRetriever, question: str, home: Path) -> AnswerResult:
    settings = Settings(home=home, graph=store.graph_name, store="", llm_base_url="", llm_api_key="")
    return ask(question, store, settings, retriever, k=5)


def _regions(layout: DocumentLayout) -> list[tuple[int, str, str]]:
    return [(page.number, region.kind, region.text) for page in layout.pages for region in page.regions]


def test_what_a_defined_term_means_is_answered_from_the_definitions(
    falkordb_store: FalkorDBStore, policy: HybridRetriever, tmp_path: Path
) -> None:
    # No passage says "mean": the definitions set the term in bold before what it is.
    result = _ask(falkordb_store, policy, "What does Unoccupied mean?", tmp_path / "home")

    assert not result.abstained
    assert "Not lived in by you or your family for more than 60 days" in result.answer


def test_mean_frames_a_question_only_as_the_verb_a_do_asks_with() -> None:
    assert named_words("What does Unoccupied mean?") == {"unoccupied"}
    assert named_words("What does it mean if my home is unoccupied?") == {"home", "unoccupied"}
    assert "mean" in named_words("What is the mean temperature?")
    assert "mean" in named_words("What does the mean square error measure?")


def test_a_bold_defined_term_wrapped_onto_the_last_line_stays_in_its_paragraph(tmp_path: Path) -> None:
    # "... while the home is" | "**Unoccupied**.": the sentence runs on into the bold term.
    found = _regions(NativeReader().read(wording_pdf(tmp_path / "wording.pdf")))

    texts = [text for _, _, text in found]
    assert any(text.endswith("nor for any loss or damage that happens while the home is Unoccupied.") for text in texts)
    assert "Unoccupied." not in texts
    assert (1, "section_header", "Section 1 - Buildings") in found
    assert (1, "section_header", "Definitions") in found


def test_a_bold_question_over_its_answer_heads_it(tmp_path: Path) -> None:
    # The FAQ sets each question bold, a size up from the text, and its answer under it.
    found = _regions(NativeReader().read(wording_pdf(tmp_path / "wording.pdf")))

    question = "What happens if I need to make a claim while I am away from home?"
    assert (2, "section_header", question) in found
    assert (2, "section_header", "Can I cancel my policy?") in found or (
        1,
        "section_header",
        "Can I cancel my policy?",
    ) in found
    answer = next(i for i, (_, _, text) in enumerate(found) if text.startswith("Our claims line is open from abroad"))
    assert found[answer - 1][2] == question and found[answer][1] == "paragraph"


def test_an_ipids_panels_with_icons_are_text_not_figures(tmp_path: Path) -> None:
    # Each panel: a tinted, framed box, an icon by its bold question, a tick or cross by each item.
    found = _regions(NativeReader().read(ipid_pdf(tmp_path / "ipid.pdf")))

    assert not [text for _, kind, text in found if kind == "figure"]
    headings = [text for _, kind, text in found if kind == "section_header"]
    assert {"What is insured?", "Are there any restrictions on cover?", "How do I cancel the contract?"} <= set(
        headings
    )
    texts = " ".join(text for _, _, text in found)
    assert "An excess of £350 applies to escape of water claims" in texts


def test_the_ticked_items_of_panels_side_by_side_are_items_not_sub_items(tmp_path: Path) -> None:
    # Each item's tick is a disc with the tick drawn on it; the right column's are a column further in.
    found = _regions(NativeReader().read(ipid_pdf(tmp_path / "ipid.pdf")))

    lists = [text for _, kind, text in found if kind == "list"]
    assert any(text.startswith("• Wear and tear and gradual deterioration\n• Loss or damage") for text in lists)
    restrictions = next(text for text in lists if "An excess of £350" in text)
    assert restrictions.startswith("• An excess of £350 applies to escape of water claims\n• An excess of £100")


def test_how_to_complain_is_answered_from_the_complaints_section(
    falkordb_store: FalkorDBStore, policy: HybridRetriever, tmp_path: Path
) -> None:
    # The section says "complaint", never "complain".
    result = _ask(falkordb_store, policy, "How do I complain?", tmp_path / "home")

    assert not result.abstained
    assert "please contact us in one of these ways" in result.answer
    assert word_forms("complaint") & word_forms("complain")
    assert not word_forms("paint") & word_forms("pain")


def test_a_bulleted_list_after_its_lead_in_is_quoted_whole_for_how_to(
    falkordb_store: FalkorDBStore, tmp_path: Path
) -> None:
    # "... please contact us in one of these ways:" over three bulleted ways: every way, in order,
    # not only the one that shares the most words with the question.
    pdfs = [wording_pdf(tmp_path / "wording.pdf", complaint_steps=COMPLAINT_WAYS), ipid_pdf(tmp_path / "ipid.pdf")]
    retriever = hybrid_over(falkordb_store, pdfs, tmp_path / "home")

    result = _ask(falkordb_store, retriever, "How do I complain?", tmp_path / "home")

    first = result.answer.splitlines()[0]
    ways = ["Telephone our customer relations team", "Write to Customer Relations", "Email complaints@"]
    assert "please contact us in one of these ways:" in first
    positions = [first.find(way) for way in ways]
    assert -1 not in positions and positions == sorted(positions)


def test_a_left_column_running_on_under_a_short_right_one_is_read_whole(tmp_path: Path) -> None:
    # The IPID's first page: two panels on the left, one shorter on the right, starting level.
    found = _regions(NativeReader().read(ipid_pdf(tmp_path / "ipid.pdf")))

    texts = [text for _, _, text in found]
    heading = texts.index("What is not insured?")
    assert texts[heading + 1].startswith("• Wear and tear and gradual deterioration")
    restrictions = texts.index("Are there any restrictions on cover?")
    assert texts[restrictions + 1].startswith("• An excess of £350")
    assert heading < restrictions


def test_a_filled_header_band_over_two_columns_names_each_column(tmp_path: Path) -> None:
    # The header band is one filled rectangle, its rules start under it: a label set in each column.
    found = _regions(NativeReader().read(wording_pdf(tmp_path / "wording.pdf")))

    tables = [text for _, kind, text in found if kind == "table"]
    assert len(tables) == 2
    for table in tables:
        assert table.startswith("| What is covered | What is not covered |\n| --- | --- |\n")


@pytest.mark.parametrize("ways", [COMPLAINT_LINES, COMPLAINT_WRAPPED], ids=["one-line", "wrapped"])
def test_lines_set_in_under_a_colon_without_marks_are_one_list(tmp_path: Path, ways: list[str]) -> None:
    # "... in one of these ways:" over three lines set in, no bullet or number before them; an item
    # too long for its line wraps onto the next, at its edge.
    found = _regions(NativeReader().read(wording_pdf(tmp_path / "wording.pdf", complaint_steps=ways)))

    lead_in = found.index(
        (2, "paragraph", "If you are unhappy with our service, please contact us in one of these ways:")
    )
    assert found[lead_in + 1] == (2, "list", "\n".join(ways))
    assert found[lead_in + 2][2].startswith("If you remain unhappy")


def test_a_clipped_word_meets_the_word_the_policy_prints_in_full(
    falkordb_store: FalkorDBStore, policy: HybridRetriever, tmp_path: Path
) -> None:
    # The wording says "Telephone our customer relations team", the IPID "Bicycles are covered".
    phone = _ask(falkordb_store, policy, "What is the phone number for customer relations?", tmp_path / "home")
    bike = _ask(falkordb_store, policy, "Is my bike covered?", tmp_path / "home")

    assert not phone.abstained and "0800 765 4321" in phone.answer
    assert not bike.abstained and "Bicycles are covered up to £1,000 each" in bike.answer


@pytest.mark.parametrize("company_y", [96.0, 112 - 9 * 1.3], ids=["set-apart", "at-the-leading"])
def test_an_ipids_company_field_over_its_introduction_is_a_paragraph_of_its_own(
    tmp_path: Path, company_y: float
) -> None:
    # "Company: Harbour Mutual Insurance plc" ends short of the introduction's width, no full stop
    # after it; set apart, or at the introduction's own leading (one text-layer block with it).
    found = _regions(NativeReader().read(ipid_pdf(tmp_path / "ipid.pdf", company_y=company_y)))

    assert (1, "paragraph", "Company: Harbour Mutual Insurance plc") in found
    intro = next(text for _, _, text in found if "summary of the main cover" in text)
    assert intro.startswith("This document provides a summary of the main cover and exclusions.")

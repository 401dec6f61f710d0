"""A council committee report as a council's Word template exports it (made by
tests/council_reports.py), read and asked about as a councillor asks."""

from __future__ import annotations

from pathlib import Path

from docgraph.app.llm.service import ask
from docgraph.app.stores.falkordb_store import FalkorDBStore
from docgraph.ingest.graph import build_graph
from docgraph.ingest.readers.native import NativeReader
from tests.council_reports import COVER, TITLE, write_council_report
from tests.llm_data import hybrid_over, no_llm_settings


def test_numbered_paragraphs_are_paragraphs_with_their_numbers(tmp_path: Path) -> None:
    # "4.3" in the gutter and its text set in under itself: one paragraph, no heading; the cover box's
    # fields keep their values, and paragraph 3.1 runs on over the page break.
    batch = build_graph(NativeReader().read(write_council_report(tmp_path / "report.pdf")))

    texts = {node.key: node.props.get("text") or node.props.get("title") or "" for node in batch.nodes}
    kinds = {node.props.get("kind"): [] for node in batch.nodes}
    for node in batch.nodes:
        kinds[node.props.get("kind")].append(texts[node.key])
    assert any(text.startswith("4.3 The northern parcel lies partly in flood zone 2.") for text in kinds["paragraph"])
    assert not any(text.startswith(("4.3", "5.2")) for text in kinds.get("section_header", []))
    assert "Wards affected: Millbrook North; Millbrook South; Harlow Green" in kinds["paragraph"]
    runs_on = [
        (texts[edge.src_key][:3], texts[edge.dst_key][:20])
        for edge in batch.edges
        if edge.type == "HAS_NEXT" and edge.props.get("continuation")
    ]
    assert ("3.1", "which expects about ") in runs_on


def test_the_ruled_cover_box_is_read_field_by_field(falkordb_store: FalkorDBStore, tmp_path: Path) -> None:
    # The cover box rules its fields ("Report to:", "Date:", ...) in a frame with a rule under each: read
    # as a table, its first field was the header over the others, opening every quote of the box.
    path = write_council_report(tmp_path / "report.pdf")
    cover = [(region.kind, region.text) for region in NativeReader().read(path).pages[0].regions]
    assert [("paragraph", f"{label} {value}") for label, value in COVER] == cover[1 : 1 + len(COVER)]
    assert "table" not in {kind for kind, _ in cover}

    hybrid = hybrid_over(falkordb_store, [path], tmp_path)
    answer = ask("Who is the contact officer?", falkordb_store, no_llm_settings(tmp_path), hybrid, k=3).answer
    assert answer.startswith("1. “Contact officer: Helen Marsh, Principal Planning Officer")
    assert "Report to:" not in answer


def test_the_reports_title_under_the_councils_name_is_part_of_the_title(tmp_path: Path) -> None:
    # The 14 pt bold title set a line's white under the council's 16 pt name, the cover box further
    # down: just past half the name's size apart, it was read as a byline's paragraph, not the title.
    layout = NativeReader().read(write_council_report(tmp_path / "report.pdf"))

    cover = [(region.kind, region.text) for region in layout.pages[0].regions]
    assert cover[0] == ("title", f"Riverside District Council {TITLE}")
    assert all(TITLE not in text for kind, text in cover[1:])


def test_a_numbered_paragraph_named_by_number_is_a_reference_to_it(tmp_path: Path) -> None:
    # "as described in paragraph 4.3": the paragraph that opens with 4.3, as a sub-clause "7.3" is;
    # no heading bears the number.
    batch = build_graph(NativeReader().read(write_council_report(tmp_path / "report.pdf")))

    texts = {node.key: node.props.get("text") or node.props.get("title") or "" for node in batch.nodes}
    refs = {
        (texts[edge.src_key][:3], edge.props["label"], texts[edge.dst_key][:3])
        for edge in batch.edges
        if edge.type == "REF"
    }
    assert {("3.3", "Paragraph 4.3", "4.3"), ("5.3", "Paragraph 4.4", "4.4"), ("7.1", "Paragraph 1.1", "1.1")} <= refs
    assert ("(a)", "Paragraph 6.2", "6.2") in refs and ("5.1", "Appendix A", "App") in refs


def test_an_acts_section_named_by_its_agreement_is_no_unresolved_reference(tmp_path: Path) -> None:
    # "the section 106 agreement", "section 106 contributions": the Planning Act's section, which the
    # report has no part of; counted unresolved, the report seemed to miss six of its own parts.
    batch = build_graph(NativeReader().read(write_council_report(tmp_path / "report.pdf")))

    assert (batch.stats["unresolved_refs"], batch.stats["external_refs"]) == (0, 6)
    assert batch.stats["resolved_refs"] == 10  # "section 4 of this report" and "section 2" still resolve


def test_a_condition_named_in_the_text_is_a_reference_to_its_entry(tmp_path: Path) -> None:
    # "subject to condition 9 in Appendix B": entry 9 of the appendix's list of conditions, which no
    # reference reached (only the appendix did), so following it did not bring the condition.
    batch = build_graph(NativeReader().read(write_council_report(tmp_path / "report.pdf")))

    texts = {node.key: node.props.get("text") or "" for node in batch.nodes}
    conditions = [
        (texts[edge.src_key][:3], texts[edge.dst_key])
        for edge in batch.edges
        if edge.type == "REF" and edge.props["label"] == "Condition 9"
    ]
    assert any(source == "4.3" and "\n9. Finished floor levels" in target for source, target in conditions)


def test_a_question_naming_a_paragraph_by_number_is_answered_by_it(
    falkordb_store: FalkorDBStore, tmp_path: Path
) -> None:
    # "paragraph 4.3" names the paragraph so numbered; its words are the flood risk's, none of the question's.
    hybrid = hybrid_over(falkordb_store, [write_council_report(tmp_path / "report.pdf")], tmp_path)

    for question, opening in (("What does paragraph 4.3 say?", "4.3 The northern"), ("Summarise para. 5.3", "5.3 ")):
        assert hybrid.retrieve(question, k=3)[0].text.startswith(opening)


def test_an_acts_section_no_part_of_the_report_is_no_reference_to_follow(
    falkordb_store: FalkorDBStore, tmp_path: Path
) -> None:
    # "the section 106 agreement" is the Planning Act's section 106: the report has no section 106, so
    # nothing refers to it and no reference is followed; following the best hits' references had lifted
    # the first page, which they refer to, over the page of the agreement's contributions.
    hybrid = hybrid_over(falkordb_store, [write_council_report(tmp_path / "report.pdf")], tmp_path)

    question = "What does the section 106 agreement secure?"
    assert not hybrid.follows_references(question)
    assert hybrid.follows_references("What does Appendix A say?")
    assert hybrid.retrieve(question, k=3)[0].page == 3


def test_a_condition_named_by_number_is_quoted_from_the_conditions(
    falkordb_store: FalkorDBStore, tmp_path: Path
) -> None:
    # "condition 9" is entry 9 of the appendix of recommended conditions, one list with the others: not
    # section 9 (the background papers), and the quote is that entry, not the list's first.
    hybrid = hybrid_over(falkordb_store, [write_council_report(tmp_path / "report.pdf")], tmp_path)

    found = hybrid.retrieve("What is condition 9?", k=3)
    answer = ask("What is condition 9?", falkordb_store, no_llm_settings(tmp_path), hybrid, k=5).answer
    assert (found[0].page, found[0].kind) == (6, "list")
    assert answer.startswith("1. “9. Finished floor levels shall be at least 600 millimetres above")


def test_an_appendix_asked_for_whole_is_quoted_past_its_first_condition(
    falkordb_store: FalkorDBStore, tmp_path: Path
) -> None:
    # "What does Appendix B say?" asks for the conditions whole: quoted from the list's best item, no
    # item holding a word of the question, it gave condition 1 alone.
    hybrid = hybrid_over(falkordb_store, [write_council_report(tmp_path / "report.pdf")], tmp_path)
    settings = no_llm_settings(tmp_path)

    for question in ("What does Appendix B say?", "Summarise Appendix B"):
        quotes = ask(question, falkordb_store, settings, hybrid, k=3).answer.splitlines()
        assert quotes[0].startswith("1. “1. The development shall begin within three years")
        assert "9. Finished floor levels shall be at least 600 millimetres" in quotes[0]

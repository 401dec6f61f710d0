"""A company secretary's board papers as a word processor exports them: minutes with their header
fields and bold decision and action lines, the agenda, the action log and a board paper (made by
tests/board_minutes.py and tests/board_papers.py), read and asked about as the secretary asks."""

from __future__ import annotations

from pathlib import Path

from docgraph.app.config import Settings
from docgraph.app.llm.service import ask
from docgraph.app.retrieval.dates import find_dates, fullness
from docgraph.app.retrieval.fields import field_label
from docgraph.app.retrieval.relevance import named_words, word_forms
from docgraph.app.stores.falkordb_store import FalkorDBStore
from docgraph.ingest.graph import build_graph
from docgraph.ingest.readers.native import NativeReader
from docgraph.ingest.types import DocumentLayout
from tests.board_minutes import FIELDS, write_minutes
from tests.board_papers import ACTIONS, AGENDA, COVER, write_action_log, write_agenda, write_board_paper
from tests.llm_data import answered, ask_of_pdf, hybrid_over

AGENDA_ROW_5 = (
    "5 | 19:00 | Damp and mould policy review following the Housing Ombudsman's spotlight report | Ravi Patel"
)


def regions(layout: DocumentLayout) -> list[tuple[str, str]]:
    return [(region.kind, region.text) for page in layout.pages for region in page.regions]


def test_the_minutes_header_is_read_field_by_field(tmp_path: Path) -> None:
    # Each label with its value, a wrapped one too: not a column of labels, then the values run on.
    layout = NativeReader().read(write_minutes(tmp_path / "minutes.pdf"))

    paragraphs = [text for kind, text in regions(layout) if kind == "paragraph"]
    for label, value in FIELDS:
        assert f"{label} {value}" in paragraphs


def test_a_label_glued_to_its_value_at_a_tab_is_one_field(tmp_path: Path) -> None:
    # "Meeting:" and "Purpose:" reach nearer the tab stop than "Author:" does: the text layer glues them to
    # their values, so only one value stood apart and the stack was read as lines run together.
    layout = NativeReader().read(write_board_paper(tmp_path / "paper.pdf"))

    paragraphs = [text for kind, text in regions(layout) if kind == "paragraph"]
    for label, value in COVER:
        assert f"{label} {value}" in paragraphs


def test_a_subtitle_in_the_titles_face_is_part_of_the_title(tmp_path: Path) -> None:
    # The bold 12 pt line under the 16 pt title says what the document is and when: the title's part,
    # not a paragraph of the byline.
    layout = NativeReader().read(write_minutes(tmp_path / "minutes.pdf"))

    subtitle = "Minutes of the Board of Management meeting held on 17 March 2026"
    assert ("title", f"Northgate Housing Association {subtitle}") in regions(layout)
    assert all(subtitle not in text for kind, text in regions(layout) if kind != "title")


def test_an_agenda_set_with_tabs_under_a_bold_header_row_is_a_table(tmp_path: Path) -> None:
    # No rules: the bold labels start the columns, a subject wraps within its column, and each lead
    # stays in its own cell, not run into the wrapped subject ("... held on 17 Chair February 2026").
    layout = NativeReader().read(write_agenda(tmp_path / "agenda.pdf"))

    tables = [text for kind, text in regions(layout) if kind == "table"]
    rows = [" | ".join(row) for row in AGENDA]
    assert len(tables) == 1 and tables[0].splitlines()[0] == "| Item | Time | Subject | Lead |"
    assert tables[0].splitlines()[2:] == [f"| {row} |" for row in rows]
    assert all(not text.startswith(("1 18:00", "2 18:05")) for kind, text in regions(layout))


def test_a_bold_action_line_is_a_paragraph_of_its_minute(tmp_path: Path) -> None:
    # Set bold at the body's size with no full stop, as a secretary sets it; a bold FAQ question stays a heading.
    layout = NativeReader().read(write_minutes(tmp_path / "minutes.pdf"))
    paper = NativeReader().read(write_board_paper(tmp_path / "paper.pdf"))

    action = "ACTION: Ravi Patel to report on mould survey completion rates to the May meeting (M26/041)"
    assert ("paragraph", action) in regions(layout)
    assert ("section_header", "FAQ: How will tenants report damp and mould?") in regions(paper)


def test_a_minute_named_by_number_is_a_reference_to_it(tmp_path: Path) -> None:
    # "(see minute 4.2)" in minute 5 is the minutes' own section 4.2, as "see Section 4.2" would be.
    batch = build_graph(NativeReader().read(write_minutes(tmp_path / "minutes.pdf")))

    texts = {node.key: node.props.get("text") or node.props.get("title") for node in batch.nodes}
    refs = [
        (texts[edge.src_key], edge.props["label"], texts[edge.dst_key]) for edge in batch.edges if edge.type == "REF"
    ]
    source = "There was no other business. The Chair thanked the tenants' panel for its comments (see minute 4.2)."
    assert (source, "Minute 4.2", "4.2 Damp and mould") in refs


def test_an_action_named_by_its_code_is_quoted_by_its_own_row(falkordb_store: FalkorDBStore, tmp_path: Path) -> None:
    # "M26/041" is one term: its "M26" names every row of the log, and quoted the others with it.
    result = ask_of_pdf(
        falkordb_store, write_action_log(tmp_path / "action-log.pdf"), "Who owns action M26/041?", tmp_path
    )
    assert "| M26/041 | 4.2 | Report on mould survey completion rates to the May board | Ravi Patel |" in result.answer
    assert "M26/038" not in result.answer and "M26/039" not in result.answer


def test_a_question_naming_a_header_field_is_answered_by_it(falkordb_store: FalkorDBStore, tmp_path: Path) -> None:
    # "Who was present?" names the field by its label; its value holds none of the question's words.
    hybrid = hybrid_over(falkordb_store, [write_minutes(tmp_path / "minutes.pdf")], tmp_path)

    present = hybrid.retrieve("Who was present?", k=3)
    attendance = hybrid.retrieve("Who was in attendance?", k=3)
    assert present[0].text == "Present: Jane Okafor (Chair), Peter Hughes, Amira Shah, Tom Bell, Li Wei"
    assert attendance[0].text.startswith("In attendance: Mark Evans (Chief Executive)")


def test_a_notice_or_an_outcome_label_is_no_field() -> None:
    assert field_label("Apologies: Sarah Collins, David Price") == "Apologies"
    assert field_label("Note: the policy takes effect in April.") is None
    assert field_label("ACTION: Ravi Patel to report to the May meeting") is None


def test_a_minute_or_an_agenda_item_named_by_number_is_read(falkordb_store: FalkorDBStore, tmp_path: Path) -> None:
    # "minute 4.2" is the minutes' section 4.2, as "section 4.2" is; "item 5 on the agenda" is the agenda's
    # row that opens with 5, not the minutes' section 5 nor the agenda's heading lines.
    pdfs = [write_minutes(tmp_path / "minutes.pdf"), write_agenda(tmp_path / "agenda.pdf")]
    hybrid = hybrid_over(falkordb_store, pdfs, tmp_path)

    minute = [result.text for result in hybrid.retrieve("What does minute 4.2 say?", k=3)]
    item = hybrid.retrieve("What is item 5 on the agenda?", k=3)
    agenda_item = hybrid.retrieve("What is agenda item 3?", k=3)
    assert "DECISION: The Board approved the revised damp and mould policy, to take effect from 1 April 2026." in minute
    assert all("February" not in text for text in minute)
    assert (item[0].doc_id, item[0].kind) == ("agenda", "table") and f"| {AGENDA_ROW_5} |" in item[0].text
    assert (agenda_item[0].doc_id, agenda_item[0].kind) == ("agenda", "table")


def test_a_meeting_named_by_its_date_names_its_minutes(falkordb_store: FalkorDBStore, tmp_path: Path) -> None:
    # "the March meeting" names the minutes dated so ("Date: 17 March 2026"), not February's, and not the
    # board paper whose "Meeting:" field the words "March meeting" matched.
    february = tuple((label, "17 February 2026" if label == "Date:" else value) for label, value in FIELDS)
    pdfs = [
        write_minutes(tmp_path / "minutes.pdf"),
        write_minutes(tmp_path / "minutes-feb.pdf", fields=february, held="17 February 2026"),
        write_board_paper(tmp_path / "paper.pdf"),
    ]
    hybrid = hybrid_over(falkordb_store, pdfs, tmp_path)

    decision = "DECISION: The Board approved the revised damp and mould policy, to take effect from 1 April 2026."
    for question in (
        "What did the March meeting decide on damp and mould?",
        "What did the meeting of 17/03/2026 decide on damp and mould?",
    ):
        found = hybrid.retrieve(question, k=3)
        assert {result.doc_id for result in found} == {"minutes"}
        assert decision in [result.text for result in found]


def test_a_date_is_written_as_a_date() -> None:
    assert find_dates("What did the March meeting decide?") == [((None, 3, None), 13, 18)]
    assert [date for date, _, _ in find_dates("Minutes of 17 March 2026, agenda 2026-03-17")] == [(17, 3, 2026)] * 2
    assert find_dates("May I see the minutes?") == [] and find_dates("the May meeting", whole=True) == []
    assert fullness((None, 3, None), [(17, 3, 2026)]) == 1 and fullness((17, 3, 2026), [(17, 2, 2026)]) == 0


def test_an_agenda_dated_in_its_subtitle_is_named_by_the_date(falkordb_store: FalkorDBStore, tmp_path: Path) -> None:
    # Two agendas with the same items: only the subtitle says which meeting each is for, and a question
    # that writes the date asks of that meeting's agenda alone.
    pdfs = [write_agenda(tmp_path / "agenda.pdf"), write_agenda(tmp_path / "agenda-feb.pdf", held="17 February 2026")]
    hybrid = hybrid_over(falkordb_store, pdfs, tmp_path)

    found = hybrid.retrieve("Who leads the damp and mould item on the agenda for 17 March 2026?", k=3)
    assert {result.doc_id for result in found} == {"agenda"}
    assert f"| {AGENDA_ROW_5} |" in found[0].text


def test_what_the_board_decided_and_who_sent_apologies_are_answered(
    falkordb_store: FalkorDBStore, tmp_path: Path
) -> None:
    # The minutes record a "DECISION:", never "decide", and "Apologies: ..." without the sending.
    hybrid = hybrid_over(falkordb_store, [write_minutes(tmp_path / "minutes.pdf")], tmp_path)
    settings = Settings(home=tmp_path, graph=falkordb_store.graph_name, store="", llm_base_url="", llm_api_key="")

    decided = ask("What did the Board decide?", falkordb_store, settings, hybrid, k=5)
    apologies = ask("Who sent apologies?", falkordb_store, settings, hybrid, k=5)
    assert not decided.abstained and "The Board approved the revised damp and mould policy" in decided.answer
    assert not apologies.abstained and "Sarah Collins" in apologies.answer


def test_a_light_verb_before_its_object_and_a_noun_in_sion_name_what_is_asked() -> None:
    assert named_words("Who sent apologies?") == named_words("Who gave their apologies?") == {"apologi"}
    assert named_words("When was the invoice sent?") == {"invoice", "sent"}
    assert "decide" in word_forms("decision") and "conclude" in word_forms("conclusion")
    assert word_forms("version") == {"version"} and word_forms("vision") == {"vision"}


def test_a_one_page_papers_running_head_over_its_title_is_its_page_header(tmp_path: Path) -> None:
    # The action log's one page: the template's head, 9 pt, over the 16 pt title; its body is mostly
    # a ruled table set in 9 pt too, so the head is no smaller than the body.
    found = regions(NativeReader().read(write_action_log(tmp_path / "action-log.pdf")))

    assert ("page_header", "Northgate Housing Association: Board action log") in found
    assert found[0] == ("title", "Board of Management action log")


def test_underscores_typed_in_an_action_logs_cells_are_kept(tmp_path: Path) -> None:
    # A file name typed with its underscore, and a due date left blank to fill in ("__/__/2026"), in
    # the ruled cells: the underscores are glyphs of the text, not rules, and stay in their cells.
    typed = ("M26/043", "6", "Circulate the revised board_calendar.xlsx", "Rachel Green", "__/__/2026", "Open")
    found = regions(NativeReader().read(write_action_log(tmp_path / "action-log.pdf", (*ACTIONS, typed))))

    table = next(text for kind, text in found if kind == "table")
    assert table.splitlines()[-1] == f"| {' | '.join(typed)} |"
    assert table.splitlines()[0] == "| Ref | Minute | Action | Owner | Due | Status |"


def test_what_decisions_were_made_is_answered(falkordb_store: FalkorDBStore, tmp_path: Path) -> None:
    # "made" after its noun counted as a missing word: the minutes record "DECISION: ...", not the making.
    answer = answered(falkordb_store, write_minutes(tmp_path / "minutes.pdf"), "What decisions were made?", tmp_path)
    assert "DECISION: The Board approved the revised damp and mould policy" in answer


def test_a_light_verb_in_the_passive_after_its_subject_frames_the_question() -> None:
    assert named_words("What decisions were made?") == named_words("What decisions have been made?") == {"decision"}
    assert named_words("Which samples were taken?") == {"sample"}

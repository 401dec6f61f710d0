"""A listed company's annual report as its word processor exports it (made by tests/annual_reports.py),
read and asked about as a financial analyst asks: the statements' figures, a note by its number."""

from __future__ import annotations

from pathlib import Path

from docgraph.app.llm.service import ask
from docgraph.app.stores.falkordb_store import FalkorDBStore
from docgraph.ingest.graph import build_graph
from docgraph.ingest.readers.native import NativeReader
from docgraph.records import FURNITURE_KINDS
from tests.annual_reports import HIGHLIGHTS, NOTE_12, write_annual_report
from tests.llm_data import answered, hybrid_over, no_llm_settings


def test_see_note_12_refers_to_the_note_headed_by_its_number(tmp_path: Path) -> None:
    # "(see note 12)" in lower case names the note headed "12. Trade and other receivables" after the
    # "Notes to the consolidated financial statements" heading: no "Note 12" heading bears the number.
    batch = build_graph(NativeReader().read(write_annual_report(tmp_path / "annual.pdf")))

    titles = {node.key: node.props.get("title") or node.props.get("text", "") for node in batch.nodes}
    refs = [(titles[e.src_key], e.props["label"], titles[e.dst_key]) for e in batch.edges if e.type == "REF"]
    assert any(
        source.endswith("(see note 12).") and (label, target) == ("Note 12", "12. Trade and other receivables")
        for source, label, target in refs
    )
    assert batch.stats["unresolved_refs"] == 0


def test_a_note_named_by_number_is_read(falkordb_store: FalkorDBStore, tmp_path: Path) -> None:
    # "note 12" names the numbered note, not a footnote: its regions first, no other note's.
    hybrid = hybrid_over(falkordb_store, [write_annual_report(tmp_path / "annual.pdf")], tmp_path)

    found = hybrid.retrieve("What does note 12 say?", k=8)
    texts = [result.text for result in found]
    assert NOTE_12 in texts
    assert all("payables" not in text and "Intangible" not in text for text in texts[:3])


def tables(pdf: Path) -> list[str]:
    layout = NativeReader().read(pdf)
    return [region.text for page in layout.pages for region in page.regions if region.kind == "table"]


def test_a_statement_under_a_lightly_ruled_header_is_a_table(tmp_path: Path) -> None:
    # The years' labels stand over their units ("2025" over "£m"), a rule over each subtotal's figures
    # does not close the table, a group's label ("Current assets") is a row of its own (its items set
    # in under it), and a note's table names only its years: each was read as lines of run-together figures.
    found = tables(write_annual_report(tmp_path / "annual.pdf"))

    income = next(text for text in found if "| Revenue |" in text)
    assert income.startswith("|  | Notes | 2025 £m | 2024 £m |")
    for row in ("| Operating profit | 4 | 48.3 | 45.7 |", "| Finance costs | 6 | (12.4) | (10.8) |"):
        assert row in income
    assert income.endswith("| Basic earnings per share (pence) | 8 | 41.2p | 40.3p |")
    balance = next(text for text in found if "| Current assets |" in text)
    assert "| Current liabilities |" in balance and "| Current tax liabilities |" in balance
    assert "| Inventories |  | 14.7 | 13.2 |" in balance  # set in under "Current assets"
    receivables = next(text for text in found if "| Trade receivables |" in text)
    assert receivables.startswith("|  | 2025 £m | 2024 £m |")
    assert "| Less: loss allowance | (1.8) | (1.6) |" in receivables
    assert all("Consolidated balance sheet" not in text for text in found)


def test_a_statements_notes_column_is_no_line_numbering(tmp_path: Path) -> None:
    # "10", "11", "12", "13", "14" rise down the Notes column between the line items and their figures,
    # as a patent's gutter numbers do, but skip the rows that cite no note: they are cells.
    found = tables(write_annual_report(tmp_path / "annual.pdf"))
    balance = next(text for text in found if "| Current assets |" in text)

    assert balance.startswith("|  | Notes | 2025 £m | 2024 £m |")
    assert "| Trade and other receivables | 12 | 68.4 | 61.2 |" in balance
    assert "| Property, plant and equipment | 10 | 286.4 | 254.7 |" in balance


def test_a_highlights_figure_set_larger_is_no_title(tmp_path: Path) -> None:
    # "£412.6m £48.3m 21.5p" is set larger than the company's name over it, and was the document's
    # title: a figure names nothing, and the largest words set are the title.
    layout = NativeReader().read(write_annual_report(tmp_path / "annual.pdf"))

    titles = [region.text for page in layout.pages for region in page.regions if region.kind == "title"]
    assert titles == ["Harbourline Group plc"]


def test_a_balance_sheet_run_over_a_page_break_goes_on_as_its_table(tmp_path: Path) -> None:
    # Page 2 of the balance sheet repeats no header and has no rule over it, and was read as
    # run-together paragraphs ("(78.7) (68.9) Non-current liabilities"): in the columns of the table
    # ending the page before, its rows are that table's next part, under its header.
    layout = NativeReader().read(write_annual_report(tmp_path / "annual.pdf"))
    balance = [
        (page.number, r)
        for page in layout.pages
        for r in page.regions
        if r.kind == "table" and "liabilities |" in r.text
    ]

    (page, first), (next_page, rest) = balance
    assert first.continues and next_page == page + 1
    assert rest.text.startswith(
        "|  | Notes | 2025 £m | 2024 £m |\n| --- | --- | --- | --- |\n|  |  | (78.7) | (68.9) |"
    )
    assert "| Borrowings | 14 | (112.0) | (98.0) |" in rest.text
    assert rest.text.endswith("| Total equity |  | 217.8 | 205.8 |")


def test_a_year_asked_stays_in_the_question(falkordb_store: FalkorDBStore, tmp_path: Path) -> None:
    # "2025" is in the report's title, and was dropped from the question as the word naming it
    # ("revenue in"): the chair's prose outranked the income statement, whose columns name the year.
    hybrid = hybrid_over(falkordb_store, [write_annual_report(tmp_path / "annual.pdf")], tmp_path)

    found = hybrid.retrieve("What was revenue in 2025?", k=3)
    assert any("| Revenue | 3 | 412.6 | 382.0 |" in result.text for result in found)


def test_a_line_item_named_by_its_label_answers_from_the_statement(
    falkordb_store: FalkorDBStore, tmp_path: Path
) -> None:
    # "What was operating profit?" found the chair's prose and the highlights first, the income
    # statement 4th: its embedding is spread over all its rows. The question names the row
    # "Operating profit" and asks nothing else of it (a year its column's heading names, "how much"
    # its figure): the statement comes first and its answer is that row, not "Gross profit" too.
    hybrid = hybrid_over(falkordb_store, [write_annual_report(tmp_path / "annual.pdf")], tmp_path)
    settings = no_llm_settings(tmp_path)

    for question, row in (
        ("What was operating profit?", "| Operating profit | 4 | 48.3 | 45.7 |"),
        ("What was revenue?", "| Revenue | 3 | 412.6 | 382.0 |"),
        ("How much was revenue in 2024?", "| Revenue | 3 | 412.6 | 382.0 |"),
        ("What were trade receivables?", "| Trade receivables | 52.3 | 47.9 |"),
    ):
        assert row in hybrid.retrieve(question, k=1)[0].text
        answer = ask(question, falkordb_store, settings, hybrid, k=3).answer
        assert answer.startswith("1. “|  | ") and row in answer.split("\n")[0]
    first = ask("What was operating profit?", falkordb_store, settings, hybrid, k=3).answer.split("\n")[0]
    assert "Gross profit" not in first
    # "Other receivables" is not "trade receivables", nor is the balance sheet's "Trade and other receivables"
    first = ask("What were trade receivables?", falkordb_store, settings, hybrid, k=3).answer.split("\n")[0]
    assert "Other receivables" not in first
    # a question that asks more of operating profit than its figure is not answered by the row
    assert hybrid.retrieve("Why did operating profit rise?", k=1)[0].kind != "table"


def test_each_highlights_figure_reads_with_its_label(tmp_path: Path) -> None:
    # "£412.6m £48.3m 21.5p" set large over "Revenue, up 8%", "Operating profit, up 6%", ... was read
    # as one heading over one paragraph of the labels: no figure said what it was. Each figure goes
    # with the label flush under it, and "Highlights" heads them.
    layout = NativeReader().read(write_annual_report(tmp_path / "annual.pdf"))
    first = [(region.kind, region.text) for region in layout.pages[0].regions]

    pairs = [f"{figure} {label}" for figure, label in HIGHLIGHTS]
    assert [("paragraph", pair) for pair in pairs] == [item for item in first if item[1] in pairs]
    assert ("section_header", "Highlights") in first
    assert all(kind != "section_header" or "£" not in text for kind, text in first)


def test_the_chairs_sign_off_closes_the_statement(tmp_path: Path) -> None:
    # "Michael Thornbury" (bold) over "Chair, 4 March 2026" under the left column, which runs on below
    # the right one's end, was read as a heading between the columns: the right column's paragraphs
    # hung under a section "Michael Thornbury". The name and role are one paragraph, read last.
    layout = NativeReader().read(write_annual_report(tmp_path / "annual.pdf"))
    chair = [(region.kind, region.text) for region in layout.pages[1].regions if region.kind not in FURNITURE_KINDS]

    assert chair[-1] == ("paragraph", "Michael Thornbury Chair, 4 March 2026")
    assert [kind for kind, _ in chair].count("section_header") == 1
    sections = [node.props["title"] for node in build_graph(layout).nodes if node.label == "Section"]
    assert "Michael Thornbury" not in sections


def test_numbered_notes_are_sections_of_the_notes(tmp_path: Path) -> None:
    # "12. Trade and other receivables" (11 pt) under "Notes to the consolidated financial statements"
    # (16 pt, unnumbered) was a top-level section beside it, its number read as its depth alone: the
    # notes heading headed nothing. A numbered heading under an unnumbered one set larger than every
    # numbered heading is a level under it, and the statements' headings stay at the top.
    batch = build_graph(NativeReader().read(write_annual_report(tmp_path / "annual.pdf")))
    sections = {node.key: node.props for node in batch.nodes if node.label == "Section"}
    parent = {e.src_key: e.dst_key for e in batch.edges if e.type == "IS_UNDER" and e.src_key in sections}

    by_title = {props["title"]: key for key, props in sections.items()}
    notes = by_title["Notes to the consolidated financial statements"]
    for title in ("11. Intangible assets", "12. Trade and other receivables", "13. Trade and other payables"):
        assert parent.get(by_title[title]) == notes
        assert sections[by_title[title]]["level"] == 2
    for title in ("Chair's statement", "Consolidated income statement", "Consolidated balance sheet"):
        assert sections[by_title[title]]["level"] == 1


def test_a_date_in_a_columns_year_names_the_column(falkordb_store: FalkorDBStore, tmp_path: Path) -> None:
    # "at 31 December 2025" is the balance sheet's date ("At 31 December 2025" over it), and its 2025
    # column's: the date's words were asked of nothing but the date lines, which came first. A date
    # in a year a line-item table's column names asks nothing more of the row than "in 2025" does.
    hybrid = hybrid_over(falkordb_store, [write_annual_report(tmp_path / "annual.pdf")], tmp_path)
    settings = no_llm_settings(tmp_path)

    for question, row in (
        ("What were net assets at 31 December 2025?", "| Net assets |  | 217.8 | 205.8 |"),
        ("What was revenue for the year ended 31 December 2025?", "| Revenue | 3 | 412.6 | 382.0 |"),
    ):
        assert row in hybrid.retrieve(question, k=1)[0].text
        assert row in ask(question, falkordb_store, settings, hybrid, k=3).answer.split("\n")[0]
    # a year no column heads is asked of the statements' dates, not of a column
    assert hybrid.retrieve("What were net assets at 31 December 2023?", k=1)[0].kind != "table"


def test_a_line_item_named_by_its_clipped_word_answers(falkordb_store: FalkorDBStore, tmp_path: Path) -> None:
    # "profit before tax" is how an analyst says "Profit before taxation": the statement was found,
    # but the row was not named, and the answer quoted "Gross profit" and "Operating profit" instead.
    hybrid = hybrid_over(falkordb_store, [write_annual_report(tmp_path / "annual.pdf")], tmp_path)

    answer = ask("What was profit before tax?", falkordb_store, no_llm_settings(tmp_path), hybrid, k=3).answer
    first = answer.split("\n")[0]
    assert "| Profit before taxation |  | 36.8 | 35.5 |" in first
    assert "Gross profit" not in first and "Operating profit" not in first


def test_a_group_named_by_its_label_is_quoted_to_its_subtotal(falkordb_store: FalkorDBStore, tmp_path: Path) -> None:
    # "Current assets" is a bold label over its items, its figure the subtotal under them: the answer
    # quoted the label's row alone, "| Current assets |  |  |  |", which holds no figure.
    hybrid = hybrid_over(falkordb_store, [write_annual_report(tmp_path / "annual.pdf")], tmp_path)

    answer = ask("What were current assets?", falkordb_store, no_llm_settings(tmp_path), hybrid, k=3).answer
    first = answer.split("\n")[0]
    assert "| Current assets |  |  |  | | Inventories |  | 14.7 | 13.2 |" in first
    assert first.split("”")[0].endswith("| Cash and cash equivalents |  | 37.9 | 41.6 | |  |  | 121.0 | 116.0 |")


def test_a_group_run_over_a_page_break_is_quoted_to_its_subtotal(falkordb_store: FalkorDBStore, tmp_path: Path) -> None:
    # "Current liabilities" ends page 3's part of the balance sheet; its subtotal opens page 4's part
    # ("|  |  | (78.7) | (68.9) |"): the quote stopped at the page's last item, without the figure.
    hybrid = hybrid_over(falkordb_store, [write_annual_report(tmp_path / "annual.pdf")], tmp_path)

    result = ask("What were current liabilities?", falkordb_store, no_llm_settings(tmp_path), hybrid, k=3)
    first = result.answer.split("\n")[0]
    assert "| Current tax liabilities |  | (4.6) | (4.1) | |  |  | (78.7) | (68.9) |”" in first
    assert {citation.page for citation in result.citations} >= {3, 4}


def test_admin_expenses_are_the_administrative_expenses_row(falkordb_store: FalkorDBStore, tmp_path: Path) -> None:
    # "admin" clips "administrative" (and "administration", "administrator"): no passage held the
    # question's word, so the answer abstained over the very row that answers it.
    pdf = write_annual_report(tmp_path / "annual.pdf")
    first = answered(falkordb_store, pdf, "What were admin expenses?", tmp_path).split("\n")[0]
    assert "| Administrative expenses |  | (112.5) | (100.2) |" in first

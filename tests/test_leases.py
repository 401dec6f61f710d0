"""A tenant's solicitor's commercial lease (made by tests/leases.py), read and asked about as the
solicitor asks: the particulars, the clauses and their sub-clauses, the schedules."""

from __future__ import annotations

from pathlib import Path

from docgraph.app.llm.service import ask
from docgraph.app.stores.falkordb_store import FalkorDBStore
from docgraph.ingest.graph import build_graph
from docgraph.ingest.readers.native import NativeReader
from tests.leases import write_lease
from tests.llm_data import hybrid_over, no_llm_settings


def test_a_particulars_row_named_by_its_label_answers(falkordb_store: FalkorDBStore, tmp_path: Path) -> None:
    # "Break Date" means "the date specified as such in the Particulars": the definition and clause 8
    # say "Break Date" many times over, and the particulars' row that holds the date was not found.
    hybrid = hybrid_over(falkordb_store, [write_lease(tmp_path / "lease.pdf")], tmp_path)
    settings = no_llm_settings(tmp_path)

    for question, row in (
        ("When is the break date?", "| Break Date | 24 June 2029 |"),
        ("What is the rent?", "| Rent | £86,500 per annum (exclusive of VAT)"),
    ):
        assert hybrid.retrieve(question, k=3)[0].kind == "table"
        assert row in ask(question, falkordb_store, settings, hybrid, k=3).answer
    # a question that asks more of the tenant than its name is not answered by the particulars
    assert hybrid.retrieve("Can the tenant assign the lease?", k=1)[0].text.startswith("5.2 Subject to clause 5.3")


def test_a_sub_clause_named_by_number_holds_the_paragraphs_it_leads_into(
    falkordb_store: FalkorDBStore, tmp_path: Path
) -> None:
    # "8.3 ... unless, on the Break Date:" is read as a paragraph and its (a), (b), (c) as a list: the
    # part "clause 8.3" was the paragraph alone, and 8.4 ("Subject to clause 8.3, ...") came before
    # the conditions themselves.
    hybrid = hybrid_over(falkordb_store, [write_lease(tmp_path / "lease.pdf")], tmp_path)

    hits = [hit.text for hit in hybrid.retrieve("What does clause 8.3 say?", k=2)]
    assert any(text.startswith("8.3 A Break Notice shall be of no effect unless") for text in hits)
    assert any(text.startswith("(a) the Tenant has paid all the Rent") for text in hits)


def test_conditions_set_out_as_lettered_paragraphs_are_quoted_together(
    falkordb_store: FalkorDBStore, tmp_path: Path
) -> None:
    # "(a) ...;" "(b) ...; and" "(c) ..." are the parts of one sentence: quoted item by item, the
    # answer gave the first condition alone, as though paying the rent were all the break asked.
    hybrid = hybrid_over(falkordb_store, [write_lease(tmp_path / "lease.pdf")], tmp_path)
    settings = no_llm_settings(tmp_path)

    for question in ("What does clause 8.3 say?", "What are the conditions for the tenant's break?"):
        answer = ask(question, falkordb_store, settings, hybrid, k=3).answer
        assert "8.3 A Break Notice shall be of no effect unless, on the Break Date:" in answer
        assert "(b) the Tenant gives up vacant possession of the whole of the Premises" in answer
        assert "(c) the Tenant has removed all its fixtures" in answer


def test_roman_sub_paragraphs_a_tab_in_stay_in_their_lettered_list(tmp_path: Path) -> None:
    # "(a) ... which:" at one tab stop, its "(i)" to "(iii)" at the next (half an inch, over 3 em at 11
    # pt) and "(b)" back out: three lists, so clause 5.3's conditions were read apart from each other.
    layout = NativeReader().read(write_lease(tmp_path / "lease.pdf"))

    lists = [region.text for page in layout.pages for region in page.regions if region.kind == "list"]
    conditions = [text for text in lists if text.startswith("(a) that the assignor")]
    assert len(conditions) == 1
    assert [line[:5] for line in conditions[0].splitlines()] == ["(a) t", "(i) i", "(ii) ", "(iii)", "(b) t", "(c) t"]


def test_conditions_with_sub_paragraphs_are_quoted_from_their_start(
    falkordb_store: FalkorDBStore, tmp_path: Path
) -> None:
    # "(a) ... which:" leads into "(i)" to "(iii)": quoted item by item, the answer gave "(i) is in
    # respect of all the tenant covenants" without the agreement it is a term of.
    hybrid = hybrid_over(falkordb_store, [write_lease(tmp_path / "lease.pdf")], tmp_path)

    answer = ask("Can the tenant assign the lease?", falkordb_store, no_llm_settings(tmp_path), hybrid, k=3).answer
    assert "(a) that the assignor enters into an authorised guarantee agreement which: (i) is in respect" in answer


def test_particulars_rows_have_no_header_row(falkordb_store: FalkorDBStore, tmp_path: Path) -> None:
    # The particulars are label and value rows, the first ("Landlord") set like the rest: read as the
    # table's header, it opened every quote of the particulars, whichever row the question named.
    path = write_lease(tmp_path / "lease.pdf")
    pages = NativeReader().read(path).pages
    tables = [region.text for page in pages for region in page.regions if region.kind == "table"]
    assert tables[0].splitlines()[2].startswith("| Landlord | Riverside Estates Limited")

    hybrid = hybrid_over(falkordb_store, [path], tmp_path)
    answer = ask("When is the break date?", falkordb_store, no_llm_settings(tmp_path), hybrid, k=3).answer
    assert "| Break Date | 24 June 2029 |" in answer
    assert "Riverside Estates Limited" not in answer and "|  |  |" not in answer


def test_the_blank_date_line_on_the_cover_is_no_heading(tmp_path: Path) -> None:
    # "DATED            2024" in bold, the day and month left blank until completion: read as a
    # heading, it became the lease's first top-level section, over the title and the particulars.
    layout = NativeReader().read(write_lease(tmp_path / "lease.pdf"))

    cover = {region.text: region.kind for region in layout.pages[0].regions}
    assert cover["DATED 2024"] == "paragraph"
    assert [text for text, kind in cover.items() if kind == "section_header"] == ["PARTICULARS"]


def test_a_schedule_named_by_number_is_quoted_from_its_start(falkordb_store: FalkorDBStore, tmp_path: Path) -> None:
    # "What is in Schedule 2?": the "2" that names the schedule chose its item "2." for the quote,
    # as though the refuse compound were all the schedule held.
    hybrid = hybrid_over(falkordb_store, [write_lease(tmp_path / "lease.pdf")], tmp_path)

    answer = ask("What is in Schedule 2?", falkordb_store, no_llm_settings(tmp_path), hybrid, k=3).answer
    assert answer.startswith("1. “1. The right for the Tenant and all persons authorised by it to pass")


def test_a_schedule_paragraph_named_with_its_schedule_is_quoted(falkordb_store: FalkorDBStore, tmp_path: Path) -> None:
    # A schedule's numbered paragraphs are one list, so "paragraph 3 of Schedule 2" named the whole
    # schedule, and the quote was whichever item shared the question's numbers ("2.").
    hybrid = hybrid_over(falkordb_store, [write_lease(tmp_path / "lease.pdf")], tmp_path)

    question = "What does paragraph 3 of Schedule 2 say?"
    answer = ask(question, falkordb_store, no_llm_settings(tmp_path), hybrid, k=3).answer
    assert answer.startswith("1. “3. The Tenant shall pay as the Service Charge a fair and reasonable proportion")


def test_a_schedule_asked_for_whole_is_quoted_past_its_first_item(
    falkordb_store: FalkorDBStore, tmp_path: Path
) -> None:
    # "What is in Schedule 2?" names the schedule and asks nothing of it: no item holds a word of the
    # question, and the quote was the first item alone, as though the right of way were all it granted.
    hybrid = hybrid_over(falkordb_store, [write_lease(tmp_path / "lease.pdf")], tmp_path)

    answer = ask("What is in Schedule 2?", falkordb_store, no_llm_settings(tmp_path), hybrid, k=3).answer
    first = answer.splitlines()[0]
    assert first.startswith("1. “1. The right for the Tenant and all persons authorised by it to pass")
    assert "2. The right to use the shared refuse compound" in first and "3. The Tenant shall pay" in first


def test_a_schedule_paragraph_named_in_the_text_is_a_reference_to_its_item(tmp_path: Path) -> None:
    # "payable by the Tenant under paragraph 3 of Schedule 2": the schedule's paragraphs are one list,
    # and the reference went to the whole schedule, not to the region that holds its paragraph 3.
    batch = build_graph(NativeReader().read(write_lease(tmp_path / "lease.pdf")))

    texts = {node.key: node.props.get("text") or node.props.get("title") or "" for node in batch.nodes}
    refs = {edge.props["label"]: (edge.dst_label, texts[edge.dst_key]) for edge in batch.edges if edge.type == "REF"}
    label, text = refs["Paragraph 3 of Schedule 2"]
    assert label == "Region" and "\n3. The Tenant shall pay as the Service Charge" in text
    label, text = refs["Paragraph 4 of Schedule 1"]
    assert label == "Region" and "\n4. There are excepted and reserved to the Landlord" in text


def test_the_particulars_heading_heads_the_particulars_table(tmp_path: Path) -> None:
    # "PARTICULARS" in bold over the ruled table, between the title and the first clause: read as a
    # line of the title's byline (a paragraph), the particulars were under no section of their own.
    batch = build_graph(NativeReader().read(write_lease(tmp_path / "lease.pdf")))

    nodes = {node.key: node for node in batch.nodes}
    owners = {
        nodes[edge.dst_key].props.get("title")
        for edge in batch.edges
        if edge.type == "IS_UNDER" and nodes[edge.src_key].props.get("kind") == "table"
    }
    assert owners == {"PARTICULARS"}
    assert not any(
        node.props.get("text") == "PARTICULARS"
        for node in batch.nodes
        if node.label == "Region" and node.props.get("kind") == "paragraph"
    )

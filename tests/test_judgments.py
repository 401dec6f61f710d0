"""A Court of Appeal judgment as the judiciary's template exports it (made by tests/judgments.py),
read and asked about as a barrister asks: its cover block, its numbered paragraphs, its grounds."""

from __future__ import annotations

from pathlib import Path

from docgraph.app.llm.service import ask
from docgraph.app.retrieval.relevance import named_words
from docgraph.app.stores.falkordb_store import FalkorDBStore
from docgraph.ingest.graph import build_graph
from docgraph.ingest.readers.native import NativeReader
from tests.judgments import write_judgment
from tests.llm_data import answered, hybrid_over, no_llm_settings


def test_a_paragraph_cited_by_its_number_is_quoted(falkordb_store: FalkorDBStore, tmp_path: Path) -> None:
    # A judgment's paragraphs run "1." to "27." in one series, read as lists of items under each
    # heading: "paragraph 23" or "[23]" named no part, and the quote was whichever paragraph shared the
    # question's words ("12. Mr Brown KC ...").
    hybrid = hybrid_over(falkordb_store, [write_judgment(tmp_path / "judgment.pdf")], tmp_path)
    settings = no_llm_settings(tmp_path)

    for question, opening in (
        ("What does paragraph 23 say?", "1. “23. I would add that the theft of a high-value load"),
        ("What did the court say about insurance in [23]?", "1. “23. I would add that the theft"),
        ("Summarise para. 17", "1. “17. I do not accept that Triple Point assists Harrow."),
    ):
        assert ask(question, falkordb_store, settings, hybrid, k=3).answer.startswith(opening)
    # the quoted clause "14.2" is what "clause 14.2" names, not paragraph 14
    answer = ask("What does clause 14.2 say?", falkordb_store, settings, hybrid, k=3).answer
    assert answer.startswith("1. “14.2 The Carrier's liability for loss of or damage to the goods shall in no case")


def test_a_ground_named_by_its_number_is_quoted_from_its_heading_on(
    falkordb_store: FalkorDBStore, tmp_path: Path
) -> None:
    # "Ground 1: construction of clause 14.2" heads the court's treatment of the ground: asked "What was
    # Ground 1?", the answer was "18. Ground 1 therefore fails.", the line that holds the words, and a
    # footnote; the submissions that state the ground were not quoted.
    hybrid = hybrid_over(falkordb_store, [write_judgment(tmp_path / "judgment.pdf")], tmp_path)
    settings = no_llm_settings(tmp_path)

    assert hybrid.retrieve("What was Ground 1?", k=3)[0].text == "Ground 1: construction of clause 14.2"
    answer = ask("What was Ground 1?", falkordb_store, settings, hybrid, k=3).answer
    assert answer.startswith("1. “12. Mr Brown KC for Harrow submits that the judge was wrong")
    answer = ask("What was ground 2?", falkordb_store, settings, hybrid, k=3).answer
    assert answer.startswith("1. “19. Section 11(1) of the Unfair Contract Terms Act 1977 provides:")


def test_the_covers_fields_set_bold_are_no_headings(falkordb_store: FalkorDBStore, tmp_path: Path) -> None:
    # "Neutral Citation Number: [2024] EWCA Civ 123" and "Date: 14/03/2024" are set bold on lines of
    # their own: read as headings, they were sections and never quoted, so "What is the neutral
    # citation?" was answered by the case number's paragraph and the judgment below's "[2023] EWHC".
    path = write_judgment(tmp_path / "judgment.pdf")
    regions = [region for page in NativeReader().read(path).pages for region in page.regions]
    kinds = {region.text: region.kind for region in regions}
    assert kinds["Date: 14/03/2024"] == "paragraph"
    assert any(text.startswith("Neutral Citation Number: [2024] EWCA Civ 123") for text in kinds)
    headings = [region.text for region in regions if region.kind == "section_header"]
    assert not any(text.startswith(("Neutral Citation", "Date:")) for text in headings)
    assert "Ground 1: construction of clause 14.2" in headings  # a heading whose label has its number

    hybrid = hybrid_over(falkordb_store, [path], tmp_path)
    answer = ask("What is the neutral citation?", falkordb_store, no_llm_settings(tmp_path), hybrid, k=3).answer
    assert answer.startswith("1. “Neutral Citation Number: [2024] EWCA Civ 123")


def test_the_judges_and_parties_under_their_labels_are_no_headings(
    falkordb_store: FalkorDBStore, tmp_path: Path
) -> None:
    # "Before:" over the judges' names and "Between:" over the parties, the names set bold and centred:
    # read as headings, each was a section of a word ("and", "- and -"), the counsel came under the
    # respondent's name, and "Who appeared for the respondent?" found the word "and" first.
    path = write_judgment(tmp_path / "judgment.pdf")
    pages = NativeReader().read(path).pages
    headings = [region.text for region in pages[0].regions if region.kind == "section_header"]
    assert "Approved Judgment" in headings
    assert not any(name in text for text in headings for name in ("JUSTICE", "LIMITED", "Appellant"))
    # a judge's name over the judgment, ending in a colon, is no label over the headings under it
    assert {region.text: region.kind for region in pages[1].regions}["Introduction"] == "section_header"

    hybrid = hybrid_over(falkordb_store, [path], tmp_path)
    assert hybrid.retrieve("Who appeared for the respondent?", k=1)[0].text.startswith("Mr Andrew Brown KC and")


def test_a_paragraph_placed_above_or_below_is_a_reference_to_it(tmp_path: Path) -> None:
    # "(see [10] above)", "(see also paragraph 23 below)": the judgment's own paragraphs, to follow
    # as a clause's number is; no REF edge was read. "Triple Point ... at [108]", "[41] to [58] of his
    # judgment" and the footnote's "at [12]-[15]" are other judgments' paragraphs, none of this one.
    batch = build_graph(NativeReader().read(write_judgment(tmp_path / "judgment.pdf")))

    texts = {node.key: node.props.get("text") or node.props.get("title") or "" for node in batch.nodes}
    refs = {
        (texts[edge.src_key][:3], edge.props["label"], texts[edge.dst_key][:3])
        for edge in batch.edges
        if edge.type == "REF" and edge.props.get("kind") == "paragraph"
    }
    # paragraph 17 runs on onto page 5, where it says "see [10] above"; paragraph 16 is in the list
    # of 12 to 17, paragraph 23 in the list of 20 to 23
    assert refs == {("the", "Paragraph [10]", "10."), ("12.", "Paragraph [23]", "20.")}


def test_a_label_is_read_with_its_value(falkordb_store: FalkorDBStore, tmp_path: Path) -> None:
    # "Before:" alone says nothing and the names alone not what they are: read apart, "Who was the
    # appellant?" found the counsel's line and no party, and the judges' names were no judges'.
    path = write_judgment(tmp_path / "judgment.pdf")
    texts = [region.text for region in NativeReader().read(path).pages[0].regions]
    assert "Before: LORD JUSTICE SMITH LADY JUSTICE JONES and LORD JUSTICE PATEL" in texts
    assert "Between: HARROW LOGISTICS LIMITED Appellant - and - PENNINE FREIGHT SERVICES LIMITED Respondent" in texts

    hybrid = hybrid_over(falkordb_store, [path], tmp_path)
    found = [hit.text for hit in hybrid.retrieve("Who was the appellant?", k=3)]
    assert any(text.startswith("Between: HARROW LOGISTICS LIMITED Appellant") for text in found)


def test_a_section_asked_for_by_its_title_alone_is_quoted_from_its_start(
    falkordb_store: FalkorDBStore, tmp_path: Path
) -> None:
    # "What is the conclusion?" asks for the part headed "Conclusion", whose text ("For these reasons
    # ... I would dismiss the appeal") does not hold the word: the concurrences ("I agree.") came first.
    hybrid = hybrid_over(falkordb_store, [write_judgment(tmp_path / "judgment.pdf")], tmp_path)
    settings = no_llm_settings(tmp_path)

    for question, opening in (
        ("What is the conclusion?", "1. “25. For these reasons, which are in substance those given by the judge"),
        ("What are the facts?", "1. “4. Harrow is a logistics company which arranges the distribution"),
    ):
        assert ask(question, falkordb_store, settings, hybrid, k=3).answer.startswith(opening)


def test_who_appeared_for_a_party_is_answered(falkordb_store: FalkorDBStore, tmp_path: Path) -> None:
    # The cover lists counsel "... for the Respondent", never "appeared": the verb counted missing.
    answer = answered(
        falkordb_store, write_judgment(tmp_path / "judgment.pdf"), "Who appeared for the respondent?", tmp_path
    )
    assert "Mr David Okoro KC (instructed by Lister & Marsh LLP) for the Respondent" in answer.split("\n")[0]


def test_appearing_or_acting_for_a_party_frames_the_question() -> None:
    assert named_words("Who appeared for the respondent?") == {"respondent"}
    assert named_words("Who acted on behalf of the appellant?") == {"appellant"}
    assert named_words("How long does the warning appear for?") == {"long", "warning", "appear"}

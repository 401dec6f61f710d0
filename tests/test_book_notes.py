"""A history book's notes: footnotes set "1. Dickens, ..." (Chicago's full-size numbers) under a
short rule, one running over to the next page's foot, and a chapter whose notes are gathered at its
end under "Notes". The chapters open "CHAPTER 1" in text type over a larger title. A PDF made here,
read by the native reader, built into a graph, and asked about in a real local store.

Before, the notes of a page were one list (their numbers read as a numbered list), a note's run-on
at the next page's foot was a body paragraph, and a note's line opening "19. Jahrhundert" started a
new item; "CHAPTER 1" was a paragraph, so no chapter had a number ("see chapter 2" resolved
nowhere), and the chapters' unnumbered subheadings were set level with them. No mark in the text
led to its note, and "footnote 3" or "note 1 of chapter 2" named nothing a question could ask for.
The notes at a chapter's end are one list, and its quote for "note 7 of chapter 2" was note 2, whose
number is the chapter's."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from docgraph.app.llm.extractive import asked_item, quote_units
from docgraph.app.llm.service import ask
from docgraph.app.retrieval.base import Retriever
from docgraph.app.retrieval.named_parts import named_notes
from docgraph.app.stores.base import GraphStore
from docgraph.app.stores.falkordb_store import FalkorDBStore
from docgraph.ingest.graph import build_graph
from docgraph.ingest.readers.native import NativeReader
from docgraph.records import GraphBatch
from tests.llm_data import hybrid_over, no_llm_settings

LEFT, MEASURE, BODY, NOTE = 60.0, 312.0, 10.5, 8.0
FILLER = (
    "The printers of Wittenberg worked for a market that stretched from Basel to Danzig, and they chose"
    " what to print by what would sell in the fairs of Leipzig and Frankfurt rather than by what the"
    " theologians of the university thought most needful for the salvation of souls."
)
CH1 = [
    "Arthur Dickens wrote that Lutheranism was from the first the child of the printed book,^1 and a"
    " generation of scholarship has since measured the output of the presses.^2 " + FILLER,
    FILLER + " " + FILLER,
    "The pamphlet was the characteristic form of the early Reformation, a quarto of a few leaves sold"
    " unbound for a few pfennigs by pedlars and by the printers themselves.^3 " + FILLER,
]
CH1_NOTES = [
    "1. A. G. Dickens, The German Nation and Martin Luther (London: Edward Arnold, 1974), 102.",
    "2. Mark U. Edwards, Printing, Propaganda, and Martin Luther (Berkeley: University of California"
    " Press, 1994), 17-21, whose figures rest on the surviving copies in the great German libraries and"
    " have been questioned by every later student of the trade, above all for the years after 1525 when",
    "the output of the presses fell, a fall that Edwards attributes to the Peasants' War.",
    "3. Juergen Kocka, Arbeiterexistenzen: Grundlagen der Klassenbildung im",
    "19. Jahrhundert (Bonn: Dietz, 1990), 311-40.",
]
CH2 = [
    "On the evening of 18 March 1848 a journeyman printer climbed a barricade in Berlin and read aloud"
    " from Luther's address to the nobility.^1 The story may be apocryphal, and the only source for it"
    " is the printer's own memoir.^2 " + FILLER,
]
CH2_NOTES = [
    "1. Friedrich Wilhelm Held, Erinnerungen eines Berliner Buchdruckers (Berlin: Springer, 1868), 77.",
    "2. Jonathan Sperber, The European Revolutions, 1848-1851 (Cambridge: Cambridge University Press, 2005), 129.",
    *(f"{n}. Ibid., {70 + n}; on the printers' clubs of Berlin and Leipzig, see Held, 80-95." for n in range(3, 12)),
]


def _words(page: pymupdf.Page, x: float, y: float, text: str, size: float) -> None:
    """Sets one line; "word^2" raises the note mark 2 after the word, smaller, as books set it."""
    for word in text.split():
        core, _, mark = word.partition("^")
        page.insert_text((x, y), core, fontname="tiro", fontsize=size)
        x += pymupdf.get_text_length(core, "tiro", size)
        if mark:
            page.insert_text((x, y - 0.38 * size), mark, fontname="tiro", fontsize=0.62 * size)
            x += pymupdf.get_text_length(mark, "tiro", 0.62 * size)
        x += pymupdf.get_text_length(" ", "tiro", size)


def _wrapped(text: str, size: float) -> list[str]:
    lines, current = [], ""
    for word in text.split():
        longer = f"{current} {word}".strip()
        if pymupdf.get_text_length(longer.replace("^", ""), "tiro", size) <= MEASURE:
            current = longer
        else:
            lines, current = [*lines, current], word
    return [*lines, current]


def _body(page: pymupdf.Page, y: float, paragraphs: list[str]) -> float:
    for text in paragraphs:
        for k, line in enumerate(_wrapped(text, BODY)):
            _words(page, LEFT + (14 if k == 0 else 0), y, line, BODY)
            y += 13
    return y


def _notes(page: pymupdf.Page, lines: list[str], size: float = NOTE, rule: bool = True) -> None:
    """Note lines at the page's foot under a short rule; each line is set as given (a note's own
    run-on lines are separate strings)."""
    y = 590 - 9.6 * sum(len(_wrapped(line, size)) for line in lines)
    if rule:
        page.draw_line((LEFT, y - 4), (LEFT + 72, y - 4), width=0.4)
    for text in lines:
        for line in _wrapped(text, size):
            _words(page, LEFT, y + size, line, size)
            y += 9.6


def _chapter(doc: pymupdf.Document, number: int, title: str) -> pymupdf.Page:
    page = doc.new_page(width=432, height=648)
    page.insert_text((180, 120), f"CHAPTER {number}", fontname="tiro", fontsize=11)
    page.insert_text((LEFT + 40, 150), title, fontname="tibo", fontsize=17)
    return page


def _book(pdf: Path) -> None:
    with pymupdf.open() as doc:
        doc.new_page(width=432, height=648).insert_text((100, 200), "PRINT AND REVOLT", fontname="tibo", fontsize=20)
        page = _chapter(doc, 1, "The Printer's Reformation")
        y = _body(page, 190, CH1[:1])
        page.insert_text((LEFT, y + 14), "The Pamphlet Market", fontname="tibo", fontsize=12)
        _body(page, y + 40, CH1[1:2])
        _notes(page, CH1_NOTES[:2])
        page.insert_text((210, 615), "1", fontname="tiro", fontsize=9)
        page = doc.new_page(width=432, height=648)
        _body(page, 80, CH1[2:])
        _notes(page, CH1_NOTES[2:])
        page.insert_text((LEFT, 42), "2", fontname="tiro", fontsize=9)
        page = _chapter(doc, 2, "Luther on the Barricades")
        y = _body(page, 190, CH2)
        page.insert_text((LEFT, y + 20), "Notes", fontname="tibo", fontsize=12)
        y += 40
        for note in CH2_NOTES:
            for k, line in enumerate(_wrapped(note, 9.0)):
                _words(page, LEFT + (14 if k else 0), y, line, 9.0)
                y += 11
        page.insert_text((210, 615), "3", fontname="tiro", fontsize=9)
        doc.save(pdf)


@pytest.fixture
def book(tmp_path: Path) -> Path:
    _book(tmp_path / "book.pdf")
    return tmp_path / "book.pdf"


def _graph(pdf: Path) -> tuple[GraphBatch, dict[str, dict[str, object]]]:
    batch = build_graph(NativeReader().read(pdf), ingested_at="x", ingest_id="y")
    return batch, {n.key: n.props for n in batch.nodes if n.label == "Region"}


def test_each_footnote_is_a_region_of_its_own(book: Path) -> None:
    layout = NativeReader().read(book)
    notes = [(page.number, r.text) for page in layout.pages for r in page.regions if r.kind == "footnote"]
    assert [text[:3] for _, text in notes] == ["1. ", "2. ", "the", "3. "]
    assert notes[2][0] == 3  # the run-on of note 2 at the next page's foot, no body paragraph
    assert notes[3][1].endswith("Klassenbildung im 19. Jahrhundert (Bonn: Dietz, 1990), 311-40.")
    # the notes gathered at a chapter's end are that section's list, also where they reach the foot
    assert [r.kind for r in layout.pages[3].regions if r.text.startswith("1. Friedrich")] == ["list"]
    assert not [r for r in layout.pages[3].regions if r.kind == "footnote"]


def test_a_note_run_over_is_linked_to_its_part_on_the_next_page(book: Path) -> None:
    batch, regions = _graph(book)
    runs = [
        (regions[e.src_key]["page"], str(regions[e.src_key]["text"])[:3], str(regions[e.dst_key]["text"])[:9])
        for e in batch.edges
        if e.type == "HAS_NEXT" and e.props.get("continuation")
    ]
    assert runs == [(2, "2. ", "the outpu")]


def test_a_mark_refers_to_its_note(book: Path) -> None:
    batch, regions = _graph(book)
    refs = [
        (str(regions[e.src_key]["text"])[:20], e.props["label"], str(regions[e.dst_key]["text"])[:12])
        for e in batch.edges
        if e.type == "REF" and e.props.get("kind") == "footnote"
    ]
    assert refs == [
        ("Arthur Dickens wrote", "Note 1", "1. A. G. Dic"),
        ("Arthur Dickens wrote", "Note 2", "2. Mark U. E"),
        ("The pamphlet was the", "Note 3", "3. Juergen K"),
        ("On the evening of 18", "Note 1", "1. Friedrich"),  # chapter 2's notes, at its end
        ("On the evening of 18", "Note 2", "1. Friedrich"),
    ]


def test_a_chapter_label_over_its_title_numbers_the_chapter(book: Path) -> None:
    batch, _ = _graph(book)
    sections = [(n.props["number"], n.props["title"], n.props["level"]) for n in batch.nodes if n.label == "Section"]
    assert sections == [
        ("", "PRINT AND REVOLT", 1),
        ("1", "CHAPTER 1 The Printer's Reformation", 1),
        ("", "The Pamphlet Market", 2),
        ("2", "CHAPTER 2 Luther on the Barricades", 1),
        ("", "Notes", 2),
    ]


def test_a_question_names_a_note_by_its_number() -> None:
    assert named_notes("What source does footnote 12 cite?") == [(12, "foot")]  # "cite" says where it is
    assert named_notes("What does note 7 of chapter 3 say?") == [(7, "")]
    assert named_notes("What does Endnote 4 say?") == [(4, "end")]
    assert named_notes("What does the author note about 1848?") == []


@pytest.fixture
def book_hybrid(falkordb_store: FalkorDBStore, tmp_path: Path, book: Path) -> Retriever:
    return hybrid_over(falkordb_store, [book], tmp_path / "home")


def test_a_note_asked_for_by_number_ranks_first(book_hybrid: Retriever) -> None:
    top = book_hybrid.retrieve("What source does footnote 3 cite?", 5)[0]
    assert top.text.startswith("3. Juergen Kocka") and "part" in top.signals
    assert book_hybrid.retrieve("What does endnote 3 say?", 5)[0].text.startswith("1. Friedrich")  # chapter 2's
    # numbers start again in each chapter: the chapter says which note 1
    assert book_hybrid.retrieve("What does note 1 of chapter 2 say?", 5)[0].text.startswith("1. Friedrich")
    assert book_hybrid.retrieve("What does note 1 of chapter 1 say?", 5)[0].text.startswith("1. A. G. Dickens")


def test_a_note_asked_for_by_number_is_quoted_from_its_chapters_notes(
    book_hybrid: Retriever, falkordb_store: GraphStore, tmp_path: Path
) -> None:
    result = ask("What does note 7 of chapter 2 say?", falkordb_store, no_llm_settings(tmp_path), book_hybrid)
    assert result.answer.startswith("1. “7. Ibid., 77; on the printers' clubs")


def test_the_asked_note_is_found_among_the_items_a_quote_is_made_of() -> None:
    """The asked note's place was counted line by line while a quote's units are counted item by
    item, a sub-item's line on its item: a note holding bulleted lines put note 7's window past the
    list's end, and nothing was quoted of it."""
    petitions = ["6. The petitions were:", "• one from the printers.", "• one from the masons."]
    notes = "\n".join(["5. Ibid., 12.", *petitions, "7. Smith 1998, 44."])
    units = quote_units(notes, "list")
    start, end = asked_item(notes, "list", frozenset({7})) or (0, 0)
    assert units[start:end] == ["7. Smith 1998, 44."]

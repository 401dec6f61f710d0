"""One stored document as retrieval sees it: its regions (page, kind, section), pages (body text)
and sections (title, parent, number), with BM25 indexes over region text, page text and page text
with its lead-in built on first use, the passage vectors of its long regions, the pages its regions
refer to, its captions' labels and its numbering (the parts a question may name).
:mod:`app.retrieval.corpus` loads documents and keeps them in step with the store.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
from numpy.typing import NDArray

from docgraph.app.retrieval.bm25 import BM25Index
from docgraph.app.retrieval.kinds import named_labels
from docgraph.app.retrieval.labels import Captions, labelled_places
from docgraph.app.retrieval.named_parts import (
    AGENDA,
    asks_for_answer,
    asks_for_dependents,
    asks_for_proof,
    cited_entry_numbers,
    named_citations,
    named_conditions,
    named_items,
    named_notes,
    named_pages,
    named_parts,
    names_agenda_items,
    opening_numbers,
    part_index,
    printed_number,
    resolved_parts,
    row_numbers,
    titled_sections,
)
from docgraph.app.retrieval.named_series import asks_for_title, heading_word_number, word_numbers
from docgraph.app.retrieval.text import tokenize
from docgraph.ingest.links.mentions import Mention
from docgraph.ingest.links.notes import ENTRY_KINDS, NOTES_TITLE, entry_numbers, numbers_of
from docgraph.ingest.links.numbered_items import CONDITIONS_TITLE
from docgraph.ingest.links.references import TargetIndex
from docgraph.ingest.links.statements import answers, proofs

# Kinds that carry no content of their own for lexical search.
FURNITURE = frozenset({"page_header", "page_footer"})
NAME_SHARE = 0.5  # of a document's pages a running head or foot is on to name the document


@dataclass(frozen=True, slots=True)
class RegionInfo:
    region_id: str
    doc_id: str
    page: int
    order: int
    kind: str
    bbox: tuple[float, ...]
    text: str
    section_id: str | None

    @property
    def search_text(self) -> str:
        return self.text


@dataclass(frozen=True, slots=True)
class SectionInfo:
    section_id: str
    title: str
    level: int
    page_start: int
    parent_id: str | None
    number: str = ""  # as printed ("7.3", "B" of "Appendix B"), "" if none


@dataclass
class DocumentIndex:
    doc_id: str
    version: str  # the stored document version (GraphBatch.version) and its count of descriptions
    regions: list[RegionInfo]
    page_numbers: list[int]
    page_texts: list[str]
    sections: dict[str, SectionInfo]
    passages: dict[str, NDArray[np.float32]] = field(default_factory=dict)  # region id -> passages x dim
    references: dict[str, frozenset[int]] = field(default_factory=dict)  # region id -> pages it refers to
    referrers: dict[str, set[str]] = field(default_factory=dict)  # region id -> the regions that refer to it
    captions: Captions = field(default_factory=lambda: Captions({}))  # what each labelled caption captions
    region_row: dict[str, int] = field(default_factory=dict)
    slides: bool = False  # every page is landscape: a deck, whose "slide 12" is its twelfth page
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _region_bm25: BM25Index | None = None
    _page_bm25: BM25Index | None = None
    _lead_in_page_bm25: BM25Index | None = None

    def __post_init__(self) -> None:
        self.region_row = {r.region_id: i for i, r in enumerate(self.regions)}

    @property
    def region_bm25(self) -> BM25Index:
        with self._lock:
            if self._region_bm25 is None:
                texts = [r.search_text if r.kind not in FURNITURE else "" for r in self.regions]
                self._region_bm25 = BM25Index(texts)
            return self._region_bm25

    @property
    def page_bm25(self) -> BM25Index:
        with self._lock:
            if self._page_bm25 is None:
                self._page_bm25 = BM25Index(self.page_texts)
            return self._page_bm25

    @property
    def lead_in_page_bm25(self) -> BM25Index:
        """BM25 over each page's text led by its lead-in (see :func:`page_lead_in`)."""
        with self._lock:
            if self._lead_in_page_bm25 is None:
                texts = [
                    f"{page_lead_in(self, page)} {text}"
                    for page, text in zip(self.page_numbers, self.page_texts, strict=True)
                ]
                self._lead_in_page_bm25 = BM25Index(texts)
            return self._lead_in_page_bm25

    @cached_property
    def page_rows(self) -> dict[int, list[int]]:
        """Page number -> rows of its body (non-furniture) regions, in reading order."""
        rows: dict[int, list[int]] = {}
        for row, region in enumerate(self.regions):
            if region.kind not in FURNITURE:
                rows.setdefault(region.page, []).append(row)
        return rows

    @cached_property
    def section_members(self) -> dict[str, list[int]]:
        """Section id -> rows of the regions directly under it."""
        members: dict[str, list[int]] = {}
        for row, region in enumerate(self.regions):
            if region.section_id is not None:
                members.setdefault(region.section_id, []).append(row)
        return members

    @cached_property
    def parts(self) -> TargetIndex:
        """The document's numbering, for the parts a question names (:mod:`app.retrieval.named_parts`)."""
        return part_index(self.sections.values(), ((r.region_id, r.kind, r.text) for r in self.regions))

    @cached_property
    def own_names(self) -> str:
        """The document's titles, which "Section 3 of the Guide" may name it by."""
        return " ".join(region.text for region in self.regions if region.kind == "title")

    @cached_property
    def name_texts(self) -> list[str]:
        """What names the document rather than says what it holds: its id (the file's name), its
        titles, and a running head or foot on half its pages or more ("Corvane Logistics" atop
        every page of a memo; not a manual's chapter titles, each over its own chapter's pages)."""
        pages: dict[str, set[int]] = {}
        for region in self.regions:
            if region.kind in FURNITURE:
                pages.setdefault(region.text, set()).add(region.page)
        running = [text for text, on in pages.items() if len(on) >= NAME_SHARE * len(self.page_numbers)]
        titles = [region.text for region in self.regions if region.kind == "title"]
        return [self.doc_id, *dict.fromkeys(titles), *running]

    def part_rows(self, question: str) -> list[int]:
        """Rows of the regions in the parts ``question`` names (a section with its subsections, a
        sub-clause's paragraph), in reading order."""
        items = named_items(question)
        if names_agenda_items(question) and AGENDA not in self.name_words | self.opening_words:
            items = []  # "agenda item 3" is none of the minutes' parts
        starts = {item.start for item in named_items(question)} - {item.start for item in items}
        mentions = [mention for mention in named_parts(question, self.own_names) if mention.start not in starts]
        targets = resolved_parts(self.parts, mentions)
        targets += [("Section", key) for key in titled_sections(question, self.sections.values())]
        # an item no section or sub-clause bears: the paragraphs that open with its number (an agenda's rows)
        unborne = [item.number for item in items if self.parts.resolve_part(item) is None]
        targets += [("Region", key) for number in unborne for key in self.items.get(number, ())]
        if asks_for_proof(question):  # "Prove Lemma 2.1": the lemma's own proof, which belongs to it
            targets += [("Region", key) for label, target in targets for key in self.proofs.get(target, ())]
        if asks_for_answer(question):  # "What is the answer to Exercise 3.5?": its answer at the back
            targets += [("Region", key) for label, target in targets for key in self.answers.get(target, ())]
        if asks_for_dependents(question):  # "Which claims depend on claim 3?": the claims that refer to it
            targets += [("Region", key) for label, target in targets for key in self.referrers.get(target, ())]
        named = named_notes(question)
        # "note 12" of a financial statement: the section headed "12. ..." under its notes' heading
        targets += [
            target
            for number, kind in named
            if not kind and (target := self.parts.resolve_part(Mention("note", str(number), 0))) is not None
        ]
        sections = {key for label, key in targets if label == "Section"}
        opened = {key for label, key in targets if label == "Region"}
        targets += [("Region", key) for key in self._led_in_lists(opened)]
        pages = self.named_pages(question)
        notes = [row for number, kind in named for row in self._notes_of(number, kind)]
        inside = [row for row in notes if self._under(row, sections)] or self._called_by_floats(notes, question)
        if inside:  # "note 7 of chapter 3", "note 2 of Table 5": the chapter or table says which note 2
            return inside
        notes += [row for number in named_conditions(question) for row in self.conditions.get(number, ())]
        notes += [row for number in named_citations(question) for row in self.cited_entries.get(number, ())]
        return [
            row
            for row, region in enumerate(self.regions)
            if ("Region", region.region_id) in targets
            or self._under(row, sections)
            or (region.page in pages and region.kind not in FURNITURE)
            or row in notes
        ]

    def _called_by_floats(self, notes: list[int], question: str) -> list[int]:
        """The ``notes`` that a table or figure the question names calls by its marks ("note 2 of
        Table 5": a datasheet numbers each table's notes from 1)."""
        places = labelled_places(named_labels(question), [self.captions])
        if places is None:
            return []
        return [row for row in notes if self.referrers.get(self.regions[row].region_id, set()) & places.regions]

    def series_rows(self, question: str) -> list[int]:
        """Rows of the regions under the headings that open with a word and a number ``question``
        writes ("What was Ground 1?": the section "Ground 1: construction of clause 14.2")."""
        named = word_numbers(question)
        sections = {key for key, info in self.sections.items() if heading_word_number(info.title) in named}
        return [row for row in range(len(self.regions)) if sections and self._under(row, sections)]

    def titled_rows(self, question: str) -> list[int]:
        """Rows of the regions under the headings whose words are all ``question`` asks for ("What is
        the conclusion?": the section "Conclusion"), where it asks in no other words."""
        sections = {key for key, info in self.sections.items() if asks_for_title(question, info.title)}
        return [row for row in range(len(self.regions)) if sections and self._under(row, sections)]

    def _led_in_lists(self, keys: set[str]) -> list[str]:
        """The lists that the regions ``keys`` lead into, ending in a colon ("8.3 A Break Notice shall
        be of no effect unless, on the Break Date:" over its "(a)", "(b)", "(c)"): a sub-clause's
        lettered and roman paragraphs are read as lists of their own, and are the sub-clause's text."""
        found: list[str] = []
        for row, region in enumerate(self.regions):
            if region.region_id not in keys or not region.text.rstrip().endswith(":"):
                continue
            for after in self.regions[row + 1 :]:
                if after.kind in FURNITURE:
                    continue  # a page's foot between the lead-in and its list
                if after.kind != "list":
                    break
                found.append(after.region_id)
        return found

    @cached_property
    def opening(self) -> list[str]:
        """The document's opening, its first page's lines before its first heading or table ("Agenda
        for the Board of Management meeting on 17 March 2026"): they say what paper it is, and when."""
        opening: list[str] = []
        for region in self.regions:
            if region.page != self.regions[0].page or region.kind in ("section_header", "table"):
                break
            opening.append(region.text)
        return opening

    @cached_property
    def opening_words(self) -> frozenset[str]:
        """The tokens of :attr:`opening`."""
        return frozenset(word for text in self.opening for word in tokenize(text))

    @cached_property
    def items(self) -> dict[str, list[str]]:
        """A whole number -> the ids of the paragraphs that open with it (:func:`opening_numbers`),
        and, in an agenda, of the tables with a row that opens with it (the agenda's table of items)."""
        agenda = AGENDA in self.name_words | self.opening_words
        items: dict[str, list[str]] = {}
        for region in self.regions:
            numbers = row_numbers(region.text) if agenda and region.kind == "table" else []
            numbers += opening_numbers(region.kind, region.text)
            for number in dict.fromkeys(numbers):
                items.setdefault(number, []).append(region.region_id)
        return items

    @cached_property
    def answers(self) -> dict[str, list[str]]:
        """An exercise's region id -> its answers' (:func:`ingest.links.statements.answers`)."""
        return answers([(region.region_id, region.kind, region.text) for region in self.regions])

    @cached_property
    def proofs(self) -> dict[str, list[str]]:
        """A statement's region id -> its proof's (:func:`ingest.links.statements.proofs`)."""
        return proofs([(region.region_id, region.kind, region.text) for region in self.regions])

    def _under(self, row: int, sections: set[str]) -> bool:
        section = self.regions[row].section_id
        return section is not None and not sections.isdisjoint(self.ancestors(section))

    def _notes_of(self, number: int, kind: str) -> list[int]:
        """Rows of the notes numbered ``number``: of footnotes only for "footnote 3", of the notes
        gathered at a chapter's end only for "endnote 3", where the document has such notes."""
        rows = self.notes.get(number, [])
        footnotes = [row for row in rows if self.regions[row].kind == "footnote"]
        endnotes = [row for row in rows if self.regions[row].kind != "footnote"]
        return {"foot": footnotes, "end": endnotes}.get(kind, rows) or rows

    @cached_property
    def notes(self) -> dict[int, list[int]]:
        """Note number -> rows of the notes so numbered: footnotes by their mark, and the entries of
        the "Notes" sections that close chapters (numbers start again in each chapter)."""
        found: dict[int, list[int]] = {}
        for row, region in enumerate(self.regions):
            section = self.sections.get(region.section_id) if region.section_id else None
            in_notes = section is not None and NOTES_TITLE.match(section.title) is not None
            for number in numbers_of(region.kind, region.text, in_notes):
                found.setdefault(number, []).append(row)
        return found

    @cached_property
    def conditions(self) -> dict[int, list[int]]:
        """Condition number -> rows of the entries so numbered under a section of conditions
        ("Appendix B – Recommended conditions"), one per line opening with a number."""
        found: dict[int, list[int]] = {}
        for row, region in enumerate(self.regions):
            section = self.sections.get(region.section_id) if region.section_id else None
            if section is None or region.kind not in ("paragraph", "list"):
                continue
            if CONDITIONS_TITLE.search(section.title):
                for number in entry_numbers(region.text):
                    found.setdefault(number, []).append(row)
        return found

    @cached_property
    def cited_entries(self) -> dict[int, list[int]]:
        """Entry number -> rows of the bibliography entries so numbered ("[2] ISO 4587, ...")."""
        found: dict[int, list[int]] = {}
        for row, region in enumerate(self.regions):
            for number in cited_entry_numbers(region.text) if region.kind in ENTRY_KINDS else ():
                found.setdefault(number, []).append(row)
        return found

    def named_pages(self, question: str) -> set[int]:
        """The pages ``question`` names: the one that prints the number, and the one counted so (a
        reader of the text cites the printed number, a reader of the viewer or of docgraph's own
        citations the count)."""
        numbers = named_pages(question, self.slides)
        printed = {number: page for page, number in self.printed_numbers.items() if number in numbers}
        return {n for n in numbers if n in self.page_rows} | set(printed.values())

    @cached_property
    def printed_numbers(self) -> dict[int, int]:
        """Page -> the number its running head or foot prints, where one does."""
        found: dict[int, int] = {}
        for region in self.regions:
            number = printed_number(region.text) if region.kind in FURNITURE else None
            if number is not None:
                found.setdefault(region.page, number)
        return found

    @cached_property
    def name_words(self) -> frozenset[str]:
        """The tokens of :attr:`name_texts`."""
        return frozenset(word for text in self.name_texts for word in tokenize(text))

    def ancestors(self, section_id: str) -> list[str]:
        """The section and its enclosing sections, nearest first."""
        chain: list[str] = []
        current: str | None = section_id
        while current is not None and current in self.sections and current not in chain:
            chain.append(current)
            current = self.sections[current].parent_id
        return chain


def page_lead_in(document: DocumentIndex, page: int) -> str:
    """The text of the previous page's regions whose section goes on onto ``page``.

    A page that continues a section often answers a question about that section's topic without
    naming it: the heading and the paragraph that set the topic are at the foot of the page before.
    Page-level BM25 then scores the continuation 0 on the topic words. Led by this text, the page
    matches them as well as the page before does, and its own words decide between the two."""
    continuing = {document.regions[row].section_id for row in document.page_rows.get(page, [])} - {None}
    if not continuing:
        return ""
    before = document.page_rows.get(page - 1, [])
    return " ".join(
        document.regions[row].search_text for row in before if document.regions[row].section_id in continuing
    )

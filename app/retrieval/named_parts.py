"""The parts of a document a question names by number: "What does clause 7.3 say?", "Summarise
Schedule 2", "In Section 4.1, which port ...?". The user says where the answer is; its words may
not say what (a clause's text need not contain "clause" or its own topic's words).

The question's mentions are found as a region's are at ingest (:func:`find_mentions`; another
document's parts, "Art. 28 GDPR", are none) and resolved in the stored document's own numbering as
REF edges are (:class:`TargetIndex`): a section by its number or heading, a sub-clause without a
heading by the paragraph it opens. The hybrid takes the first regions of each named part as
candidates, and being in a named part is one more signal, 1 or 0, weighted as the others are
(``HybridWeights.part``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from typing import Protocol

from docgraph.app.retrieval.references import describes_referral
from docgraph.app.retrieval.text import tokenize
from docgraph.ingest.links.claims import claim_targets
from docgraph.ingest.links.mentions import Mention, find_mentions
from docgraph.ingest.links.references import TargetIndex, index_clause, index_equation, index_sections
from docgraph.ingest.links.statements import STATEMENT_KINDS, index_statements
from docgraph.ingest.structure.sections import SectionSpec

# Mention kinds that name a part of the document's text (figures, tables and pages are found
# otherwise: :mod:`app.retrieval.labels`, REF edges); an equation by its number, "equation (3.7)".
PART_KINDS = frozenset(
    {"section", "chapter", "appendix", "clause", "article", "schedule", "annex", "exhibit", "paragraph", "note"}
    | {"claim"}  # a patent's
    | STATEMENT_KINDS  # a mathematics text's: "Prove Lemma 2.1"
    | {"equation"}
)
PAGE_KINDS = frozenset({"page", "slide"})  # "What is on page 3?": the page, as printed on it or as counted
PART_CANDIDATES = 12  # regions of a named part, from its start, taken as candidates
# Words that ask for a part as a whole ("What does clause 7.3 say?", "Summarise page 2").
_WHERE_ONLY = "say says said show shows state states contain contains content cover covers summarise summary list"
# and what a clause of a standard or contract lays down: "What does 5.3.2 require?" asks for all of it
_LAYS_DOWN = "require requires requirement requirements specify specifies stipulate stipulates"
WHERE_ONLY_WORDS = frozenset(
    tokenize(f"{_WHERE_ONLY} {_LAYS_DOWN} read text mention mentions describe describes explain")
)
# A note asked for by its number ("footnote 12", "note 7 of chapter 3"), as the text's marks call it;
# a terminological entry's by its label in full ("Note 1 to entry 3.4", ISO 704's "Note 1 to entry:").
_NOTE_ASKED = re.compile(r"\b(foot|end)?notes?\s+(\d{1,3})(?:\s+to\s+entry)?(?![\w.,]\d|\w)", re.IGNORECASE)
# A note named with the table or figure whose marks call it: "note 2 of Table 5" (a datasheet numbers
# each table's notes from 1).
_NOTE_OWNER = re.compile(
    r"(\b(?:foot|end)?notes?\s+\d{1,3})\s+(?:of|in|under|to)\s+(?:the\s+)?(?:tables?|fig(?:ure)?s?\.?)\s+[\w.-]*\w",
    re.IGNORECASE,
)
# A decision's conditions, numbered in its section or appendix of conditions ("Appendix B –
# Recommended conditions"), named as a planning report's readers name them: "What is condition 9?".
_CONDITION_ASKED = re.compile(r"\bconditions?\s+(\d{1,3})(?![\w.,]\d|\w)", re.IGNORECASE)
# A bibliography entry asked for by its number in brackets, as the text cites it: "What is reference
# [2]?", "What does [12] cite?"; not an index ("array[2]").
_CITATION_ASKED = re.compile(
    r"(?:\b(?:bibliography|bibliographic|references?|citations?|entry|item|document)\s+)*(?<![\w\]])\[(\d{1,3})\]",
    re.IGNORECASE,
)
_CITED_ENTRY = re.compile(r"^\s*\[(\d{1,3})\]\s+\S")  # a line opening a numbered entry: "[2] ISO 4587, ..."
# A paragraph named with the part it is of: "3 of Schedule 2" (not a report's "paragraph 4.3").
_PARAGRAPH_NUMBER = re.compile(r"(\d{1,3})\s+of\s+\w+\s+\S+$")
# A section named by its title: "What does the background section say?", "In the Detailed Description
# section, ..."; it names a part of a document only if one of its sections is so titled. Not a noun
# the word modifies: "the example chapter page template" is a page template.
_AFTER_TITLED = (
    r"[,.?;:!)]|$|(?:say|says|said|state|states|describe|describes|cover|covers|contain|contains|mention"
    r"|mentions|discuss|discusses|explain|explains|list|lists|is|are|of|in|about|for|and)\b"
)
_TITLED_PART = re.compile(
    rf"\bthe\s+((?:[\w-]+\s+){{0,4}}?[\w-]+)\s+(?:section|chapter)\b(?=\s*(?:{_AFTER_TITLED}))", re.IGNORECASE
)
# A safety notice named by its signal word: set in capitals ("What does the CAUTION say?"), or with
# the noun it labels ("the warning notice", "the danger label").
_SIGNAL = "danger|warning|caution|notice"
_NOTICE_NAMED = re.compile(
    rf"\b(?:(?:{_SIGNAL})\s+(?:notice|label|sign|statement)s?|(?-i:DANGER|WARNING|CAUTION|NOTICE))\b", re.IGNORECASE
)
# A question that asks for a proof ("Prove Lemma 2.1", "What is the proof of Theorem 3.2?"): only
# then is a statement's proof part of the statement it names.
_PROOF_ASKED = re.compile(r"\b(?:prove|proves|proving|proof|proofs|demonstrate)\b", re.IGNORECASE)
_ANSWER_ASKED = re.compile(r"\b(?:answers?|solutions?|solved?|hints?)\b", re.IGNORECASE)
_DEPENDENTS = re.compile(r"\b(?:depend(?:s|ing|ent)?|dependent)\s+(?:on|upon|from)\b", re.IGNORECASE)
# A meeting's papers name their numbered parts as the meeting does: "minute 4.2", "item 5", "agenda
# item 3". In a question each names the section so numbered, else the paragraph that opens with the
# number (an agenda's row "5 19:00 Damp and mould ..."). At question time only: in a manual's text
# "item 5" is as often a callout on a drawing.
_ITEM_NAMED = re.compile(r"\b(?:[Mm]inute|MINUTE|[Ii]tem|ITEM)\s+(\d{1,3}(?:\.\d{1,3})*)(?!\w|\.\d)")
# An item named as the agenda's ("agenda item 3", "item 5 on the agenda") is one of the agenda only.
# A standard's subclause named by its number alone, as ISO names its subclauses ("What does 5.3.2
# require?", "Summarise A.2"): a number of two levels or more, not a quantity ("1.6 mm", "±0.5", "2.5 %"),
# a version ("version 2.1", "Python 3.12": after a name) or a bound ("between 2.5 and 3.5").
_UNIT = (
    r"%|‰|°|×|(?:mm|cm|km|nm|µm|μm|m|kg|mg|g|t|ms|s|min|h|Hz|kHz|MHz|GHz|N|kN|Pa|kPa|MPa|GPa|bar|V|kV|mV|A|mA|W"
    r"|kW|MW|J|kJ|K|l|L|ml|mL|dB|ft|lb|lbs|psi|rpm|times|per|x)(?!\w)"
)
_BARE_SUBCLAUSE = re.compile(
    rf"(?<![\w.,/±~<>=+−$€£-])(?:[1-9]\d{{0,2}}|[A-Z])(?:\.\d{{1,3}}){{1,4}}(?![\w.,]?\d|\w|\s*(?:{_UNIT}))"
)
_NOT_A_PLACE_BEFORE = re.compile(
    r"(?i:version|release|v|rev|revision|firmware|build|between|than|approximately|about|around|over|under"
    r"|below|above|exceeds?|from|to|equals?)"
)
# A judgment's paragraphs are numbered in one series and cited by number alone: "paragraph 23",
# "para. 23", "[23]". In a question each names the paragraph or list item that opens with the number
# (not "paragraph 4.3" or "paragraph 3 of Schedule 2", which name parts as ingest reads them).
_PARAGRAPH_NAMED = re.compile(
    r"(?:\b(?:[Pp]aragraphs?|PARAGRAPHS?|[Pp]aras?\.?)\s+\[?|(?<![\w\]])\[(?=\d{1,3}\]))"
    r"(\d{1,3})(?![\w.,]\d|\w|\]?\s+of\s)"
)
_AGENDA_ITEM = re.compile(r"\bagenda\s+item\s+\d|\bitem\s+\d{1,3}\s+(?:on|of|in)\s+the\s+agenda\b", re.IGNORECASE)
AGENDA = "agenda"
_OPENING_NUMBER = re.compile(r"^\[?(\d{1,3})[.\]]?[ \t]+(?=\S)")  # "3. ...", "5 ...", "[23] ..."
ITEM_KINDS = frozenset({"paragraph", "list"})
_PRINTED_NUMBER = re.compile(
    r"^\s*(?:(?i:page|p\.|seite|page|página|pagina)\s*)?[-–—]?\s*(\d{1,4})\s*[-–—]?(?:\s*(?i:of|/|von|de|di)\s*\d{1,4})?\s*$"
)


class StoredSection(Protocol):
    """A stored section as the corpus loads it (:class:`app.retrieval.corpus.SectionInfo`)."""

    @property
    def section_id(self) -> str: ...
    @property
    def number(self) -> str: ...
    @property
    def title(self) -> str: ...
    @property
    def level(self) -> int: ...
    @property
    def page_start(self) -> int: ...
    @property
    def parent_id(self) -> str | None: ...


def names_parts(question: str) -> bool:
    """Whether ``question`` names a part of some document by number as where its answer is: not
    when it says that a passage refers somewhere ("Section 2.2 defers the details to a later
    section": the part may be the referring one; following references answers those)."""
    named = PART_KINDS | PAGE_KINDS
    named_here = any(m.kind in named for m in _mentions(question)) or bool(_TITLED_PART.search(question))
    parts = named_here and not describes_referral(question)
    # a note's text is what it cites, a condition's what it requires, and an entry's what is cited
    asked = (_NOTE_ASKED, _CONDITION_ASKED, _CITATION_ASKED)
    return parts or any(pattern.search(question) is not None for pattern in asked)


def named_notes(question: str) -> list[tuple[int, str]]:
    """The notes ``question`` names as where its answer is ("What does footnote 12 cite?"): their
    numbers, each with the kind of note it names ("foot", "end", or "" for a plain "note")."""
    if not names_parts(question):
        return []
    found = ((int(match.group(2)), (match.group(1) or "").lower()) for match in _NOTE_ASKED.finditer(question))
    return list(dict.fromkeys(found))


def without_note_owners(question: str) -> str:
    """``question`` without the table or figure that only says whose note it names ("What does note
    2 of Table 5 say?" asks for the note, not the table): its label names no kind to look in."""
    return _NOTE_OWNER.sub(r"\1", question)


def named_conditions(question: str) -> list[int]:
    """The numbers of the conditions ``question`` names ("What is condition 9?"), each once."""
    return list(dict.fromkeys(int(match.group(1)) for match in _CONDITION_ASKED.finditer(question)))


def named_citations(question: str) -> list[int]:
    """The numbers of the bibliography entries ``question`` names ("What is reference [2]?"), each once."""
    return list(dict.fromkeys(int(match.group(1)) for match in _CITATION_ASKED.finditer(question)))


def cited_entry_numbers(text: str) -> list[int]:
    """The numbers of the bibliography entries ``text`` holds, a line opening with each: "[2] ISO 4587, ..."."""
    return [int(match.group(1)) for line in text.splitlines() if (match := _CITED_ENTRY.match(line))]


def named_paragraphs(question: str) -> list[int]:
    """The numbers of the paragraphs ``question`` names by the part they are of ("paragraph 3 of
    Schedule 2"): a schedule's numbered paragraphs are read as one list, of which that item is the
    quote."""
    if not names_parts(question):
        return []
    found = (_PARAGRAPH_NUMBER.match(m.number) for m in _mentions(question) if m.kind == "paragraph")
    numbers = [int(match.group(1)) for match in found if match]
    numbers += [int(match.group(1)) for match in _PARAGRAPH_NAMED.finditer(question)]  # a judgment's "[23]"
    return list(dict.fromkeys(numbers))


def named_parts(question: str, own_names: str = "") -> list[Mention]:
    """The parts of the document whose titles are ``own_names`` that ``question`` names by number as
    where its answer is, in order: "clause 7.3 of the Agreement" is one of a document titled "...
    Services Agreement", of no other."""
    if not names_parts(question):
        return []
    return [m for m in _mentions(question, own_names) if m.kind in PART_KINDS and not m.external]


def named_pages(question: str, slides: bool = False) -> list[int]:
    """The page numbers ``question`` names as where its answer is ("on page 3", "pages 4 and 5"); in
    a slide deck (``slides``) "slide 12" names its twelfth page too, as a deck's "see slide 12" does."""
    if not names_parts(question):
        return []
    kinds = PAGE_KINDS if slides else PAGE_KINDS - {"slide"}
    return [int(m.number) for m in _mentions(question) if m.kind in kinds and not m.external]


def part_label_words(question: str) -> set[str]:
    """The words of the labels ``question`` names parts by ("clause", "7.3", "page", "3"): they say
    where the answer is, and a passage of that part holds them without printing them."""
    if not names_parts(question):
        return set()
    named = [m for m in _mentions(question) if m.kind in PART_KINDS | PAGE_KINDS and not m.external]
    notes = [match.group(0) for match in _NOTE_ASKED.finditer(question)]
    notes += [match.group(0) for match in _CONDITION_ASKED.finditer(question)]
    notes += [match.group(0) for match in _CITATION_ASKED.finditer(question)]
    titled = [found.group(0) for found in _TITLED_PART.finditer(question)]
    agenda = [found.group(0) for found in _AGENDA_ITEM.finditer(question)]  # "item 5 on the agenda"
    bare = {mention.start for mention in _bare_subclauses(question)}
    written = [_word_before(question, m) for m in named if m.start not in bare]  # no word names a bare number
    labels = [*(m.label for m in named), *written, *notes, *titled, *agenda]
    return {word for text in labels for word in tokenize(text)}


def _word_before(question: str, mention: Mention) -> str:
    """The word ``question`` names ``mention`` by, as written ("recommendation 1.3.2", "Klausel 4"),
    which its label may spell otherwise ("Clause 1.3.2")."""
    before = question[: mention.start].split()
    return before[-1] if before else ""


def titled_sections(question: str, sections: Iterable[StoredSection]) -> list[str]:
    """The ids of the sections ``question`` names by their titles ("the background section": a
    section titled "BACKGROUND", or one whose title starts so: "Background of the Invention")."""
    if not names_parts(question):
        return []
    named = [words for found in _TITLED_PART.finditer(question) if (words := tokenize(found.group(1)))]
    return [
        section.section_id
        for section in sections
        if any(tokenize(section.title)[: len(words)] == words for words in named)
    ]


def named_notices(question: str) -> set[str]:
    """The signal words of the safety notices ``question`` names ("CAUTION" of "What does the CAUTION
    notice say?"), in capitals, as a notice's label is set."""
    return {match.group(0).split()[0].upper() for match in _NOTICE_NAMED.finditer(question)}


def notice_words(question: str) -> set[str]:
    """The words naming a notice in ``question`` ("caution" and "notice" of "the CAUTION notice")."""
    return {word for match in _NOTICE_NAMED.finditer(question) for word in tokenize(match.group(0))}


def opens_with_label(text: str, label: str) -> bool:
    """``text`` opens with ``label`` in capitals, as a notice does ("CAUTION The boiler ...")."""
    head = text.lstrip()
    return head.startswith(label) and not head[len(label) : len(label) + 1].isalnum()


def asks_for_proof(question: str) -> bool:
    """Whether ``question`` asks for a proof of the statement it names ("Prove Lemma 2.1"), not
    for what the statement says ("What does Theorem 3.2 say?")."""
    return _PROOF_ASKED.search(question) is not None


def asks_for_answer(question: str) -> bool:
    """Whether ``question`` asks for the answer to the exercise it names ("What is the answer to
    Exercise 3.5?", "Solve Exercise 3.5"), which a book prints apart from the exercise."""
    return _ANSWER_ASKED.search(question) is not None


def asks_for_dependents(question: str) -> bool:
    """Whether ``question`` asks for what depends on the parts it names ("Which claims depend on
    claim 3?", "What is dependent from claim 1?"): the regions that refer to them are in the part."""
    return bool(_DEPENDENTS.search(question))


@lru_cache(maxsize=256)
def _mentions(question: str, own_names: str = "") -> tuple[Mention, ...]:
    """The mentions in ``question``, read once per question and document name: one query asks
    for them in gathering, in ranking and per document."""
    found = [*find_mentions(question, own_names), *_items(question), *_bare_subclauses(question)]
    return tuple(sorted(found, key=lambda mention: mention.start))


def _items(question: str) -> list[Mention]:
    """The items and minutes ``question`` names, as clause mentions, and the paragraphs it names by a
    whole number, as paragraph mentions: "[23]", but not "reference [2]", a bibliography's entry."""
    items = [Mention("clause", match.group(1), match.start(1)) for match in _ITEM_NAMED.finditer(question)]
    cited = {m.start(1) for m in _CITATION_ASKED.finditer(question) if m.start(1) - m.start() > 1}  # "reference [2]"
    found = (match for match in _PARAGRAPH_NAMED.finditer(question) if match.start(1) not in cited)
    paragraphs = [Mention("paragraph", match.group(1), match.start(1)) for match in found]
    return sorted([*items, *paragraphs], key=lambda mention: mention.start)


@lru_cache(maxsize=256)
def _bare_subclauses(question: str) -> tuple[Mention, ...]:
    """The subclauses ``question`` names by their numbers alone ("What does 5.3.2 require?"), as
    section mentions: not one a word names ("clause 5.3.2", "minute 4.2"), nor a number after a name
    or a word of quantity ("Python 3.12", "over 2.5")."""
    named = {question.find(m.number, m.start) for m in [*find_mentions(question), *_items(question)]}  # "(3.7)"
    found: list[Mention] = []
    quantity = False  # the number before was no place: "between 2.5 and 3.5" names none
    for match in _BARE_SUBCLAUSE.finditer(question):
        before = question[: match.start()].split()
        word = before[-1].strip("(\"'“‘") if before else ""
        listed = word.lower() in ("and", "or") and len(before) > 1 and before[-2][:1].isdigit()
        after_name = len(before) > 1 and word[:1].isupper()
        quantity = (listed and quantity) or after_name or _NOT_A_PLACE_BEFORE.fullmatch(word) is not None
        if not quantity and match.start() not in named:
            found.append(Mention("section", match.group(0), match.start()))
    return tuple(found)


def named_items(question: str) -> list[Mention]:
    """The numbered items, minutes or paragraphs ``question`` names ("item 5", "minute 4.2",
    "paragraph 23", "[23]"): where no section or sub-clause bears the number, the paragraph or list
    item that opens with it."""
    return _items(question) if names_parts(question) else []


def names_agenda_items(question: str) -> bool:
    """Whether ``question`` names its items as the agenda's ("agenda item 3", "item 5 on the agenda")."""
    return _AGENDA_ITEM.search(question) is not None


def row_numbers(text: str) -> list[str]:
    """The whole numbers a table's body rows open with, in their first cell ("| 5 | 19:00 | Damp and
    mould ... |"): an agenda set as a table numbers its items so."""
    rows = text.splitlines()[2:]  # under the header row and its rule
    return [cell for row in rows if (cell := row.removeprefix("|").split("|", 1)[0].strip()).isdigit()]


def opening_numbers(kind: str, text: str) -> list[str]:
    """The whole numbers a paragraph opens with, as an agenda's or a list's item does ("5 19:00 Damp
    and mould ...", "3. Matters arising"), and each item of a list ("22. The judge found ..." after
    "21. ..."): the item a question names by it."""
    if kind not in ITEM_KINDS:
        return []
    lines = text.splitlines() if kind == "list" else text.splitlines()[:1]
    return [match.group(1) for line in lines if (match := _OPENING_NUMBER.match(line))]


def asks_only_where(question: str, named: set[str]) -> bool:
    """Whether ``question`` names parts or labels, whose words are ``named``, and nothing it asks of
    them ("What is on page 3?", "What does clause 7.3 say?", "What does Table 3 show?"): the other
    signals then rank by words that name nothing, and the named places come first."""
    return bool(named) and set(tokenize(question)) <= named | WHERE_ONLY_WORDS


def printed_number(text: str) -> int | None:
    """The page number a running head or foot prints ("12", "Page 12", "Page 12 of 40", "- 12 -")."""
    match = _PRINTED_NUMBER.match(text)
    return int(match.group(1)) if match else None


def part_index(sections: Iterable[StoredSection], regions: Iterable[tuple[str, str, str]]) -> TargetIndex:
    """A stored document's numbering: its ``sections`` (in document order) and its ``regions``
    (id, kind, text; in document order) that open with a sub-clause number or a statement's head,
    formulas that end in their number, or a patent's claims, as ingest indexes them (one part)."""
    ordered = list(sections)
    position = {section.section_id: i for i, section in enumerate(ordered)}
    specs = [
        SectionSpec(
            index=i,
            title=section.title,
            level=section.level,
            number=section.number,
            page_start=section.page_start,
            parent=position.get(section.parent_id) if section.parent_id else None,
            anchor=(section.page_start, 0.0),
            header_key=None,
        )
        for i, section in enumerate(ordered)
    ]
    index = TargetIndex()
    index_sections(index, specs, lambda i: ordered[i].section_id, lambda _: 0)
    listed = list(regions)
    for region_id, kind, text in listed:
        index_clause(index, region_id, kind, text, 0)
        index_equation(index, region_id, kind, text, 0)
    index_statements(index.statements, ((region_id, kind, text, 0) for region_id, kind, text in listed))
    index.claims = claim_targets(listed)
    return index


def resolved_parts(index: TargetIndex, mentions: Iterable[Mention]) -> list[tuple[str, str]]:
    """("Section", section id) or ("Region", region id) of each mention that resolves, once each."""
    found: list[tuple[str, str]] = []
    for mention in mentions:
        target = index.resolve_part(mention)
        if target is not None and target not in found:
            found.append(target)
    return found

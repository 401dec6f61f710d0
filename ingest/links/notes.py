"""Note marks -> the notes they call (REF edges, ``kind: 'footnote'``, label "Note 12").

A raised number in the text ("... the child of the printed book,¹") calls the footnote that opens
with that number at the foot of its page (or of the next, where the note was pushed over), or, in a
book or thesis that gathers its notes at each chapter's end, the entry so numbered in the first
"Notes" section after the mark. Numbers start again in each chapter, so a mark is only looked for
there; a mark with no such note (an exponent, "10⁻³") makes no edge and is not counted.
"""

from __future__ import annotations

import re

from docgraph.ingest.links.citations import bibliography_regions, build_bibliography
from docgraph.ingest.pdf.text import SUPERSCRIPT_DIGITS
from docgraph.ingest.structure.ids import PlacedRegion
from docgraph.ingest.structure.sections import SectionTree
from docgraph.records import EdgeRecord

_TO_DIGITS = str.maketrans(SUPERSCRIPT_DIGITS, "0123456789")
# A mark after a word or a closing punctuation, not part of an exponent ("10⁻³", "m²⁰") nor of a name
# that runs on past it ("I²C"): a mark ends its word, so no letter of an alphabet that spaces its
# words follows it (Chinese and Japanese run on unspaced).
_RUNS_ON = "A-Za-z0-9\u00c0-\u024f\u0370-\u03ff\u0400-\u04ff"
_MARK = re.compile(
    rf"(?<=[^\W\d_]|[.,;:!?)\]’”'\"])([{SUPERSCRIPT_DIGITS}]{{1,3}})(?![{SUPERSCRIPT_DIGITS}⁻⁺{_RUNS_ON}])"
)
# A mark set in brackets, as datasheets set their notes' marks: raised in the text ("noted)⁽¹⁾"), and
# glued to a table cell's last word, closing the cell ("| Dropout voltage(1) |", "| Tstg(2) |").
_BRACKETED_MARK = re.compile(rf"(?<=\S)⁽([{SUPERSCRIPT_DIGITS}]{{1,2}})⁾")
_CELL_MARK = re.compile(r"(?<=[^\W\d_])\((\d{1,2})\)(?=\s*\|)")
# A note opens with its number: "¹²Text", "12. Text", "12 Text", "(12) Text".
_NOTE_HEAD = re.compile(rf"^\s*(?:([{SUPERSCRIPT_DIGITS}]{{1,3}})|\(?(\d{{1,3}})[.)]?(?=\s))\s*\S")
# An entry of a chapter's endnotes: a line opening "12. " (or "12 ") in a list or paragraph.
_ENTRY_HEAD = re.compile(r"^\s*(\d{1,3})\.?\s+\S", re.MULTILINE)
# A standard's note set as a paragraph that opens with its label: ISO's "NOTE 2 A timeout ...", ETSI's
# "NOTE 2: ...". Standards number notes afresh in each clause.
_LABELLED_NOTE = re.compile(r"^\s*(?:NOTE|Note)\s+(\d{1,2})(?::\s*|\s+)(?=[^\W\d_])")
# A raised reference number (Vancouver style), after a word of three letters or more or a punctuation mark.
_CITED_MARK = re.compile(
    rf"(?:(?<=[^\W\d_]{{3}})|(?<=[.,;:)\]’”'\"]))([{SUPERSCRIPT_DIGITS}]{{1,3}})(?![{SUPERSCRIPT_DIGITS}⁻⁺/])"
)
NOTES_TITLE = re.compile(r"^\s*(?:end\s*)?notes(?:\s+to\s+.*)?\s*$", re.IGNORECASE)
SOURCE_KINDS = frozenset({"paragraph", "list", "caption", "table"})
ENTRY_KINDS = frozenset({"paragraph", "list", "footnote"})


def note_number(text: str) -> int | None:
    """The number a footnote opens with ("¹²Text", "12. Text"), if any."""
    match = _NOTE_HEAD.match(text)
    if match is None:
        return None
    return int((match.group(1) or match.group(2)).translate(_TO_DIGITS))


def entry_numbers(text: str) -> list[int]:
    """The numbers of the endnotes a region of a "Notes" section holds, one per line opening with one."""
    return [int(m.group(1)) for m in _ENTRY_HEAD.finditer(text)]


def numbers_of(kind: str, text: str, in_notes_section: bool) -> list[int]:
    """The numbers of the notes a region holds: a footnote's own, the entries of a "Notes" section, or
    a standard's note set as a paragraph ("NOTE 2 A timeout ...")."""
    if kind == "paragraph" and (labelled := _LABELLED_NOTE.match(text)):
        return [int(labelled.group(1))]
    if kind == "footnote" and not in_notes_section:
        number = note_number(text)
        return [number] if number is not None else []
    return entry_numbers(text) if in_notes_section and kind in ENTRY_KINDS else []


def marks(text: str, kind: str = "paragraph") -> list[int]:
    """The note numbers raised in ``text``, in order, once each; bare or in brackets, and in a
    table's cells also bracketed after their last word ("Tstg(2)")."""
    found = [*_MARK.finditer(text), *_BRACKETED_MARK.finditer(text)]
    found += _CELL_MARK.finditer(text) if kind == "table" else []
    ordered = sorted(found, key=lambda m: m.start())
    return list(dict.fromkeys(int(m.group(1).translate(_TO_DIGITS)) for m in ordered))


def note_edges(placed: list[PlacedRegion], tree: SectionTree) -> list[EdgeRecord]:
    footnotes: dict[tuple[int, int], str] = {}  # (page, number) -> footnote
    read: list[tuple[int, int, int, str]] = []  # (position, page, number, footnote) in reading order
    for index, pr in enumerate(placed):
        number = note_number(pr.region.text) if pr.region.kind == "footnote" else None
        if number is not None:
            footnotes.setdefault((pr.page, number), pr.key)
            read.append((index, pr.page, number, pr.key))
    endnotes = _endnote_sections(placed, tree)
    references = build_bibliography(bibliography_regions(placed, tree)).numbers
    # the front matter's raised numbers are the authors' affiliations ("CV Rajagopal¹,³"), no citations
    body = next((i for i, pr in enumerate(placed) if pr.region.kind == "section_header"), len(placed))
    edges: list[EdgeRecord] = []
    linked: set[tuple[str, str | None, str]] = set()
    for index, pr in enumerate(placed):
        if pr.region.kind not in SOURCE_KINDS:
            continue
        for number in marks(pr.region.text, pr.region.kind):
            target = footnotes.get((pr.page, number)) or footnotes.get((pr.page + 1, number))
            if pr.region.kind == "table":  # its own notes, read after it (under its part on the next page)
                target = _next_note(read, index, pr.page, number)
            target = target or _endnote(endnotes, index, number)
            props: dict[str, object] = {"kind": "footnote", "label": f"Note {number}"}
            if target is None and index > body and number in references and number in cited_marks(pr.region.text):
                target, props = references[number], {"kind": "citation", "label": f"[{number}]"}
            # one citation edge to a reference list that holds two cited entries; a note edge per note
            seen = (pr.key, target, "" if props["kind"] == "citation" else str(props["label"]))
            if target is not None and target != pr.key and seen not in linked:
                linked.add(seen)
                edges.append(EdgeRecord("REF", "Region", pr.key, "Region", target, props))
    return edges


def _next_note(read: list[tuple[int, int, int, str]], index: int, page: int, number: int) -> str | None:
    """The first footnote numbered ``number`` read after the region at ``index`` on its ``page`` or
    the next: a table's notes are set under it, or under its part continued on the next page, and
    another table's notes numbered alike may stand before it on its page."""
    return next((key for at, on, n, key in read if at > index and n == number and on <= page + 1), None)


def cited_marks(text: str) -> list[int]:
    """The raised numbers of ``text`` set as a medical text cites its numbered references
    ("... in children⁴ and in adults⁵."): after a word of three letters or more or a punctuation
    mark, never after a unit's letters ("m²", "cm³") nor before a fraction's slash ("(x)¹/2")."""
    return [int(m.group(1).translate(_TO_DIGITS)) for m in _CITED_MARK.finditer(text)]


def _endnote_sections(placed: list[PlacedRegion], tree: SectionTree) -> list[tuple[int, dict[int, str]]]:
    """(position of its first region, number -> region) of each "Notes" section, in document order."""
    sections: dict[int, tuple[int, dict[int, str]]] = {}
    for index, pr in enumerate(placed):
        owner = tree.owner.get(pr.key)
        if owner is None or not NOTES_TITLE.match(tree.sections[owner].title):
            continue
        _, entries = sections.setdefault(owner, (index, {}))
        for number in numbers_of(pr.region.kind, pr.region.text, True):
            entries.setdefault(number, pr.key)
    return sorted(sections.values(), key=lambda section: section[0])


def _endnote(sections: list[tuple[int, dict[int, str]]], index: int, number: int) -> str | None:
    """The entry ``number`` of the first notes section after the mark at ``index``."""
    following = next((entries for start, entries in sections if start > index), None)
    return following.get(number) if following else None

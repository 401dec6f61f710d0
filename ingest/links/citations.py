"""Bibliographic citations ("Zeileis (2006)", "(Kleiber and Zeileis 2008)", "[12]") -> REF edges.

A citation links the region that cites to the bibliography region holding the cited entry.
Entries are only looked for under a bibliography section (References, Bibliography, ...).
Author-year citations resolve by (first author's surname, year), the co-authors settling ties;
numeric and label citations resolve by the entry's label. A citation that does not resolve to
exactly one region is counted, never guessed: a wrong link is worse than none.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from itertools import pairwise

from docgraph.ingest.links.author_lists import MAX_RUN_CHARS, Authors, author_run
from docgraph.ingest.structure.heading_numbers import strip_number
from docgraph.ingest.structure.ids import PlacedRegion
from docgraph.ingest.structure.sections import SectionTree
from docgraph.records import EdgeRecord

BIB_KINDS = frozenset({"paragraph", "list", "footnote"})
# Code and formulas index arrays ("x[1]") and print dates; headings and figures do not cite.
SOURCE_KINDS = frozenset({"paragraph", "list", "footnote", "caption", "table"})
HEADER_KINDS = frozenset({"section_header", "title"})
MAX_RANGE = 50  # "[3-700]" is not a citation range
MAX_NARRATIVE_TAIL = 40  # "Zeileis (2006, p. 3)": the label runs to the closing bracket if near

_BIB_TITLE = re.compile(
    r"(?:(?:appendix|chapter|section|part)\s+)?(?:[a-z]|[ivxl]+|\d+(?:\.\d+)*)?[.:)]?\s*"
    r"(?:selected\s+|cited\s+|further\s+)?"
    r"(?:references|bibliography|works\s+cited|literature(?:\s+cited)?|citations|references\s+and\s+notes)",
    re.IGNORECASE,
)
# A year, "2006a" included; not part of a date ("2004-01-05"), a version or a number ("12006").
_YEAR = re.compile(r"(?<![\w./\-–])((?:19|20)\d\d)([a-z]?)(?![\w/]|[-–]\d)")
_LETTER_SUFFIX = re.compile(r"\s*,\s*([a-z])(?=\s*[,;)])")  # "(2006a, b)"
_YEAR_LIST_SEP = re.compile(r"\s*,\s*")
# Entry labels at the start of a region or right after the previous entry's final period.
_LABEL_HEAD = re.compile(r"(?:^|(?<=\.\s))(?:\[(?P<bracket>[^\]\s]{1,20})\]|(?P<dotted>\d{1,3})\.(?=\s+[A-Z]))\s")
# A numbered entry after one that ends in a URL or DOI ("...doi.org/10.1145/1188913. 1188915 [2] P. Abril"):
# anywhere in a bibliography region, but only as the next number of the sequence.
_BRACKET_NUMBER_HEAD = re.compile(r"(?<![\w\]])\[(?P<bracket>\d{1,3})\]\s")
_NUMERIC_CITE = re.compile(r"(?<![\w\])])\[(\d{1,3}(?:\s*[,–\-]\s*\d{1,3})*)\]")
_LABEL_CITE = re.compile(r"\[([A-Za-z][\w\-+.]{1,30})\]")
_NUMBER_ITEM = re.compile(r"(\d{1,3})(?:\s*[–\-]\s*(\d{1,3}))?")


def is_bibliography_title(title: str) -> bool:
    return bool(_BIB_TITLE.fullmatch(" ".join(strip_number(title).split())))


# ---- the bibliography ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Entry:
    region: str  # region_id of the bibliography region holding the entry
    names: tuple[str, ...]
    year: str  # "2006a"


@dataclass(slots=True)
class Bibliography:
    regions: dict[str, str] = field(default_factory=dict)  # region_id -> text
    by_author: dict[tuple[str, str], list[Entry]] = field(default_factory=dict)  # (surname, year)
    numbers: dict[int, str] = field(default_factory=dict)  # entry number -> region
    labels: dict[str, str] = field(default_factory=dict)  # "[Zei06]" label -> region

    def add(self, entry: Entry) -> None:
        self.by_author.setdefault((entry.names[0], entry.year), []).append(entry)


def bibliography_regions(placed: list[PlacedRegion], tree: SectionTree) -> list[PlacedRegion]:
    """Regions under a bibliography section (and its subsections); without one, the regions after
    the last bibliography heading up to the next heading (a heading the outline does not list)."""
    sections: set[int] = set()
    for section in tree.sections:  # parents come before their children
        if is_bibliography_title(section.title) or section.parent in sections:
            sections.add(section.index)
    if sections:
        return [pr for pr in placed if tree.owner.get(pr.key) in sections and pr.region.kind in BIB_KINDS]
    headings = [i for i, pr in enumerate(placed) if pr.region.kind == "section_header"]
    starts = [i for i in headings if is_bibliography_title(placed[i].region.text)]
    if not starts:
        return []
    run: list[PlacedRegion] = []
    for pr in placed[starts[-1] + 1 :]:
        if pr.region.kind in HEADER_KINDS:
            break
        if pr.region.kind in BIB_KINDS:
            run.append(pr)
    return run


def build_bibliography(regions: list[PlacedRegion]) -> Bibliography:
    bib = Bibliography()
    next_number = 1
    for pr in regions:
        text = pr.region.text
        bib.regions[pr.key] = text
        heads = [*_LABEL_HEAD.finditer(text), *_BRACKET_NUMBER_HEAD.finditer(text)]
        for head in sorted(heads, key=lambda m: m.start()):
            label = head.group("bracket") or head.groupdict().get("dotted") or ""
            # Numbers count only in sequence: a stray "12." in an entry's body does not start one.
            if label.isdigit() and int(label) == next_number:
                bib.numbers[next_number] = pr.key
                next_number += 1
            elif not label.isdigit() and head.group("bracket"):
                bib.labels.setdefault(label, pr.key)
        for entry in _author_year_entries(text, pr.key):
            bib.add(entry)
    return bib


def _author_year_entries(text: str, key: str) -> list[Entry]:
    """Entries headed "Authors (Year)" or "Authors, Year." that start the region or follow the
    previous entry's final period: a region may hold several entries."""
    entries: list[Entry] = []
    for year in _YEAR.finditer(text):
        opened = text[: year.start()].rstrip().endswith("(")
        after = text[year.end() : year.end() + 1]
        if not (after == ")" if opened else after in (".", ",", ":")):
            continue
        end = text.rfind("(", 0, year.start()) if opened else year.start()
        authors = author_run(text, end)
        before = text[: authors.start].rstrip() if authors else ""
        if authors and (not before or before.endswith((".", "”", '"'))):
            entries.append(Entry(key, authors.names, year.group(0).lower()))
    return entries


# ---- citations in text ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Citation:
    label: str  # as written
    authors: Authors | None = None
    year: str = ""
    numbers: tuple[int, ...] = ()
    key: str = ""  # a non-numeric bracket label


def find_citations(text: str) -> list[Citation]:
    return _author_year_citations(text) + _bracket_citations(text)


def _author_year_citations(text: str) -> list[Citation]:
    found: list[Citation] = []
    previous: tuple[int, Citation] | None = None  # where the last cited year ended, and its citation
    for year in _YEAR.finditer(text):
        citation = _cite_at(text, year, previous)
        if citation is None:
            previous = None
            continue
        found.append(citation)
        end = year.end()
        if year.group(2):  # "(2006a, b)": the bare letters are further years of the same authors
            for letter in _LETTER_SUFFIX.finditer(text, end):
                if letter.start() != end:
                    break
                found.append(Citation(citation.label, citation.authors, year.group(1) + letter.group(1)))
                end = letter.end()
        previous = (end, citation)
    return found


def _cite_at(text: str, year: re.Match[str], previous: tuple[int, Citation] | None) -> Citation | None:
    """The citation whose year this is: narrative "Smith (2006)", parenthetical "(Smith 2006)",
    a further year "(Smith 2006, 2008)", or a bare "Smith et al. 2006". A year outside brackets
    with no "et al." before it ("in 2006", "Windows 2000") cites nothing."""
    written = year.group(0).lower()
    opened = text.rfind("(", max(0, year.start() - MAX_RUN_CHARS), year.start())
    inside = opened >= 0 and ")" not in text[opened : year.start()]
    if not inside:
        authors = author_run(text, year.start())
        if authors is None or not authors.et_al:
            return None
        return Citation(_squash(text[authors.start : year.end()]), authors, written)
    if not text[opened + 1 : year.start()].strip():
        authors = author_run(text, opened)
        if authors is None:
            return None
        close = text.find(")", year.end(), year.end() + MAX_NARRATIVE_TAIL)
        return Citation(_squash(text[authors.start : close + 1 if close >= 0 else year.end()]), authors, written)
    if previous and _YEAR_LIST_SEP.fullmatch(text, previous[0], year.start()):
        return Citation(previous[1].label, previous[1].authors, written)
    authors = author_run(text, year.start(), lo=opened + 1)
    return Citation(_squash(text[authors.start : year.end()]), authors, written) if authors else None


def _bracket_citations(text: str) -> list[Citation]:
    numeric = [(m.group(0), _expand_numbers(m.group(1))) for m in _NUMERIC_CITE.finditer(text)]
    found = [Citation(written, numbers=numbers) for written, numbers in numeric if numbers]
    labels = [m for m in _LABEL_CITE.finditer(text) if any(ch.isupper() for ch in m.group(1))]
    return found + [Citation(m.group(0), key=m.group(1)) for m in labels]


def _expand_numbers(written: str) -> tuple[int, ...]:
    """ "3, 5-7" -> (3, 5, 6, 7); empty unless strictly increasing ("[1,1,3]" is a dash pattern)."""
    numbers: list[int] = []
    for item in _NUMBER_ITEM.finditer(written):
        low = int(item.group(1))
        high = int(item.group(2)) if item.group(2) else low
        if high < low or high - low > MAX_RANGE:
            return ()
        numbers += range(low, high + 1)
    increasing = all(a < b for a, b in pairwise(numbers))
    return tuple(numbers) if numbers and increasing and numbers[0] > 0 else ()


def _squash(text: str) -> str:
    return " ".join(text.split())


# ---- resolution ----------------------------------------------------------------------------


def resolve(citation: Citation, bib: Bibliography) -> tuple[list[str], str]:
    """The bibliography regions a citation points at (empty when it does not resolve) and its
    label, less a sentence opener that turned out not to be an author."""
    if citation.numbers:
        # A bracket with a number that has no entry is something else ("[0, 1]" an interval).
        known = bool(bib.numbers) and all(n in bib.numbers for n in citation.numbers)
        return (list(dict.fromkeys(bib.numbers[n] for n in citation.numbers)) if known else []), citation.label
    target: str | None = None
    label, authors = citation.label, citation.authors
    if citation.key:
        target = bib.labels.get(citation.key) or _label_at_entry_start(citation.key, bib)
    elif authors and authors.lone_first_word and (authors.names[0], citation.year) not in bib.by_author:
        # "Notably, Smith (2006)": the first "name" began the sentence.
        target = _author_year_target(authors, authors.names[1:], citation.year, bib)
        label = label.split(",", 1)[1].strip()
    elif authors:
        target = _author_year_target(authors, authors.names, citation.year, bib)
    return ([target] if target else []), label


def _author_year_target(authors: Authors, names: tuple[str, ...], year: str, bib: Bibliography) -> str | None:
    candidates = bib.by_author.get((names[0], year), []) if names else []
    if len(names) > 1 and not authors.et_al:
        # The second author must be among the entry's co-authors, also to settle ties.
        candidates = [e for e in candidates if names[1] in e.names[1:]]
    elif len({e.region for e in candidates}) > 1:
        # "Smith et al." is an entry of three or more authors, a lone "Smith" one of Smith alone.
        candidates = [e for e in candidates if (len(e.names) >= 3 if authors.et_al else len(e.names) == 1)]
    regions = {e.region for e in candidates}
    return regions.pop() if len(regions) == 1 else None


def _label_at_entry_start(label: str, bib: Bibliography) -> str | None:
    """A label-style bibliography whose labels lost their brackets ("GNOMEThe GNOME desktop"):
    the single region starting with the label, not followed by more lowercase letters or digits.
    Only when the bibliography has neither author-year nor numbered entries."""
    if bib.by_author or bib.numbers:
        return None
    after = len(label)
    hits = [
        key
        for key, text in bib.regions.items()
        if text.startswith(label) and not (text[after : after + 1].islower() or text[after : after + 1].isdigit())
    ]
    return hits[0] if len(hits) == 1 else None


def _applies(citation: Citation, bib: Bibliography) -> bool:
    """Whether the bibliography has entries of the citation's style: "x[1]" in a document with an
    author-year bibliography is no citation, and is not counted as an unresolved one."""
    if citation.numbers:
        return bool(bib.numbers)
    if citation.key:
        return bool(bib.labels) or not (bib.by_author or bib.numbers)
    return bool(bib.by_author)


# ---- edges ---------------------------------------------------------------------------------


@dataclass(slots=True)
class CitationResult:
    edges: list[EdgeRecord]
    resolved: int
    unresolved: int


def citation_edges(placed: list[PlacedRegion], tree: SectionTree) -> CitationResult:
    """REF edges (kind "citation") from each citing region to each bibliography region it cites,
    each pair once; each distinct citation in a region counts once as resolved or unresolved."""
    bib = build_bibliography(bibliography_regions(placed, tree))
    result = CitationResult([], 0, 0)
    if not bib.regions:
        return result
    for pr in placed:
        if pr.key in bib.regions or pr.region.kind not in SOURCE_KINDS or not pr.region.text:
            continue
        seen_labels: set[tuple[str, str]] = set()
        targets: set[str] = set()
        for citation in find_citations(pr.region.text):
            if (citation.label, citation.year) in seen_labels or not _applies(citation, bib):
                continue
            seen_labels.add((citation.label, citation.year))
            found, label = resolve(citation, bib)
            found = [key for key in found if key != pr.key]
            if not found:
                result.unresolved += 1
                continue
            result.resolved += 1
            for key in found:
                if key not in targets:
                    targets.add(key)
                    props = {"label": label, "kind": "citation"}
                    result.edges.append(EdgeRecord("REF", "Region", pr.key, "Region", key, props))
    return result

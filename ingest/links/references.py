"""Explicit cross-references in region text ("see Figure 3", "Section 2.1", "page 12") -> REF edges.

References are resolved in the document's own numbering only: figure/table numbers from captions,
section numbers from the section tree, equation numbers from formula regions, printed page numbers
from page headers/footers. A reference that does not resolve is counted, never guessed.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from docgraph.ingest.labels import ATTACHMENT_TITLE_WORDS, TITLE_WORDS
from docgraph.ingest.links.claims import Claims, claim_targets
from docgraph.ingest.links.edges import DASHES, caption_label
from docgraph.ingest.links.mentions import Mention, canonical_number, find_mentions, names_instrument
from docgraph.ingest.links.numbered_items import Items, section_items
from docgraph.ingest.links.printed_pages import printed_page_map
from docgraph.ingest.links.statements import STATEMENT_KINDS, index_statements
from docgraph.ingest.structure.ids import IdScheme, PlacedRegion
from docgraph.ingest.structure.sections import TOP_OF_PAGE, SectionSpec, SectionTree
from docgraph.ingest.types import PageLayout, landscape_throughout
from docgraph.records import EdgeRecord

# Kinds of region whose text is searched for references: headings name their own section and
# figure text is drawing content, so neither is a source.
NON_SOURCE_KINDS = frozenset({"section_header", "title", "figure", "page_header", "page_footer"})
MAX_LABEL_PARAGRAPH_CHARS = 400
_LABEL_END = re.compile(rf"\s*(?::|\.|[{DASHES}]\s)")
_EQ_TAG = re.compile(r"\((\d{1,3}(?:\.\d{1,3})*[a-z]?)\)\s*$")
# Schedules, annexes, exhibits and a financial statement's notes: their numbers are their own series
# ("Schedule 2" is no clause 2, "Note 12" no section 12), found by the headings that bear them.
ANNEXED_KINDS = frozenset({"schedule", "annex", "exhibit", "note"})
CONTAINER_TITLE_WORDS = ATTACHMENT_TITLE_WORDS | TITLE_WORDS["appendix"]
_PARAGRAPH_OF = re.compile(r"(.+?)\s+of\s+(\w+)\s+(\S+)")
# A contract's sub-clause set as a paragraph that opens with its number: "7.3 The Customer may ...",
# "9.1 Obligation. ...", "1.2 "Business Day" means ..." (not "3.5 mm of ...": a capital or a quote
# follows), or an item of a list of them. Only numbers of two levels or more: a paragraph opening
# "1." is as often an item of a list of steps.
NUMBERED_PARAGRAPH = re.compile(r"^(\d{1,3}(?:\.\d{1,3})+)\.?[ \t]+(?=[^\W\d_a-z]|[\"“‘'(])", re.MULTILINE)
NUMBERED_PARAGRAPH_KINDS = frozenset({"paragraph", "list"})
# A paragraph numbered in one series, as a judgment's are: "10. The judge held ...", "[10] The ...".
WHOLE_PARAGRAPH = re.compile(r"^\[?(\d{1,3})[.\]][ \t]+(?=[^\W\d_a-z]|[\"“‘'(])", re.MULTILINE)
# A patent's paragraph opens with its number in brackets: "[0023] The controller ...".
BRACKETED_PARAGRAPH = re.compile(r"^\[(\d{3,5})\]\s")

# ---- targets -------------------------------------------------------------------------------


Choices = list[tuple[int, int, str]]  # (rank: lower is better evidence, part, target key), in document order


@dataclass(slots=True)
class Parts:
    """The papers of a merged PDF (proceedings, a bound set of reports) or the chapters of a book:
    a part begins on a page holding a title region and at each top-level entry of the PDF's own
    outline, so that "Figure 1" in the second paper is the second paper's Figure 1."""

    starts: list[tuple[int, float]] = field(default_factory=list)  # (page, position), sorted

    def of(self, place: tuple[int, float]) -> int:
        return bisect_right(self.starts, place)


@dataclass(slots=True)
class TargetIndex:
    """Where each number of the document's own numbering points: (label, key) of the target node;
    of the best-evidenced targets of a number in several parts, the one in the mention's own part."""

    parts: Parts = field(default_factory=Parts)
    figures: dict[tuple[str, str], Choices] = field(default_factory=dict)  # (figure|table, number)
    sections: dict[str, Choices] = field(default_factory=dict)  # number -> sections
    clauses: dict[str, Choices] = field(default_factory=dict)  # number -> paragraphs opening with it
    claims: Claims = field(default_factory=Claims)  # a patent's claims, each number's regions
    section_numbers: dict[str, str] = field(default_factory=dict)  # section key -> its canonical number
    section_titles: list[tuple[list[str], int, str, int]] = field(default_factory=list)  # (tokens, level, key, part)
    equations: dict[str, Choices] = field(default_factory=dict)  # number -> formula regions
    statements: dict[tuple[str, str], Choices] = field(default_factory=dict)  # (theorem|lemma|..., number)
    printed_pages: dict[int, int] = field(default_factory=dict)  # printed number -> physical page
    page_offset: int | None = None  # printed - physical, when page numbers were found
    page_numbers: set[int] = field(default_factory=set)
    slides: bool = False  # every page is landscape: a deck, whose "slide 10" is its tenth page
    items: Items = field(default_factory=dict)  # each section's numbered items (a schedule's "3.")

    def resolve(self, mention: Mention, ids: IdScheme, part: int = 0) -> tuple[str, str] | None:
        number = mention.canonical
        if mention.kind in ("figure", "table"):
            key = _pick(self.figures.get((mention.kind, number)), part)
            return ("Region", key) if key else None
        if mention.kind in ("page", "slide"):
            page = self._physical_page(int(number))
            return ("Page", ids.page(page)) if page else None
        return self.resolve_part(mention, part)

    def resolve_part(self, mention: Mention, part: int = 0) -> tuple[str, str] | None:
        """Where a mention of a part of the document (section, clause, article, schedule, ...)
        points: a Section, or the paragraph a sub-clause without a heading of its own opens."""
        if mention.kind == "claim":  # ``part``: the claims set the mention is in (1, 2, ...), if any
            key = _pick(self.claims.targets.get(mention.canonical), part)
            return ("Region", key) if key else None
        if mention.kind in STATEMENT_KINDS:  # "Theorem 3.2": the paragraph its run-in head opens
            key = _pick(self.statements.get((mention.kind, mention.canonical)), part)
            return ("Region", key) if key else None
        if mention.kind == "equation":  # "equation (3.7)": the formula that ends in its number
            key = _pick(self.equations.get(mention.canonical), part)
            return ("Region", key) if key else None
        if mention.kind == "paragraph" and mention.number.startswith("["):  # a patent's "[0023]"
            key = _pick(self.clauses.get(_bracketed_key(mention.number.strip("[]"))), part)
            return ("Region", key) if key else None
        if mention.kind == "paragraph" and _PARAGRAPH_OF.fullmatch(mention.number) is None:
            return self._numbered(mention.number, part)  # a report's "paragraph 4.3": as a sub-clause is
        if mention.kind == "paragraph":
            return self._paragraph(mention.number, part)
        if mention.kind in ANNEXED_KINDS:  # numbered in a series of their own: by heading only
            key = self._section_by_title(mention.kind, mention.number, part)
        else:
            numbered = self._numbered(mention.number, part)
            if numbered is not None:
                return numbered
            key = self._section_by_title(mention.kind, mention.number.split("(")[0], part)
        return ("Section", key) if key else None

    def _numbered(self, number: str, part: int) -> tuple[str, str] | None:
        """The section numbered ``number``, else the paragraph that opens with it; for a sub-clause
        "4.2(b)(ii)" the deepest that exists of 4.2.b.ii, 4.2.b and 4.2."""
        parts = canonical_number(number).split(".")
        for depth in range(len(parts), len(parts) - number.count("(") - 1, -1):
            wanted = ".".join(parts[:depth])
            key = _pick(self.sections.get(wanted), part)
            if key:
                return ("Section", key)
            key = _pick(self.clauses.get(wanted), part)
            if key:
                return ("Region", key)
        return None

    def _paragraph(self, number: str, part: int) -> tuple[str, str] | None:
        """ "Paragraph 4 of Schedule 3": the section numbered 4 after Schedule 3's heading and before
        the next schedule, annex or part, else the region holding its item "4." (a schedule's
        paragraphs read as one list), else Schedule 3 itself."""
        match = _PARAGRAPH_OF.fullmatch(number)
        container = self._section_by_title(match.group(2).lower(), match.group(3), part) if match else None
        if match is None or container is None:
            return None
        wanted, inside = canonical_number(match.group(1)), [container]
        after = next(i for i, (_, _, key, _) in enumerate(self.section_titles) if key == container) + 1
        for tokens, _, key, _ in self.section_titles[after:]:
            if tokens[:1] and tokens[0] in CONTAINER_TITLE_WORDS:
                break
            if self.section_numbers.get(key) == wanted:
                return ("Section", key)
            inside.append(key)
        item = next((found for key in inside if (found := self.items.get(key, {}).get(wanted))), None)
        return ("Region", item) if item else ("Section", container)

    def _section_by_title(self, kind: str, number: str, part: int) -> str | None:
        if kind not in TITLE_WORDS:
            return None
        words, wanted = TITLE_WORDS[kind], number.lower()
        found = [
            (0, p, key) for tokens, _, key, p in self.section_titles if tokens[1:2] == [wanted] and tokens[0] in words
        ]
        if not found and kind == "appendix" and re.fullmatch(r"[A-Z]", number):
            # Appendices titled just "A Copying Information" (the letter is their number).
            found = [
                (0, p, key)
                for tokens, level, key, p in self.section_titles
                if level == 1 and tokens[:1] == [number.lower()] and len(tokens) > 1
            ]
        if not found and kind == "note":
            return self._numbered_note(wanted, part)
        return _pick(found, part)

    def _numbered_note(self, number: str, part: int) -> str | None:
        """A financial statement's note headed "12. Trade and other receivables" after "Notes to
        the ..." (under it or beside it), up to the next unnumbered heading as high: no other 12."""
        found: Choices = []
        inside: int | None = None  # the notes heading's level while in its run
        for tokens, level, key, p in self.section_titles:
            numbered = key in self.section_numbers
            if inside is not None and level <= inside and not numbered:
                inside = None
            if tokens[:2] == ["notes", "to"]:
                inside = level
            elif inside is not None and self.section_numbers.get(key) == number:
                found.append((0, p, key))
        return _pick(found, part)

    def _physical_page(self, printed: int) -> int | None:
        if printed in self.printed_pages:
            return self.printed_pages[printed]
        physical = printed - self.page_offset if self.page_offset is not None else printed
        return physical if physical in self.page_numbers else None


def _pick(choices: Choices | None, part: int) -> str | None:
    """Of the choices with the best evidence, the first in ``part``, else the first of all."""
    if not choices:
        return None
    best = min(rank for rank, _, _ in choices)
    ranked = [(p, key) for rank, p, key in choices if rank == best]
    return next((key for p, key in ranked if p == part), ranked[0][1])


def build_target_index(
    placed: list[PlacedRegion],
    tree: SectionTree,
    captions: dict[str, str],
    pages: list[PageLayout],
    ids: IdScheme,
) -> TargetIndex:
    parts = document_parts(placed, tree)
    slides = landscape_throughout(pages)
    index = TargetIndex(parts=parts, page_numbers={page.number for page in pages}, slides=slides)
    _index_figures(index, placed, captions)
    index_sections(index, tree.sections, ids.section, lambda section: parts.of(section.anchor))
    index.items = section_items(placed, tree, ids.section)
    for pr in placed:
        index_equation(index, pr.key, pr.region.kind, pr.region.text, parts.of(pr.place))
        index_clause(index, pr.key, pr.region.kind, pr.region.text, parts.of(pr.place))
    index_statements(index.statements, ((pr.key, pr.region.kind, pr.region.text, parts.of(pr.place)) for pr in placed))
    index.claims = claim_targets((pr.key, pr.region.kind, pr.region.text) for pr in placed)
    index.page_offset, index.printed_pages = printed_page_map(pages, placed)
    return index


def index_sections(
    index: TargetIndex, sections: list[SectionSpec], key_of: Callable[[int], str], part_of: Callable[[SectionSpec], int]
) -> None:
    """The sections' numbers (printed, then implied) and titles into ``index``, each under the key
    ``key_of`` gives its index; the stored document's sections are indexed so at query time."""
    titles = [re.findall(r"[^\W_]+", section.title.lower()) for section in sections]
    # A schedule's, annex's or part's number is not in the clauses' numbering, nor are its children's.
    numbered = [
        replace(section, number="") if tokens[:1] and tokens[0] in ATTACHMENT_TITLE_WORDS else section
        for section, tokens in zip(sections, titles, strict=True)
    ]
    implied = implied_section_numbers(numbered)
    for section, tokens in zip(numbered, titles, strict=True):
        key, part = key_of(section.index), part_of(section)
        if section.number:
            index.sections.setdefault(canonical_number(section.number), []).append((0, part, key))
        index.section_titles.append((tokens, section.level, key, part))
    index.section_numbers = {key_of(s.index): canonical_number(s.number) for s in sections if s.number}
    by_index = {section.index: section for section in sections}
    for section_index, number in implied.items():  # after the printed numbers, which come first
        index.sections.setdefault(number, []).append((1, part_of(by_index[section_index]), key_of(section_index)))


def index_equation(index: TargetIndex, key: str, kind: str, text: str, part: int) -> None:
    """A formula that ends in its number ("... (3.7)") as that number's target."""
    tag = _EQ_TAG.search(text) if kind == "formula" else None
    if tag:
        index.equations.setdefault(canonical_number(tag.group(1)), []).append((0, part, key))


def index_clause(index: TargetIndex, key: str, kind: str, text: str, part: int) -> None:
    """A paragraph that opens with a sub-clause number ("7.3 The Customer may ..."), or a list with
    an item that does, as that number's target when no section bears it (:data:`NUMBERED_PARAGRAPH`);
    a patent's paragraph "[0023] ..." as the target of "paragraph [0023]"; a judgment's "10. ..."
    as the target of "[10] above"."""
    if kind not in NUMBERED_PARAGRAPH_KINDS:
        return
    numbered = ((BRACKETED_PARAGRAPH, _bracketed_key, False), (WHOLE_PARAGRAPH, _bracketed_key, True))
    for pattern, number_key, in_items in (*numbered, (NUMBERED_PARAGRAPH, canonical_number, True)):
        for match in pattern.finditer(text) if kind == "list" and in_items else [pattern.match(text)]:
            if match:
                index.clauses.setdefault(number_key(match.group(1)), []).append((0, part, key))


def _bracketed_key(digits: str) -> str:
    """Where a patent's paragraph "[0023]" is indexed among the clauses: "[23]", which no clause
    number is, and "[023]" or "[0023]" in a mention finds it."""
    return f"[{int(digits)}]"


def document_parts(placed: list[PlacedRegion], tree: SectionTree) -> Parts:
    """Where the document's parts begin: each page with a title region (from its top), and each
    top-level section of the PDF's outline (a section tree read from headers has no such level)."""
    starts = {(pr.page, TOP_OF_PAGE - 1.0) for pr in placed if pr.region.kind == "title"}
    if tree.source == "outline":
        starts.update(section.anchor for section in tree.sections if section.level == 1)
    return Parts(sorted(starts))


def implied_section_numbers(sections: list[SectionSpec]) -> dict[int, str]:
    """Numbers LaTeX gives sections whose headings it prints without one (``secnumdepth``: a JSS
    paper's unnumbered subsubsections are still "Section 5.1.1" in its text): the k-th child of a
    numbered section is number.k, when none of that section's children prints a number."""
    numbers = {s.index: canonical_number(s.number) for s in sections if s.number}
    children: dict[int, list[SectionSpec]] = {}
    for section in sections:
        if section.parent is not None:
            children.setdefault(section.parent, []).append(section)
    implied: dict[int, str] = {}
    for section in sections:  # document order: a parent's number is known before its children's
        kids = children.get(section.index, [])
        parent_number = numbers.get(section.index) or implied.get(section.index)
        if parent_number and kids and not any(kid.number for kid in kids):
            implied.update({kid.index: f"{parent_number}.{k}" for k, kid in enumerate(kids, start=1)})
    return implied


def _index_figures(index: TargetIndex, placed: list[PlacedRegion], captions: dict[str, str]) -> None:
    """Figure/table numbers from captions (pointing at the captioned region), else from regions that
    start with their own label: a figure/table region, a short paragraph "Figure 3: ...", and last a
    caption that is nothing but a label.
    """
    for pr in placed:  # each label in document order; _pick takes the best rank first
        text = pr.region.text
        label = caption_label(text)
        if not label or not pr.is_body:
            continue
        target = pr.key
        if pr.region.kind == "caption":
            rank, target = (3 if label.bare else 0), captions.get(pr.key, pr.key)
        elif pr.region.kind in ("figure", "table"):
            rank = 1
        elif len(text) <= MAX_LABEL_PARAGRAPH_CHARS and _LABEL_END.match(text, label.end):
            rank = 2
        else:
            continue
        number = (label.kind, canonical_number(label.number))
        index.figures.setdefault(number, []).append((rank, index.parts.of(pr.place), target))


# ---- edges ---------------------------------------------------------------------------------


@dataclass(slots=True)
class ReferenceResult:
    edges: list[EdgeRecord]
    resolved: int
    unresolved: int
    unresolved_labels: Counter[str]
    external: int = 0  # mentions of another document's parts ("Art. 28 GDPR"): no target here


def reference_edges(
    placed: list[PlacedRegion], index: TargetIndex, ids: IdScheme, captions: dict[str, str], title: str = ""
) -> ReferenceResult:
    """REF edges from every source region; each distinct mention in a region counts once. ``title``
    holds the document's titles ("LilyPond Contributor's Guide"): a part "of" what they name is this
    document's part."""
    result = ReferenceResult([], 0, 0, Counter())
    for pr in placed:
        if pr.region.kind in NON_SOURCE_KINDS or not pr.region.text:
            continue
        skip_until, seen = _own_label(pr, captions)
        targets: set[tuple[str, str]] = set()
        for mention in find_mentions(pr.region.text, title):
            if mention.start < skip_until or (mention.kind, mention.canonical) in seen:
                continue
            if mention.external:
                result.external += 1
                continue
            if mention.kind == "slide" and not index.slides:  # "slide 2 mm along the rail" is no reference
                continue
            if mention.kind == "claim" and not index.claims.targets:  # "they claim 30 %": no patent's claims
                continue
            if mention.kind in STATEMENT_KINDS and not index.statements:  # "for example 3": none numbered
                continue
            seen.add((mention.kind, mention.canonical))
            part = index.claims.set_of.get(pr.key, 1) if mention.kind == "claim" else index.parts.of(pr.place)
            target = index.resolve(mention, ids, part)
            if target is None and names_instrument(pr.region.text, mention):  # "a section 106 agreement"
                result.external += 1
                continue
            if target is None:
                result.unresolved += 1
                result.unresolved_labels[mention.label] += 1
                continue
            if _is_self(pr, target, ids):
                continue
            result.resolved += 1
            if target not in targets:
                targets.add(target)
                props = {"label": mention.label, "kind": mention.kind}
                result.edges.append(EdgeRecord("REF", "Region", pr.key, target[0], target[1], props))
    return result


def _own_label(pr: PlacedRegion, captions: dict[str, str]) -> tuple[int, set[tuple[str, str]]]:
    """Where a caption's own "Figure 3" label ends, and that label as already seen (not a reference).

    A bare "Figure 1." caption that captions nothing is a reference the reader split off a sentence.
    """
    label = caption_label(pr.region.text) if pr.region.kind == "caption" else None
    if label is None or (label.bare and pr.key not in captions):
        return 0, set()
    return label.end, {(label.kind, canonical_number(label.number))}


def _is_self(source: PlacedRegion, target: tuple[str, str], ids: IdScheme) -> bool:
    """A region never references itself, nor the page it sits on (that is a stray page number)."""
    return target == ("Region", source.key) or target == ("Page", ids.page(source.page))

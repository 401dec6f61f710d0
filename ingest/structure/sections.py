"""The section tree of a document and which section each region hangs under.

Sections come from the PDF outline when there is one (one section per entry, anchored at the
matching header region on the entry's page; section-header regions the outline does not list become
subsections of the entry they fall under), otherwise from the section-header and title regions
(level from numbering, else from font size). A body region hangs under the last section that starts
at or before it in reading order; page furniture and regions before the first section hang under
the document.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, replace
from typing import Literal

from docgraph.ingest.labels import BARE_HEADING_LABEL, CONTINUED, HEADING_STATUS
from docgraph.ingest.structure.header_levels import FONT_TOLERANCE, header_levels
from docgraph.ingest.structure.heading_numbers import HEADER_MATCH, parse_number, title_similarity
from docgraph.ingest.structure.ids import PlacedRegion
from docgraph.ingest.types import DocumentLayout, OutlineEntry

HEADER_KINDS = frozenset({"section_header", "title"})
MAX_HEADER_CHARS = 300
# A region of another kind than a header matches an outline entry only this closely (a header
# region at HEADER_MATCH).
OTHER_MATCH = 0.9

Anchor = tuple[int, float]  # (page, position in the page's reading order); -0.5 = top of the page
TOP_OF_PAGE = -0.5
Subheader = tuple[int, list[PlacedRegion], str]  # (outline entry it falls under or -1, header group, title)


@dataclass(frozen=True, slots=True)
class SectionSpec:
    index: int  # position in document order
    title: str
    level: int  # 1 = top level
    number: str  # "2.3.1", "A", or ""
    page_start: int
    parent: int | None  # index of the enclosing section; None = the document
    anchor: Anchor
    header_key: str | None  # region_id of the header region it starts at, if one was found


@dataclass(slots=True)
class SectionTree:
    sections: list[SectionSpec]
    owner: dict[str, int]  # region_id -> index of the section it hangs under; absent = the document
    source: Literal["outline", "headers", "none"]


def build_sections(layout: DocumentLayout, placed: list[PlacedRegion]) -> SectionTree:
    """Sections from the PDF's outline when it has one in page order, else from the headers."""
    if layout.outline and in_page_order(layout.outline, layout.page_count):
        sections = _with_subheaders(_from_outline(layout.outline, placed), placed)
        source: Literal["outline", "headers", "none"] = "outline"
    else:
        sections = _from_headers(placed)
        source = "headers" if sections else "none"
    return SectionTree(sections, _assign_owners(placed, sections), source)


# ---- from the outline ----------------------------------------------------------------------


def in_page_order(outline: list[OutlineEntry], pages: int) -> bool:
    """Whether the entries that point at a page never go back: bookmarks added in any order ("Part
    3", "Part 1", "Part 2") cannot be read as a tree of consecutive sections."""
    targets = [entry.page for entry in outline if 1 <= entry.page <= pages]
    return all(a <= b for a, b in itertools.pairwise(targets))


def _from_outline(outline: list[OutlineEntry], placed: list[PlacedRegion]) -> list[SectionSpec]:
    body_by_page: dict[int, list[PlacedRegion]] = {}
    for pr in placed:
        if pr.is_body:
            body_by_page.setdefault(pr.page, []).append(pr)
    last_page = max((pr.page for pr in placed), default=0)
    levels = [max(1, entry.level) for entry in outline]
    parents = _parents(levels)
    previous: Anchor = (1, TOP_OF_PAGE - 0.5)
    taken: set[str] = set()
    sections: list[SectionSpec] = []
    for index, entry in enumerate(outline):
        header: PlacedRegion | None = None
        if 1 <= entry.page <= max(last_page, 1):
            header = _match_header(entry.title, body_by_page.get(entry.page, []), previous, taken)
            anchor: Anchor = header.place if header else (entry.page, TOP_OF_PAGE)
        else:  # the entry points nowhere: it starts where the previous one did
            anchor = previous
        if anchor <= previous:
            # Out of order or on the page of the previous section without its own header: start it
            # just after the previous start, so the previous section keeps at least its header.
            header, anchor = None, _just_after(previous)
        if header:
            taken.add(header.key)
        number = parse_number(entry.title) or (parse_number(header.region.text) if header else "")
        sections.append(
            SectionSpec(
                index=index,
                title=entry.title.strip(),
                level=levels[index],
                number=number,
                page_start=max(anchor[0], 1),
                parent=parents[index],
                anchor=anchor,
                header_key=header.key if header else None,
            )
        )
        previous = anchor
    return sections


def _just_after(anchor: Anchor) -> Anchor:
    page, position = anchor
    return (page, position + (math.floor(position) + 1 - position) / 2)


def _match_header(title: str, page_regions: list[PlacedRegion], after: Anchor, taken: set[str]) -> PlacedRegion | None:
    """The region on the entry's page that best matches the title, after ``after``.

    A header split over two consecutive header regions ("Chapter 1" / "Introduction") is matched
    as their concatenation and anchored at the first of them.
    """
    candidates = [
        pr
        for pr in page_regions
        if pr.place > after and pr.key not in taken and 0 < len(pr.region.text.strip()) <= MAX_HEADER_CHARS
    ]
    best: tuple[float, PlacedRegion] | None = None
    for i, pr in enumerate(candidates):
        is_header = pr.region.kind in HEADER_KINDS
        threshold = HEADER_MATCH if is_header else OTHER_MATCH
        score = title_similarity(title, pr.region.text)
        if is_header and i + 1 < len(candidates) and candidates[i + 1].region.kind in HEADER_KINDS:
            joined = f"{pr.region.text} {candidates[i + 1].region.text}"
            score = max(score, title_similarity(title, joined))
        if score >= threshold and (best is None or score > best[0]):
            best = (score, pr)
    return best[1] if best else None


def _with_subheaders(outline: list[SectionSpec], placed: list[PlacedRegion]) -> list[SectionSpec]:
    """The outline's sections with the section-header regions it does not list added as children of
    the entry they fall under.

    Outlines often stop a level above the headings the pages show (a reference manual's function
    entries, a guide's unnumbered topics); without them a region would hang under a chapter-sized
    section and its context line would name the chapter, not the topic it is about.
    """
    subheaders: list[Subheader] = []
    taken = {section.header_key for section in outline if section.header_key}
    current = -1
    for group in _header_groups(placed):
        if group[0].region.kind != "section_header" or any(pr.key in taken for pr in group):
            continue
        while current + 1 < len(outline) and outline[current + 1].anchor <= group[0].place:
            current += 1
        if current < 0:  # front matter (a paper's author names, a cover): the outline starts later
            continue
        title = _group_title(group)
        if title_similarity(title, outline[current].title) >= HEADER_MATCH:
            continue  # the entry's own header, left unmatched (e.g. on the page before the entry's)
        subheaders.append((current, group, title))
    return _merge_subheaders(outline, subheaders) if subheaders else outline


def _merge_subheaders(outline: list[SectionSpec], subheaders: list[Subheader]) -> list[SectionSpec]:
    order = sorted(
        [(section.anchor, 0, i) for i, section in enumerate(outline)]
        + [(group[0].place, 1, i) for i, (_, group, _) in enumerate(subheaders)]
    )
    new_index = {(kind, i): n for n, (_, kind, i) in enumerate(order)}
    merged: list[SectionSpec] = []
    for _, kind, i in order:
        if kind == 0:
            section = outline[i]
            parent = None if section.parent is None else new_index[(0, section.parent)]
            merged.append(replace(section, index=len(merged), parent=parent))
            continue
        owner_index, group, title = subheaders[i]
        owner = outline[owner_index] if owner_index >= 0 else None
        number = parse_number(title)
        # Keep a number only when it extends the owner's ("2.8.1" under "2.8"): a numbered list
        # item taken for a header must not claim the number of a real section.
        if not (owner and owner.number and number.startswith(owner.number + ".")):
            number = ""
        merged.append(
            SectionSpec(
                index=len(merged),
                title=title,
                level=owner.level + 1 if owner else 1,
                number=number,
                page_start=group[0].page,
                parent=new_index[(0, owner_index)] if owner else None,
                anchor=group[0].place,
                header_key=group[0].key,
            )
        )
    return merged


# ---- from header regions -------------------------------------------------------------------


def _from_headers(placed: list[PlacedRegion]) -> list[SectionSpec]:
    groups = _without_continued(_header_groups(placed))
    headers = [group[0] for group in groups]
    numbers = [parse_number(pr.region.text) if pr.region.kind == "section_header" else "" for pr in headers]
    # A heading's size is its largest line's: "Chapter 3" may be set smaller than the title under it.
    levels = header_levels([max(group, key=lambda pr: pr.region.font_size) for group in groups], numbers)
    parents = _parents(levels)
    return [
        SectionSpec(
            index=index,
            title=_group_title(group),
            level=levels[index],
            number=numbers[index],
            page_start=group[0].page,
            parent=parents[index],
            anchor=group[0].place,
            header_key=group[0].key,
        )
        for index, group in enumerate(groups)
    ]


def _header_groups(placed: list[PlacedRegion]) -> list[list[PlacedRegion]]:
    """Header regions, those that are one heading wrapped over two regions grouped together, with
    the status line an annex's label carries ("Annex A" | "(normative)" | "Message encoding")."""
    groups: list[list[PlacedRegion]] = []
    for pr in placed:
        if groups and _status_of_label(groups[-1], pr):
            groups[-1].append(pr)
            continue
        if pr.region.kind not in HEADER_KINDS or not pr.region.text.strip():
            continue
        if groups and _wraps_onto(groups[-1], pr):
            groups[-1].append(pr)
        else:
            groups.append([pr])
    return groups


def _without_continued(groups: list[list[PlacedRegion]]) -> list[list[PlacedRegion]]:
    """The header groups less those that say their section goes on: a slide "Round Robin (cont.)"
    after "Round Robin (RR)", set in its size, heads no section of its own; its text stays in the
    section it continues."""
    kept: list[list[PlacedRegion]] = []
    for group in groups:
        title = _group_title(group)
        mark = CONTINUED.search(title)
        stem = title[: mark.start()].strip().casefold() if mark else ""
        if stem:  # the last heading kept in its size is the one it may continue
            size = _group_size(group)
            before = next((g for g in reversed(kept) if abs(_group_size(g) - size) < 0.5), None)
            if before is not None and _group_title(before).casefold().startswith(stem):
                continue
        kept.append(group)
    return kept


def _group_size(group: list[PlacedRegion]) -> float:
    return max(pr.region.font_size for pr in group)


def _group_title(group: list[PlacedRegion]) -> str:
    return " ".join(" ".join(pr.region.text for pr in group).split())


def _status_of_label(group: list[PlacedRegion], pr: PlacedRegion) -> bool:
    """``pr`` is a short bracketed line ("(normative)", "(informative)") right under a bare label
    ("Annex A"), as ISO and IEC standards set an annex's heading over its title."""
    label = group[0]
    return (
        len(group) == 1
        and bool(BARE_HEADING_LABEL.match(label.region.text))
        and pr.region.kind in ("paragraph", "section_header")
        and bool(HEADING_STATUS.match(pr.region.text.strip()))
        and pr.page == label.page
        and pr.position == label.position + 1
        and 0 <= pr.region.bbox.y0 - label.region.bbox.y1 < 3 * _line_height(label)
    )


def _line_height(pr: PlacedRegion) -> float:
    return pr.region.font_size if pr.region.font_size > 0 else 12.0


def _wraps_onto(group: list[PlacedRegion], second: PlacedRegion) -> bool:
    """``second`` is the next line of the heading ``group``: right after it in reading order and
    unnumbered; either of the same kind and size and closer below it than a line height, or the
    title of a bare "Chapter 3" (a title or header set no smaller, up to three lines below it, past
    an annex's status line).
    """
    first, label = group[-1], group[0]
    a, b = first.region, second.region
    if second.page != first.page or second.position != first.position + 1 or parse_number(b.text):
        return False
    gap = b.bbox.y0 - a.bbox.y1
    statuses = all(HEADING_STATUS.match(pr.region.text.strip()) for pr in group[1:])
    if BARE_HEADING_LABEL.match(label.region.text) and statuses:
        larger = b.font_size >= label.region.font_size - FONT_TOLERANCE
        return b.kind in HEADER_KINDS and larger and 0 <= gap < 3 * max(_line_height(label), b.font_size)
    return a.kind == b.kind and abs(a.font_size - b.font_size) <= FONT_TOLERANCE and 0 <= gap < _line_height(first)


# ---- tree and ownership --------------------------------------------------------------------


def _parents(levels: list[int]) -> list[int | None]:
    """Parent of each section: the nearest preceding section of a lower level."""
    parents: list[int | None] = []
    stack: list[int] = []
    for index, level in enumerate(levels):
        while stack and levels[stack[-1]] >= level:
            stack.pop()
        parents.append(stack[-1] if stack else None)
        stack.append(index)
    return parents


def _assign_owners(placed: list[PlacedRegion], sections: list[SectionSpec]) -> dict[str, int]:
    """Each body region -> the last section (deepest on ties) starting at or before it."""
    owner: dict[str, int] = {}
    current = -1
    for pr in placed:
        while current + 1 < len(sections) and sections[current + 1].anchor <= pr.place:
            current += 1
        if current >= 0 and pr.is_body:
            owner[pr.key] = current
    return owner

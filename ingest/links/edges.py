"""Structural edges: pages, reading order, section tree, captions."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from itertools import pairwise

from docgraph.ingest.labels import CJK_FIGURE, CJK_TABLE, FIGURE_CAPTION_WORDS, NUMBER_END, TABLE_CAPTION_WORDS
from docgraph.ingest.links.caption_sides import CaptionSides, nothing_between
from docgraph.ingest.structure.ids import IdScheme, PlacedRegion
from docgraph.ingest.structure.sections import SectionTree
from docgraph.ingest.types import PageLayout
from docgraph.records import EdgeRecord

CAPTION_TARGET_KINDS = frozenset({"figure", "table"})
# Regions that float outside the text flow; a paragraph cut by a page break runs on past them.
FLOATING_KINDS = frozenset({"footnote", "figure", "caption"})
FLOATS_AROUND_CAPTIONS = FLOATING_KINDS | {"table"}
# Added to the distance of a caption/target pair with no horizontal overlap: such a pair is only
# taken when nothing overlapping is left on the page.
NO_OVERLAP_PENALTY = 10_000.0
# Added for a caption between two floats to the one on the side its kind's captions do not use:
# taken only when the float on the usual side has gone to another caption.
OFF_SIDE_PENALTY = 1_000.0
DRAWING_GAP_LINES = 3  # how far (in the caption's lines) a figure drawn in text sits from its caption

DASHES = "\u2010\u2011\u2012\u2013\u2014-"
_SEP = rf"[.{DASHES}]"
# A figure/table number: "3", "2-1", "3.2", "3a", "A.1", or roman "IV"; a panel's letter may be a
# capital, as patent drawings ("FIG. 2A") and many journals ("Figure 3B") print it.
LABEL_NUMBER = rf"(?:(?:[A-Z]{_SEP})?\d{{1,3}}(?:{_SEP}\d{{1,3}})*[a-zA-Z]?{NUMBER_END}|[IVXL]{{1,6}}\b)"


def _label_words(english: str, others: tuple[str, ...], cjk: str) -> str:
    return "|".join([english, *(re.escape(f) for w in others for f in (w, w.upper())), cjk])


_FIGURE_LABEL = _label_words(r"Figure|FIGURE|Fig\.|FIG\.", FIGURE_CAPTION_WORDS, CJK_FIGURE)
_TABLE_LABEL = _label_words(r"Table|TABLE|Tab\.|TAB\.", TABLE_CAPTION_WORDS, CJK_TABLE)
_CAPTION_LABEL = re.compile(
    rf"^\s*(?:(?P<figure>{_FIGURE_LABEL})|(?P<table>{_TABLE_LABEL}))\s*(?P<number>{LABEL_NUMBER})"
)


def page_edges(doc_id: str, ids: IdScheme, pages: list[PageLayout]) -> list[EdgeRecord]:
    """(:Document)-[:HAS_PAGE]->(:Page) for every page and (:Page)-[:HAS_NEXT]->(:Page) in order."""
    numbers = sorted(page.number for page in pages)
    edges = [EdgeRecord("HAS_PAGE", "Document", doc_id, "Page", ids.page(n)) for n in numbers]
    edges += [EdgeRecord("HAS_NEXT", "Page", ids.page(a), "Page", ids.page(b)) for a, b in pairwise(numbers)]
    return edges


def on_page_edges(ids: IdScheme, placed: list[PlacedRegion]) -> list[EdgeRecord]:
    return [EdgeRecord("ON_PAGE", "Region", pr.key, "Page", ids.page(pr.page)) for pr in placed]


def reading_order_edges(placed: list[PlacedRegion]) -> list[EdgeRecord]:
    """(:Region)-[:HAS_NEXT]->(:Region) along the body regions of the whole document.

    ``cross_page`` marks the link from a page's last body region to the next page's first. A region
    the reader marked ``continues`` gets ``continuation`` on its link to the region continuing it.
    """
    body = document_flow([pr for pr in placed if pr.is_body])
    edges: list[EdgeRecord] = []
    for current, following in pairwise(body):
        props: dict[str, object] = {"cross_page": current.page != following.page}
        if current.region.continues and not {current.region.kind, following.region.kind} & FLOATING_KINDS:
            props["continuation"] = True
        edges.append(EdgeRecord("HAS_NEXT", "Region", current.key, "Region", following.key, props))
    return edges


def run_over_note_edges(placed: list[PlacedRegion]) -> list[EdgeRecord]:
    """A footnote that runs over to the next page's foot is linked to its part there (``HAS_NEXT
    {continuation}``) beside the text flow, which reads each page's notes after its text."""
    first_notes: dict[int, PlacedRegion] = {}
    for pr in placed:
        if pr.region.kind == "footnote":
            first_notes.setdefault(pr.page, pr)
    edges: list[EdgeRecord] = []
    for pr in placed:
        following = first_notes.get(pr.page + 1)
        if pr.region.kind == "footnote" and pr.region.continues and following is not None:
            props: dict[str, object] = {"cross_page": True, "continuation": True}
            edges.append(EdgeRecord("HAS_NEXT", "Region", pr.key, "Region", following.key, props))
    return edges


def document_flow(body: list[PlacedRegion]) -> list[PlacedRegion]:
    """Body regions in document reading order, a split paragraph or table read through its break.

    The reader judges continuations on the text flow, skipping floats: a footnote after the cut
    paragraph, or a figure (or, for a paragraph, a table) atop the next page or column, may sit
    between the two parts in page order. Such floats are read right after the continuing part, so the
    two parts stay adjacent in the chain.
    """
    flow = list(body)
    for i in range(len(flow)):
        if not flow[i].region.continues or flow[i].region.kind == "footnote":  # see run_over_note_edges
            continue
        # a paragraph runs on in a paragraph: a table set at the top of the next page is read after it
        skipped = FLOATS_AROUND_CAPTIONS if flow[i].region.kind != "table" else FLOATING_KINDS
        j = next((k for k in range(i + 1, len(flow)) if flow[k].region.kind not in skipped), None)
        if j is not None and j > i + 1:
            flow[i + 1 : j + 1] = [flow[j], *flow[i + 1 : j]]
    return flow


def section_edges(doc_id: str, ids: IdScheme, tree: SectionTree, placed: list[PlacedRegion]) -> list[EdgeRecord]:
    """IS_UNDER for regions and sections (parent section or document), HAS_NEXT between sections."""
    edges: list[EdgeRecord] = []
    for pr in placed:
        owner = tree.owner.get(pr.key)
        if owner is None:
            edges.append(EdgeRecord("IS_UNDER", "Region", pr.key, "Document", doc_id))
        else:
            edges.append(EdgeRecord("IS_UNDER", "Region", pr.key, "Section", ids.section(owner)))
    for section in tree.sections:
        key = ids.section(section.index)
        if section.parent is None:
            edges.append(EdgeRecord("IS_UNDER", "Section", key, "Document", doc_id))
        else:
            edges.append(EdgeRecord("IS_UNDER", "Section", key, "Section", ids.section(section.parent)))
    for a, b in pairwise(tree.sections):
        edges.append(EdgeRecord("HAS_NEXT", "Section", ids.section(a.index), "Section", ids.section(b.index)))
    return edges


# ---- captions ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CaptionLabel:
    kind: str  # figure | table
    number: str  # as written
    end: int  # where the label ends in the text
    bare: bool  # nothing but the label: "Figure 1." is more likely a reference the reader split off


def caption_label(text: str) -> CaptionLabel | None:
    """The "Figure 3" / "Table 2-1" label a caption starts with, if any."""
    match = _CAPTION_LABEL.match(text)
    if not match:
        return None
    kind = "figure" if match.group("figure") else "table"
    bare = not text[match.end() :].strip(f" .:;{DASHES}")
    return CaptionLabel(kind, match.group("number"), match.end(), bare)


def caption_kind(text: str) -> str | None:
    """ "figure" for a "Figure N"/"Fig. N" caption, "table" for "Table N", else None."""
    label = caption_label(text)
    return label.kind if label else None


@dataclass(frozen=True, slots=True)
class _Pair:
    distance: float
    caption: PlacedRegion
    target: PlacedRegion


Rule = Callable[[PlacedRegion, PlacedRegion], bool]
Distance = Callable[[PlacedRegion, PlacedRegion], float]


def link_captions(placed: list[PlacedRegion], page_heights: dict[int, float]) -> dict[str, str]:
    """Caption region_id -> the figure/table region_id it captions, one caption per target.

    Tried in tiers, each matched greedily nearest first: the preferred kind on the same page, the
    preferred kind on an adjacent page, then the other kind on the same page. A caption that names
    no kind prefers nothing. Vertical gap is the distance; horizontal overlap is required unless
    nothing overlapping is left. On its page a caption never reaches past another caption or a float
    of its kind, and one set between two floats of its kind takes the one on the side the document's
    captions of that kind use. Captions that are a bare label ("Figure 1.") come last and only on their own page.
    """
    captions = [pr for pr in placed if pr.region.kind == "caption"]
    targets = [pr for pr in placed if pr.region.kind in CAPTION_TARGET_KINDS]
    bare = {c.key for c in captions if (label := caption_label(c.region.text)) and label.bare}
    links: dict[str, str] = {}
    taken: set[str] = set()

    kinds = {c.key: caption_kind(c.region.text) for c in captions}

    def kind_of(caption: PlacedRegion) -> str | None:
        return kinds[caption.key]

    def wanted(caption: PlacedRegion, target: PlacedRegion) -> bool:
        kind = kind_of(caption)
        return kind is None or kind == target.region.kind

    def described(rule: Rule) -> Rule:
        return lambda c, t: c.key not in bare and rule(c, t)

    clear = nothing_between(placed, kind_of)

    def same_page(c: PlacedRegion, t: PlacedRegion) -> bool:
        return c.page == t.page and wanted(c, t) and clear(c, t)

    only_floats_between = _only_floats_between(placed)

    def adjacent_page(c: PlacedRegion, t: PlacedRegion) -> bool:
        return abs(c.page - t.page) == 1 and wanted(c, t) and only_floats_between(c, t)

    def same_page_other(c: PlacedRegion, t: PlacedRegion) -> bool:
        return c.page == t.page and not wanted(c, t) and clear(c, t)

    across = _adjacent_page_distance(page_heights)
    near = _same_page_distance(CaptionSides(placed, kind_of))
    tiers: list[tuple[Rule, Distance]] = [
        (described(same_page), near),
        (described(adjacent_page), across),
        (described(same_page_other), near),
        (same_page, near),
        (same_page_other, near),
    ]
    for allowed, distance in tiers:
        open_captions = [c for c in captions if c.key not in links]
        open_targets = [t for t in targets if t.key not in taken]
        pairs = (_Pair(distance(c, t), c, t) for c in open_captions for t in open_targets if allowed(c, t))
        for pair in _greedy(pairs):
            links[pair.caption.key] = pair.target.key
            taken.add(pair.target.key)
    unlinked = {c.key for c in captions if c.key not in links and kinds[c.key] == "figure"}
    links.update(_drawings_in_text(unlinked, placed))
    return links


def _drawings_in_text(captions: set[str], placed: list[PlacedRegion]) -> dict[str, str]:
    """A "Figure N" caption left without a figure captions the code block right before it (or else
    right after it) in reading order, set just above (below) it: a figure drawn in text, as an RFC's
    packet diagrams and state machines are, or a listing captioned as a figure."""
    at = {pr.place: pr for pr in placed}
    links: dict[str, str] = {}
    for caption in (pr for pr in placed if pr.key in captions):
        for step in (-1, 1):
            block = at.get((caption.page, caption.position + step))
            if block is not None and _draws_in_text(caption, block) and block.key not in links.values():
                links[caption.key] = block.key
                break
    return links


def _draws_in_text(caption: PlacedRegion, block: PlacedRegion) -> bool:
    """A code block right over or under the caption, within three of its lines."""
    c, b = caption.region.bbox, block.region.bbox
    gap = max(c.y0 - b.y1, b.y0 - c.y1)
    near = 0 <= gap < DRAWING_GAP_LINES * max(caption.region.font_size, 1.0)
    return block.region.kind == "code" and c.x_overlap(b) > 0 and near


def _greedy(pairs: Iterable[_Pair]) -> list[_Pair]:
    chosen: list[_Pair] = []
    used: set[str] = set()
    ordered = sorted(pairs, key=lambda p: (p.distance, p.caption.page, p.caption.position, p.target.position))
    for pair in ordered:
        if pair.caption.key in used or pair.target.key in used:
            continue
        used.update((pair.caption.key, pair.target.key))
        chosen.append(pair)
    return chosen


def _same_page_distance(sides: CaptionSides) -> Distance:
    """Vertical gap, longer for a pair with no horizontal overlap or on the unusual side."""

    def distance(caption: PlacedRegion, target: PlacedRegion) -> float:
        c, t = caption.region.bbox, target.region.bbox
        gap = max(0.0, max(c.y0, t.y0) - min(c.y1, t.y1))
        gap += 0.0 if c.x_overlap(t) > 0 else NO_OVERLAP_PENALTY
        return gap + (OFF_SIDE_PENALTY if sides.off_side(caption, target) else 0.0)

    return distance


def _only_floats_between(placed: list[PlacedRegion]) -> Callable[[PlacedRegion, PlacedRegion], bool]:
    """Whether nothing but floats (figures, tables, captions, footnotes) separates two body regions
    in reading order: a caption and its figure split by a page break, not merely on adjacent pages.
    """
    body = [pr for pr in placed if pr.is_body]
    index = {pr.key: i for i, pr in enumerate(body)}
    solid_before = [0]
    for pr in body:
        solid_before.append(solid_before[-1] + (pr.region.kind not in FLOATS_AROUND_CAPTIONS))

    def between(a: PlacedRegion, b: PlacedRegion) -> bool:
        lo, hi = sorted((index[a.key], index[b.key]))
        return solid_before[hi] - solid_before[lo + 1] == 0

    return between


def _adjacent_page_distance(page_heights: dict[int, float]) -> Callable[[PlacedRegion, PlacedRegion], float]:
    """Distance across the page break: to the bottom of the earlier page plus from the top of the later."""

    def distance(caption: PlacedRegion, target: PlacedRegion) -> float:
        first, second = (caption, target) if caption.page < target.page else (target, caption)
        height = page_heights.get(first.page, first.region.bbox.y1)
        gap = max(0.0, height - first.region.bbox.y1) + max(0.0, second.region.bbox.y0)
        return gap + (0.0 if caption.region.bbox.x_overlap(target.region.bbox) > 0 else NO_OVERLAP_PENALTY)

    return distance


def caption_edges(links: dict[str, str]) -> list[EdgeRecord]:
    return [EdgeRecord("CAPTION_OF", "Region", caption, "Region", target) for caption, target in links.items()]

"""REF edges from the PDF's own links (``ingest.links.pdf_links``): "see Configure options" -> that section.

A text mention resolves only when it says a number ("Section 2.3", "page 12"); a link says where
it goes whatever its words. Each link inside a body region becomes a REF from that region to what
the link lands on: the section whose heading is there, the figure, table or equation there (a
caption stands for what it captions), else the page. What is not a reference is left out: a
contents or index entry (the link is most of the region's text, or the region links to more than
``MAX_TARGET_PAGES`` pages), a link to the region's own page (a footnote mark), and a target the
region already refers to by its text or a citation.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass

from docgraph.ingest.links.references import NON_SOURCE_KINDS
from docgraph.ingest.pdf.text import PAGE_NUMBER
from docgraph.ingest.structure.ids import IdScheme, PlacedRegion
from docgraph.ingest.structure.sections import SectionTree
from docgraph.ingest.types import BBox, InternalLink
from docgraph.records import EdgeRecord

MAX_TARGET_PAGES = 3  # a region linking to more pages is a list of pointers (contents, index)
ENTRY_SHARE = 0.5  # a link whose words are this much of its region's is an entry, not a reference
ABOVE, BELOW = 30.0, 40.0  # points: a destination lies a little above or below the heading it names
X_SLACK = 20.0
TARGET_KINDS = frozenset({"figure", "table", "formula", "caption"})

_LEADERS = re.compile(r"(?:\.\s?){4,}")  # dot leaders: ". . . . 84"

Target = tuple[str, str]  # (label, key)


@dataclass(slots=True)
class LinkReferences:
    edges: list[EdgeRecord]
    resolved: int


def link_reference_edges(
    placed: list[PlacedRegion],
    links: list[InternalLink],
    tree: SectionTree,
    captions: dict[str, str],
    ids: IdScheme,
    existing: list[EdgeRecord],
) -> LinkReferences:
    """REF edges (``kind`` the target's kind, ``via`` 'link') for the references ``links`` make."""
    body: dict[int, list[PlacedRegion]] = defaultdict(list)
    for pr in placed:
        if pr.is_body:
            body[pr.page].append(pr)
    sources: dict[str, tuple[PlacedRegion, list[InternalLink]]] = {}
    for link in links:
        source = _source(body.get(link.page, []), link)
        if source is not None:
            sources.setdefault(source.key, (source, []))[1].append(link)
    resolver = _Resolver(body, tree, captions, ids)
    known = _pages_referred(existing, resolver.page_of)
    result = LinkReferences([], 0)
    for source, its_links in sources.values():
        if len({link.target_page for link in its_links}) > MAX_TARGET_PAGES:
            continue
        seen = known.get(source.key, set())
        for link in its_links:
            target = resolver.target(link)
            page = resolver.page_of(target)
            if page in seen or page == source.page or _is_entry(source, link):
                continue
            seen.add(page)
            result.resolved += 1
            props = {"label": link.text, "kind": resolver.kind_of(target), "via": "link"}
            result.edges.append(EdgeRecord("REF", "Region", source.key, target[0], target[1], props))
    return result


def _source(regions: list[PlacedRegion], link: InternalLink) -> PlacedRegion | None:
    """The body region the link's middle lies in, when it is one that can make references."""
    for pr in regions:
        box = pr.region.bbox
        if link.bbox.centre_in(BBox(box.x0 - 1, box.y0 - 1, box.x1 + 1, box.y1 + 1)):
            return None if pr.region.kind in NON_SOURCE_KINDS else pr
    return None


def _is_entry(source: PlacedRegion, link: InternalLink) -> bool:
    """A contents or index entry: the region has dot leaders ("7.1 Table User Methods . . . 84"), the
    link is the page number the region ends with, or the link is most of the region's words."""
    if _LEADERS.search(source.region.text):
        return True
    if PAGE_NUMBER.match(link.text) and source.region.text.rstrip(" .,;)").endswith(link.text):
        return True
    own = sum(ch.isalpha() for ch in source.region.text)
    return own > 0 and sum(ch.isalpha() for ch in link.text) >= ENTRY_SHARE * own


def _pages_referred(existing: list[EdgeRecord], page_of: Callable[[Target], int]) -> dict[str, set[int]]:
    """Region key -> the pages its REF edges already point at."""
    pages: dict[str, set[int]] = defaultdict(set)
    for edge in existing:
        if edge.type == "REF":
            pages[edge.src_key].add(page_of((edge.dst_label, edge.dst_key)))
    return pages


class _Resolver:
    """Where a link lands, as a graph target."""

    def __init__(
        self, body: dict[int, list[PlacedRegion]], tree: SectionTree, captions: dict[str, str], ids: IdScheme
    ) -> None:
        self.body = body
        self.captions = captions
        self.ids = ids
        self.regions = {pr.key: pr for regions in body.values() for pr in regions}
        self.section_at = {s.header_key: s for s in tree.sections if s.header_key is not None}
        self.sections = {ids.section(s.index): s for s in tree.sections}
        last = max((pr.page for pr in self.regions.values()), default=0)
        self.pages = {ids.page(page): page for page in range(1, last + 1)}

    def target(self, link: InternalLink) -> Target:
        page_target = ("Page", self.ids.page(link.target_page))
        if link.target_y is None:
            return page_target
        if self._past_last_region(link):
            # An anchor set just before a page break: what it names starts on the next page.
            following = link.target_page + 1
            first = self.body.get(following, [])[:1]
            if first and first[0].key in self.section_at:
                return ("Section", self.ids.section(self.section_at[first[0].key].index))
            return ("Page", self.ids.page(following)) if self.ids.page(following) in self.pages else page_target
        for pr in self._near(link):
            section = self.section_at.get(pr.key)
            if section is not None:
                return ("Section", self.ids.section(section.index))
            if pr.region.kind in TARGET_KINDS:
                return ("Region", self.captions.get(pr.key, pr.key))
        return page_target

    def _past_last_region(self, link: InternalLink) -> bool:
        y = link.target_y or 0.0
        regions = self.body.get(link.target_page, [])
        return bool(regions) and all(pr.region.bbox.y1 < y - 1 for pr in regions)

    def _near(self, link: InternalLink) -> list[PlacedRegion]:
        """The target page's regions whose top is near the landing point, those above it first."""
        y, x = link.target_y or 0.0, link.target_x
        near = [
            pr
            for pr in self.body.get(link.target_page, [])
            if y - ABOVE <= pr.region.bbox.y0 <= y + BELOW
            and (x is None or pr.region.bbox.x0 - X_SLACK <= x <= pr.region.bbox.x1 + X_SLACK)
        ]
        # A heading the landing point is at or below comes first: writers set the anchor on the
        # heading or just after it (DocBook a line below), rarely above the next one.
        return sorted(near, key=lambda pr: (pr.region.bbox.y0 > y + 5, abs(pr.region.bbox.y0 - y)))

    def page_of(self, target: Target) -> int:
        label, key = target
        if label == "Region" and key in self.regions:
            return self.regions[key].page
        if label == "Section" and key in self.sections:
            return self.sections[key].page_start
        return self.pages.get(key, -1)

    def kind_of(self, target: Target) -> str:
        label, key = target
        if label == "Region" and key in self.regions:
            return self.regions[key].region.kind
        return label.lower()

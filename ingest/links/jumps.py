"""Articles that jump pages, as newsletters and magazines set them: a column stops on "Continued on
page 5" and the rest runs on page 5 under "Continued from page 1". The text before the one line is
linked to the text after the other (``HAS_NEXT {jump}``, and ``continuation`` where the sentence
runs on over the jump), so that the article reads on over the pages between.

The lines' page numbers are read as their ``REF`` edges resolved them (printed or physical pages).
"""

from __future__ import annotations

from collections import defaultdict

from docgraph.ingest.labels import JUMP_IN, JUMP_OUT
from docgraph.ingest.structure.continuity import paragraph_continues
from docgraph.ingest.structure.ids import IdScheme, PlacedRegion
from docgraph.records import EdgeRecord

_RUNNING_TEXT = ("paragraph", "list")


def jump_edges(placed: list[PlacedRegion], references: list[EdgeRecord], ids: IdScheme) -> list[EdgeRecord]:
    """A continuation edge for each jump line whose page has the matching "continued from" line.

    Where several articles jump from one page to another, their lines pair in reading order."""
    by_key = {pr.key: pr for pr in placed}
    page_of = {ids.page(pr.page): pr.page for pr in placed}
    outs: dict[tuple[int, int], list[PlacedRegion]] = defaultdict(list)  # (from page, to page) -> lines
    ins: dict[tuple[int, int], list[PlacedRegion]] = defaultdict(list)
    for edge in references:
        line, page = by_key.get(edge.src_key), page_of.get(edge.dst_key)
        if edge.type != "REF" or edge.dst_label != "Page" or line is None or page is None:
            continue
        if JUMP_OUT.match(line.region.text.strip()):
            outs[(line.page, page)].append(line)
        elif JUMP_IN.match(line.region.text.strip()):
            ins[(page, line.page)].append(line)
    edges: list[EdgeRecord] = []
    for pair, leaving in outs.items():
        arriving = ins.get(pair, [])
        if len(arriving) != len(leaving):
            continue  # which line goes with which is not known
        for out_line, in_line in zip(sorted(leaving, key=_place), sorted(arriving, key=_place), strict=True):
            cut, rest = _beside(out_line, placed, -1), _beside(in_line, placed, 1)
            if cut is not None and rest is not None:
                edges.append(_jump_edge(cut, rest))
    return edges


def _jump_edge(cut: PlacedRegion, rest: PlacedRegion) -> EdgeRecord:
    """The link over the jump; a ``continuation`` where the sentence runs on over it, as a paragraph
    cut by a page break is one, and where the jump falls between paragraphs, the article's next."""
    props: dict[str, object] = {"cross_page": True, "jump": True}
    if paragraph_continues(cut.region, rest.region):
        props["continuation"] = True
    return EdgeRecord("HAS_NEXT", "Region", cut.key, "Region", rest.key, props)


def _place(pr: PlacedRegion) -> tuple[int, int]:
    return pr.place


def _beside(line: PlacedRegion, placed: list[PlacedRegion], step: int) -> PlacedRegion | None:
    """The running text right above (``step`` -1) or below (1) ``line`` in its column: the nearest
    body region that way in reading order whose box shares the line's left part; None when that
    region is a heading or a float."""
    ordered = sorted((pr for pr in placed if pr.page == line.page and pr.is_body), key=_place)
    k = ordered.index(line)
    box = line.region.bbox
    for pr in reversed(ordered[:k]) if step < 0 else ordered[k + 1 :]:
        other = pr.region.bbox
        beyond = other.y1 <= box.y0 + 0.5 * box.height if step < 0 else other.y0 >= box.y1 - 0.5 * box.height
        if beyond and other.x0 < box.x1 and other.x1 > box.x0:
            return pr if pr.region.kind in _RUNNING_TEXT else None
    return None

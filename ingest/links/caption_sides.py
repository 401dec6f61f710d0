"""Which side of its float a caption sits on, and what lies between a caption and a float.

A typesetter puts every caption of a kind on the same side of its float: figure captions below and
table captions above by default (LaTeX, Word), though some books set figure captions above. A
caption squeezed between two floats of its kind, as in a stack of figures, is nearer to either by
chance; it belongs to the one on the side the document's other captions of that kind use.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable

from docgraph.ingest.structure.ids import PlacedRegion
from docgraph.ingest.types import BBox

CAPTIONED_KINDS = frozenset({"figure", "table"})
# Where captions go when a document does not show otherwise: the side of the float they sit on.
DEFAULT_SIDE = {"figure": "below", "table": "above"}

Between = Callable[[PlacedRegion, PlacedRegion], bool]
KindOf = Callable[[PlacedRegion], str | None]


def caption_side(caption: BBox, target: BBox) -> str:
    """ "below" when the caption sits under the float, else "above"."""
    return "below" if caption.y0 + caption.y1 > target.y0 + target.y1 else "above"


class CaptionSides:
    """The document's caption side per kind, and the captions set between two floats of their kind.

    The side is the one most captions with a float of their kind on one side only sit on; a
    document that shows no side keeps the default, one whose captions split evenly prefers none.
    """

    def __init__(self, placed: list[PlacedRegion], kind_of: KindOf) -> None:
        self._kind_of = kind_of
        by_page: dict[int, list[PlacedRegion]] = {}
        for pr in placed:
            by_page.setdefault(pr.page, []).append(pr)
        votes: Counter[tuple[str, str]] = Counter()
        self._squeezed: set[str] = set()
        for pr in placed:
            kind = kind_of(pr) if pr.region.kind == "caption" else None
            if kind is None:
                continue
            above, below = _neighbours(pr, by_page[pr.page])
            float_above, float_below = _is_float(above, kind), _is_float(below, kind)
            if float_above and float_below:
                self._squeezed.add(pr.key)
            elif float_above or float_below:
                votes[(kind, "below" if float_above else "above")] += 1
        self.side = {kind: _usual_side(votes, kind, default) for kind, default in DEFAULT_SIDE.items()}

    def off_side(self, caption: PlacedRegion, target: PlacedRegion) -> bool:
        """Whether a caption set between two floats would take the one on the unusual side."""
        if caption.key not in self._squeezed:
            return False
        kind = self._kind_of(caption)
        usual = self.side.get(kind) if kind else None
        return usual is not None and caption_side(caption.region.bbox, target.region.bbox) != usual


def _usual_side(votes: Counter[tuple[str, str]], kind: str, default: str) -> str | None:
    """The side most captions of a kind sit on; the default when none shows; None when split evenly."""
    below, above = votes[(kind, "below")], votes[(kind, "above")]
    if below == above:
        return None if below else default
    return "below" if below > above else "above"


def _neighbours(caption: PlacedRegion, page: list[PlacedRegion]) -> tuple[PlacedRegion | None, PlacedRegion | None]:
    """The nearest regions right above and right below a caption, in its column."""
    box = caption.region.bbox
    middle = (box.y0 + box.y1) / 2
    column = [pr for pr in page if pr.key != caption.key and pr.region.bbox.x_overlap(box) > 0]
    above = [pr for pr in column if pr.region.bbox.y1 <= middle]
    below = [pr for pr in column if pr.region.bbox.y0 >= middle]
    nearest_above = max(above, key=lambda pr: pr.region.bbox.y1, default=None)
    nearest_below = min(below, key=lambda pr: pr.region.bbox.y0, default=None)
    return nearest_above, nearest_below


def _is_float(pr: PlacedRegion | None, kind: str) -> bool:
    return pr is not None and pr.region.kind == kind


def nothing_between(placed: Iterable[PlacedRegion], kind_of: KindOf) -> Between:
    """Whether no other caption, nor float of the caption's kind, lies between a caption and a float.

    A caption is set against its own float: one lying across another caption or float, in the
    column both share, belongs to something else. A float of the other kind does not stand in the
    way, as a caption's label outweighs how its float was told a figure or a table; for a caption
    of no known kind ("Algorithm 1", "Exhibit 3") every caption and float in between does.
    """
    blockers: dict[int, list[PlacedRegion]] = {}
    for pr in placed:
        if pr.region.kind == "caption" or pr.region.kind in CAPTIONED_KINDS:
            blockers.setdefault(pr.page, []).append(pr)

    def in_the_way(caption: PlacedRegion, other: PlacedRegion) -> bool:
        kind = kind_of(caption)
        return other.region.kind == "caption" or kind is None or other.region.kind == kind

    def clear(caption: PlacedRegion, target: PlacedRegion) -> bool:
        others = (pr for pr in blockers.get(caption.page, []) if pr.key not in (caption.key, target.key))
        return not any(_lies_between(pr, caption, target) and in_the_way(caption, pr) for pr in others)

    return clear


def _lies_between(other: PlacedRegion, caption: PlacedRegion, target: PlacedRegion) -> bool:
    """Whether a region sits in the gap between a caption and a float, in the column both share."""
    b, c, t = other.region.bbox, caption.region.bbox, target.region.bbox
    top, bottom = (c.y1, t.y0) if caption_side(c, t) == "above" else (t.y1, c.y0)
    return top < (b.y0 + b.y1) / 2 < bottom and b.x_overlap(c) > 0 and b.x_overlap(t) > 0

"""The levels of a document's headings, from their numbers and the sizes they are set in.

A heading's number says its depth ("2.3.1" is three down); an unnumbered one takes the level of the
numbered headings set nearest its size, or, in a document without numbers, its size's rank. A
report sets its parts under unnumbered headings larger than any numbered one ("Notes to the
consolidated financial statements" over "12. Trade and other receivables"), and the numbered
headings after such a heading are a level under it.
"""

from __future__ import annotations

import statistics

from docgraph.ingest.labels import FRONT_MATTER_HEADING
from docgraph.ingest.structure.heading_numbers import level_of_number
from docgraph.ingest.structure.ids import PlacedRegion

MAX_FONT_LEVELS = 6
FONT_TOLERANCE = 0.5


def header_levels(headers: list[PlacedRegion], numbers: list[str]) -> list[int]:
    """Level from numbering depth; unnumbered headers take the level their font size suggests.

    Font sizes of numbered headers calibrate the levels when there are any; otherwise distinct
    sizes are ranked, biggest first. A title region is always top level. The headers after an
    unnumbered one set larger than every numbered header (not front matter) are a level under it.
    """
    typical = _typical_sizes(headers, numbers)
    ranked = _ranked_sizes(headers)
    levels: list[int] = []
    above = 0  # the level of the unnumbered heading over the numbering the headers fall under
    for pr, number in zip(headers, numbers, strict=True):
        size = pr.region.font_size
        if pr.region.kind == "title":
            level, above = 1, 0
        elif number:
            level = level_of_number(number) + above
        elif size <= 0:
            level = levels[-1] if levels else 1
        elif typical and _over_numbering(pr, typical):
            level = above = 1
        elif typical:
            level = _closest_level(size, typical) + above
        else:
            level = _rank_of(size, ranked)
        levels.append(level)
    return levels


def _over_numbering(header: PlacedRegion, typical: dict[int, float]) -> bool:
    """An unnumbered heading set larger than every numbered one, that heads a part of the document
    (not its contents or abstract): "Notes to the financial statements" over "12. Trade and other
    receivables", a report's part over its numbered sections."""
    larger = header.region.font_size > max(typical.values()) + FONT_TOLERANCE
    return larger and not FRONT_MATTER_HEADING.match(header.region.text)


def _typical_sizes(headers: list[PlacedRegion], numbers: list[str]) -> dict[int, float]:
    by_level: dict[int, list[float]] = {}
    for pr, number in zip(headers, numbers, strict=True):
        if number and pr.region.font_size > 0:
            by_level.setdefault(level_of_number(number), []).append(pr.region.font_size)
    return {level: statistics.median(sizes) for level, sizes in sorted(by_level.items())}


def _closest_level(size: float, typical: dict[int, float]) -> int:
    """The level whose numbered headers are set nearest ``size``; a header set smaller than every
    numbered one is under the deepest of them (a book's unnumbered headings inside "Chapter 3")."""
    if size > max(typical.values()) + FONT_TOLERANCE:
        return 1
    if size < min(typical.values()) - FONT_TOLERANCE:
        return max(typical) + 1
    return min(typical, key=lambda level: (abs(typical[level] - size), level))


def _ranked_sizes(headers: list[PlacedRegion]) -> list[float]:
    """Distinct section-header font sizes, biggest first, sizes within the tolerance merged."""
    sizes = sorted(
        {pr.region.font_size for pr in headers if pr.region.kind == "section_header" and pr.region.font_size > 0},
        reverse=True,
    )
    ranked: list[float] = []
    for size in sizes:
        if not ranked or ranked[-1] - size > FONT_TOLERANCE:
            ranked.append(size)
    return ranked


def _rank_of(size: float, ranked: list[float]) -> int:
    for rank, bucket in enumerate(ranked, start=1):
        if size >= bucket - FONT_TOLERANCE:
            return min(rank, MAX_FONT_LEVELS)
    return min(len(ranked), MAX_FONT_LEVELS)

"""Underscores that the PDF draws as rules instead of glyphs.

TeX's Computer Modern text fonts have no underscore, so ``\\_`` (and Texinfo, for every ``_`` in a
heading, a ``@var`` or a slanted argument list) is set as a short rule on the baseline between two
glyphs. The text layer then has a space or nothing there: libtasn1's heading ``asn1_array2tree``
reads "asn1 array2tree", and its definition line's ``const asn1_static_node * array`` reads
"const asn1 static node * array", so the name a reader searches for is in neither.

A rule is put back as ``_`` where it is one: a lone horizontal stroke or thin bar, 0.15 to 0.8 em
long, on the line's baseline (not at mid-height, where a strike-through or a minus sits), lying in
a space or in the gap between two glyphs (not under a glyph, where an underline runs). A stroke that
touches another one on its row is part of a longer underline drawn in pieces, and is left alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from docgraph.ingest.pdf.strokes import HorizontalStroke, horizontal_strokes

MAX_LENGTH = 12.0  # points: an underscore is at most 0.8 em of text up to 15 pt
MIN_LENGTH = 1.0
MAX_THICKNESS = 1.5
MIN_EM, MAX_EM = 0.15, 0.8  # its length, in ems of the text it sits in
ABOVE_BASELINE_EM = 0.15  # how far above the baseline it may sit (a minus sits at 0.25 em)
BELOW_BASELINE_EM = 0.3  # and below (a font's own underscore sits 0.1 to 0.2 em below)
TOUCHING = 1.5  # points between the ends of two strokes that make one underline
ROW_DRIFT = 0.5  # points the ends of a stroke of an underline drawn in pieces may differ in height
GAP_TOLERANCE_EM = 0.1  # how far it may reach into the glyphs either side of a gap
MAX_SHORT_RULES = 150  # more short strokes than this on a page: a chart or a form, not text


def short_rules(drawings: Sequence[dict[str, Any]]) -> list[HorizontalStroke]:
    """Lone short horizontal strokes and bars: the paths that may be underscores."""
    rules = [rule for path in drawings if (rule := _as_short_rule(path)) is not None]
    if not rules or len(rules) > MAX_SHORT_RULES:
        return []
    rows: dict[int, list[HorizontalStroke]] = {}
    for segment in horizontal_strokes(drawings, max_thickness=MAX_THICKNESS, max_drift=ROW_DRIFT):
        rows.setdefault(round(segment.y), []).append(segment)
    return [rule for rule in rules if not any(_touching(rule, other) for other in _row(rows, rule.y))]


def _as_short_rule(path: dict[str, Any]) -> HorizontalStroke | None:
    items = path.get("items", [])
    if len(items) != 1 or path.get("dashes") not in (None, "", "[] 0"):
        return None
    item = items[0]
    if item[0] == "l":
        p, q = item[1], item[2]
        if abs(p.y - q.y) > 0.1 or float(path.get("width") or 0.0) > MAX_THICKNESS:
            return None
        x0, x1, y = min(p.x, q.x), max(p.x, q.x), (p.y + q.y) / 2
    elif item[0] in ("re", "qu"):
        rect = item[1].rect if item[0] == "qu" else item[1]
        if rect.height > MAX_THICKNESS or path.get("fill") is None:
            return None
        x0, x1, y = rect.x0, rect.x1, (rect.y0 + rect.y1) / 2
    else:
        return None
    return HorizontalStroke(x0, x1, y) if MIN_LENGTH <= x1 - x0 <= MAX_LENGTH else None


def _row(rows: dict[int, list[HorizontalStroke]], y: float) -> list[HorizontalStroke]:
    key = round(y)
    return [s for k in (key - 1, key, key + 1) for s in rows.get(k, []) if abs(s.y - y) <= 0.5]


def _touching(rule: HorizontalStroke, other: HorizontalStroke) -> bool:
    if (other.x0, other.x1) == (rule.x0, rule.x1):
        return False  # itself
    return other.x0 - TOUCHING <= rule.x1 and rule.x0 <= other.x1 + TOUCHING


@dataclass(frozen=True, slots=True)
class _Glyph:
    span: dict[str, Any]  # the rawdict span it belongs to
    index: int  # its place among the span's chars
    x0: float
    x1: float
    space: bool


def restore_underscores(spans: list[dict[str, Any]], rules: Sequence[HorizontalStroke]) -> None:
    """Give each span of one line (``rawdict`` spans) its ``text``, with the underscores among
    ``rules`` written in."""
    glyphs = sorted(
        (
            _Glyph(span, i, char["bbox"][0], char["bbox"][2], char["c"] == " ")
            for span in spans
            for i, char in enumerate(span["chars"])
        ),
        key=lambda g: g.x0,
    )
    texts = {id(span): [c["c"] for c in span["chars"]] for span in spans}
    for rule in rules:
        at = _underscore_position(glyphs, rule)
        if at is not None:
            glyph, replace = at
            chars = texts[id(glyph.span)]
            chars[glyph.index] = "_" if replace else chars[glyph.index] + "_"
    for span in spans:
        span["text"] = "".join(texts[id(span)])


def _underscore_position(glyphs: list[_Glyph], rule: HorizontalStroke) -> tuple[_Glyph, bool] | None:
    """(glyph, replace): the space the rule lies in (replace it), or the glyph after whose right
    edge it lies in a gap (write it after); None when the rule is no underscore of this line."""
    for glyph in glyphs:
        if glyph.x0 <= rule.center_x <= glyph.x1:
            return (glyph, True) if glyph.space and _on_baseline(glyph.span, rule) else None
    for left, right in pairwise(glyphs):
        tolerance = GAP_TOLERANCE_EM * float(left.span["size"])
        if left.x1 - tolerance <= rule.x0 and rule.x1 <= right.x0 + tolerance and _on_baseline(left.span, rule):
            return left, False
    return None


def _on_baseline(span: dict[str, Any], rule: HorizontalStroke) -> bool:
    size = float(span["size"])
    baseline = float(span["origin"][1])
    length = rule.x1 - rule.x0
    return (
        MIN_EM * size <= length <= MAX_EM * size
        and baseline - ABOVE_BASELINE_EM * size <= rule.y <= baseline + BELOW_BASELINE_EM * size
    )


def rules_on_line(bbox: Sequence[float], rules: Sequence[HorizontalStroke]) -> list[HorizontalStroke]:
    """The rules within a line's box, widened below by a little for underscores under the baseline."""
    x0, y0, x1, y1 = bbox
    depth = 0.3 * (y1 - y0)
    return [r for r in rules if x0 <= r.center_x <= x1 and y0 <= r.y <= y1 + depth]

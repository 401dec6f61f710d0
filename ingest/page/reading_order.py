"""Column-aware recursive XY-cut over bounding boxes.

The page is cut recursively. At each level a vertical cut (a gap in the x-projection that no box
crosses, i.e. a column gutter, with columns of real height on both sides) is tried first, so a
column is read completely before the next one.
Without one, the boxes are cut into horizontal bands at y-gaps; consecutive bands that share a
column gutter are merged back (otherwise gaps that happen to line up across two columns would
interleave them) when every column runs along most of the merged height, and each band group
is ordered recursively. Boxes that overlap in both
directions fall back to a top-to-bottom, left-to-right sort.
Columns of boxes one under another that start level with the group's top count however short when
the others run on under them at their own left edges: an IPID's panels side by side, the left
column running on under a short right one, are read column by column, not in bands that part a
heading from its text. So does a column right of another that opens with a heading at the top of
the group (a sidebar: a heading and a few lines beside a full column of text).
"""

from __future__ import annotations

from collections.abc import Sequence

Box = tuple[float, float, float, float]  # x0, y0, x1, y1

DEFAULT_MIN_COLUMN_GAP = 6.0  # points; narrower gaps are word or cell spacing, not a gutter
MIN_COLUMN_HEIGHT_SHARE = 0.5  # a column spans at least this share of its group's height ...
MIN_COLUMN_EXTENT = 100.0  # ... or at least this many points
LEVEL_TOLERANCE = 3.0  # points: columns whose first boxes start this close start level
MIN_WIDTH_SHARE = 0.5  # a short column counts when at least this share of the widest one's width
LEVEL_LINES = 2.0  # columns ending within this many of a heading's lines under them end level
DEFAULT_ROW_TOLERANCE = 1.0  # points each box is shrunk vertically: ascenders of touching lines overlap


def reading_order(
    boxes: Sequence[Box],
    min_column_gap: float = DEFAULT_MIN_COLUMN_GAP,
    row_tolerance: float = DEFAULT_ROW_TOLERANCE,
    heads: Sequence[bool] = (),
) -> list[int]:
    """Return the indices of ``boxes`` in reading order (a permutation of ``range(len(boxes))``);
    ``heads``: which boxes are headings, when known."""
    cutter = _XYCut(boxes, min_column_gap, row_tolerance, heads)
    return cutter.order(list(range(len(boxes))))


class _XYCut:
    def __init__(
        self, boxes: Sequence[Box], min_column_gap: float, row_tolerance: float, heads: Sequence[bool]
    ) -> None:
        self.boxes = [_normalized(b) for b in boxes]
        self.min_column_gap = min_column_gap
        self.row_tolerance = row_tolerance
        self.heads = heads

    def order(self, items: list[int]) -> list[int]:
        if len(items) <= 1:
            return list(items)
        columns = self.columns(items)
        if len(columns) > 1 and self.is_column_layout(items):
            return [i for column in columns for i in self.order(column)]
        bands = self.bands(items)
        if len(bands) > 1:
            groups = self.merge_column_bands(bands)
            if len(groups) > 1:
                return [i for group in groups for i in self.order(group)]
        return sorted(items, key=self.position_key)

    def position_key(self, i: int) -> tuple[float, float, int]:
        x0, y0, _, _ = self.boxes[i]
        return (round(y0, 1), round(x0, 1), i)

    def columns(self, items: list[int]) -> list[list[int]]:
        """Split at x-gaps of at least ``min_column_gap`` (column gutters), left to right."""
        spans = [(self.boxes[i][0], self.boxes[i][2], i) for i in items]
        return _split_projection(spans, self.min_column_gap)

    def bands(self, items: list[int]) -> list[list[int]]:
        """Split at y-gaps (after shrinking boxes by the row tolerance), top to bottom."""
        spans = []
        for i in items:
            _, y0, _, y1 = self.boxes[i]
            top, bottom = y0 + self.row_tolerance, y1 - self.row_tolerance
            if bottom < top:  # thin box: keep its centre line
                top = bottom = (y0 + y1) / 2
            spans.append((top, bottom, i))
        return _split_projection(spans, 0.0)

    def merge_column_bands(self, bands: list[list[int]]) -> list[list[int]]:
        """Merge consecutive bands that continue the same multi-column layout.

        Two groups merge when their union still has a column gutter and at least one of them is
        multi-column by itself; a lone left item followed by a lone right item (a zig-zag of
        figures and captions in a single-column page) does not merge.
        """
        groups: list[list[int]] = [list(bands[0])]
        for band in bands[1:]:
            current = groups[-1]
            union = current + band
            multi = len(self.columns(current)) > 1 or len(self.columns(band)) > 1
            if multi and self.is_column_layout(union) and not self.heads_after_columns(current, band):
                groups[-1] = union
            else:
                groups.append(list(band))
        return groups

    def heads_after_columns(self, group: list[int], band: list[int]) -> bool:
        """``band`` is a heading alone under columns that end level, within two of its lines: text set
        in balanced columns (a datasheet's features under "Features", an index's entries) and closed
        above it, so the heading opens what follows them all, not the first column's end. A column
        ending well short of the one beside it (an article's last page) is no such close, nor are
        columns of panels, each opening with a heading of its own (an IPID's)."""
        if len(band) != 1 or not self.is_head(band[0]):
            return False
        columns = self.columns(group)
        if sum(self.is_head(min(column, key=self.position_key)) for column in columns) > 1:
            return False
        ends = [max(self.boxes[i][3] for i in column) for column in columns]
        line = self.boxes[band[0]][3] - self.boxes[band[0]][1]
        return len(ends) > 1 and max(ends) - min(ends) <= LEVEL_LINES * line

    def is_head(self, i: int) -> bool:
        return i < len(self.heads) and self.heads[i]

    def is_column_layout(self, items: list[int]) -> bool:
        """Side-by-side columns, each running along much of the group's height.

        A short note beside the first of several lines (a label next to a signature, a margin
        note) has a gutter too, but reading all the lines before the note would be wrong. A
        column qualifies when it spans half the group's height or ``MIN_COLUMN_EXTENT`` points.
        Short columns qualify too when each stacks two boxes or more from the group's top, at half
        the widest column's width or more, and the others run on under them at their own left
        edges: a column, not a note or a margin's marks, beside them (not a heading centred under a
        row of author blocks, which falls in one of their columns).
        """
        columns = self.columns(items)
        if len(columns) < 2:
            return False
        top = min(self.boxes[i][1] for i in items)
        bottom = max(self.boxes[i][3] for i in items)
        needed = min(MIN_COLUMN_HEIGHT_SHARE * (bottom - top), MIN_COLUMN_EXTENT)
        short = [
            column
            for n, column in enumerate(columns)
            if self._extent(column) < needed and not (n > 0 and self.headed_at_top(column, top))
        ]
        if not short:
            return True
        widest = max(self._width(column) for column in columns)
        if not all(self._stacked(column, top, widest) for column in short):
            return False
        floor = max(max(self.boxes[i][3] for i in column) for column in short)
        return all(self._runs_on_flush(column, floor) for column in columns if column not in short)

    def _stacked(self, column: list[int], top: float, widest: float) -> bool:
        """Boxes one under another from the group's top (not side by side on one row), the column
        half as wide as the widest or more (a margin's marks or notes are narrow)."""
        level = self._start(column) - top <= LEVEL_TOLERANCE
        rows = max(self.boxes[i][1] for i in column) >= min(self.boxes[i][3] for i in column) - self.row_tolerance
        return rows and level and self._width(column) >= MIN_WIDTH_SHARE * widest

    def _width(self, column: list[int]) -> float:
        return max(self.boxes[i][2] for i in column) - min(self.boxes[i][0] for i in column)

    def _start(self, column: list[int]) -> float:
        return min(self.boxes[i][1] for i in column)

    def _extent(self, column: list[int]) -> float:
        return max(self.boxes[i][3] for i in column) - self._start(column)

    def _runs_on_flush(self, column: list[int], floor: float) -> bool:
        """Every box of ``column`` starting under ``floor`` starts at the left edge of one above it."""
        above = [self.boxes[i][0] for i in column if self.boxes[i][1] < floor]
        below = [self.boxes[i][0] for i in column if self.boxes[i][1] >= floor]
        return bool(above) and all(any(abs(x - edge) <= LEVEL_TOLERANCE for edge in above) for x in below)

    def headed_at_top(self, column: list[int], top: float) -> bool:
        """The column opens with a heading, at the group's top, over more of its own: a sidebar
        ("Supplies" over a few lines) beside the column left of it, not a note beside a line."""
        first = min(column, key=self.position_key)
        head_top, head_bottom = self.boxes[first][1], self.boxes[first][3]
        return self.is_head(first) and len(column) > 1 and head_top - top <= head_bottom - head_top


def _normalized(box: Box) -> Box:
    x0, y0, x1, y1 = (float(v) for v in box)
    return (min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1))


def _split_projection(spans: list[tuple[float, float, int]], min_gap: float) -> list[list[int]]:
    """Group 1-D intervals (start, end, index) into runs separated by gaps wider than ``min_gap``."""
    ordered = sorted(spans, key=lambda s: (s[0], s[1], s[2]))
    groups: list[list[int]] = []
    reach = float("-inf")
    for start, end, index in ordered:
        if groups and start - reach > min_gap:
            groups.append([index])
        elif groups:
            groups[-1].append(index)
        else:
            groups.append([index])
        reach = max(reach, end)
    return groups

"""Horizontal strokes among a page's drawings: lines and thin filled bars, as PyMuPDF gives them.

Both a table's rules (``ingest.floats.framed_tables``) and the underscores TeX draws as rules
(``ingest.pdf.rule_underscores``) are read from them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class HorizontalStroke:
    x0: float
    x1: float
    y: float

    @property
    def center_x(self) -> float:
        return (self.x0 + self.x1) / 2


def horizontal_strokes(
    drawings: Sequence[dict[str, Any]], *, max_thickness: float, max_drift: float, min_width: float = 0.0
) -> list[HorizontalStroke]:
    """Lines whose ends differ by less than ``max_drift`` in height, and rectangles at most
    ``max_thickness`` high, at least ``min_width`` long, of every path."""
    strokes = []
    for path in drawings:
        for item in path.get("items", []):
            if item[0] == "l":
                p, q = item[1], item[2]
                if abs(p.y - q.y) < max_drift and abs(p.x - q.x) >= min_width:
                    strokes.append(HorizontalStroke(min(p.x, q.x), max(p.x, q.x), (p.y + q.y) / 2))
            elif item[0] == "re":
                rect = item[1]
                if rect.height <= max_thickness and rect.width >= min_width:
                    strokes.append(HorizontalStroke(rect.x0, rect.x1, (rect.y0 + rect.y1) / 2))
    return strokes

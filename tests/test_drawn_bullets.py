"""Bullets drawn rather than set as glyphs (ingest/page/drawn_bullets.py). Beamer draws its items'
triangles as shapes (its balls as small pictures): the text layer holds no mark, and each item was
read as a paragraph of its own, so an answer quoted one item of a slide's list. A margin icon drawn
in pieces beside a paragraph ("Warning!") is no bullet."""

from __future__ import annotations

from pathlib import Path

import pymupdf

from docgraph.ingest.readers.native import NativeReader

PHASES = [
    "ARIES restarts after a crash in three phases",
    "Analysis finds the dirty pages and the active transactions",
    "Redo repeats history from the oldest dirty page",
    "Undo rolls back the transactions active at the crash",
]


def test_items_opened_by_drawn_triangles_are_one_list(tmp_path: Path) -> None:
    """The phases are sub-items, their marks drawn as small balls further in: each goes on its item."""
    with pymupdf.open() as doc:
        page = doc.new_page(width=362.8, height=272.1)
        page.insert_text((8, 29), "ARIES Recovery", fontname="helv", fontsize=11)
        y = 60.0
        for i, item in enumerate(PHASES):
            if i == 0:
                triangle = [(14, y - 7), (19, y - 4), (14, y - 1)]
                page.draw_polyline(triangle, color=(0.2, 0.2, 0.7), fill=(0.2, 0.2, 0.7), closePath=True)
                page.insert_text((24, y), item, fontname="helv", fontsize=10)
            else:
                page.draw_circle((32, y - 3), 1.6, color=(0.2, 0.2, 0.7), fill=(0.2, 0.2, 0.7))
                page.insert_text((40, y), item, fontname="helv", fontsize=8.5)
            y += 16
        doc.save(tmp_path / "frame.pdf")
    regions = NativeReader().read(tmp_path / "frame.pdf").pages[0].regions
    (listed,) = [region for region in regions if region.kind == "list"]
    assert listed.text.splitlines() == [f"• {PHASES[0]}", *(f"– {item}" for item in PHASES[1:])]


def test_a_margin_icon_drawn_in_pieces_opens_no_item(tmp_path: Path) -> None:
    with pymupdf.open() as doc:
        page = doc.new_page(width=595, height=842)
        warning = "Warning! State changes are forgotten on a new page."
        icon = [(18, -10, 32, 4), (24, -10, 54, 4), (36, -5, 48, -1), (51, -10, 68, 4), (61, -6, 68, -1)]  # its pieces
        for y in (200.0, 400.0):
            for x0, y0, x1, y1 in icon:
                page.draw_rect(pymupdf.Rect(x0, y + y0, x1, y + y1), color=(0, 0, 0), fill=(0.9, 0.8, 0.1))
            page.insert_text((72, y), warning, fontname="helv", fontsize=10)
        doc.save(tmp_path / "guide.pdf")
    kinds = [region.kind for region in NativeReader().read(tmp_path / "guide.pdf").pages[0].regions]
    assert "list" not in kinds

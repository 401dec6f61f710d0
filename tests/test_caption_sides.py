"""Captions of stacked figures link to their own figure, not to the nearer one across the gap.

Three charts stacked in a column, each captioned below, with a little more space between a chart
and its caption than between that caption and the next chart: matched by gap alone, every caption
took the chart under it and "Figure 3" the first chart, across the other two captions. A caption
between two figures belongs to the one on the side the document's captions use. PDFs made here,
the native reader; and hand-built layouts.
"""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from docgraph.ingest.graph import build_graph
from docgraph.ingest.readers.native import NativeReader
from tests.test_graph_build import build, edges, key_of, layout, page, region

CHART_HEIGHT = 90.0
# chart -> its caption is a little wider than caption -> the next chart
OWN_GAP, NEXT_GAP = 14.0, 10.0
CAPTIONS = [
    "Figure 1: Recall of the first-stage retriever for each candidate pool.",
    "Figure 2: Recall as a function of the number of layers.",
    "Figure 3: Ablation of the edge types on the development set.",
]


def _chart(page: pymupdf.Page, top: float, heights: list[float]) -> None:
    """A bar chart with axes and a trend curve, drawn with vector paths."""
    base = top + CHART_HEIGHT
    page.draw_line((80, top), (80, base), color=(0, 0, 0), width=0.8)
    page.draw_line((80, base), (320, base), color=(0, 0, 0), width=0.8)
    for i, height in enumerate(heights):
        x = 95 + 55 * i
        page.draw_rect(pymupdf.Rect(x, base - height, x + 35, base), color=(0, 0, 0), fill=(0.3, 0.4, 0.8))
    page.draw_bezier((95, base - heights[0]), (150, top), (220, top + 20), (300, base - heights[-1]), width=0.6)


def _caption(page: pymupdf.Page, top: float, text: str) -> float:
    """The caption's first baseline under ``top``; returns where its line ends."""
    page.insert_text((72, top + 9), text, fontsize=9)
    return top + 11


def _stacked_figures(path: Path, caption_above: bool) -> None:
    with pymupdf.open() as doc:
        page = doc.new_page()
        page.insert_text((72, 70), "The results are shown in the figures below, one chart per study.", fontsize=10)
        y = 90.0
        for number, text in enumerate(CAPTIONS):
            heights = [30.0 + 15 * ((number + i) % 4) for i in range(4)]
            if caption_above:
                y = _caption(page, y, text) + OWN_GAP
                _chart(page, y, heights)
                y += CHART_HEIGHT + NEXT_GAP
            else:
                _chart(page, y, heights)
                y = _caption(page, y + CHART_HEIGHT + OWN_GAP, text) + NEXT_GAP
        page.insert_text((72, y + 20), "The number of layers matters less than the edge types.", fontsize=10)
        doc.save(path)


@pytest.mark.parametrize("caption_above", [False, True], ids=["captions-below", "captions-above"])
def test_each_caption_between_two_figures_links_to_its_own(tmp_path: Path, caption_above: bool) -> None:
    """Below: the default for figures. Above: the side this document's first caption shows."""
    pdf = tmp_path / "figures.pdf"
    _stacked_figures(pdf, caption_above)
    layout = NativeReader().read(pdf)
    (page,) = layout.pages
    figures = sorted((r for r in page.regions if r.kind == "figure"), key=lambda r: r.bbox.y0)
    captions = sorted((r for r in page.regions if r.kind == "caption"), key=lambda r: r.bbox.y0)
    assert [c.text for c in captions] == CAPTIONS
    assert len(figures) == 3
    batch = build_graph(layout, ingested_at="x", ingest_id="y")
    regions = {n.key: n.props for n in batch.nodes if n.label == "Region"}
    linked = {regions[e.src_key]["text"]: regions[e.dst_key]["bbox"] for e in batch.edges if e.type == "CAPTION_OF"}
    assert linked == {c.text: f.bbox.as_list() for c, f in zip(captions, figures, strict=True)}


def test_caption_does_not_reach_past_another_caption_or_figure() -> None:
    """A figure read as two parts leaves one part uncaptioned; a later caption whose drawing was not
    found does not take it across the other part and its caption."""
    doc = layout(
        page(
            1,
            region("figure", "part a", 50, 150),
            region("figure", "part b", 160, 260),
            region("caption", "Figure 1: both parts", 265),
            region("paragraph", "text between", 300),
            region("caption", "Figure 2: drawn in text", 400),
        )
    )
    batch = build(doc)
    assert [(e.src_key, e.dst_key) for e in edges(batch, "CAPTION_OF")] == [
        (key_of(batch, "Figure 1: both parts"), key_of(batch, "part b"))
    ]


def test_a_table_caption_between_two_tables_takes_the_one_below() -> None:
    """Table captions go above their tables: one set under a table it is nearer to still heads the next."""
    doc = layout(
        page(
            1,
            region("caption", "Table 1: first", 40, 50),
            region("table", "first table", 60, 150),
            region("caption", "Table 2: second", 156, 166),
            region("table", "second table", 180, 270),
        )
    )
    batch = build(doc)
    assert {(e.src_key, e.dst_key) for e in edges(batch, "CAPTION_OF")} == {
        (key_of(batch, "Table 1: first"), key_of(batch, "first table")),
        (key_of(batch, "Table 2: second"), key_of(batch, "second table")),
    }

"""A newsletter's photo: a byline over it and a caption under it in the caption's own type, with no
"Figure 3" label. The caption is one caption region linked to the photo (CAPTION_OF), the byline a
paragraph; neither is read into the figure as a chart's axis labels are. A picture with its tick
values in the text layer keeps them."""

from __future__ import annotations

from pathlib import Path

import pymupdf

from docgraph.ingest.graph import build_graph
from docgraph.ingest.readers.native import NativeReader
from docgraph.records import GraphBatch

BODY = (
    "More than ninety members crowded into the Church Hall on the evening of 12 March for the "
    "forty-third Annual General Meeting, the largest turnout since the campaign to save the towpath. "
)


def picture(page: pymupdf.Page, rect: pymupdf.Rect) -> None:
    pixmap = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 60, 45), False)
    pixmap.clear_with(150)
    page.insert_image(rect, pixmap=pixmap)


def newsletter(path: Path) -> Path:
    doc = pymupdf.open()
    for number in (1, 2):
        page = doc.new_page(width=595, height=842)
        page.insert_text((40, 815), f"Spring 2025 | {number}", fontname="helv", fontsize=8)
        page.insert_textbox(pymupdf.Rect(300, 60, 555, 700), BODY * 8, fontname="tiro", fontsize=9.5)
    page = doc[0]
    page.insert_text((40, 70), "By Helen Marsh", fontname="hebo", fontsize=8.5)
    picture(page, pymupdf.Rect(40, 78, 260, 243))
    page.insert_text((40, 254), "Margaret Olsen (left) receives the Volunteer of the", fontname="heit", fontsize=8)
    page.insert_text((40, 264), "Year award from the chair, David Price.", fontname="heit", fontsize=8)
    page.insert_textbox(pymupdf.Rect(40, 280, 260, 700), BODY * 3, fontname="tiro", fontsize=9.5)
    # a plot saved as a picture, its tick values set in the text layer under it
    page = doc[1]
    picture(page, pymupdf.Rect(40, 300, 260, 465))
    page.insert_text((40, 475), "0      20      40      60      80      100", fontname="helv", fontsize=7)
    doc.save(path)
    return path


def regions(batch: GraphBatch, page: int) -> dict[str, tuple[str, str]]:
    """kind -> (text, key) for the page's regions of each kind (the last of a kind wins)."""
    return {
        str(n.props["kind"]): (str(n.props["text"]), n.key)
        for n in batch.nodes
        if n.label == "Region" and n.props["page"] == page
    }


def test_a_photos_caption_without_a_label_captions_it(tmp_path: Path) -> None:
    batch = build_graph(NativeReader().read(newsletter(tmp_path / "news.pdf")))
    found = regions(batch, 1)
    caption, caption_key = found["caption"]
    figure, figure_key = found["figure"]
    assert caption == "Margaret Olsen (left) receives the Volunteer of the Year award from the chair, David Price."
    assert figure == ""
    assert any(e.type == "CAPTION_OF" and (e.src_key, e.dst_key) == (caption_key, figure_key) for e in batch.edges)
    paragraphs = [str(n.props["text"]) for n in batch.nodes if n.label == "Region" and n.props["kind"] == "paragraph"]
    assert "By Helen Marsh" in paragraphs


def test_a_pictured_plot_keeps_its_tick_values(tmp_path: Path) -> None:
    batch = build_graph(NativeReader().read(newsletter(tmp_path / "news.pdf")))
    assert regions(batch, 2)["figure"][0].split() == ["0", "20", "40", "60", "80", "100"]

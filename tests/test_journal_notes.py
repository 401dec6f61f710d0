"""A journal article's footnotes set as most journals set them: each note opens with its raised mark
("¹On the strike see ..."), the notes set one under another without space, and a paragraph whose
indented first line ends on a sentence and a mark ("... in August 1848.¹"). A PDF made here, read by
the native reader and built into a graph.

Before, the page's notes were one footnote (MuPDF sets them in one block, and only a bullet or a
number with a stop started a new one), so marks 2 to 5 led nowhere; and the paragraph was cut after
its first line (MuPDF ended a block at the raised mark, and the line ends a sentence)."""

from __future__ import annotations

from pathlib import Path

import pymupdf

from docgraph.ingest.graph import build_graph
from docgraph.ingest.readers.native import NativeReader

LEFT, RIGHT, SIZE, NOTE = 60.0, 372.0, 10.5, 8.0
PARAGRAPH = [  # justified lines; "^n" a raised mark
    "The typesetters of Leipzig stopped work on 21 August 1848.^1",
    "Within a week the strike had spread to every large printing house in the city,^2",
    "and the masters, who had at first refused, agreed to meet a committee.",
]
NOTES = [
    "^1On the strike see Smith, Printers and Journeymen (1998), 60-64.",
    "^2Ibid., 61.",
    "^3Saechsisches Staatsarchiv Leipzig, Polizeiamt, no. 1187, fol. 12r.",
]


def _line(page: pymupdf.Page, x: float, y: float, text: str, size: float, justify: bool) -> None:
    words = text.split()
    plain = [w.replace("^", "") for w in words]
    natural = sum(pymupdf.get_text_length(w, "tiro", size) for w in plain)
    space = (RIGHT - x - natural) / (len(words) - 1) if justify else pymupdf.get_text_length(" ", "tiro", size)
    for word in words:
        head, _, mark = word.partition("^")
        if head:
            page.insert_text((x, y), head, fontname="tiro", fontsize=size)
            x += pymupdf.get_text_length(head, "tiro", size)
        if mark:
            digits = "".join(ch for ch in mark if ch.isdigit())
            page.insert_text((x, y - 0.38 * size), digits, fontname="tiro", fontsize=0.62 * size)
            x += pymupdf.get_text_length(digits, "tiro", 0.62 * size)
            rest = mark[len(digits) :]
            page.insert_text((x, y), rest, fontname="tiro", fontsize=size)
            x += pymupdf.get_text_length(rest, "tiro", size)
        x += space


def _article(pdf: Path) -> None:
    with pymupdf.open() as doc:
        page = doc.new_page(width=432, height=648)
        page.insert_text((LEFT, 80), "Guilds, Print and Protest", fontname="tibo", fontsize=14)
        y = 120.0
        for k, text in enumerate(PARAGRAPH):
            _line(page, LEFT + (14 if k == 0 else 0), y, text, SIZE, justify=k < len(PARAGRAPH) - 1)
            y += 13
        _line(page, LEFT, y + 8, "What is striking about the petition is its language.^3", SIZE, justify=False)
        page.draw_line((LEFT, 548), (LEFT + 72, 548), width=0.4)
        for k, text in enumerate(NOTES):
            _line(page, LEFT + 10, 560 + 9.6 * k, text, NOTE, justify=False)
        doc.save(pdf)


def test_each_raised_note_is_its_own_footnote_and_its_mark_leads_to_it(tmp_path: Path) -> None:
    _article(tmp_path / "article.pdf")
    layout = NativeReader().read(tmp_path / "article.pdf")
    regions = [(r.kind, r.text[:22]) for r in layout.pages[0].regions if r.kind in ("paragraph", "footnote")]
    assert regions == [
        ("paragraph", "The typesetters of Lei"),  # the whole paragraph, its first line's mark inside
        ("paragraph", "What is striking about"),
        ("footnote", "¹On the strike see Smi"),
        ("footnote", "²Ibid., 61."),
        ("footnote", "³Saechsisches Staatsar"),
    ]
    batch = build_graph(layout, ingested_at="x", ingest_id="y")
    text = {n.key: str(n.props["text"]) for n in batch.nodes if n.label == "Region"}
    refs = [(e.props["label"], text[e.dst_key][:3]) for e in batch.edges if e.props.get("kind") == "footnote"]
    assert refs == [("Note 1", "¹On"), ("Note 2", "²Ib"), ("Note 3", "³Sa")]

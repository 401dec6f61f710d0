"""Logos (ingest/page/logos.py): a lecturer's deck prints the university's crest in each slide's
corner. Each was a figure region without text whose embedding was its slide title alone: asked
"What does the slide on round robin say?", the crests of the round-robin slides ranked above the
bullets, and the answer quoted a stray tick label. A small picture at one place on most pages is
the page's design; a photo on one slide stays a figure."""

from __future__ import annotations

from pathlib import Path

import pymupdf

from docgraph.ingest.readers.native import NativeReader


def _picture(width: int, height: int, shade: int) -> pymupdf.Pixmap:
    pixmap = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, width, height), False)
    pixmap.clear_with(shade)
    return pixmap


def test_a_crest_in_every_slides_corner_is_no_figure(tmp_path: Path) -> None:
    slides = [
        ("Process States", "A process moves through five states."),
        ("Round Robin", "Each process gets a small unit of CPU time."),
        ("Multilevel Queues", "The ready queue is split into several queues."),
        ("Summary", "Round robin gives good response time."),
    ]
    crest, photo = _picture(60, 40, 90), _picture(300, 200, 200)
    with pymupdf.open() as doc:
        for number, (title, text) in enumerate(slides, start=1):
            page = doc.new_page(width=720, height=405)
            page.insert_image(pymupdf.Rect(645, 12, 700, 48), pixmap=crest)
            page.insert_text((30, 45), title, fontname="hebo", fontsize=26)
            page.insert_text((50, 100), text, fontname="helv", fontsize=18)
            if number == 3:  # a diagram on one slide
                page.insert_image(pymupdf.Rect(200, 130, 500, 330), pixmap=photo)
            page.insert_text((680, 395), str(number), fontname="helv", fontsize=9)
        doc.save(tmp_path / "deck.pdf")
    figures = [
        (page.number, region.bbox.x0)
        for page in NativeReader().read(tmp_path / "deck.pdf").pages
        for region in page.regions
        if region.kind == "figure"
    ]
    assert figures == [(3, 200.0)]

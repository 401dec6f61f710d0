"""Logos (ingest/page/logos.py): a lecturer's deck prints the university's crest in each slide's
corner. Each was a figure region without text whose embedding was its slide title alone: asked
"What does the slide on round robin say?", the crests of the round-robin slides ranked above the
bullets, and the answer quoted a stray tick label. A small picture at one place on most pages is
the page's design; a photo on one slide stays a figure."""

from __future__ import annotations

import math
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


def test_a_sidebar_with_the_outline_on_every_frame_is_furniture(tmp_path: Path) -> None:
    """Beamer's lecture themes draw a crest in a sidebar with the lecture's outline under it on
    every frame: it was one figure per frame holding the outline's words, found by every question
    that names a part of the outline ("Was ist Syntax?")."""
    outline = ["Ziele und Inhalt", "Was ist Syntax?", "Was ist Semantik?", "Grundlage der Syntax", "Zusammenfassung"]
    frames = [
        ("Die Lernziele der heutigen Vorlesung.", "Die Begriffe Syntax und Semantik erklaeren koennen."),
        ("Die zwei Hauptbegriffe der Vorlesung.", "Unter einer Syntax verstehen wir Regeln fuer Texte."),
        ("Beobachtungen zu einem Programmtext.", "Der Programmtext sieht sehr kryptisch aus."),
        ("Was bedeutet ein Satz?", "Eine Semantik legt Bedeutungen fest."),
    ]
    with pymupdf.open() as doc:
        for title, text in frames:
            page = doc.new_page(width=362.8, height=272.1)
            page.draw_rect(pymupdf.Rect(306, 0, 362.8, 272.1), color=None, fill=(0.9, 0.9, 0.95))
            for k in range(10):  # the crest: dots round a ring
                centre = (334 + 14 * math.cos(k), 60 + 14 * math.sin(k))
                page.draw_circle(centre, 3, color=(0.2, 0.5, 0.2), fill=(0.2, 0.5, 0.2))
            for i, entry in enumerate(outline):
                page.insert_text((309, 92 + 10 * i), entry, fontname="helv", fontsize=5)
            page.insert_text((9, 18), title, fontname="hebo", fontsize=10)
            page.insert_text((14, 60), text, fontname="helv", fontsize=10)
        doc.save(tmp_path / "lecture.pdf")
    for page in NativeReader().read(tmp_path / "lecture.pdf").pages:
        (sidebar,) = [region for region in page.regions if region.text.startswith("Ziele und Inhalt")]
        assert sidebar.kind == "page_header"

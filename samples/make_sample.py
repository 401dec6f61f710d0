"""Builds samples/docgraph-sample.pdf: a small born-digital manual for the demo and the tests.

It is made, not downloaded, so its content is known: numbered sections in an outline, a table with a
caption, a vector-drawn figure with a caption, "see Table 1"/"Figure 1" references, running headers and
page numbers, and a paragraph that runs across a page break.  Run: ``python samples/make_sample.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pymupdf

OUT = Path(__file__).with_name("docgraph-sample.pdf")
PAGE = pymupdf.paper_rect("a4")
BODY = pymupdf.Rect(PAGE.x0 + 72, PAGE.y0 + 90, PAGE.x1 - 72, PAGE.y1 - 80)

CSS = """
body { font-family: serif; font-size: 10.5pt; line-height: 1.35; }
h1 { font-size: 20pt; font-weight: bold; margin-bottom: 10pt; }
h2 { font-size: 14pt; font-weight: bold; margin-top: 12pt; }
h3 { font-size: 11.5pt; font-weight: bold; margin-top: 8pt; }
p { margin-bottom: 6pt; text-align: justify; }
table { border-collapse: collapse; margin: 6pt 0; }
td, th { border: 1px solid black; padding: 3pt 6pt; font-size: 10pt; }
.caption { font-size: 9.5pt; font-style: italic; }
.figure { height: 180pt; }
"""

FILLER = (
    "The keeper's log records every feeding round, and each enclosure keeps its own sheet so that "
    "a visiting veterinarian can trace what an animal ate in the days before an examination. "
)

HTML = f"""
<h1>Harbour Zoo Operations Manual</h1>
<p>This manual describes how the Harbour Zoo runs its daily operations: feeding, enclosure care and
visitor safety. Section 2 gives the feeding schedule; the enclosure sizes are listed in Table 1.</p>
<h2>1 Introduction</h2>
<p>The zoo opened in 1998 and houses 212 animals of 41 species. {FILLER * 2}</p>
<h3>1.1 Scope</h3>
<p>These rules apply to all keepers, volunteers and contractors. {FILLER * 3}</p>
<h2>2 Feeding schedule</h2>
<p>Feeding follows a fixed timetable so that animals are not stressed by irregular meals. The penguins are
fed herring twice a day, at 10:30 and at 15:00; the seals receive mackerel at 11:00. {FILLER * 4}</p>
<h3>2.1 Special diets</h3>
<p>Animals on a special diet are marked with a red tag on their enclosure sheet. The red panda Mei eats
bamboo shoots and a vitamin supplement called PandaPlus, given only in the morning round. {FILLER * 5}
During the winter months the supplement dose is doubled, because fresh bamboo is scarce between
November and March and the animals lose weight without it; the head keeper decides the exact amount.</p>
<h2>3 Enclosures</h2>
<p>Every enclosure is inspected weekly. Table 1 lists the size of each enclosure; the layout of the
seal pool is shown in Figure 1.</p>
<table>
<tr><th>Enclosure</th><th>Area (m²)</th><th>Animals</th></tr>
<tr><td>Penguin beach</td><td>640</td><td>28</td></tr>
<tr><td>Seal pool</td><td>1,150</td><td>6</td></tr>
<tr><td>Red panda forest</td><td>420</td><td>2</td></tr>
<tr><td>Otter stream</td><td>310</td><td>5</td></tr>
</table>
<p class="caption">Table 1: Enclosure sizes and number of animals.</p>
<div class="figure"></div>
<p class="caption">Figure 1: Layout of the seal pool with its two islands.</p>
<h2>4 Visitor safety</h2>
<p>Visitors must stay behind the barriers. The seal pool (see Figure 1) has a glass wall of 2.4 metres.
In an emergency, keepers follow the evacuation plan in Section 2.1 only for feeding-related incidents,
and call the duty manager on extension 4711 for everything else. {FILLER * 3}</p>
"""


def _draw_figure(page: pymupdf.Page, rect: pymupdf.Rect) -> None:
    """A vector drawing: the pool outline and two islands, with labels."""
    shape = page.new_shape()
    shape.draw_rect(rect)
    shape.draw_oval(pymupdf.Rect(rect.x0 + 30, rect.y0 + 30, rect.x0 + 120, rect.y0 + 100))
    shape.draw_oval(pymupdf.Rect(rect.x1 - 130, rect.y0 + 40, rect.x1 - 40, rect.y0 + 110))
    shape.finish(color=(0, 0, 0.6), fill=(0.8, 0.9, 1.0), width=1.2)
    shape.commit()
    page.insert_text((rect.x0 + 50, rect.y0 + 70), "Island A", fontsize=8)
    page.insert_text((rect.x1 - 110, rect.y0 + 80), "Island B", fontsize=8)


def _decorate(doc: pymupdf.Document) -> None:
    for index, page in enumerate(doc):
        page.insert_text((72, 50), "Harbour Zoo Operations Manual", fontsize=8, color=(0.3, 0.3, 0.3))
        page.insert_text((PAGE.width / 2 - 4, PAGE.height - 40), str(index + 1), fontsize=9)


def _figure_slot(doc: pymupdf.Document) -> tuple[int, pymupdf.Rect] | None:
    """The blank space left by the ``.figure`` div: between Table 1's caption and Figure 1's caption."""
    for number, page in enumerate(doc):
        hits = page.search_for("Figure 1: Layout")
        if hits:
            bottom = hits[0].y0 - 10
            return number, pymupdf.Rect(110, bottom - 150, PAGE.width - 110, bottom)
    return None


def build(out: Path = OUT) -> Path:
    story = pymupdf.Story(html=HTML, user_css=CSS)
    writer = pymupdf.DocumentWriter(str(out))
    more = True
    while more:
        device = writer.begin_page(PAGE)
        more, _ = story.place(BODY)
        story.draw(device)
        writer.end_page()
    writer.close()
    doc = pymupdf.open(out)
    _decorate(doc)
    slot = _figure_slot(doc)
    if slot is not None:
        _draw_figure(doc[slot[0]], slot[1])
    doc.set_toc(_outline(doc))
    doc.set_metadata({"title": "Harbour Zoo Operations Manual", "author": "docgraph"})
    doc.save(out.with_suffix(".tmp"), garbage=4, deflate=True)
    doc.close()
    out.with_suffix(".tmp").replace(out)
    return out


def _outline(doc: pymupdf.Document) -> list[list[object]]:
    entries = [
        (1, "1 Introduction"),
        (2, "1.1 Scope"),
        (1, "2 Feeding schedule"),
        (2, "2.1 Special diets"),
        (1, "3 Enclosures"),
        (1, "4 Visitor safety"),
    ]
    toc: list[list[object]] = []
    for level, title in entries:
        page = next((i + 1 for i, p in enumerate(doc) if p.search_for(title)), 1)
        toc.append([level, title, page])
    return toc


if __name__ == "__main__":
    print(build(Path(sys.argv[1]) if len(sys.argv) > 1 else OUT))

"""Photos and their captions, as newsletters and magazines set them: a picture (one embedded image,
nothing drawn with it) and under it a line or two in the caption's own type ("Margaret Olsen (left)
receives the award from the chair. Photo: Len Burrows"), with no "Figure 3" to call it a caption.

A photo has no labels in the text layer, so the lines near it are not taken into the figure as a
chart's axis names would be; the block right under it, set apart from the body (another font
family or smaller) and a few lines long, is its caption (linked by ``CAPTION_OF``).
"""

from __future__ import annotations

from collections.abc import Sequence

from docgraph.ingest.page.blocks import Block
from docgraph.ingest.page.classify import FontStats
from docgraph.ingest.page.merge import font_family
from docgraph.ingest.pdf.lines import TextLine
from docgraph.ingest.types import BBox

CAPTION_GAP_EM = 1.5  # white between the picture and its caption, in the caption's font sizes
MAX_CAPTION_LINES = 4


def caption_photos(blocks: Sequence[Block], photos: Sequence[BBox], stats: FontStats) -> None:
    """Call the block right under each photo its caption, when set apart from the body text."""
    for photo in photos:
        under = [b for b in blocks if b.kind == "paragraph" and _right_under(b.bbox, photo, b.size)]
        first = min(under, key=lambda b: b.bbox.y0, default=None)
        if first is not None and len(first.lines) <= MAX_CAPTION_LINES and _set_apart(first, stats):
            first.kind = "caption"


def _right_under(box: BBox, photo: BBox, size: float) -> bool:
    """Below the photo within the gap, sharing half its width or half the photo's (a picture fitted
    into its frame may be narrower than the frame its caption is set to)."""
    gap = box.y0 - photo.y1
    return -0.5 * size <= gap <= CAPTION_GAP_EM * size and box.x_overlap(photo) >= 0.5 * min(box.width, photo.width)


def _set_apart(block: Block, stats: FontStats) -> bool:
    return font_family(block.font) != font_family(stats.body_font) or block.size < stats.body_size - 0.5


def worded_lines(lines: Sequence[TextLine]) -> set[int]:
    """Lines of three words of letters or more ("By Helen Marsh"), unlike tick values and axis
    names, and the lines that end their paragraphs ("Patricia Hale."): flush under such a line, at
    its size, a line's spacing below it. Near a photo they are text, not its labels."""
    worded: set[int] = set()
    for i in sorted(range(len(lines)), key=lambda k: lines[k].bbox.y0):
        line = lines[i]
        words = sum(1 for word in line.text.split() if sum(map(str.isalpha, word)) >= 2)
        if words >= 3 or any(_ends_paragraph(lines[k], line) for k in worded):
            worded.add(i)
    return worded


def _ends_paragraph(above: TextLine, line: TextLine) -> bool:
    gap = line.bbox.y0 - above.bbox.y1
    flush = abs(line.bbox.x0 - above.bbox.x0) <= 1.0
    return flush and abs(line.size - above.size) < 0.5 and -0.5 * line.size <= gap <= 0.5 * line.size

"""Region kinds from font statistics alone (the ``fonts`` mode, and the fallback of ``layout``)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

from docgraph.ingest.floats.captions import CAPTION_DELIMITER_RE, CAPTION_RE, PROSE_AFTER_LABEL_RE
from docgraph.ingest.labels import (
    APPENDIX_WORDS,
    BARE_HEADING_LABEL,
    CJK_HEADING_NUMBER,
    CLAIMS_OPENING,
    COPYRIGHT_LINE,
    DATE_LINE,
    FRONT_MATTER_HEADING,
    HEADING_STATUS,
    HEADING_WORDS,
    MINUTE_LABEL,
    NOTICE_LABEL,
    VALUE_FIELD,
)
from docgraph.ingest.links.statements import head_alone
from docgraph.ingest.page.blocks import BULLET_GLYPH_RE, PATENT_PARAGRAPH, Block, note_goes_on
from docgraph.ingest.page.typewriter import at_text_margin, preformatted, typewritten, typewritten_title
from docgraph.ingest.pdf.lines import TextLine
from docgraph.ingest.pdf.text import ends_sentence
from docgraph.ingest.types import BBox
from docgraph.records import RegionKind

_HEADING_WORDS = "|".join(HEADING_WORDS)
NUMBERED_HEADING_RE = re.compile(
    rf"^\s*(?:(?:chapter|part|section|appendix|{_HEADING_WORDS}|{'|'.join(APPENDIX_WORDS)})\s+[\dA-Z]+\b"
    rf"|\d+(?:\.\d+)*\.?\s+\S|[A-Z](?:\.\d+)+\.?\s+\S|{CJK_HEADING_NUMBER.pattern[1:]})",
    re.IGNORECASE,
)
# The first numbered heading ("1 Introduction", "1.1 Scope", "Chapter 1 Basics", "第1章"): a
# section, never the document's title however large it is set (it would lose its number).
FIRST_NUMBERED_HEADING_RE = re.compile(
    rf"^\s*(?:(?:(?:chapter|part|section|{_HEADING_WORDS})\s+)?[01](?:\.\d+)*\.?\s+[^\W\d]|第\s*1\s*[章节節部篇])",
    re.IGNORECASE,
)
HEADER_MAX_CHARS = 160
HEADER_MAX_LINES = 3
TITLE_SIZE_RATIO = 1.4  # title: at least this much larger than body text
TITLE_SIZE_LEAD = 1.0  # points a centred first-page title is set above anything else on the page
CENTRED_SHARE = 0.05  # of the text width: how far off the middle a centred line may sit
HEADER_SIZE_STEP = 1.0  # points above body size that make a short bold line a header
HEADER_SIZE_RATIO = 1.15  # a short line this much larger than body text is a header even if not bold
# A word of two letters or more: "£412.6m" or "21.5p" (a report's big figures) names nothing.
_WORD = re.compile(r"[^\W\d_]{2,}")
_DOT_LEADER = re.compile(r"(?:\.\s?){4,}\s*\S*\d+\s*$")
FOOTNOTE_TOP_SHARE = 0.6  # footnotes live below this share of the page height
FULL_WIDTH_SHARE = 0.7  # of the text's width: a body block this wide is set across the page, in no column
# A footnote starts with its mark: "1Text" (a superscript digit), "12 See", "¹ Code" (a Unicode
# superscript), "∗Corresponding author"; a paper's author footnotes also with "Email addresses:" or
# "URL:". Small text low on a page without a mark is code, a bibliography set small or a listing's
# numbers. Three digits are more often a numbered code line ("143 \\def...") than the hundredth
# footnote of a document.
FOOTNOTE_MARK = re.compile(
    r"^(?:[*∗†‡§¶⋆]+\s?\S|(?:\(?\d{1,2}\)?|\d{1,2}\.(?=\s)|[⁰¹²³⁴-⁹]{1,2})\s?(?:[^\W\d_]|[“\"(])"
    r"|(?:e-?mail(?: address(?:es)?)?|url)\s*:)",
    re.IGNORECASE,
)
_DOTTED_MARK = re.compile(r"^\d{1,2}\.\s")
_NOTE_NUMBER = re.compile(r"^\s*\(?(\d{1,3})[.)]?\s")  # "12. See", "(12) See", "12 See"
FOOTNOTE_GAP_EM = 1.5  # a mark-less block this close under a footnote continues it
FOOTNOTE_OVERLAP_EM = 0.25  # tight leading: a line's box reaches into the next one's this far


@dataclass(frozen=True, slots=True)
class FontStats:
    body_size: float
    body_font: str
    typewriter: bool = False  # the text itself is monospaced: the font does not tell code


def font_stats(lines: Iterable[TextLine]) -> FontStats:
    """Body size and font: the most common (by characters) among non-monospace lines, or among
    all lines of a typewritten document."""
    lines = list(lines)
    typewriter = typewritten(lines)
    sizes: Counter[float] = Counter()
    fonts: Counter[str] = Counter()
    any_sizes: Counter[float] = Counter()
    for line in lines:
        any_sizes[round(line.size * 2) / 2] += line.chars
        if typewriter or not line.mono:
            sizes[round(line.size * 2) / 2] += line.chars
            fonts[line.font] += line.chars
    counts = sizes or any_sizes
    body = counts.most_common(1)[0][0] if counts else 10.0
    font = fonts.most_common(1)[0][0] if fonts else ""
    return FontStats(body_size=body, body_font=font, typewriter=typewriter)


@dataclass(frozen=True, slots=True)
class PageContext:
    height: float
    title_allowed: bool  # first page with text, no title found yet
    largest_size: float  # largest font size among the page's body blocks
    body_boxes: tuple[BBox, ...]  # the page's blocks set in the body size

    def lowest_body_over(self, box: BBox) -> float:
        """Bottom of the lowest body text in ``box``'s column (the body blocks it overlaps across):
        in two columns a footnote ends one column, however far down the other one runs. Under text
        set across the page (the nearest body block above is most of the text's width) ``box`` is in
        no column of its own, a sidebar beside text running on below, and the whole page counts."""
        over = [b for b in self.body_boxes if b.x_overlap(box) > 0]
        above = max((b for b in over if b.y1 <= box.y0 + 1.0), key=lambda b: b.y1, default=None)
        left = min((b.x0 for b in self.body_boxes), default=0.0)
        right = max((b.x1 for b in self.body_boxes), default=0.0)
        across = above is not None and above.width > FULL_WIDTH_SHARE * (right - left)
        return max((b.y1 for b in (self.body_boxes if across else over)), default=0.0)


def page_context(blocks: list[Block], stats: FontStats, height: float, title_allowed: bool) -> PageContext:
    # the title is the largest words set: a highlights page's figures ("£412.6m") set larger name nothing
    largest = max((b.size for b in blocks if b.lines[0].horizontal and _WORD.search(b.raw_text)), default=0.0)
    body = tuple(b.bbox for b in blocks if abs(b.size - stats.body_size) <= 0.6 and (stats.typewriter or not b.mono))
    return PageContext(height, title_allowed, largest, body)


def is_caption_text(text: str, near_float: bool) -> bool:
    """ "Figure 3: ..." is a caption anywhere; "Figure 3 Pump layout" only right next to a figure or
    table; "Figure 3 shows ..." nowhere (a sentence about the figure)."""
    if CAPTION_DELIMITER_RE.match(text):
        return True
    return near_float and bool(CAPTION_RE.match(text)) and not PROSE_AFTER_LABEL_RE.match(text)


def classify_block(block: Block, stats: FontStats, ctx: PageContext, near_float: bool = False) -> RegionKind:
    text = block.raw_text.strip()
    horizontal = block.lines[0].horizontal
    # Set sideways, "Table 2: ..." beside a sideways table still captions it, and so does "FIG. 5" beside
    # a drawing turned on its sheet ("near" is then judged left and right); nothing else is read sideways.
    if is_caption_text(text, near_float) and len(text) < 600:
        return "caption"
    if not horizontal:
        return "paragraph"
    if block.list_item and BULLET_GLYPH_RE.match(text):  # a bulleted list of code words is still a list
        return "list"
    if _is_code(block, text, stats, ctx):
        return "code"
    if block.math >= 0.5 and len(text) < 400:
        return "formula"
    if _is_title(block, stats, ctx):
        return "title"
    if _is_header(block, text, stats) or CLAIMS_OPENING.match(text):  # "What is claimed is:" opens the claims
        return "section_header"
    if _is_footnote(block, stats, ctx):
        return "footnote"
    if block.list_item:
        return "list"
    return "paragraph"


def _is_code(block: Block, text: str, stats: FontStats, ctx: PageContext) -> bool:
    """A monospaced block, unless a larger heading, or prose in a typewritten document."""
    if not block.mono or (block.size >= stats.body_size + HEADER_SIZE_STEP and _is_header(block, text, stats)):
        return False
    left = min((b.x0 for b in ctx.body_boxes), default=block.bbox.x0)
    right = max((b.x1 for b in ctx.body_boxes), default=block.bbox.x1)
    return not stats.typewriter or preformatted(block, left, right)


def _is_title(block: Block, stats: FontStats, ctx: PageContext) -> bool:
    return (
        ctx.title_allowed
        and block.size >= TITLE_SIZE_RATIO * stats.body_size
        and block.size >= ctx.largest_size - 0.1
        and block.bbox.y0 < 0.5 * ctx.height
        and len(block.lines) <= 4
        and _WORD.search(block.raw_text) is not None
        and not FIRST_NUMBERED_HEADING_RE.match(block.raw_text)
    )


def promote_title(blocks: list[Block], stats: FontStats, ctx: PageContext) -> None:
    """On the first page, a heading that looks like the document title becomes the title.

    The layout model often calls the title a section header; font statistics decide here.
    """
    if not ctx.title_allowed or any(b.kind == "title" for b in blocks):
        return
    headers = [b for b in blocks if b.kind == "section_header" and _is_title(b, stats, ctx)]
    if headers:
        min(headers, key=lambda b: b.bbox.y0).kind = "title"
    elif (centred := _centred_title(blocks, stats) or typewritten_title(blocks, stats.typewriter)) is not None:
        centred.kind = "title"


def _centred_title(blocks: list[Block], stats: FontStats) -> Block | None:
    """The first page's first block when it is a heading set centred, larger than the body and
    than anything else on the page: a title a little larger than the text (groff's -ms sets it
    2 points up), where a section heading is set flush left or no larger than the body. A
    front-matter heading ("Contents", "Preface") set so heads its page and titles nothing."""
    text_blocks = [b for b in blocks if b.lines[0].horizontal and b.kind not in ("page_header", "page_footer")]
    if not text_blocks:
        return None
    first = min(text_blocks, key=lambda b: b.bbox.y0)
    others = max((b.size for b in text_blocks if b is not first), default=0.0)
    left, right = min(b.bbox.x0 for b in text_blocks), max(b.bbox.x1 for b in text_blocks)
    off_centre = abs((first.bbox.x0 + first.bbox.x1) - (left + right)) / 2
    return (
        first
        if first.kind == "section_header"
        and first.size >= HEADER_SIZE_RATIO * stats.body_size
        and first.size >= others + TITLE_SIZE_LEAD
        and off_centre <= CENTRED_SHARE * (right - left)
        and first.bbox.x0 > left + CENTRED_SHARE * (right - left)
        and len(first.lines) <= 4
        and not FIRST_NUMBERED_HEADING_RE.match(first.raw_text)
        and not FRONT_MATTER_HEADING.match(first.raw_text)
        else None
    )


def _is_header(block: Block, text: str, stats: FontStats) -> bool:
    if all(line.pair for line in block.lines):  # labels with their values: a bold "Total" row, no heading
        return False
    if len(block.lines) > HEADER_MAX_LINES or len(text) > HEADER_MAX_CHARS or len(text) < 2:
        return False
    if sum(ch.isalpha() for ch in text) < 2:
        return False
    if _DOT_LEADER.search(text) or NOTICE_LABEL.match(text) or PATENT_PARAGRAPH.match(text):
        return False  # a contents entry, a notice's label, a patent's "[0003] ..."
    if MINUTE_LABEL.match(text) or DATE_LINE.match(text) or COPYRIGHT_LINE.match(text):
        return False  # a minute's outcome: "ACTION: ...", "DECISION: ..."; a deed's "DATED 2024"; "© ISO 2021"
    numbered = bool(NUMBERED_HEADING_RE.match(text))
    much_larger = block.size >= HEADER_SIZE_RATIO * stats.body_size
    larger = block.size >= stats.body_size + HEADER_SIZE_STEP
    if much_larger or (larger and block.bold):
        asks = block.bold and text.endswith("?")  # a FAQ's question, set over its answer
        return not text.endswith(",") and (numbered or asks or not _reads_like_sentence(text))
    if block.bold and block.size >= stats.body_size - 1.0:  # bold at body size: stricter, bold runs are common
        if head_alone(text):  # "Theorem 3.2 (Mean value theorem)" over its statement: a run-in head
            return False
        if numbered:
            return True
        if VALUE_FIELD.match(text):  # "Date: 14/03/2024" on a judgment's cover
            return False
        heading_like = text[0].isupper() or text[0].isdigit()
        return len(block.lines) <= 2 and heading_like and not text.endswith((":", ".", ",", ";"))
    return False


def promote_margin_headings(blocks: list[Block], stats: FontStats) -> None:
    """In a typewritten document, a one-line paragraph at the page's text margin, the body indented
    past it, that reads as a heading ("4.2.1.  Retransmission", "Security Considerations") is one:
    such a document sets its headings in the body's font and size."""
    if not stats.typewriter:
        return
    text_blocks = [b for b in blocks if b.kind in ("paragraph", "list", "code", "section_header")]
    for block in text_blocks:
        text = block.raw_text.strip()
        short = len(block.lines) == 1 and len(text) <= HEADER_MAX_CHARS // 2 and sum(map(str.isalpha, text)) >= 2
        heading_like = bool(NUMBERED_HEADING_RE.match(text)) or (text[:1].isupper() and len(text.split()) <= 6)
        prose = block.kind in ("paragraph", "list") and not text.endswith((".", ",", ";", ":"))
        if prose and short and heading_like and at_text_margin(block, text_blocks):
            block.kind = "section_header"


def promote_heading_status(blocks: list[Block]) -> None:
    """An annex's status line ("(normative)") set right under its bare label ("Annex A") is part of
    its heading, as the title under it is: no text of the annex."""
    labels = [b for b in blocks if b.kind == "section_header" and BARE_HEADING_LABEL.match(b.raw_text)]
    for block in blocks:
        status = block.kind == "paragraph" and HEADING_STATUS.match(block.raw_text.strip())
        if status and any(_right_under(label.bbox, block.bbox, label.size) for label in labels):
            block.kind = "section_header"


def _right_under(above: BBox, below: BBox, size: float) -> bool:
    return above.x_overlap(below) > 0 and 0 <= below.y0 - above.y1 < 2 * size


def _reads_like_sentence(text: str) -> bool:
    """Prose, not a heading: long-ish text that ends like a sentence."""
    return len(text.split()) > 6 and ends_sentence(text)


def _is_footnote(block: Block, stats: FontStats, ctx: PageContext) -> bool:
    """Small marked text under its column's body; an index entry ("2D graphs . . . 98") is none. A
    number with a full stop ("12. See", as Chicago sets notes) marks a note only under body text:
    a list of references or notes set small on a page of its own is a list."""
    text = block.raw_text.strip()
    if not _in_footnote_zone(block, stats, ctx) or not FOOTNOTE_MARK.match(text) or _DOT_LEADER.search(text):
        return False
    return not _DOTTED_MARK.match(text) or ctx.lowest_body_over(block.bbox) > 0


def _in_footnote_zone(block: Block, stats: FontStats, ctx: PageContext) -> bool:
    small = block.size <= stats.body_size - 0.9
    low = block.bbox.y0 >= FOOTNOTE_TOP_SHARE * ctx.height
    return small and low and block.bbox.y0 >= ctx.lowest_body_over(block.bbox) - 1.0


def extend_footnotes(blocks: list[Block], stats: FontStats, ctx: PageContext) -> None:
    """A paragraph in the footnote zone right under a footnote continues it (its second paragraph, an
    address list under "∗Corresponding author"); the zone's first paragraph right over a footnote is
    a note run over from the page before (its mark is there)."""
    zone = sorted((b for b in blocks if _in_footnote_zone(b, stats, ctx)), key=lambda b: b.bbox.y0)
    for k, block in enumerate(zone):
        wordy = sum(ch.isalpha() for ch in block.raw_text) >= 2
        if block.kind != "paragraph" or not wordy:
            continue
        under_note = any(_continues_footnote(above, block) for above in zone[:k])
        run_over = k == 0 and any(_continues_footnote(below, block, upward=True) for below in zone[1:])
        if under_note or run_over:
            block.kind = "footnote"
    _list_notes_under_heading(blocks)
    _join_broken_notes(blocks, [b for b in zone if b.kind == "footnote"])


def _list_notes_under_heading(blocks: list[Block]) -> None:
    """Notes numbered "12. ..." right under a heading ("Notes" closing a chapter, "References") are
    that section's list, not the page's footnotes."""
    listed: list[Block] = []
    for block in sorted(blocks, key=lambda b: b.bbox.y0):
        if block.kind != "footnote" or not _DOTTED_MARK.match(block.raw_text):
            continue
        over = [b for b in blocks if b.bbox.y1 <= block.bbox.y0 + 1.0 and b.bbox.x_overlap(block.bbox) > 0]
        above = max(over, key=lambda b: b.bbox.y1, default=None)
        entry = above is not None and above.kind == "list" and abs(above.size - block.size) < 0.3
        if above is not None and (above.kind == "section_header" or above in listed or entry):
            block.kind = "list" if block.list_item else "paragraph"
            listed.append(block)


def _join_broken_notes(blocks: list[Block], notes: list[Block]) -> None:
    """A note's line that opens with a number ("19. Jahrhundert", "12 km") starts a block of its own:
    under a note that has not ended its sentence, a number that does not follow that note's own in
    sequence goes on with it; so do the note's other lines set in under its mark (a hanging indent)."""
    kept: list[Block] = []
    for note in notes:
        if kept and (
            _broken_off(kept[-1], note) or (_continues_footnote(kept[-1], note) and note_goes_on(kept[-1], note))
        ):
            kept[-1].lines.extend(note.lines)
            blocks.remove(note)
        else:
            kept.append(note)


def _broken_off(above: Block, below: Block) -> bool:
    number, previous = _note_number(below), _note_number(above)
    out_of_sequence = number is not None and number != (previous or 0) + 1
    return out_of_sequence and _continues_footnote(above, below) and not ends_sentence(above.raw_text)


def _note_number(block: Block) -> int | None:
    match = _NOTE_NUMBER.match(block.raw_text)
    return int(match.group(1)) if match else None


def _continues_footnote(note: Block, block: Block, upward: bool = False) -> bool:
    """Whether ``block`` sits right under the footnote ``note`` (or right over it, ``upward``)."""
    above, below = (block, note) if upward else (note, block)
    gap = below.bbox.y0 - above.bbox.y1
    close = -FOOTNOTE_OVERLAP_EM * note.size <= gap <= FOOTNOTE_GAP_EM * note.size
    return note.kind == "footnote" and close and note.bbox.x_overlap(block.bbox) > 0


def near_float(box: BBox, floats: list[BBox], max_gap: float = 60.0, sideways: bool = False) -> bool:
    """True when ``box`` sits just above or below one of ``floats`` and overlaps it horizontally; text
    set ``sideways`` (a patent's drawing turned on its sheet), just left or right of one, beside it."""
    for other in floats:
        overlap = box.y_overlap(other) if sideways else box.x_overlap(other)
        if overlap <= 0:
            continue
        across = (other.x0 - box.x1, box.x0 - other.x1) if sideways else (other.y0 - box.y1, box.y0 - other.y1)
        if max(across) <= max_gap:
            return True
    return False


def promote_chapter_labels(blocks: list[Block]) -> None:
    """A chapter's label set on its own line over its title ("CHAPTER 3" in text type, as many books
    set it) is a heading too, so that the title is read as "Chapter 3 ..." and numbered 3."""
    headings = [b for b in blocks if b.kind in ("section_header", "title")]
    for block in blocks:
        if block.kind != "paragraph" or len(block.lines) != 1 or not BARE_HEADING_LABEL.match(block.raw_text):
            continue
        if any(_heads(block, heading) for heading in headings):
            block.kind = "section_header"


def _heads(label: Block, heading: Block) -> bool:
    """``label`` is right over ``heading``: less than three of the heading's lines above it."""
    gap = heading.bbox.y0 - label.bbox.y1
    return 0 <= gap < 3 * max(label.size, heading.size) and label.bbox.x_overlap(heading.bbox) > 0

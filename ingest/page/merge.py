"""Block-level repairs after classification: split paragraphs, lists, figure labels, text figures."""

from __future__ import annotations

import re
from collections.abc import Sequence

from docgraph.ingest.floats.captions import CAPTION_RE
from docgraph.ingest.labels import CJK_FIGURE, FIGURE_CAPTION_WORDS, NOTICE_LABEL
from docgraph.ingest.links.statements import head_alone
from docgraph.ingest.page.blocks import (
    BLANK_LINE_EM,
    BULLET_RE,
    PATENT_PARAGRAPH,
    Block,
    caption_goes_on,
    code_rows,
    next_numbered_entry,
    next_run_in_entry,
    split_list_items,
)
from docgraph.ingest.page.classify import NUMBERED_HEADING_RE, FontStats, near_float
from docgraph.ingest.page.header_fields import ended_field, opens_field
from docgraph.ingest.pdf.lines import TextLine, lines_in
from docgraph.ingest.pdf.text import ends_sentence, starts_lowercase
from docgraph.ingest.types import BBox
from docgraph.records import RegionKind

LABEL_MARGIN = 18.0  # points around a figure within which short non-body lines are its labels
LABEL_MAX_CHARS = 60
ORPHAN_REACH = 120.0  # how far above a caption the content of a text-only figure may start
SAME_ROW_GAP_EM = 1.0  # white between two pieces of one line of prose, at most
LISTING_GAP_EM = 2.0  # white inside one listing: a blank line or two between its parts, at most
NEST_INDENT_EM = 2.0  # a list item starts at most this far left or right of an item before it
TAB_STOP = 36.0  # a word processor's default tab stop, half an inch: a sub-item's indent after a colon
HANG_EM = (0.8, 4.0)  # a hanging indent: how far in from its first line an entry's other lines start
RAGGED_EM = 6.0  # a hanging entry's first line, set ragged right, ends at most this far short of the rest
WRAPPED_LINE_EM = 15.0  # a line this wide was wrapped in a column of text, no label
# An interactive session's prompt: "R> ", "> ", "gnuplot> ", "$ ", ">>> ", "In [3]: ", and the
# continuation prompts "+ " (R) and "... " (Python).
_FULL_STOP = re.compile(r"[.!?][\"'”’)\]]*\s*$")  # not a colon: "London:" ends an entry's first line
_PROMPT = re.compile(r"^\s*(?:[A-Za-z]*> |\$ |>>> |\.\.\. |In \[\d*\]: |\+ )")
_STYLE_SUFFIX = re.compile(r"(bold|italic|oblique|regular|roman|demi|slant|semibold|medium|light|book)+$", re.I)
_FIGURE_CAPTION = re.compile(
    r"^\s*(?:figure|fig\.|" + "|".join(re.escape(w) for w in FIGURE_CAPTION_WORDS) + f"|{CJK_FIGURE})", re.IGNORECASE
)
# A tick value: "40", "-0.5", "1e-3", "25%", and "10−1" or "10⁻¹" (10 with its exponent set as a
# superscript, read as such or not).
_TICK_VALUE = re.compile(
    r"^[-+\u2212\u2013]?(?:\d+(?:[.,]\d+)*|\.\d+)(?:[eE][-+\u2212]?\d+|[-\u2212]\d+|[⁺⁻]?[⁰¹²³⁴-⁹]+)?%?$"
)
# A patent claim's opening that names another claim: "2. The device of claim 1", "3. Verfahren nach Anspruch 2".
_NAMES_CLAIM = re.compile(
    r"^\s*\d{1,3}\s?\.\s.{0,200}?\b(?:claims?|Anspr(?:uch|üche)|revendications?)\s+\d", re.IGNORECASE | re.DOTALL
)
# A paragraph's clause number: "1.3.2 Offer ...", "7.3. The Customer ..." (two levels or more).
_CLAUSE_NUMBER = re.compile(r"^\s*(\d{1,3}(?:\.\d{1,3})+)\.?\s+\S")
# A sentence closed by a tag after its full stop: a guideline's grade "... for 5 days. [A]", a citation.
_TAGGED_END = re.compile(r"[.!?]\s+\[[^\[\]]{1,8}\]$")
TIGHT_GAP_EM = 0.25  # below this gap, two blocks' lines are set at one paragraph's line spacing
_FIGURE_CONTENT_KINDS: frozenset[RegionKind] = frozenset({"paragraph", "section_header", "list", "formula", "footnote"})


def font_family(font: str) -> str:
    """ "ABCDEF+LMRomanDemi10-Regular" -> "lmroman"; "Times-Bold" -> "times"; CM fonts -> "cm"."""
    name = font.split("+")[-1]
    base = re.split(r"[-,_ ]", name)[0]
    base = re.sub(r"\d+$", "", base)
    base = _STYLE_SUFFIX.sub("", base) or base
    base = base.lower()
    return "cm" if re.match(r"^(cm|sfrm|lm)", base) and not base.startswith("lmmono") else base


def _is_label(line: TextLine, stats: FontStats) -> bool:
    text = line.text.strip()
    if len(text) > LABEL_MAX_CHARS or CAPTION_RE.match(text):
        return False
    other_font = font_family(line.font) != font_family(stats.body_font)
    small = line.size < stats.body_size - 0.5
    # A plot typeset with the document (Asymptote, TikZ, pgfplots) labels its axes in the body font:
    # tick values ("0 20 40 60"), and an axis name or unit of a letter or two ("x", "y", "Hz").
    tiny = len(text.replace(" ", "")) <= 2 and any(ch.isalnum() for ch in text)  # not a list bullet
    return not line.horizontal or other_font or small or tiny or _tick_labels(text)


def _under_caption(line: TextLine, lines: Sequence[TextLine]) -> bool:
    """``line`` goes on from a caption line right above it ("... as seen from the" / "operator's
    position ..."): the caption's, not a label of the figure under it."""
    return any(CAPTION_RE.match(other.text) and caption_goes_on([other], line) for other in lines)


def _text_between(line: TextLine, figure: BBox, lines: Sequence[TextLine], stats: FontStats) -> bool:
    """A line of the text (no label) lies between ``line`` and the figure, above or below it: ``line``
    belongs to the text, as a heading over the paragraph that leads into the figure does."""
    for other in lines:
        if other is line or other.bbox.x_overlap(line.bbox) <= 0 or _is_label(other, stats):
            continue
        middle = (other.bbox.y0 + other.bbox.y1) / 2
        if line.bbox.y1 <= middle <= figure.y0 or figure.y1 <= middle <= line.bbox.y0:
            return True
    return False


def _tick_labels(text: str) -> bool:
    """Numbers, perhaps with an axis name among them ("60 y 40"): what an axis prints beside it."""
    tokens = [(token, bool(_TICK_VALUE.match(token))) for token in text.split()]
    numbers = sum(value for _, value in tokens)
    return numbers > 0 and 2 * numbers >= len(tokens) and all(value or len(t) <= 2 for t, value in tokens)


def absorb_figure_labels(
    box: BBox, lines: Sequence[TextLine], used: set[int], stats: FontStats
) -> tuple[BBox, list[int]]:
    """Lines inside the figure, plus short label-like lines near it (axis titles, plot titles).

    The figure grows with each label it takes, so a label next to another label is found too.
    """
    labels = [i for i in lines_in(box, lines) if i not in used]
    labels = [i for i in labels if not CAPTION_RE.match(lines[i].text.strip())]
    grown = box
    for i in labels:
        grown = grown.union(lines[i].bbox)
    taken = set(labels)
    changed = True
    while changed:
        changed = False
        for index, line in enumerate(lines):
            if index in used or index in taken or line.mono:
                continue
            near = line.bbox.near(grown, LABEL_MARGIN) and _is_label(line, stats)
            if near and not _under_caption(line, lines) and not _text_between(line, grown, lines, stats):
                taken.add(index)
                labels.append(index)
                grown = grown.union(line.bbox)
                changed = True
    return grown, sorted(labels)


def merge_blocks(blocks: list[Block], stats: FontStats) -> list[Block]:
    """Join list items into lists and paragraphs that MuPDF split into several blocks."""
    merged: list[Block] = []
    for block in blocks:
        prev = merged[-1] if merged else None
        if prev is not None and _joinable(prev, block):
            merged[-1] = Block(prev.lines + block.lines, prev.kind, prev.list_item, source=prev.source)
        else:
            merged.append(block)
    return merged


def _joinable(prev: Block, cur: Block) -> bool:
    em = max(prev.size, cur.size, 1.0)
    if prev.kind == cur.kind == "paragraph" and prev.lines[-1].pair and _field(cur.lines[0]):
        return False  # the next of a stack of header fields ("Present: ..."): a field of its own
    if prev.kind == cur.kind == "paragraph" and len(prev.lines) == 1 and ended_field(prev.lines[0], cur.lines[0]):
        return False  # "Company: ..." over an introduction: a field its writer ended
    if prev.kind == cur.kind == "paragraph" and prev.source == cur.source == "fonts" and _same_row(prev, cur, em):
        return True
    gap = cur.bbox.y0 - prev.bbox.y1
    if gap < -0.5 * em:
        return False
    if prev.kind == "list" and cur.kind == "list":  # items of one list, from either source
        return gap <= 1.5 * em and _list_goes_on(prev, cur, em) and not _claims(prev, cur)
    if prev.source != "fonts" or cur.source != "fonts":  # model boxes are kept as the model drew them
        return False
    if prev.kind == "list" and cur.kind == "paragraph":  # the last item goes on: indented, or mid-sentence
        mid_sentence = starts_lowercase(cur.raw_text) and not ends_sentence(prev.raw_text)
        # not text well left of the item, unless the item's line is full and wraps back to the margin
        wrapped = mid_sentence and (cur.bbox.x0 >= prev.bbox.x0 - em or _wraps_back(prev, cur, em))
        indented = cur.bbox.x0 >= prev.bbox.x0 + em and cur.bbox.x0 >= _item_body_edge(prev) - 0.5 * em
        return gap <= 0.8 * em and (indented or wrapped)
    if prev.kind == "list" and cur.kind == "code" and len(cur.lines) == 1:  # an item's URL or command
        return gap <= 0.5 * em and cur.bbox.x0 >= prev.bbox.x0 + em
    if prev.kind == cur.kind == "code":  # one listing cut at a wrapped line, or a command and its output
        back_to_margin = cur.bbox.x0 >= prev.bbox.x0 - 2 * em
        same_part = gap <= BLANK_LINE_EM * em or _output_follows(prev, cur)
        return gap <= LISTING_GAP_EM * em and prev.bbox.x_overlap(cur.bbox) > 0 and back_to_margin and same_part
    if prev.kind == cur.kind and cur.kind in ("title", "section_header"):  # a heading set on two lines
        same_style = abs(prev.size - cur.size) < 0.3 and prev.bold == cur.bold
        return same_style and gap <= 0.6 * em and not NUMBERED_HEADING_RE.match(cur.raw_text)
    if prev.kind == cur.kind == "paragraph" and NOTICE_LABEL.match(prev.raw_text):  # a notice's label over its text
        return gap <= 0.8 * em and prev.bbox.x_overlap(cur.bbox) > 0
    if prev.kind == cur.kind == "paragraph" and head_alone(prev.raw_text):  # a statement's head over its text
        return gap <= 0.8 * em and prev.bbox.x_overlap(cur.bbox) > 0
    if prev.kind == "paragraph" and cur.kind == "code" and len(cur.lines) == 1:  # inline code on its own line
        return gap <= 0.5 * em and not ends_sentence(prev.raw_text)
    if prev.kind == cur.kind == "paragraph" and PATENT_PARAGRAPH.match(cur.raw_text):  # "[0011] ..." opens one
        return False
    if prev.kind == cur.kind == "paragraph" and _next_entry(prev, cur):
        return False
    if prev.kind == cur.kind == "paragraph":
        same_style = prev.font == cur.font and abs(prev.size - cur.size) < 0.3
        overlap = prev.bbox.x_overlap(cur.bbox)
        narrow = min(prev.bbox.width, cur.bbox.width)
        ended = ends_sentence(prev.raw_text) or _TAGGED_END.search(prev.raw_text.rstrip()) is not None
        continues = not ended or starts_lowercase(cur.raw_text) or _runs_on(prev, cur, em)
        return gap <= 0.5 * em and ((same_style and overlap >= 0.5 * narrow and continues) or _hangs_on(prev, cur, em))
    return False


def _field(line: TextLine) -> bool:
    return line.pair and opens_field(line)


def _next_entry(prev: Block, cur: Block) -> bool:
    """``cur`` opens the entry after ``prev``'s: the next clause, the next of a glossary's bold
    terms or of a run of numbered answers."""
    first = cur.lines[0]
    return _next_clause(prev, cur) or next_run_in_entry(prev.lines, first) or next_numbered_entry(prev.lines, first)


def _next_clause(prev: Block, cur: Block) -> bool:
    """``cur`` opens with the clause number after the one ``prev`` opens with ("1.3.1 Start ..." |
    "1.3.2 Offer ..."): a guideline's next recommendation or a contract's next sub-clause, set apart
    by a little white only, is a paragraph of its own, so that "recommendation 1.3.2" finds it."""
    first, second = _CLAUSE_NUMBER.match(prev.raw_text), _CLAUSE_NUMBER.match(cur.raw_text)
    if first is None or second is None:
        return False
    before, after = first.group(1).split("."), second.group(1).split(".")
    return len(before) == len(after) and before[:-1] == after[:-1] and int(after[-1]) == int(before[-1]) + 1


def _claims(prev: Block, cur: Block) -> bool:
    """Two claims of a patent, each a region of its own, as "claim 3" names one: a dependent claim
    names the claim it narrows ("2. The device of claim 1, wherein ..."), so an item that names a
    claim, or follows one that does, is not the item before's list."""
    last = " ".join(line.text for line in split_list_items(prev.lines)[-1])
    return bool(_NAMES_CLAIM.search(last) or _NAMES_CLAIM.search(cur.raw_text))


def _wraps_back(prev: Block, cur: Block, em: float) -> bool:
    """A numbered paragraph indented on its first line only ("    1. A hearing system, comprising:
    ...", its next lines at the margin): the item's last line ends where the lines under it do, full."""
    return prev.lines[-1].bbox.x1 >= cur.bbox.x1 - em and cur.bbox.x0 < prev.bbox.x0


def _hangs_on(prev: Block, cur: Block, em: float) -> bool:
    """``cur`` is the rest of an entry set with a hanging indent (a bibliography as Chicago sets it,
    an index): ``prev`` opens it at the margin, and its other lines all start one hang further in.
    The first line ran on as far as the rest, so no short line ended a paragraph there; titles set in
    italics may make either part's font another. One line in from a line that ends in a full stop is
    as often the next paragraph's first, and one under a short line a label's (a column set flush
    right)."""
    first = prev.lines[0]
    hangs = [line.bbox.x0 - first.bbox.x0 for line in prev.lines[1:] + cur.lines]
    steady = max(hangs) - min(hangs) <= 1.0
    low, high = HANG_EM
    full = first.bbox.x1 >= cur.bbox.x1 - RAGGED_EM * em
    stopped = _FULL_STOP.search(prev.raw_text) is not None
    wrapped = len(cur.lines) > 1 or (not stopped and first.bbox.width >= WRAPPED_LINE_EM * em)
    return abs(prev.size - cur.size) < 0.3 and steady and low * em <= min(hangs) <= high * em and full and wrapped


def _item_body_edge(block: Block) -> float:
    """Where the last item's text wraps to (its lines after the first): a term list's descriptions
    hang far right of their terms, and a paragraph indented less than they are is the text's next
    paragraph, not the item's ("The usual boolean operators are also defined:" after "^ power; ...")."""
    rest = split_list_items(block.lines)[-1][1:]
    return min((line.bbox.x0 for line in rest), default=block.bbox.x0)


def _runs_on(prev: Block, cur: Block, em: float) -> bool:
    """A sentence that ends a full line ("... a BibTEX bibliography.¹", a taller line MuPDF ended its
    block at) and the next set flush under it at the line spacing, or under the paragraph's indented
    first line: one paragraph; a new one would start indented, below a short last line or after a
    wider gap."""
    last = prev.lines[-1]
    full = last.bbox.x1 >= prev.bbox.x1 - em and len(prev.lines) > 1
    flush = abs(cur.bbox.x0 - last.bbox.x0) <= 0.5 and abs(cur.bbox.x0 - prev.bbox.x0) <= 0.5
    return ((full and flush) or _first_line_of(prev, cur, em)) and cur.bbox.y0 - last.bbox.y1 <= TIGHT_GAP_EM * em


def _first_line_of(prev: Block, cur: Block, em: float) -> bool:
    """``prev`` is the indented first line of the paragraph ``cur`` goes on with flush left: set in
    (0.8 to 4 em) and out to the right edge of ``cur``'s lines (justified), a mark after its last word."""
    first = prev.lines[0]
    indent = first.bbox.x0 - cur.bbox.x0
    low, high = HANG_EM
    full = abs(first.bbox.x1 - cur.bbox.x1) <= 0.5 * em
    return len(prev.lines) == 1 and low * em <= indent <= high * em and full


def _list_goes_on(prev: Block, cur: Block, em: float) -> bool:
    """``cur`` starts where an item of the list ``prev`` starts, or a level in or out from one: a
    sub-item under its item, the next item back out of a sub-list. The em is also the items' first
    lines' size, as set: a sub-item set smaller than its item, and longer, must not shrink it."""
    starts = [item[0] for item in split_list_items(prev.lines)]
    em = max(em, cur.lines[0].size, *(line.size for line in starts))
    opens_deeper = cur.bbox.x0 < starts[0].bbox.x0 - em and BULLET_RE.match(starts[0].text)
    if opens_deeper:  # ``prev`` opens with sub-items whose item is not in it (a page or column before)
        return False
    anchors = [prev.bbox.x0, *(line.bbox.x0 for line in starts)]
    if any(abs(cur.bbox.x0 - x) <= NEST_INDENT_EM * em for x in anchors):
        return True
    # an item ending in a colon leads into sub-items a word processor's tab stop further in ("(a) ...
    # an agreement which:" over "(i) ...", half an inch in, which at 11 pt is more than the 2 em above)
    last = split_list_items(prev.lines)[-1]
    into = cur.bbox.x0 - starts[-1].bbox.x0
    return last[-1].text.rstrip().endswith(":") and NEST_INDENT_EM * em < into <= TAB_STOP + 0.5 * em


def _output_follows(prev: Block, cur: Block) -> bool:
    """``cur`` is what the command ending ``prev`` printed: ``prev`` ends at a prompt, ``cur`` has none."""
    return bool(_PROMPT.match(code_rows(prev.lines)[-1][0])) and not _PROMPT.match(code_rows(cur.lines)[0][0])


def _same_row(prev: Block, cur: Block, em: float) -> bool:
    """``cur`` goes on along the line where ``prev`` stops: MuPDF cuts a line of prose into blocks
    at an inline subscript or a change of font ("Here A" | "ml 1,39 and B" | "ml 1,39 are the ...")."""
    last, first = prev.lines[-1], cur.lines[0]
    overlap = last.bbox.y_overlap(first.bbox)
    gap = first.bbox.x0 - last.bbox.x1
    # the next piece may start under the end of the last (a subscript set below a superscript)
    rightwards = first.bbox.x0 > last.bbox.x0 + 0.5 * last.bbox.width
    return overlap >= 0.5 * min(last.bbox.height, first.bbox.height) and rightwards and gap <= SAME_ROW_GAP_EM * em


def figures_for_orphan_captions(
    blocks: list[Block], floats: list[BBox], stats: FontStats
) -> tuple[list[tuple[BBox, list[TextLine]]], list[Block]]:
    """A "Figure N" caption with no figure next to it captions the text drawn just above it.

    Documents that show typeset output as figures (font samples, styled paragraphs) have no
    image or drawing to detect; the blocks directly above the caption set in a font family other
    than the body's are that figure's content.
    """
    body_family = font_family(stats.body_font)
    taken: set[int] = set()
    figures: list[tuple[BBox, list[TextLine]]] = []
    for caption in blocks:
        if caption.kind != "caption" or not _FIGURE_CAPTION.match(caption.raw_text):
            continue
        if not caption.lines[0].horizontal:  # set sideways: "above" it is not where its figure is
            continue
        if near_float(caption.bbox, floats):
            continue
        members = _content_above(caption, blocks, taken, body_family)
        if not members:
            continue
        taken.update(id(b) for b in members)
        box = members[0].bbox
        for member in members[1:]:
            box = box.union(member.bbox)
        labels = [line for member in sorted(members, key=lambda b: b.bbox.y0) for line in member.lines]
        figures.append((box, labels))
        floats.append(box)
    return figures, [b for b in blocks if id(b) not in taken]


def _content_above(caption: Block, blocks: list[Block], taken: set[int], body_family: str) -> list[Block]:
    above = [b for b in blocks if b is not caption and id(b) not in taken and b.bbox.y1 <= caption.bbox.y0 + 2]
    above.sort(key=lambda b: -b.bbox.y1)
    members: list[Block] = []
    top = caption.bbox.y0
    for block in above:
        if top - block.bbox.y1 > ORPHAN_REACH:
            break
        if block.kind not in _FIGURE_CONTENT_KINDS or font_family(block.font) == body_family:
            break
        members.append(block)
        top = min(top, block.bbox.y0)
    return members

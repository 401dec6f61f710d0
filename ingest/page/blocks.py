"""Group text lines into candidate regions (blocks) before they are typed."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from docgraph.ingest.floats.captions import CAPTION_RE
from docgraph.ingest.links.mentions import find_mentions
from docgraph.ingest.page.header_fields import ended_field
from docgraph.ingest.pdf.lines import TextLine
from docgraph.ingest.pdf.text import (
    NUMBER_WORDS,
    SUPERSCRIPT_DIGITS,
    ends_sentence,
    join_code_lines,
    join_lines,
    starts_lowercase,
)
from docgraph.ingest.types import BBox
from docgraph.records import RegionKind

BULLET_RE = re.compile(
    r"^\s*(?:[•◦▪▫‣⁃∙·●○■□►▸➢➤✓✔❖\-–—*](?=\s|$)|\(?\d{1,2}[.)](?=\s)|\(?[a-z][.)](?=\s)|\([ivx]{1,4}\)(?=\s))"
)
BULLET_GLYPH_RE = re.compile(r"^\s*[•◦▪▫‣⁃∙·●○■□►▸➢➤✓✔❖]")
_OPERATORS = frozenset("*-–−+")  # bullet glyphs that are also arithmetic operators
# "3.5  The function ...": an entry opening with a dotted number (an exercise's answer, a sub-clause)
_DOTTED_NUMBER = re.compile(r"^\s*(\d{1,3}(?:\.\d{1,3}){1,3})\.?\s+\S")
# A note that opens with its raised mark ("²The only case", "¹² See"), set on straight after the note before
_RAISED_MARK = re.compile(rf"^\s*[{SUPERSCRIPT_DIGITS}]{{1,3}}\s?[^\W\d_“\"(]")
_ITEM_NUMBER = re.compile(r"^\s*\(?(\d{1,2})[.)]\s")  # "4. ...", "(4) ..."
# "(90) days": a number in brackets at a line's start, which a list item may open with too
_BRACKETED_FIGURE = re.compile(r"^\s*\(\d{1,3}\)\s")
# "[12] R. Nogueira et al. ...": a numbered bibliography entry's label, or a patent's paragraph
# number ("[0012] The controller ..."), zero-padded to four digits or more
_ENTRY_LABEL = re.compile(r"^\s*\[(\d{1,3}|0\d{3,4})\]\s")
# A patent's paragraph opens with its number: "[0011] Fig. 3 is ...", though the one before ends "; and",
# and is no heading however large it is set.
PATENT_PARAGRAPH = re.compile(r"^\s*\[\d{3,5}\]\s")
# "A.1 Part One", "2.3 Results": a subsection number opening a bold line right under a bold heading
_SUBHEADING_START = re.compile(r"^\s*(?:[A-Z]|\d{1,2})(?:\.\d{1,2})+\.?\s+[A-Z]")
SIZE_STEP = 0.6  # points: a larger font-size change between lines starts a new block
PARAGRAPH_GAP = 0.8  # of the font size: a larger vertical gap between lines starts a new block
INDENT_EM = 0.8  # first-line indent (in em) that, after a short line, starts a new paragraph
SHORT_LINE_EM = 2.0  # a line ending this many em before the block's right edge is "short"
BLANK_LINE_EM = 0.8  # more white than this between two rows of a listing is a blank line
CAPTION_ALIGN_PT = 2.0  # points: a caption's next line is centred on its line or flush with it
# Abbreviations that end no sentence: a caption wrapped after one ("Dropout Voltage vs." over
# "Load Current") runs on, though its line ends in a full stop.
_RUNS_ON_AFTER = re.compile(r"\b(?:vs|cf|e\.g|i\.e|approx|incl|resp)\.$", re.IGNORECASE)


@dataclass(slots=True)
class Block:
    """A run of lines that will become one region."""

    lines: list[TextLine]
    kind: RegionKind | None = None
    list_item: bool = False  # starts with a bullet or enumerator
    source: str = "fonts"  # "fonts" (segmented here) or "model" (a layout-model box)

    @property
    def bbox(self) -> BBox:
        box = self.lines[0].bbox
        for line in self.lines[1:]:
            box = box.union(line.bbox)
        return box

    @property
    def chars(self) -> int:
        return sum(line.chars for line in self.lines)

    def _weighted(self, attr: str) -> float:
        total = self.chars or 1
        return sum(float(getattr(line, attr)) * line.chars for line in self.lines) / total

    @property
    def size(self) -> float:
        counts: Counter[float] = Counter()
        for line in self.lines:
            counts[line.size] += line.chars
        return counts.most_common(1)[0][0] if counts else 0.0

    @property
    def font(self) -> str:
        counts: Counter[str] = Counter()
        for line in self.lines:
            counts[line.font] += line.chars
        return counts.most_common(1)[0][0] if counts else ""

    @property
    def bold(self) -> bool:
        return self._weighted("bold") >= 0.8

    @property
    def mono(self) -> bool:
        return self._weighted("mono") >= 0.8

    @property
    def math(self) -> float:
        return self._weighted("math")

    @property
    def raw_text(self) -> str:
        return " ".join(line.text.strip() for line in self.lines)

    def text_for(self, kind: RegionKind) -> str:
        if kind == "code":
            return join_code_lines(code_rows(self.lines))
        if kind == "table":
            return "\n".join(join_lines([ln.text]) for ln in self.lines)
        if kind == "list":
            return "\n".join(join_lines([ln.text for ln in item]) for item in split_list_items(self.lines))
        return join_lines([line.text for line in self.lines])


def code_rows(lines: Sequence[TextLine]) -> list[tuple[str, int]]:
    """Rebuild monospace text rows: pieces on one baseline joined, columns kept by x position."""
    if not lines:
        return []
    left = min(line.bbox.x0 for line in lines)
    widths = sorted(ln.bbox.width / len(ln.text) for ln in lines if ln.horizontal and len(ln.text.strip()) >= 3)
    char_width = widths[len(widths) // 2] if widths else max(lines[0].size * 0.6, 1.0)
    rows: list[list[TextLine]] = []
    for line in sorted(lines, key=lambda ln: (ln.center_y, ln.bbox.x0)):
        if rows and abs(line.center_y - rows[-1][0].center_y) < 0.5 * max(line.size, 1.0):
            rows[-1].append(line)
        else:
            rows.append([line])
    out: list[tuple[str, int]] = []
    for before, row in zip([None, *rows], rows, strict=False):
        if before is not None and _blank_line_between(before[0], row[0]):
            out.append(("", 0))
        pieces = sorted(row, key=lambda ln: ln.bbox.x0)
        first = pieces[0].text.rstrip()
        leading = len(first) - len(first.lstrip())  # indentation typed as spaces inside the line
        indent = round((pieces[0].bbox.x0 - left) / char_width) + leading
        text = first.strip()
        for piece in pieces[1:]:
            column = round((piece.bbox.x0 - left) / char_width) - indent
            text += " " * max(1, column - len(text)) + piece.text.strip()
        out.append((text, indent))
    return out


def _blank_line_between(above: TextLine, below: TextLine) -> bool:
    """More white between two rows of a listing than its leading: a blank line was typed there."""
    size = max(above.size, below.size, 1.0)
    return below.bbox.y0 - above.bbox.y1 > BLANK_LINE_EM * size


def split_list_items(lines: Sequence[TextLine]) -> list[list[TextLine]]:
    items: list[list[TextLine]] = []
    for line in lines:
        bullet = BULLET_RE.match(line.text) and not _figure_in_brackets(items[-1][-1], line) if items else False
        if not items or line.item or bullet:
            items.append([line])
        else:
            items[-1].append(line)
    return items


def segment_lines(lines: Sequence[TextLine]) -> list[Block]:
    """Split the page's lines into blocks: by MuPDF block, then at style changes and breaks."""
    blocks: list[Block] = []
    current: list[TextLine] = []
    for line in lines:
        if current and _starts_new_block(current, line):
            blocks.append(_make_block(current))
            current = []
        current.append(line)
    if current:
        blocks.append(_make_block(current))
    return blocks


def _make_block(lines: list[TextLine]) -> Block:
    return Block(lines=lines, list_item=bool(BULLET_RE.match(lines[0].text)) or lines[0].item)


def _starts_new_block(current: list[TextLine], line: TextLine) -> bool:
    prev = current[-1]
    if line.block != prev.block and not caption_goes_on(current, line):
        return True
    if line.horizontal != prev.horizontal or line.item or prev.item:  # an item set without a mark is a line
        return True
    if abs(line.size - prev.size) > SIZE_STEP or line.mono != prev.mono:
        return True
    if line.bold != prev.bold and not _bold_run_wrapped(current, line):
        return True
    if BULLET_RE.match(line.text) and not _figure_in_brackets(prev, line) and not _operator_goes_on(current, line):
        return not _names_its_number(current, line)
    if _RAISED_MARK.match(line.text) and _RAISED_MARK.match(current[0].text):  # the next of a run of notes
        return True
    if line.bold and _SUBHEADING_START.match(line.text):  # two headings in one MuPDF block
        return True
    if _next_entry(current, line) or next_run_in_entry(current, line) or next_numbered_entry(current, line):
        return True
    if CAPTION_RE.match(line.text) and ends_sentence(prev.text):  # not "... shown in\nFigure 1."
        return True
    gap = line.bbox.y0 - prev.bbox.y1
    if gap > PARAGRAPH_GAP * max(line.size, prev.size) or (len(current) == 1 and ended_field(prev, line)):
        return True
    if line.bbox.y0 < prev.bbox.y0 - 0.5 * prev.size:  # jumps back up: another column or a side note
        return True
    if BULLET_RE.match(current[0].text) and line.bbox.x0 < current[0].bbox.x0 - 0.5 * line.size:
        return True  # text left of the bullet: the list item has ended
    return not line.mono and _paragraph_break(current, line)


def _bold_run_wrapped(current: list[TextLine], line: TextLine) -> bool:
    """``line`` goes on with the sentence of a paragraph in the text type, though a bold run fills
    it or the line before: a defined term set in bold ("... while the home is" | "**Unoccupied**.")
    wrapped to a line of its own. The sentence runs on (the line before ends none), the line is
    flush with the paragraph, and its first word would not have fitted after the line before within
    the paragraph's width: the line before was wrapped, not ended."""
    prev, first = current[-1], current[0]
    text = line.text.strip()
    if first.bold or not text or ends_sentence(prev.text) or _SUBHEADING_START.match(text):
        return False
    em = max(line.size, 1.0)
    left = min(ln.bbox.x0 for ln in current)
    right = max(ln.bbox.x1 for ln in current)
    word = line.bbox.width * len(text.split()[0]) / len(text)
    return abs(line.bbox.x0 - left) < 0.5 * em and prev.bbox.x1 + word >= right - 0.5 * em


def _figure_in_brackets(prev: TextLine, line: TextLine) -> bool:
    """``line`` opens with a number in brackets that repeats the number word the line before stops
    on: a contract's "within ninety" | "(90) days", no list item ("... apply" | "(1) the other ...")."""
    if not _BRACKETED_FIGURE.match(line.text):
        return False
    last = prev.text.rstrip().rsplit(None, 1)[-1].lower() if prev.text.strip() else ""
    return bool(last) and all(part in NUMBER_WORDS for part in last.split("-"))


def _names_its_number(current: list[TextLine], line: TextLine) -> bool:
    """``line`` opens with the number of a part the line before names at its end ("... one of the
    values of Table" | "5. Codes not listed ..."): a sentence wrapped after its label, no list item;
    but the next item of a numbered list ("1. Read the first page" | "2. Turn ...") stays one."""
    tail, number = current[-1].text.rstrip()[-40:], line.text.split(None, 1)[0]
    opening = _ITEM_NUMBER.match(current[0].text)
    if ends_sentence(tail) or (opening and f"{int(opening.group(1)) + 1}" == number.strip("().")):
        return False
    return any(mention.start == len(tail) + 1 for mention in find_mentions(f"{tail} {number}"))


def _operator_goes_on(current: list[TextLine], line: TextLine) -> bool:
    """``line`` opens with an operator ("* max_size))") inside a bracket the lines before it left
    open ("min(10 * max_size, max(14720, 2"): a formula wrapped over the line end, no list item."""
    if line.text.lstrip()[:1] not in _OPERATORS:
        return False
    text = " ".join(ln.text for ln in current)
    return text.count("(") > text.count(")")


def _next_entry(current: list[TextLine], line: TextLine) -> bool:
    """``line`` opens the next entry of a numbered reference list set without space between its
    entries ("[3] ... 2020." | "[4] P. Dasigi ..."): its label hangs left of the lines before it, or
    it follows an entry whose number is one less. Prose that opens sentences with citations ("[3]
    introduced ... [5] extended ...") does neither. A patent's paragraph may end without a full stop
    ("[0010] Fig. 2 shows ...; and" | "[0011] Fig. 3 is ...")."""
    label = _ENTRY_LABEL.match(line.text)
    if label is None or not (ends_sentence(current[-1].text) or len(label.group(1)) >= 4):
        return False
    if line.bbox.x0 < min(ln.bbox.x0 for ln in current) - 0.5 * line.size:
        return True
    first = _ENTRY_LABEL.match(current[0].text)
    return first is not None and int(first.group(1)) + 1 == int(label.group(1))


def next_run_in_entry(current: list[TextLine], line: TextLine) -> bool:
    """``line`` opens the next entry of a run of entries each opening with its term in bold, set
    without space between them (a glossary: "**chord** The segment ..." | "**critical point** A
    point ..."): the entry before opened so too and ended its sentence, the line starts where that
    entry did, and its term is not one the entry names (a manual's "**dashed** will allow ..." |
    "**dashed** and color are ...": more about the same option)."""
    first = current[0]
    if not (line.lead_bold and first.lead_bold) or not ends_sentence(current[-1].text):
        return False
    term = line.lead_bold.rstrip(":.").lower()
    if term in " ".join(ln.text for ln in current).lower():
        return False
    return abs(line.bbox.x0 - first.bbox.x0) < 0.5 * max(line.size, 1.0)


def next_numbered_entry(current: list[TextLine], line: TextLine) -> bool:
    """``line`` opens the next entry of a run of entries numbered with dotted numbers, set without
    space between them (a book's answers to its exercises: "3.4  By the mean value ..." | "3.5  The
    function ..."): the entry before opened with a lower number of as many parts (answers to
    selected exercises skip some) and ended its sentence, and the line starts where it did."""
    first = current[0]
    before, after = _DOTTED_NUMBER.match(first.text), _DOTTED_NUMBER.match(line.text)
    if before is None or after is None or not ends_sentence(current[-1].text):
        return False
    low, high = (tuple(int(part) for part in match.group(1).split(".")) for match in (before, after))
    return len(low) == len(high) and low < high and abs(line.bbox.x0 - first.bbox.x0) < 0.5 * max(line.size, 1.0)


def caption_goes_on(current: list[TextLine], line: TextLine) -> bool:
    """``line``, which MuPDF put in a block of its own, is the next line of the caption ``current``
    (a centred caption's shorter second line): set in its font right under it, centred on it or
    flush with it, and the caption's sentence runs on into it."""
    prev = current[-1]
    same_type = line.font == prev.font and abs(line.size - prev.size) <= SIZE_STEP and line.bold == prev.bold
    centred = abs((line.bbox.x0 + line.bbox.x1) - (prev.bbox.x0 + prev.bbox.x1)) / 2 <= CAPTION_ALIGN_PT
    aligned = centred or abs(line.bbox.x0 - prev.bbox.x0) <= CAPTION_ALIGN_PT
    close = -0.5 < line.bbox.y0 - prev.bbox.y1 < PARAGRAPH_GAP * prev.size
    runs_on = not ends_sentence(prev.text) or line.text.lstrip()[:1].islower()
    runs_on = runs_on or bool(_RUNS_ON_AFTER.search(prev.text.rstrip()))
    starts_caption = bool(CAPTION_RE.match(current[0].text)) and not CAPTION_RE.match(line.text)
    return starts_caption and same_type and aligned and close and runs_on


def _paragraph_break(current: list[TextLine], line: TextLine) -> bool:
    """A short line followed by an indented line: a new paragraph inside one MuPDF block."""
    if len(current) < 2:
        return False
    left = min(ln.bbox.x0 for ln in current)
    right = max(ln.bbox.x1 for ln in current)
    em = max(line.size, 1.0)
    prev_short = current[-1].bbox.x1 < right - SHORT_LINE_EM * em
    indented = line.bbox.x0 > left + INDENT_EM * em
    return prev_short and indented and abs(current[-1].bbox.x0 - left) < 0.5 * em


def note_goes_on(note: Block, block: Block) -> bool:
    """``block`` is the rest of ``note``'s sentence, its wrapped lines set apart as a block of their
    own: a note set with a hanging indent ("(1) Stresses beyond ... These are stress" over "ratings
    only; ...", its other lines in under the mark). The note has not ended its sentence, and
    ``block``, in the note's type, opens with no mark and in lower case or one hang further in."""
    em = max(note.size, 1.0)
    first = note.lines[0].bbox.x0
    same_type = abs(note.size - block.size) < 0.3
    hangs = first + INDENT_EM * em <= block.bbox.x0 <= first + 4 * em
    marked = _ITEM_NUMBER.match(block.raw_text) or _RAISED_MARK.match(block.raw_text)
    opens_on = starts_lowercase(block.raw_text) or hangs
    return same_type and not ends_sentence(note.raw_text) and not marked and opens_on and block.bbox.x0 >= first - 0.5

"""Text lines with font statistics, extracted from ``page.get_text("dict")``."""

from __future__ import annotations

import functools
import re
import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pymupdf

from docgraph.ingest.pdf import api as pdf_api
from docgraph.ingest.pdf.fixed_pitch import fixed_pitch_fonts
from docgraph.ingest.pdf.notices import drop_notice_symbols
from docgraph.ingest.pdf.rule_underscores import restore_underscores, rules_on_line, short_rules
from docgraph.ingest.pdf.text import as_superscript, normalize_chars
from docgraph.ingest.pdf.text_block import EDGE_PT, beyond, right_edge, words
from docgraph.ingest.types import BBox

# Ligatures are normalised by ingest.pdf.text (tested there), so MuPDF is asked to keep them as is.
TEXT_FLAGS = pymupdf.TEXT_PRESERVE_LIGATURES | pymupdf.TEXT_PRESERVE_WHITESPACE | pymupdf.TEXT_MEDIABOX_CLIP

RAISED_SIZE = 0.85  # a superscript mark is set at most this share of the text it follows,
RAISED_BASELINE = 0.1  # and its baseline at least this share of that text's size above that text's
_BOLD_NAME = re.compile(r"bold|black|heavy|demi|semibold|cmbx|cmb\d|[-,]bd?$", re.IGNORECASE)
_MONO_NAME = re.compile(r"mono|courier|consol|menlo|typewriter|cmtt|cmsltt|sftt|code|inconsolata|\btt", re.IGNORECASE)
_MATH_NAME = re.compile(r"cmmi|cmsy|cmex|msam|msbm|math|stixgeneral|symbol|eufm|rsfs|tx(?:sy|ex|mi|ms)", re.IGNORECASE)
# Mathematical operators (U+2200-22FF), their supplement (U+2A00-2AFF), miscellaneous math symbols
# (U+27C0-27EF, U+2980-29FF) and math alphanumerics (U+1D400-1D7FF: the italic x of a formula
# set in a Unicode math font) are math whatever font carries them.
_MATH_RANGES = ((0x2200, 0x22FF), (0x2A00, 0x2AFF), (0x27C0, 0x27EF), (0x2980, 0x29FF), (0x1D400, 0x1D7FF))
_FIRST_MATH_CHAR = chr(_MATH_RANGES[0][0])
_SAME_ROW_MAX_GAP_EM = 4.0  # pieces of one visual line further apart than this are separate items
# A margin note on the row of the body line it remarks on: this many em from it, set this many points
# smaller but no smaller than the body over this ratio (see ``_apart_in_type``)
_NOTE_GAP_EM, _NOTE_SMALLER, _NOTE_RATIO = 1.5, 1.5, 1.6
TAB_GAP_EM = 1.0  # white wider than any word space between two joined pieces: a tab parts them
SAME_ROW = 0.4  # of a line's font size: pieces whose middles are this close share a row
# Text set at a slant this large is a watermark ("DRAFT", "Not for distribution") across the page;
# slanted labels of a chart's axis are small.
WATERMARK_MIN_SIZE = 20.0


def is_math_char(ch: str) -> bool:
    code = ord(ch)
    return any(lo <= code <= hi for lo, hi in _MATH_RANGES)


@dataclass(slots=True)
class TextLine:
    """One visual line: text plus the dominant font properties of its characters."""

    text: str
    bbox: BBox
    size: float
    font: str
    bold: bool
    mono: bool
    math: float  # share of characters set in math fonts
    block: int  # index of the MuPDF block it came from
    horizontal: bool = True
    chars: int = 0  # non-space characters
    item: bool = False  # opens a list item by its place, without a bullet: a term list's term
    pair: bool = False  # a label and its value set apart on one row ("Total GBP ... 1,404.96")
    lead_bold: str = ""  # the bold run it opens with, going on in text type ("**chord** The segment")
    tab: float | None = None  # where the piece after a tab following a colon starts, joined across it

    @property
    def center_y(self) -> float:
        return (self.bbox.y0 + self.bbox.y1) / 2

    def on_row_of(self, other: TextLine) -> bool:
        """Whether ``other`` sits on this line's row: their middles closer than SAME_ROW of this
        line's font size."""
        return abs(self.center_y - other.center_y) < SAME_ROW * max(self.size, 1.0)


def extract_lines(
    page: pymupdf.Page,
    textpage: pymupdf.TextPage | None = None,
    drawings: Sequence[dict[str, Any]] = (),
    apart: Sequence[BBox] = (),
) -> list[TextLine]:
    """All non-empty text lines of the page, pieces on one baseline of a block merged unless one of
    the ``apart`` boxes (form fields) parts them; underscores drawn as rules among ``drawings`` (the
    page's paths) written back into the text."""
    rules = short_rules(drawings)
    # Characters' positions are only needed to place such underscores; "rawdict" costs more.
    data = pdf_api.text_dict(page, TEXT_FLAGS, textpage, with_chars=bool(rules))
    fixed_pitch = fixed_pitch_fonts(page)
    drop_notice_symbols(data.get("blocks", []))
    lines: list[TextLine] = []
    pieces: list[list[TextLine]] = []
    for block_no, block in enumerate(data.get("blocks", [])):
        if block.get("type") != 0:
            continue
        if rules:
            for raw in block["lines"]:
                restore_underscores(raw["spans"], rules_on_line(raw["bbox"], rules))
        pieces.append([ln for ln in (_line_from_dict(raw, block_no, fixed_pitch) for raw in block["lines"]) if ln])
    edge = right_edge([piece.bbox for block_lines in pieces for piece in block_lines if piece.horizontal])
    for block_lines in pieces:
        lines.extend(_merge_same_row(rows_in_order(block_lines), apart, edge))
    return lines


@functools.lru_cache(maxsize=1024)
def _font_traits(font: str) -> tuple[bool, bool, bool]:
    """(bold, monospaced, math) as the font's name tells; a document uses a few dozen fonts at most."""
    return bool(_BOLD_NAME.search(font)), bool(_MONO_NAME.search(font)), bool(_MATH_NAME.search(font))


def is_bold_span(span: dict[str, Any]) -> bool:
    """Whether a text span of ``get_text("dict")`` is set bold, by its flags or its font's name."""
    return bool(int(span.get("flags", 0)) & pymupdf.TEXT_FONT_BOLD) or _font_traits(str(span.get("font", "")))[0]


def _line_from_dict(raw: dict[str, Any], block_no: int, fixed_pitch: frozenset[str]) -> TextLine | None:
    spans = [s for s in raw.get("spans", []) if s.get("text")]
    direction = raw.get("dir", (1.0, 0.0))
    horizontal = abs(direction[1]) < 0.1 and direction[0] > 0
    if _watermark(direction, spans):
        return None
    if horizontal:  # content streams may draw a line's pieces out of order (leaders before titles)
        backwards = right_to_left("".join(s["text"] for s in spans))  # Hebrew, Arabic: read from the right
        spans.sort(key=lambda s: s["bbox"][0], reverse=backwards)
    text = normalize_chars("".join(_span_texts(spans)))
    if not text.strip():
        return None
    weights: Counter[tuple[float, str, bool, bool, bool]] = Counter()
    math_chars = bold_letters = 0
    for span in spans:
        font = str(span.get("font", ""))
        flags = int(span.get("flags", 0))
        bold_name, mono_name, math = _font_traits(font)
        bold = bool(flags & pymupdf.TEXT_FONT_BOLD) or bold_name
        mono = bool(flags & pymupdf.TEXT_FONT_MONOSPACED) or mono_name or font in fixed_pitch
        count = len(span["text"]) - sum(map(str.isspace, span["text"]))
        weights[(round(float(span.get("size", 0.0)), 1), font, bold, mono, math)] += count
        bold_letters += sum(map(str.isalpha, span["text"])) if bold and not mono else 0
        if math:  # dot leaders are often set in a math font; they do not make a formula
            math_chars += sum(1 for ch in span["text"] if not ch.isspace() and ch != ".")
        elif max(span["text"]) >= _FIRST_MATH_CHAR:  # (most spans have no character that far up)
            math_chars += sum(1 for ch in span["text"] if is_math_char(ch))
    total = sum(weights.values())
    if total == 0:
        return None
    dominant = weights.most_common(1)[0][0]
    bold_chars = sum(n for key, n in weights.items() if key[2])
    mono_chars = sum(n for key, n in weights.items() if key[3])
    # A code word in a bold heading is set in the code font, not bold: the share is of the rest, when
    # the bold rest holds a word in a text font and the code is the smaller part ("2.2. Creation of
    # "zooreg" objects"; not "8.3 DocPara(self, …", "Usage: docgraph ingest FILE.pdf --force" nor a
    # code line with a bold code word in it).
    plain_code_chars = sum(n for key, n in weights.items() if key[3] and not key[2])
    if bold_letters < 2 or 2 * plain_code_chars >= total:
        plain_code_chars = 0
    x0, y0, x1, y1 = raw["bbox"]
    return TextLine(
        text=text,
        bbox=BBox(x0, y0, x1, y1),
        size=dominant[0],
        font=dominant[1],
        bold=bold_chars >= 0.8 * (total - plain_code_chars),
        mono=mono_chars >= 0.8 * total,
        math=math_chars / total,
        block=block_no,
        horizontal=horizontal,
        chars=total,
        lead_bold=_leads_bold(spans),
    )


def _leads_bold(spans: list[dict[str, Any]]) -> str:
    """The bold run of two characters or more that the line opens with (a glossary's term) when it
    goes on in a text font that is not bold: a run-in head, not a bold line; else ""."""
    traits = [
        (bool(int(s.get("flags", 0)) & pymupdf.TEXT_FONT_BOLD) or _font_traits(str(s.get("font", "")))[0], s)
        for s in spans
        if str(s["text"]).strip()
    ]
    lead = ""
    for bold, span in traits:
        if not bold:
            break
        lead += str(span["text"])
    rest = any(not bold and any(map(str.isalpha, str(span["text"]))) for bold, span in traits)
    return lead.strip() if sum(map(str.isalnum, lead)) >= 2 and rest else ""


def _span_texts(spans: list[dict[str, Any]]) -> list[str]:
    """The spans' texts, a raised small mark or exponent after a word in superscript characters
    (with the spans that go on at its size and height: the "1" of a "−1" set in two fonts)."""
    texts = [str(span["text"]) for span in spans]
    raised_at: tuple[float, float] | None = None  # (size, baseline) of the superscript just written
    for i in range(1, len(spans)):
        span, before = spans[i], spans[i - 1]
        mark, at = texts[i].strip(), (float(span["size"]), float(span["origin"][1]))
        raised = (  # MuPDF flags subscripts too: the baseline says which
            bool(int(span.get("flags", 0)) & pymupdf.TEXT_FONT_SUPERSCRIPT)
            and span["size"] < RAISED_SIZE * before["size"]
            and at[1] < float(before["origin"][1]) - RAISED_BASELINE * float(before["size"])
        )
        going_on = raised_at is not None and abs(at[0] - raised_at[0]) < 0.1 and abs(at[1] - raised_at[1]) < 0.5
        written = as_superscript(mark) if mark and texts[i - 1][-1:].strip() and (raised or going_on) else None
        if written is not None:
            texts[i] = texts[i].replace(mark, written, 1)
        raised_at = at if written is not None else None
    if len(spans) > 1 and _leads_raised(spans[0], spans[1]):  # a footnote's own mark: "²The only case"
        mark = texts[0].strip()
        texts[0] = texts[0].replace(mark, as_superscript(mark) or mark, 1)
    return texts


def _leads_raised(first: dict[str, Any], second: dict[str, Any]) -> bool:
    """The line's first span is set small and raised before the text after it (MuPDF flags no
    superscript at a line's start: it has nothing to compare with)."""
    size, baseline = float(second["size"]), float(second["origin"][1])
    small = float(first["size"]) < RAISED_SIZE * size
    return small and float(first["origin"][1]) < baseline - RAISED_BASELINE * size


def _watermark(direction: tuple[float, float], spans: list[dict[str, Any]]) -> bool:
    slanted = min(abs(direction[0]), abs(direction[1])) >= 0.2
    return slanted and max((float(s.get("size", 0.0)) for s in spans), default=0.0) >= WATERMARK_MIN_SIZE


def rows_in_order(lines: list[TextLine]) -> list[TextLine]:
    """Horizontal lines top to bottom, pieces of one row left to right (streams may differ)."""
    if any(not ln.horizontal for ln in lines):
        return lines
    rows: list[list[TextLine]] = []
    for line in sorted(lines, key=lambda ln: ln.center_y):
        if rows and line.on_row_of(rows[-1][-1]):
            rows[-1].append(line)
        else:
            rows.append([line])
    return [line for row in rows for line in sorted(row, key=lambda ln: ln.bbox.x0, reverse=_row_rtl(row))]


def right_to_left(text: str) -> bool:
    """Whether ``text`` has right-to-left letters and none written left to right: only then are its
    pieces taken from the right. Mixed text keeps its pieces left to right, as before; ordering
    its runs needs Unicode's bidi algorithm, and turning the whole line scrambled its English."""
    rtl = False
    for ch in text:
        kind = unicodedata.bidirectional(ch)
        if kind == "L":
            return False
        rtl = rtl or kind in ("R", "AL")
    return rtl


def _row_rtl(row: list[TextLine]) -> bool:
    return right_to_left("".join(line.text for line in row))


def _merge_same_row(lines: list[TextLine], apart: Sequence[BBox] = (), edge: float | None = None) -> list[TextLine]:
    """Join consecutive pieces that sit on the same baseline (a bullet and its text, split spans),
    not a note in the right margin (beyond the text block's ``edge``) to the body line beside it."""
    merged: list[TextLine] = []
    for line in lines:
        prev = merged[-1] if merged else None
        if prev is not None and _same_row(prev, line) and not _parted(prev.bbox, line.bbox, apart):
            if _note_beyond(prev, line, edge):
                merged.append(line)
                continue
            merged[-1] = _join(prev, line)
        else:
            merged.append(line)
    return merged


def _parted(a: BBox, b: BBox, boxes: Sequence[BBox]) -> bool:
    """A box lies between the two pieces on their row, or holds one piece and not the other: the
    labels either side of a check box, a label and the value its field draws."""
    lo, hi = min(a.x1, b.x1), max(a.x0, b.x0)
    for box in boxes:
        if a.centre_in(box) != b.centre_in(box):
            return True
        if lo <= (box.x0 + box.x1) / 2 <= hi and box.y0 < max(a.y1, b.y1) and box.y1 > min(a.y0, b.y0):
            return True
    return False


def _same_row(a: TextLine, b: TextLine) -> bool:
    if not (a.horizontal and b.horizontal):
        return False
    overlap = a.bbox.y_overlap(b.bbox)
    height = min(a.bbox.height, b.bbox.height)
    gap = max(a.bbox.x0, b.bbox.x0) - min(a.bbox.x1, b.bbox.x1)  # either order: streams need not go left to right
    if _apart_in_type(a, b, gap):
        return False
    return height > 0 and overlap >= 0.6 * height and -1.0 <= gap <= _SAME_ROW_MAX_GAP_EM * max(a.size, 1.0)


def _apart_in_type(a: TextLine, b: TextLine, gap: float) -> bool:
    """Two texts on one row, not one line's pieces: a note set small in the margin, on the row of
    the body line it remarks on. They stand 1.5 em apart or more, in sizes 1.5 points apart or more
    (the body at most 1.6 times the note's), neither in typewriter type (an option's term set small
    before its description), and the smaller is words, two of three letters or more: not a note's
    mark, a number, nor a formula's subscripts or a chart's logo beside its title."""
    small, large = sorted((a, b), key=lambda line: line.size)
    if a.mono or b.mono or gap < _NOTE_GAP_EM * large.size or small.math >= 0.5:
        return False
    if large.size - small.size < _NOTE_SMALLER or large.size > _NOTE_RATIO * small.size:
        return False
    return words(small.text)


def _note_beyond(a: TextLine, b: TextLine, edge: float | None) -> bool:
    """The right of two pieces on a row lies in the margin beyond the text block's ``edge`` and the
    left one inside it, 1.5 em apart: a margin note set at the body's size beside the line it
    remarks on, words in text type."""
    left, right = sorted((a, b), key=lambda line: line.bbox.x0)
    if edge is None or not beyond(right.bbox, right.size, edge) or left.bbox.x1 > edge + EDGE_PT:
        return False
    if a.mono or b.mono or right.math >= 0.5 or right.bbox.x0 - left.bbox.x1 < _NOTE_GAP_EM * left.size:
        return False
    return words(right.text)


def _join(first: TextLine, second: TextLine) -> TextLine:
    leftmost_first = (first.bbox.x0 <= second.bbox.x0) != right_to_left(first.text + second.text)
    a, b = (first, second) if leftmost_first else (second, first)
    total = a.chars + b.chars
    main = a if a.chars >= b.chars else b
    sep = "" if a.text.endswith(" ") or b.text.startswith(" ") else " "
    # A tab after a colon is kept: a header field's label glued to its value ("Meeting:<tab>..."); not
    # the white before a contents entry's leaders ("Logistic Regression: family = ... . . . 16").
    tabbed = a.text.rstrip().endswith(":") and b.bbox.x0 - a.bbox.x1 >= TAB_GAP_EM * a.size
    tab = a.tab if a.tab is not None else b.bbox.x0 if tabbed else b.tab
    return TextLine(
        text=a.text + sep + b.text,
        bbox=a.bbox.union(b.bbox),
        size=main.size,
        font=main.font,
        bold=(a.bold and b.bold) or (main.bold and min(a.chars, b.chars) <= 2),
        mono=(a.mono and b.mono) or (main.mono and min(a.chars, b.chars) <= 2),
        math=(a.math * a.chars + b.math * b.chars) / total if total else 0.0,
        block=first.block,
        horizontal=True,
        chars=total,
        lead_bold=a.lead_bold or (a.text.strip() if a.bold and not a.mono and not b.bold and not b.mono else ""),
        tab=tab,
    )


def lines_in(box: BBox, lines: Sequence[TextLine]) -> list[int]:
    """Indexes of lines whose centre lies inside ``box``."""
    return [index for index, line in enumerate(lines) if line.bbox.centre_in(box)]

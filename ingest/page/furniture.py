"""Running headers, footers and page numbers, recognised across the pages of a document.

A line is furniture when it sits in the top or bottom band of its page and either is a page
number ("12", "Page 12", "- xii -", "3 of 40") or its text, digits and roman numerals replaced,
repeats in the same band on several pages. Lines that share position and font with such a line
elsewhere are furniture too, so a chapter's running title printed on only one page is caught.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from docgraph.ingest.page.toc_entries import entry_numbers
from docgraph.ingest.pdf.lines import TextLine
from docgraph.ingest.types import BBox, landscape_throughout

BAND_FRACTION = 0.12  # share of the page height at the top and at the bottom that may hold furniture
# A page number may sit further in when it is the page's first or last line, at the same place on
# several pages: LaTeX's default on US letter prints it 87 pt above the bottom edge (12.6 %).
PAGE_NUMBER_BAND_FRACTION = 0.2
MAX_FURNITURE_CHARS = 160
TICK_LABEL_REACH = 12.0  # points between a figure's drawing and the numbers on its axes, at most
LINE_NUMBER_REACH = 3.5  # font sizes between numbered lines of a listing (a wrapped line between), at most
LINE_NUMBER_EDGE = 2.0  # points: a listing's line numbers end at one edge
MAX_SIZE_RATIO = 1.35  # a line much larger than body text is a title, not a running header
HEADING_SIZE_STEP = 1.0  # points larger than a running title that the heading it repeats is set in
SMALLER_THAN_BODY = 1.0  # points smaller than body text that a running title may be set in
SMALL_HEAD_GAP = 1.0  # body sizes of white, at least, between a small running head and the text below
SIZE_TOLERANCE = 0.5  # points over the body size a running head beside the page number may be set in
ROW_TOLERANCE_EM = 0.3  # of the page number's size: how far off its row a running head's middle may sit
SLIDE_TITLE_STEP = 1.0  # points over the body size that a slide's title in the top band is set in, at least

LargeLine = tuple[tuple[str, int, str, int], str]  # a line's place and font, and its text

_PAGE_NUMBER = re.compile(
    r"^[\s\-–—|.]*(?:page|p\.|seite|pag\.?)?\s*(?:\d{1,5}|[ivxlcdm]{1,7})"
    r"(?:\s*(?:of|/|von|de)\s*\d{1,5})?[\s\-–—|.]*$",
    re.IGNORECASE,
)
_ROMAN_TOKEN = re.compile(r"\b[ivxlcdm]{1,7}\b", re.IGNORECASE)
_DIGITS = re.compile(r"\d+")
_SPACES = re.compile(r"\s+")


@dataclass(slots=True)
class PageLines:
    """What furniture detection needs to know about one page."""

    height: float
    lines: Sequence[TextLine]
    figures: Sequence[BBox] = ()  # a number at a figure's edge is its tick label, not a page number
    tables: Sequence[BBox] = ()  # a number in a ruled table's cell is the table's
    number: int = 0  # 1-based page number in the document (0: not known)
    width: float = 0.0  # 0: not known


@dataclass(slots=True)
class FurnitureMarks:
    """Indexes into the page's line list."""

    header: set[int] = field(default_factory=set)
    footer: set[int] = field(default_factory=set)

    def __contains__(self, index: object) -> bool:
        return index in self.header or index in self.footer


def is_page_number(text: str) -> bool:
    stripped = text.strip()
    return bool(stripped) and bool(_PAGE_NUMBER.match(stripped))


def furniture_key(text: str) -> str:
    """Text with numbers and roman numerals replaced, lower-cased, whitespace collapsed."""
    key = _DIGITS.sub("#", text.lower())
    key = _ROMAN_TOKEN.sub("#", key)
    return _SPACES.sub(" ", key).strip()


def _band(line: TextLine, height: float) -> str | None:
    if not line.horizontal:
        return None
    if line.bbox.y1 <= height * BAND_FRACTION:
        return "top"
    if line.bbox.y0 >= height * (1.0 - BAND_FRACTION):
        return "bottom"
    return None


def _signature(band: str, line: TextLine) -> tuple[str, int, str, int]:
    return (band, round(line.bbox.y0 / 3), line.font, round(line.size))


def _eligible(line: TextLine, body_size: float) -> bool:
    text = line.text.strip()
    if not text or len(text) > MAX_FURNITURE_CHARS:
        return False
    return not (body_size > 0 and line.size > MAX_SIZE_RATIO * body_size)


def _in_table(line: TextLine, page: PageLines) -> bool:
    """A ruled table's line: its header row repeated atop each page it runs over is no running head."""
    return any(line.bbox.centre_in(table) for table in page.tables)


def _numbers_content(line: TextLine, page: PageLines) -> bool:
    """A number that belongs to the page's content: a tick label ("100" at the top of a plot's y
    axis, reaching into the band) or the number of a listing's line ("96" beside a code line, with
    "95" or "97" right above or below it, ending at the same edge)."""
    if not is_page_number(line.text):
        return False
    return any(line.bbox.near(f, TICK_LABEL_REACH) for f in page.figures) or _listing_line_number(line, page.lines)


def _listing_line_number(line: TextLine, lines: Sequence[TextLine]) -> bool:
    text = line.text.strip()
    if not text.isdigit():
        return False
    neighbours = {str(int(text) - 1), str(int(text) + 1)}
    reach = LINE_NUMBER_REACH * max(line.size, 1.0)
    return any(
        other.text.strip() in neighbours
        and abs(other.bbox.x1 - line.bbox.x1) <= LINE_NUMBER_EDGE
        and 0 < abs(other.center_y - line.center_y) <= reach
        for other in lines
    )


def detect_furniture(pages: Sequence[PageLines], body_size: float = 0.0) -> list[FurnitureMarks]:
    """Mark header/footer lines on every page (indexes into each page's ``lines``)."""
    min_repeat = 3 if len(pages) >= 5 else 2
    large = [_large_lines(page, body_size) for page in pages]
    letterheads = _letterheads(large)
    candidates: list[list[tuple[int, str]]] = []  # per page: (line index, band)
    key_pages: Counter[tuple[str, str]] = Counter()
    for page in pages:
        found = []
        for index, line in enumerate(page.lines):
            band = _band(line, page.height)
            if band is None or _in_table(line, page) or _numbers_content(line, page):
                continue
            if _eligible(line, body_size):
                found.append((index, band))
        candidates.append(found)
    if len(pages) > 1 and landscape_throughout(pages):
        candidates = _without_slide_titles(pages, candidates, body_size)
    for page, found in zip(pages, candidates, strict=True):
        key_pages.update({(band, furniture_key(page.lines[i].text)) for i, band in found})

    def repeats(key: tuple[str, str]) -> bool:
        return len(pages) > 1 and key_pages[key] >= min_repeat

    for page, found in zip(pages, candidates, strict=True):
        _drop_entry_numbers(page, found, repeats)

    marks = [FurnitureMarks() for _ in pages]
    signatures: Counter[tuple[str, int, str, int]] = Counter()
    for page, found, mark in zip(pages, candidates, marks, strict=True):
        page_signatures = set()
        for index, band in found:
            line = page.lines[index]
            if repeats((band, furniture_key(line.text))) or is_page_number(line.text):
                _add(mark, index, band)
                page_signatures.add(_signature(band, line))
        signatures.update(page_signatures)

    for page, mark, page_large in zip(pages, marks, large, strict=True):
        if page.number != 1:  # on the first page such a line may be the title
            _mark_letterheads(mark, page_large, letterheads)

    for sig_page, index, band in _running_title_lines(pages, candidates, min_repeat, body_size):
        _add(marks[sig_page], index, band)
        signatures[_signature(band, pages[sig_page].lines[index])] += 1

    # Second pass: same place, same font as furniture seen on several pages.
    for page, found, mark in zip(pages, candidates, marks, strict=True):
        for index, band in found:
            if index not in mark and signatures[_signature(band, page.lines[index])] >= min_repeat:
                _add(mark, index, band)
    _mark_inner_page_numbers(pages, marks, min_repeat)
    if len(pages) == 1:
        _mark_lone_page_head(pages[0], candidates[0], marks[0], body_size)
    for page, found, mark in zip(pages, candidates, marks, strict=True):
        _mark_beside_page_number(page, found, mark, body_size)
    return marks


def _without_slide_titles(
    pages: Sequence[PageLines], candidates: list[list[tuple[int, str]]], body_size: float
) -> list[list[tuple[int, str]]]:
    """A deck's candidates less its slides' titles: a line in the top band set larger than the body,
    or bold in its size, that few slides print (a beamer frame's title, repeated only over the pages
    of its overlays, at one place and in one font on every slide). A course name or a navigation
    bar of section names printed on most slides stays furniture."""
    on_pages: Counter[str] = Counter()
    for page, found in zip(pages, candidates, strict=True):
        on_pages.update({furniture_key(page.lines[i].text) for i, band in found if band == "top"})

    def title(page: PageLines, index: int, band: str) -> bool:
        line = page.lines[index]
        set_apart = line.size >= body_size + SLIDE_TITLE_STEP or (line.bold and line.size >= body_size - SIZE_TOLERANCE)
        return band == "top" and set_apart and 2 * on_pages[furniture_key(line.text)] < len(pages)

    return [
        [(i, band) for i, band in found if not title(page, i, band)]
        for page, found in zip(pages, candidates, strict=True)
    ]


def _mark_beside_page_number(page: PageLines, found: list[tuple[int, str]], mark: FurnitureMarks, body: float) -> None:
    """A line in the band on the row of the page's number, set no larger than the text, is a running
    head however few pages repeat it: a book's chapter title beside the number on right-hand pages,
    its own title on left-hand ones, in a chapter of a few pages."""
    numbers = [page.lines[i] for i in mark.header | mark.footer if is_page_number(page.lines[i].text)]
    for index, band in found:
        line = page.lines[index]
        if index in mark or (body > 0 and line.size > body + SIZE_TOLERANCE):
            continue
        if any(abs(line.center_y - number.center_y) <= ROW_TOLERANCE_EM * number.size for number in numbers):
            _add(mark, index, band)


def _letterheads(large: Sequence[list[tuple[int, LargeLine]]]) -> set[LargeLine]:
    """Of each page's lines too large for a running head (``large``), those printed alike, word for
    word, at one place and in one font on every page: a letterhead, a logo's words or a title
    repeated atop each page. They are furniture after the document's first page, where such a line
    may be its title (a two-page menu repeating "Spring Menu"); a chapter's opening ("CHAPTER 2") is
    not on every page."""
    if len(large) < 2:
        return set()
    return set.intersection(*({line for _, line in page} for page in large))


def _large_lines(page: PageLines, body_size: float) -> list[tuple[int, LargeLine]]:
    """(index, place and text) of the page's lines in its bands set too large for a running head."""
    found = []
    for index, line in enumerate(page.lines):
        band = _band(line, page.height)
        if band is not None and line.text.strip() and not _eligible(line, body_size) and not _in_table(line, page):
            found.append((index, (_signature(band, line), line.text.strip())))
    return found


def _mark_letterheads(mark: FurnitureMarks, large: list[tuple[int, LargeLine]], letterheads: set[LargeLine]) -> None:
    for index, line in large:
        if line in letterheads:
            _add(mark, index, line[0][0])


def _running_title_lines(
    pages: Sequence[PageLines], candidates: list[list[tuple[int, str]]], min_repeat: int, body_size: float
) -> list[tuple[int, int, str]]:
    """(page, line index, band) of running titles that change with each chapter, on too few pages
    for their text to repeat: a page's first (or last) line outside a table, at one place and in one
    font on several pages, most of them repeating a heading (the same text set larger elsewhere in
    the document); or a first line set smaller than the body, apart from the text under it (a short
    book's alternating heads: the book's title on left pages, the chapter's on right ones)."""
    largest: dict[str, float] = {}
    for page in pages:
        for line in page.lines:
            key = furniture_key(line.text)
            largest[key] = max(largest.get(key, 0.0), line.size)
    edges = [_edge_line(page, found) for page, found in zip(pages, candidates, strict=True)]
    slots: Counter[tuple[str, int, str, int]] = Counter()
    marked: Counter[tuple[str, int, str, int]] = Counter()  # those repeating a heading, or a small head
    for page, (index, band) in zip(pages, edges, strict=True):
        if index >= 0:
            line, sig = page.lines[index], _signature(band, page.lines[index])
            slots[sig] += 1
            marked[sig] += largest[furniture_key(line.text)] >= line.size + HEADING_SIZE_STEP or (
                band == "top" and _small_head(line, page, body_size)
            )
    taken = {sig for sig, count in slots.items() if count >= min_repeat and 2 * marked[sig] >= count}
    return [
        (number, index, band)
        for number, (page, (index, band)) in enumerate(zip(pages, edges, strict=True))
        if index >= 0 and _signature(band, page.lines[index]) in taken
    ]


def _mark_lone_page_head(page: PageLines, found: list[tuple[int, str]], mark: FurnitureMarks, body: float) -> None:
    """A one-page document's first line, in the top band, set smaller than the body and apart from
    the text under it, is its running head (a service bulletin's template prints one over a rule),
    though no other page repeats it; so are the other lines of the band on its row, set no larger
    (an article's head: its venue at one margin, its authors at the other)."""
    index, band = _edge_line(page, found)
    if band != "top" or index in mark:
        return
    if not (_small_head(head := page.lines[index], page, body) or _head_over_title(head, page, body)):
        return
    for other, other_band in found:
        line = page.lines[other]
        if other_band == "top" and head.on_row_of(line) and line.size <= head.size + SIZE_TOLERANCE:
            _add(mark, other, band)


def _head_over_title(line: TextLine, page: PageLines, body_size: float) -> bool:
    """``line``, a page's first, is set no larger than the body over the document's title (the line
    under it set larger than the body by a title's ratio) and apart from it by more than a body
    line: a template's head over a page whose body is mostly a table set as small as the head."""
    below = _lines_below(line, page)
    if body_size <= 0 or not below or line.size > body_size + SIZE_TOLERANCE:
        return False
    under = min(below, key=lambda other: other.bbox.y0)
    titled = under.size >= MAX_SIZE_RATIO * max(body_size, line.size)
    return titled and under.bbox.y0 - line.bbox.y1 >= SMALL_HEAD_GAP * body_size


def _lines_below(line: TextLine, page: PageLines) -> list[TextLine]:
    return [other for other in page.lines if other.horizontal and other.bbox.y0 >= line.bbox.y1 - 0.5]


def _small_head(line: TextLine, page: PageLines, body_size: float) -> bool:
    """``line``, a page's first, is set smaller than the body and stands apart from the text under
    it by more than a body line (a head, not the first line of small text: references, an index)."""
    below = [other.bbox.y0 for other in _lines_below(line, page)]
    apart = min(below, default=page.height) - line.bbox.y1 >= SMALL_HEAD_GAP * body_size
    return body_size > 0 and line.size <= body_size - SMALLER_THAN_BODY and apart


def _edge_line(page: PageLines, found: list[tuple[int, str]]) -> tuple[int, str]:
    """(index, band) of the page's first line when it is in the top band and of its last when it is
    in the bottom band (the first of the two when both are), not in a table; (-1, "") for neither."""
    flowing = [i for i, line in enumerate(page.lines) if line.horizontal and line.text.strip()]
    bands = dict(found)
    if flowing:
        for index, band in (
            (min(flowing, key=lambda i: page.lines[i].bbox.y0), "top"),
            (max(flowing, key=lambda i: page.lines[i].bbox.y1), "bottom"),
        ):
            if bands.get(index) == band and not any(page.lines[index].bbox.centre_in(t) for t in page.tables):
                return index, band
    return -1, ""


def _mark_inner_page_numbers(pages: Sequence[PageLines], marks: list[FurnitureMarks], min_repeat: int) -> None:
    """Page numbers just outside the band: a page's last (or first) line, at one place on several pages."""
    found = [(page, *_inner_page_number(page)) for page in pages]
    places = Counter(_signature(band, page.lines[index]) for page, index, band in found if index >= 0)
    for (page, index, band), mark in zip(found, marks, strict=True):
        if index >= 0 and index not in mark and places[_signature(band, page.lines[index])] >= min_repeat:
            _add(mark, index, band)


def _inner_page_number(page: PageLines) -> tuple[int, str]:
    """(index, band) of the page's last or first line when it is a page number within the wider band."""
    flowing = [i for i, line in enumerate(page.lines) if line.horizontal and line.text.strip()]
    if not flowing:
        return -1, ""
    last = max(flowing, key=lambda i: page.lines[i].bbox.y1)
    first = min(flowing, key=lambda i: page.lines[i].bbox.y0)
    limit = PAGE_NUMBER_BAND_FRACTION * page.height
    low = _page_number_at(page, last) and page.lines[last].bbox.y0 >= page.height - limit
    if low and last not in entry_numbers(page.lines):
        return last, "bottom"
    if _page_number_at(page, first) and page.lines[first].bbox.y1 <= limit:
        return first, "top"
    return -1, ""


def _drop_entry_numbers(
    page: PageLines, found: list[tuple[int, str]], repeats: Callable[[tuple[str, str]], bool]
) -> None:
    """Drop from ``found`` the numbers of contents entries that run into the top or bottom band
    ("Labels      76"). A page number beside a running title stays: the title repeats on other
    pages ("SMF – GAZETTE   1"), or it heads the page ("Appendix D: Index   103" above the index)."""
    numbers = {i for i, band in found if is_page_number(page.lines[i].text) and _below_first_row(page, i, band)}
    if not numbers:
        return  # no number in either band: no row search
    bands = dict(found)
    entries = entry_numbers(page.lines)
    drop = set()
    for number in numbers & entries.keys():
        title = entries[number]
        if title not in bands or not repeats((bands[title], furniture_key(page.lines[title].text))):
            drop.add(number)
    found[:] = [(i, band) for i, band in found if i not in drop]


def _below_first_row(page: PageLines, index: int, band: str) -> bool:
    line = page.lines[index]
    if band == "bottom":
        return True
    return any(other.center_y < line.center_y - 0.5 * max(line.size, 1.0) for other in page.lines)


def _page_number_at(page: PageLines, index: int) -> bool:
    line = page.lines[index]
    return is_page_number(line.text) and not (_in_table(line, page) or _numbers_content(line, page))


def _add(mark: FurnitureMarks, index: int, band: str) -> None:
    (mark.header if band == "top" else mark.footer).add(index)

"""A book's index: columns of short entries "term, page, page", each entry an item of a list.

An index sets each entry on a line of its own, ending in its page numbers ("Luther, Martin, 12,
45-47, 103"), sub-entries a level in ("at Worms, 36-38"), and an entry too long for the narrow
column runs over onto lines further in ("Augsburg Confession, 88," | "90-93"). MuPDF gives a
column's lines as a few blocks, cut where the indent changes; they were read as paragraphs, every
entry of a letter run into one, and a page number left at a block's top even as a footnote. A run
of blocks set one under the other in one column, their lines short and at least half of them
ending in page numbers (``MIN_ENTRIES`` or more), is one list, an entry per item: a line opens an
entry unless the line before it stops mid-entry (after a comma, a semicolon or a dash, or on a
word, when the line is set as far in as the entries' run-over lines) or it is page numbers only.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from itertools import pairwise

from docgraph.ingest.page.blocks import Block
from docgraph.ingest.pdf.lines import TextLine

MIN_ENTRIES = 4
MAX_ENTRY_WORDS = 10  # an index line is a term and its pages, never a line of prose
ENTRY_SHARE = 0.5  # of a run's lines, at least, end in page numbers, are page numbers, or go on
COLUMN_SLACK_EM = 5.0  # a column's lines start at most this far right of its entries' edge
RUN_OVER_EM = 1.5  # without a run-over line seen, one this far in from its entry runs it over
_NUMBERS = r"\d{1,4}(?:\s?[-–]\s?\d{1,4})?(?:n\.?\s?\d{0,3}|ff?\.?)?"  # "45-47", "103n2", "12ff."
_PAGES = rf"(?:{_NUMBERS}|[ivxlc]{{1,7}})"  # and the front matter's "xiv"
_ENDS_IN_PAGES = re.compile(rf"[^\W\d_]{{2}}.*,\s+{_PAGES}\s*$")  # "Leo X, Pope, 25, 32"
_PAGES_ONLY = re.compile(rf"^\s*{_NUMBERS}(?:\s*,\s*{_NUMBERS})*,?\s*$")  # "87-89, 118" run over
_WORD = re.compile(r"[^\W\d_]+")
_GOES_ON = re.compile(r"[,;:\-–]\s*$")  # "Augsburg Confession, 88," goes on below


def join_index_entries(blocks: list[Block]) -> list[Block]:
    """``blocks`` with each run of index blocks made one list block, its entries its items. A page
    is an index where its runs hold ``MIN_ENTRIES`` entries together: a letter's few entries between
    its letter and the next are a run of their own."""
    runs = [run for run in _runs(blocks) if _index_run(run)]
    if sum(_entries([line for block in run for line in block.lines]) for run in runs) < MIN_ENTRIES:
        return blocks
    first = {id(run[0]): run for run in runs}
    taken = {id(block) for run in runs for block in run}
    out: list[Block] = []
    for block in blocks:
        if id(block) in first:
            out.append(_as_index(first[id(block)]))
        elif id(block) not in taken:
            out.append(block)
    return out


def _runs(blocks: Sequence[Block]) -> list[list[Block]]:
    """Runs of index-like blocks set one under the other in one column."""
    runs: list[list[Block]] = []
    for block, before in zip(blocks, [None, *blocks], strict=False):
        if not _index_like(block):
            continue
        if runs and before is runs[-1][-1] and _goes_on_below(runs[-1], block):
            runs[-1].append(block)
        else:
            runs.append([block])
    return runs


def _index_like(block: Block) -> bool:
    """Short lines of text in the body type (no heading, letter or code), none ending a sentence."""
    lines = block.lines
    short = all(len(_WORD.findall(line.text)) <= MAX_ENTRY_WORDS and line.horizontal for line in lines)
    sentence = any(line.text.rstrip().endswith((".", "!", "?")) and not _ending(line) for line in lines)
    plain = not (block.mono or block.bold or block.math > 0)
    return block.kind is None and block.source == "fonts" and plain and short and not sentence


def _goes_on_below(run: Sequence[Block], below: Block) -> bool:
    """``below`` is set right under the run's last block, at the line spacing, in the run's column."""
    above = run[-1]
    em = max(above.size, below.size, 1.0)
    gap = below.bbox.y0 - above.bbox.y1
    edge = min(block.bbox.x0 for block in run)
    return -0.5 * em <= gap <= 0.8 * em and edge - 0.5 * em <= below.bbox.x0 <= edge + COLUMN_SLACK_EM * em


def _entries(lines: Sequence[TextLine]) -> int:
    """How many of ``lines`` end an entry: words, then page numbers after a comma, or page numbers
    alone under words that stop on a comma ("Zwingli, Huldrych, 84-86," | "94")."""
    above = [None, *lines]
    return sum(_ends_entry(line, before) for line, before in zip(lines, above, strict=False))


def _ends_entry(line: TextLine, above: TextLine | None) -> bool:
    if _ENDS_IN_PAGES.search(line.text):
        return True
    run_over = above is not None and _GOES_ON.search(above.text) and _WORD.search(above.text)
    return bool(run_over and _PAGES_ONLY.match(line.text))


def _ending(line: TextLine) -> bool:
    """``line`` ends an entry or is page numbers only, run over from the line above."""
    return bool(_ENDS_IN_PAGES.search(line.text) or _PAGES_ONLY.match(line.text))


def _index_run(run: Sequence[Block]) -> bool:
    """An entry in the run, and at least ``ENTRY_SHARE`` of its lines end in page numbers or stop
    on a comma before them."""
    lines = [line for block in run for line in block.lines]
    indexed = sum(1 for line in lines if _ending(line) or _GOES_ON.search(line.text))
    return _entries(lines) > 0 and indexed >= ENTRY_SHARE * len(lines)


def _as_index(run: Sequence[Block]) -> Block:
    """The run as one list block, a line that opens an entry marked as an item's first."""
    lines = [line for block in run for line in block.lines]
    run_over = _run_over_edge(lines)
    items = [replace(line, item=True) if _opens_entry(lines, k, run_over) else line for k, line in enumerate(lines)]
    return Block(items, "list", list_item=True, source="fonts")


def _run_over_edge(lines: Sequence[TextLine]) -> float:
    """Where the run's run-over lines start: those surely so (after a comma, or pages only), the
    edge most of them share; else ``RUN_OVER_EM`` in from the entries' edge."""
    sure = [round(b.bbox.x0) for a, b in pairwise(lines) if _run_over(a, b)]
    if sure:
        return Counter(sure).most_common(1)[0][0] - 1.0
    return min(line.bbox.x0 for line in lines) + RUN_OVER_EM * max(lines[0].size, 1.0)


def _run_over(above: TextLine, line: TextLine) -> bool:
    """``line`` surely goes on from ``above``: ``above`` stops after a comma, or ``line`` is pages."""
    return bool(_GOES_ON.search(above.text) or _PAGES_ONLY.match(line.text))


def _opens_entry(lines: Sequence[TextLine], k: int, run_over: float) -> bool:
    """Line ``k`` opens an entry (or a sub-entry): not run over from the line above, which ends an
    entry or stops on a word while ``k`` starts left of where run-over lines start."""
    if k == 0:
        return True
    above, line = lines[k - 1], lines[k]
    if _run_over(above, line):
        return False
    return _ending(above) or line.bbox.x0 < run_over

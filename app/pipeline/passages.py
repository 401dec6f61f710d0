"""Cutting a long region's text into passages that each fit the encoder's window.

MiniLM reads 256 word pieces; a region's text beyond that was simply lost to dense retrieval, and
one region in eighteen on the bench documents is longer (half of all tables, long definition
lists, whole-page paragraphs). A long region is therefore embedded as several passages, each under
the same context line, and its vector is the mean of theirs (``app.pipeline.embedding``).

Passages are cut where the text has a natural break: a line break (table rows, code lines, list
items), else a sentence end, else a space. A table's passages each repeat its header row, so that
every passage still says what its columns are.
"""

from __future__ import annotations

import re

PASSAGE_CHARS = 600  # own text per passage; with the context line it stays under 256 word pieces
MAX_PASSAGES = 8  # a region longer than this many passages is represented by its first ones

_SENTENCE_BREAK = re.compile(r"(?<=[.!?;:])\s+")
_TABLE_RULE = re.compile(r"^\|?\s*:?-{3,}")


def split_passages(text: str, kind: str, limit: int = PASSAGE_CHARS, most: int = MAX_PASSAGES) -> list[str]:
    """The region text as passages of at most ``limit`` characters (one passage when it fits)."""
    text = text.strip()
    if len(text) <= limit:
        return [text] if text else []
    lines = [line for line in text.splitlines() if line.strip()]
    header = _table_header(lines) if kind == "table" else []
    body = lines[len(header) :]
    head = "\n".join(header)
    room = max(limit // 2, limit - len(head) - 1) if head else limit
    pieces = _pack([u for line in body for u in _units(line, room)], room, "\n" if "\n" in text else " ")
    return [f"{head}\n{piece}" if head else piece for piece in pieces[:most]]


def _table_header(lines: list[str]) -> list[str]:
    """A markdown table's header row and its rule line; nothing when the table has no rule."""
    if len(lines) >= 3 and _TABLE_RULE.match(lines[1].strip()):
        return lines[:2]
    return []


def _units(line: str, limit: int) -> list[str]:
    """Pieces of one line that each fit ``limit``: the line, else its sentences, else word runs."""
    if len(line) <= limit:
        return [line]
    units: list[str] = []
    for sentence in _SENTENCE_BREAK.split(line):
        if len(sentence) <= limit:
            units.append(sentence)
        else:
            units.extend(_pack(sentence.split(), limit, " "))
    return units


def _pack(units: list[str], limit: int, glue: str) -> list[str]:
    """Greedily join consecutive units into pieces of at most ``limit`` characters."""
    pieces: list[str] = []
    current = ""
    for unit in units:
        unit = unit[:limit]  # a single unbroken token longer than a passage is cut
        joined = f"{current}{glue}{unit}" if current else unit
        if len(joined) <= limit:
            current = joined
            continue
        pieces.append(current)
        current = unit
    if current:
        pieces.append(current)
    return pieces

"""A record's header fields, one under the other: "Date: 17 March 2026", "Present: ...", "Chair: ...".

Minutes, memos and reports open with a stack of fields, each a short label ending in a colon (set
bold, often) and its value at a tab stop; a long value ("Present: Jane Okafor (Chair), Peter
Hughes, ...") wraps under itself. MuPDF returns the labels and values as pieces of one block, a
label glued to its value where the tab is narrow, so the stack was read as a column of labels,
then a column of values run together ("... Li Wei Apologies: Sarah Collins ..."): no region said
who was present. A run of lines at one edge, each opening with such a label, at least
``MIN_FIELDS`` of their values set apart at one tab stop, is read field by field: each label with
its value and the lines that wrap it (set right of the label's edge, under the value), one line of
its own, marked as a pair (no heading however set). A label that MuPDF glued to its value across a
narrow tab counts as set apart at the tab (``TextLine.tab``): a board paper's "Meeting:" and
"Purpose:" were glued and its "Author:" not, so one value stood apart and the stack ran together.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from docgraph.ingest.labels import FIELD_LABEL
from docgraph.ingest.pdf.lines import TextLine

MIN_FIELDS = 2
EDGE_TOLERANCE = 2.0  # points: the labels of one stack start at one edge
LINE_GAP = 0.8  # of the font size: the white between two lines of one stack, at most
_LABEL = FIELD_LABEL  # "Date:", "In attendance:", "Apologies:"


def join_header_fields(lines: Sequence[TextLine]) -> list[TextLine]:
    """``lines`` with each field of a stack of labelled fields joined into one line of its own."""
    out: list[TextLine] = []
    fresh = min(0, *(line.block for line in lines)) - 1 if lines else -1
    k = 0
    while k < len(lines):
        fields = _stack(lines, k)
        if len(fields) < MIN_FIELDS:
            out.append(lines[k])
            k += 1
            continue
        for field in fields:
            out.append(_joined(field, fresh))
            fresh -= 1
        k += sum(len(field) for field in fields)
    return out


def _stack(lines: Sequence[TextLine], start: int) -> list[list[TextLine]]:
    """The fields of the stack opening at ``lines[start]``, each its label's line, the value's piece
    on its row and the lines wrapping the value; none when no label opens it or one has no value."""
    first = lines[start]
    if not opens_field(first):
        return []
    fields: list[list[TextLine]] = []
    k = start
    while k < len(lines):
        line = lines[k]
        last = fields[-1][-1] if fields else None
        if last is not None and not _follows(last, line):
            break
        if opens_field(line) and abs(line.bbox.x0 - first.bbox.x0) <= EDGE_TOLERANCE:
            fields.append([line])
        elif fields and line.on_row_of(fields[-1][0]) and line.bbox.x0 > fields[-1][-1].bbox.x1:
            fields[-1].append(line)  # the value, at its tab stop
        elif fields and _wraps_value(fields[-1], line):
            fields[-1].append(line)
        else:
            break
        k += 1
    return fields if all(map(_has_value, fields)) and _tabbed(fields) else []


def _tabbed(fields: Sequence[list[TextLine]]) -> bool:
    """At least ``MIN_FIELDS`` values set apart from their labels, at one tab stop: a header's stack,
    not a run of lines that each open with a word and a colon ("Returns: ...", "Note: ...")."""
    edges = [edge for edge in map(_value_edge, fields) if edge is not None]
    return len(edges) >= MIN_FIELDS and max(edges) - min(edges) <= EDGE_TOLERANCE


def _value_edge(field: Sequence[TextLine]) -> float | None:
    """Where the field's value starts at its tab stop: a piece of its own on the label's row, or the
    label's line itself where a narrow tab glued the value to it ("Meeting:" and its value)."""
    if len(field) > 1 and field[1].on_row_of(field[0]):
        return field[1].bbox.x0
    return field[0].tab if field[0].tab is not None and _LABEL.match(field[0].text.strip()) else None


def _has_value(field: Sequence[TextLine]) -> bool:
    """A label with its value: a bare column of labels is paired with its values otherwise
    (:mod:`ingest.page.key_values`)."""
    return len(field) > 1 or bool(_LABEL.sub("", field[0].text.strip()).strip())


def opens_field(line: TextLine) -> bool:
    """``line`` opens with a field's label ("Date:", "In attendance:")."""
    return line.horizontal and not line.mono and not line.math and bool(_LABEL.match(line.text.strip()))


def ended_field(line: TextLine, below: TextLine) -> bool:
    """``line`` is a field of its own over the text ``below`` it ("Company: Harbour Mutual Insurance
    plc" over an IPID's introduction): it opens with a label and its value (a label alone leads
    into the text under it: "Summary:"), ``below`` starts at its edge, and its writer ended it
    there, for the first word of ``below`` would have fitted after it within ``below``'s width: the
    line was not wrapped into that text."""
    text = below.text.strip()
    if not (opens_field(line) and _has_value([line]) and text):
        return False
    if abs(below.bbox.x0 - line.bbox.x0) > 0.5 * max(line.size, 1.0):
        return False
    word = below.bbox.width * (len(text.split()[0]) + 1) / len(text)  # the word and a space before it
    return line.bbox.x1 + word < below.bbox.x1


def _follows(last: TextLine, line: TextLine) -> bool:
    """``line`` on ``last``'s row, or right under it."""
    gap = line.bbox.y0 - last.bbox.y1
    return line.on_row_of(last) or -0.5 * line.size < gap <= LINE_GAP * max(line.size, 1.0)


def _wraps_value(field: Sequence[TextLine], line: TextLine) -> bool:
    """``line`` goes on with the field's value: set under it, indented past the label's edge (at
    the value's edge when the value's tab stop is known)."""
    edge = _value_edge(field)
    if edge is not None:
        indented = abs(line.bbox.x0 - edge) <= EDGE_TOLERANCE
    else:
        indented = line.bbox.x0 >= field[0].bbox.x0 + line.size
    return indented and not opens_field(line)


def _joined(field: Sequence[TextLine], block: int) -> TextLine:
    first = field[0]
    box = first.bbox
    for line in field[1:]:
        box = box.union(line.bbox)
    return replace(
        first,
        text=" ".join(line.text.strip() for line in field),
        bbox=box,
        bold=all(line.bold for line in field),
        block=block,
        pair=True,
        chars=sum(line.chars for line in field),
    )

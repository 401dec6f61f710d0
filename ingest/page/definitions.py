"""Definition lines of reference manuals: a signature, its wrapped lines and its category label.

Texinfo sets each definition (``@deftypefun``, ``@deffn``, ``@deftypevr``) as one line at the
margin with its category right-aligned on it: ``int asn1_parser2tree (const char * file, asn1_node *``
... ``[Function]``. A signature too long for the line goes on under it, indented, in the same type:
``definitions, char * error_desc)``; the description follows, indented less. MuPDF returns the label
as a piece of its own (or glued to the line's end), and the wrapped part inside the description's
block, so the signature came out as two or three regions and the label as a one-word paragraph.
Here the pieces become one line: the signature in full, then its label. Related definitions share
one description (``@deftypefunx``: ``config_init`` and ``config_destroy``, then what both do), so a
definition line followed by another one at the margin is one too; and a name too long for its
arguments has them under it, opening with their bracket (``double config_setting_get_float`` |
``(const config_setting_t * setting)``), set a little smaller than the line's typewriter type.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import reduce

from docgraph.ingest.pdf.lines import TextLine
from docgraph.ingest.types import BBox

# "[Function]", "[Macro]", "[Global flag]", "[Data type]", "[Method on Stack]"
_LABEL = re.compile(r"\[[A-Z][A-Za-z]*(?: [A-Za-z][\w-]*){0,3}\]")
_LABEL_AT_END = re.compile(r"^(?P<signature>.*\S)\s+(?P<label>" + _LABEL.pattern + r")\s*$")
MAX_WRAPPED_LINES = 4
BODY_INDENT_EM = 1.5  # the description under a definition is indented at least this much
WRAPPED_SIZE_RATIO = 0.12  # a wrapped line's size may differ from the definition line's this much


@dataclass(frozen=True, slots=True)
class _Definition:
    signature: str  # the definition line's text, without a label glued to it
    label: str
    wrapped: list[int]  # indexes of the signature's wrapped lines
    members: list[int]  # indexes of every piece taken: the line, its label's piece, its wrapped lines


def join_definition_lines(lines: Sequence[TextLine]) -> list[TextLine]:
    """The page's lines with each definition's pieces (signature, wrapped lines, label) as one."""
    out: list[TextLine] = []
    taken: set[int] = set()
    for index, line in enumerate(lines):
        if index in taken:
            continue
        definition = _definition_at(lines, index, taken)
        if definition is None:
            out.append(line)
            continue
        taken.update(definition.members)
        out.append(_joined(lines, definition, block=-1 - index))
    return out


def _definition_at(lines: Sequence[TextLine], index: int, taken: set[int]) -> _Definition | None:
    line = lines[index]
    if not line.horizontal or _LABEL.fullmatch(line.text.strip()):
        return None
    glued = _LABEL_AT_END.match(line.text)
    members = [index]
    if glued:
        label, signature = glued["label"], glued["signature"]
    else:
        piece = _label_beside(lines, index, taken)
        if piece is None:
            return None
        label, signature = lines[piece].text.strip(), line.text.strip()
        members.append(piece)
    wrapped = _wrapped_lines(lines, index, signature, set(members) | taken)
    members += wrapped
    if not _description_follows(lines, line, max(members) + 1, taken):
        return None
    return _Definition(signature, label, wrapped, members)


def _label_beside(lines: Sequence[TextLine], index: int, taken: set[int]) -> int | None:
    line = lines[index]
    for k in range(index + 1, min(len(lines), index + 3)):  # MuPDF gives the label after the line
        other = lines[k]
        if k in taken or not _LABEL.fullmatch(other.text.strip()):
            continue
        level = abs(other.center_y - line.center_y) < 0.5 * max(line.size, 1.0)
        if level and other.bbox.x0 > line.bbox.x1:
            return k
    return None


def _wrapped_lines(lines: Sequence[TextLine], index: int, signature: str, skip: set[int]) -> list[int]:
    """Lines right under the signature, indented, while its brackets stay open.

    A signature without a bracket (a name whose arguments did not fit) takes a line opening one."""
    first = lines[index]
    em = max(first.size, 1.0)
    depth = signature.count("(") - signature.count(")")
    wrapped: list[int] = []
    last = first
    for k in range(index + 1, len(lines)):
        if len(wrapped) == MAX_WRAPPED_LINES:
            break
        if k in skip:
            continue
        line = lines[k]
        opens = "(" not in signature and not wrapped and line.text.lstrip().startswith("(")
        if depth <= 0 and not opens:
            break
        below = -0.2 * em <= line.bbox.y0 - last.bbox.y1 <= 0.6 * em
        same_size = abs(line.size - first.size) <= WRAPPED_SIZE_RATIO * em
        if not (below and line.bbox.x0 > first.bbox.x0 + em and same_size):
            break
        wrapped.append(k)
        depth += line.text.count("(") - line.text.count(")")
        last = line
    return wrapped


def _description_follows(lines: Sequence[TextLine], first: TextLine, after: int, taken: set[int]) -> bool:
    """The line after the definition's pieces is indented under it: the definition's description,
    or it is the next definition of a group sharing one description (checked the same way).

    This keeps prose that merely ends in a bracketed word ("... as shown in [Knuth]") as it is."""
    if after >= len(lines):
        return False
    nxt = lines[after]
    if nxt.bbox.y0 < first.bbox.y1 - 1.0:
        return False
    if nxt.bbox.x0 >= first.bbox.x0 + BODY_INDENT_EM * max(nxt.size, 1.0):
        return True
    at_margin = abs(nxt.bbox.x0 - first.bbox.x0) <= 1.0
    return at_margin and _definition_at(lines, after, taken) is not None


def _joined(lines: Sequence[TextLine], definition: _Definition, block: int) -> TextLine:
    members = [lines[k] for k in definition.members]
    text = " ".join([definition.signature, *(lines[k].text.strip() for k in definition.wrapped)])
    box = reduce(BBox.union, (line.bbox for line in members))
    chars = sum(line.chars for line in members)
    return replace(members[0], text=f"{text} {definition.label}", bbox=box, block=block, chars=chars)

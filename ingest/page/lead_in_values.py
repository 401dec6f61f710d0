"""What a label ending in a colon introduces on the lines under it: "Before:" over the judges' names,
"Between:" over the parties, on a judgment's cover.

The names are set bold at the text's size, so font statistics call them section headers: each was
a section of a word or two ("and", "- and -"), and the counsel under the last party's name came
under it as its text. A bold line at the text's size set right under a short label that ends in a
colon, flush with it, centred on its axis or reaching past it on both sides, is the label's value,
not a heading; the value runs on over the connectives set between its names ("and", "- and -",
"v"), and the names after them are the value's too. A judge's name over the judgment ("Lord
Justice Smith:") heads text set otherwise.
"""

from __future__ import annotations

import re

from docgraph.ingest.page.blocks import Block
from docgraph.ingest.page.classify import NUMBERED_HEADING_RE, FontStats

VALUE_GAP = 2.5  # of the text's size: the white between a label (or a value's line) and the next line
ALIGN_SLACK = 3.0  # points a value's edge or centre may stand off its label's
SIZE_SLACK = 0.5  # points a value's names may be set larger than the text
_LABEL = re.compile(r"^[A-Z][\w'’-]*(?: [\w'’-]+){0,2}:$")
_CONNECTIVE = re.compile(r"^[\W_]*(?:and|or|v|vs?\.|against)[\W_]*$")  # set lowercase between the names


def demote_lead_in_values(blocks: list[Block], stats: FontStats) -> None:
    """The section headers that are a label's value (see the module's docstring) made paragraphs,
    each label read with its value as one paragraph ("Before: LORD JUSTICE SMITH ... and LORD
    JUSTICE PATEL"): the label alone says nothing, the names alone not what they are."""
    label: Block | None = None  # the label whose value the blocks since are
    fields: list[tuple[Block, list[Block]]] = []
    previous: Block | None = None
    for block in blocks:
        text = block.raw_text.strip()
        near = previous is not None and block.bbox.y0 - previous.bbox.y1 <= VALUE_GAP * stats.body_size
        under = label is not None and near and _aligned(label, block)
        if under and (_value_heading(block, text, stats) or _CONNECTIVE.match(text)):
            block.kind = "paragraph"
            fields[-1][1].append(block)
        else:
            label = block if block.kind == "paragraph" and _LABEL.match(text) else None
            fields += [(block, [])] if label else []
        previous = block
    for label, value in fields:
        if value and not _CONNECTIVE.match(value[-1].raw_text.strip()):
            label.lines.extend(line for block in value for line in block.lines)
            blocks[:] = [block for block in blocks if all(block is not part for part in value)]


def _aligned(label: Block, block: Block) -> bool:
    """``block`` is set under ``label`` as a field's value is: flush with it, centred on its axis, or
    reaching past it on both sides (a party's name centred, its role set at the right margin)."""
    flush = abs(block.bbox.x0 - label.bbox.x0) <= ALIGN_SLACK
    centred = abs((block.bbox.x0 + block.bbox.x1) - (label.bbox.x0 + label.bbox.x1)) / 2 <= ALIGN_SLACK
    around = block.bbox.x0 < label.bbox.x0 - ALIGN_SLACK and block.bbox.x1 > label.bbox.x1 + ALIGN_SLACK
    return flush or centred or around


def _value_heading(block: Block, text: str, stats: FontStats) -> bool:
    """A heading set at the text's size that is no numbered heading: a name, as a value is."""
    at_text_size = block.size <= stats.body_size + SIZE_SLACK
    return block.kind == "section_header" and at_text_size and not NUMBERED_HEADING_RE.match(text)

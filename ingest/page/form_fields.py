"""A filled form's fields as text that keeps each label with its value ("Reporter name: Jonas
Lindqvist", "Police notified: no").

A form prints its labels and leaves the values to its fields. A field's label is the printed line
next to it, as forms are set: left of a text or choice field on its row, or right above it when
nothing is left of it; beside a check box or radio button, on whichever side is nearer (a box
before its label, "Yes [x]" after it). Without one, the field's tooltip (/TU) or its name stands in.
Check boxes labelled "Yes" and "No" on a row answer one question, as a radio group's buttons do.
The label line is taken into the field's region, so it does not stay a paragraph of its own; a
field left blank keeps its label as printed. Fields inside a table are left to the table.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from docgraph.ingest.pdf.lines import TextLine
from docgraph.ingest.pdf.text import join_lines
from docgraph.ingest.pdf.widgets import FormField
from docgraph.ingest.types import BBox

ABOVE_MAX_GAP_EM = 1.5  # a label set right above its field: no more than this far above it
ABOVE_MAX_INDENT_EM = 2.0  # ... and starting about where the field does
EDGE = 1.0  # points a label may reach into its field's box
# Labels of check boxes that answer the question their row asks, in the languages docgraph reads.
ANSWER_WORDS = frozenset(
    {"yes", "no", "n/a", "na", "ja", "nein", "oui", "non", "sí", "si", "sim", "não", "tak", "nie", "да", "нет"}
)


@dataclass(slots=True)
class FieldText:
    """A field's region: its label and value as one text, over the label line(s) and the field."""

    bbox: BBox
    text: str
    size: float
    labels: list[int]  # indexes of the lines taken as its label


@dataclass(slots=True)
class _Page:
    lines: Sequence[TextLine]
    free: list[int]  # lines not yet taken (not furniture, not in a table)
    fields: Sequence[FormField]


def field_texts(
    fields: Sequence[FormField], lines: Sequence[TextLine], used: set[int], tables: Sequence[BBox], body_size: float
) -> list[FieldText]:
    """One region's text per filled field (and per radio group with a choice) outside ``tables``."""
    loose = [f for f in fields if not any(f.bbox.centre_in(t) for t in tables)]
    page = _Page(lines, [i for i in range(len(lines)) if i not in used], loose)
    answer_rows = _answer_rows(page)
    in_rows = {id(box) for row in answer_rows for box in row}
    found: list[FieldText] = []
    for field in loose:
        if field.kind == "checkbox" and id(field) not in in_rows:
            found.append(_entry(page, [field], _button_label(page, field), "yes" if field.on else "no", body_size))
        elif field.kind in ("text", "choice") and field.value:
            found.append(_entry(page, [field], _field_label(page, field), field.value, body_size))
    radio_groups = [[f for f in page.fields if f.kind == "radio" and f.name == name] for name in _radio_names(page)]
    for buttons in [*radio_groups, *answer_rows]:
        entry = _chosen_option(page, buttons, body_size)
        if entry is not None:
            found.append(entry)
    return found


def _entry(page: _Page, fields: Sequence[FormField], labels: list[int], value: str, size: float) -> FieldText:
    label = join_lines([page.lines[i].text for i in labels]) if labels else _fallback_label(fields[0])
    box = fields[0].bbox
    for other in [*(f.bbox for f in fields[1:]), *(page.lines[i].bbox for i in labels)]:
        box = box.union(other)
    label_size = max((page.lines[i].size for i in labels), default=size)
    return FieldText(box, _label_with_value(label, value), label_size, labels)


def _label_with_value(label: str, value: str) -> str:
    """ "Reporter name *" and "Jonas" -> "Reporter name: Jonas"; a question keeps its mark."""
    label = " ".join(label.split()).rstrip(" :*")
    return f"{label} {value}" if label.endswith("?") else f"{label}: {value}"


def _fallback_label(field: FormField) -> str:
    return field.tooltip.strip() or field.readable_name() or "Field"


def _field_label(page: _Page, field: FormField) -> list[int]:
    return _inside(page, field.bbox) or _beside(page, field.bbox, left=True) or _above(page, field.bbox)


def _inside(page: _Page, box: BBox) -> list[int]:
    """A label printed inside the field's box (a boxed form's small caption in its corner)."""
    return sorted((i for i in page.free if page.lines[i].bbox.centre_in(box)), key=lambda i: page.lines[i].bbox.y0)


def _button_label(page: _Page, field: FormField, taken: Sequence[int] = ()) -> list[int]:
    """A check box's or radio button's label: the nearer line beside it, else one right above."""
    sides = [_beside(page, field.bbox, left, taken) for left in (True, False)]
    near = sorted((side for side in sides if side), key=lambda side: _gap(page.lines[side[0]].bbox, field.bbox))
    return near[0] if near else _above(page, field.bbox, taken)


def _gap(line: BBox, box: BBox) -> float:
    return max(box.x0 - line.x1, line.x0 - box.x1)


def _same_row(line: BBox, box: BBox) -> bool:
    overlap = line.y_overlap(box)
    return overlap >= 0.5 * min(line.height, box.height)


def _beside(page: _Page, box: BBox, left: bool, taken: Sequence[int] = ()) -> list[int]:
    """The nearest line on the field's row on one side, with no other field between them; below it
    the lines of a label wrapped beside a tall field."""
    row = [i for i in page.free if i not in taken and _same_row(page.lines[i].bbox, box)]
    if left:
        side = [i for i in row if page.lines[i].bbox.x1 <= box.x0 + EDGE]
    else:
        side = [i for i in row if page.lines[i].bbox.x0 >= box.x1 - EDGE]
    side = [i for i in side if not _field_between(page, page.lines[i].bbox, box)]
    if not side:
        return []
    nearest = min(side, key=lambda i: _gap(page.lines[i].bbox, box))
    head = page.lines[nearest].bbox
    return sorted((i for i in side if page.lines[i].bbox.x_overlap(head) > 0), key=lambda i: page.lines[i].bbox.y0)


def _field_between(page: _Page, line: BBox, box: BBox) -> bool:
    """Another field lies on the row between the line and the field: the line is that one's label."""
    lo, hi = min(line.x1, box.x1), max(line.x0, box.x0)
    return any(
        other.bbox != box and lo <= (other.bbox.x0 + other.bbox.x1) / 2 <= hi and _same_row(line, other.bbox)
        for other in page.fields
    )


def _above(page: _Page, box: BBox, taken: Sequence[int] = ()) -> list[int]:
    """The line right above the field, starting about where it does (not a heading further left)."""
    candidates = []
    for i in page.free:
        line = page.lines[i]
        indent, gap = line.bbox.x0 - box.x0, box.y0 - line.bbox.y1
        if i in taken or not -EDGE <= gap <= ABOVE_MAX_GAP_EM * line.size or line.bbox.x0 >= box.x1:
            continue
        if abs(indent) <= ABOVE_MAX_INDENT_EM * line.size and not _labels_another(page, line.bbox, box):
            candidates.append(i)
    return [max(candidates, key=lambda i: page.lines[i].bbox.y1)] if candidates else []


def _labels_another(page: _Page, line: BBox, box: BBox) -> bool:
    """The line is on another field's row: that field's label, not a label over this one."""
    return any(other.bbox != box and _same_row(line, other.bbox) for other in page.fields)


def _radio_names(page: _Page) -> list[str]:
    return list(dict.fromkeys(field.name for field in page.fields if field.kind == "radio"))


def _answer_rows(page: _Page) -> list[list[FormField]]:
    """Check boxes labelled only with answers ("Yes", "No", "N/A") set on one row: one question's
    choices, as a radio group's are ("Police notified?  Yes [ ]  No [x]" was "Yes: no", "No: yes");
    a lone "Yes [x]" answers the question before it too."""
    answers = [
        field
        for field in page.fields
        if field.kind == "checkbox" and _label_text(page, _button_label(page, field)) in ANSWER_WORDS
    ]
    rows: list[list[FormField]] = []
    for field in sorted(answers, key=lambda f: (round(f.bbox.y0), f.bbox.x0)):
        row = next((row for row in rows if _same_row(row[0].bbox, field.bbox)), None)
        if row is None:
            rows.append([field])
        else:
            row.append(field)
    return rows


def _label_text(page: _Page, labels: list[int]) -> str:
    return " ".join(page.lines[i].text for i in labels).strip(" :").casefold()


def _chosen_option(page: _Page, buttons: list[FormField], size: float) -> FieldText | None:
    """A group of buttons with a choice: "<group label>: <chosen options' labels>". Each button's
    label is the line beside it; the group's is the line left of (or above) its first button, or
    the group's tooltip or name. None when nothing is chosen (the labels stay as printed)."""
    chosen = [b for b in buttons if b.on]
    if not chosen:
        return None
    options = {id(b): _button_label(page, b) for b in buttons}
    taken = [i for labels in options.values() for i in labels]
    first = min(buttons, key=lambda b: (round(b.bbox.y0), b.bbox.x0))
    group = _beside(page, first.bbox, True, taken) or _above(page, first.bbox, taken)
    picked = [join_lines([page.lines[i].text for i in options[id(b)]]) or b.state or "yes" for b in chosen]
    entry = _entry(page, buttons, group, ", ".join(" ".join(value.split()) for value in picked), size)
    entry.labels += taken
    for i in taken:
        entry.bbox = entry.bbox.union(page.lines[i].bbox)
    return entry

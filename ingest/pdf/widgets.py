"""A page's fillable form fields (AcroForm widgets): what kind, what name, what value, where.

MuPDF's text extraction includes a widget's appearance stream: a filled value reads as a line of
its own, away from its label, and a ticked box as a lone ZapfDingbats "3" (an unticked one as
nothing). The fields are read from the form instead, and those lines dropped (:func:`outside_fields`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import pymupdf

from docgraph.ingest.pdf.lines import TextLine
from docgraph.ingest.types import BBox

FieldKind = Literal["text", "checkbox", "radio", "choice"]

_MUPDF: Any = pymupdf  # its constants carry no annotations
_KINDS: dict[int, FieldKind] = {
    _MUPDF.PDF_WIDGET_TYPE_TEXT: "text",
    _MUPDF.PDF_WIDGET_TYPE_CHECKBOX: "checkbox",
    _MUPDF.PDF_WIDGET_TYPE_RADIOBUTTON: "radio",
    _MUPDF.PDF_WIDGET_TYPE_COMBOBOX: "choice",
    _MUPDF.PDF_WIDGET_TYPE_LISTBOX: "choice",
}
_HIDDEN: int = _MUPDF.PDF_ANNOT_IS_HIDDEN | _MUPDF.PDF_ANNOT_IS_NO_VIEW


@dataclass(frozen=True, slots=True)
class FormField:
    """One widget of a page's form. ``value`` is a text or choice field's text; ``on`` says whether
    a check box or radio button is selected, ``state`` is the name of its "on" state."""

    kind: FieldKind
    name: str  # the field's full name ("form1.reporter_name")
    tooltip: str  # /TU: a viewer's label for it
    bbox: BBox
    value: str = ""
    on: bool = False
    state: str = ""

    def readable_name(self) -> str:
        """The field's name as words: "reporterName[0]" or "supervisor_notified" -> "Supervisor notified"."""
        last = re.sub(r"\[\d+\]", "", self.name).rsplit(".", 1)[-1]
        words = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", last).replace("_", " ").replace("-", " ").split()
        return " ".join(words).capitalize()


def form_fields(page: pymupdf.Page) -> list[FormField]:
    """The page's visible text, check box, radio button and choice fields (push buttons and
    signatures hold no value to read)."""
    handle: Any = page
    if handle.first_widget is None:
        return []
    found = []
    for widget in handle.widgets():
        kind = _KINDS.get(int(widget.field_type))
        rect = widget.rect
        if kind is None or rect.is_empty or _hidden(widget):
            continue
        found.append(_field(widget, kind, BBox(rect.x0, rect.y0, rect.x1, rect.y1)))
    return found


def _hidden(widget: Any) -> bool:
    """The widget's annotation flags (/F) hide it, on screen or in print and on screen."""
    kind, flags = widget.parent.parent.xref_get_key(widget.xref, "F")
    return kind == "int" and bool(int(flags) & _HIDDEN)


def _field(widget: Any, kind: FieldKind, box: BBox) -> FormField:
    name, tooltip = str(widget.field_name or ""), str(widget.field_label or "")
    if kind in ("checkbox", "radio"):
        state = _on_state(widget)
        return FormField(kind, name, tooltip, box, on=_is_on(widget, state), state=state)
    value = widget.field_value
    text = ", ".join(str(v) for v in value) if isinstance(value, list | tuple) else str(value or "")
    return FormField(kind, name, tooltip, box, value=" ".join(text.split()))


def _on_state(widget: Any) -> str:
    """The name of a button's "on" state ("Yes", a radio option's own name): the appearance state
    other than "Off". A form whose fields have no appearances has none to say."""
    try:
        normal = (widget.button_states() or {}).get("normal") or []
    except (TypeError, KeyError, AttributeError, RuntimeError):
        return ""
    return next((str(name) for name in normal if str(name) != "Off"), "")


def _is_on(widget: Any, state: str) -> bool:
    """A button is on when its appearance state (/AS) is not "Off"; without one, a check box when
    its field's value is not "Off", a radio button when the value is its own "on" state."""
    kind, shown = widget.parent.parent.xref_get_key(widget.xref, "AS")
    if kind == "name":
        return str(shown).lstrip("/") != "Off"
    value = str(widget.field_value or "")
    if _KINDS.get(int(widget.field_type)) == "radio":
        return bool(state) and value == state
    return value not in ("", "Off")


def outside_fields(lines: Sequence[TextLine], fields: Sequence[FormField]) -> list[TextLine]:
    """The lines that are not a field's appearance: a line centred in a field's box that is (part
    of) its value, or a box's tick, is drawn by the widget, which the field itself says; a label
    printed inside the box ("Location" in its corner) stays."""
    if not fields:
        return list(lines)
    return [ln for ln in lines if not any(ln.bbox.centre_in(f.bbox) and _drawn_by(f, ln.text) for f in fields)]


def _drawn_by(field: FormField, text: str) -> bool:
    """Whether ``text`` is what the widget of ``field`` draws: a tick, or a piece of its value."""
    words = " ".join(text.split())
    if field.kind in ("checkbox", "radio"):
        return len(words) <= 2
    return bool(words) and words in field.value

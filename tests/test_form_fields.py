"""A filled PDF form reads as its labels with their values ("Reporter name: Jonas Lindqvist",
"Police notified: no").

MuPDF's text includes the widgets' appearance streams: before fields were read, each value was a
paragraph of its own away from its label, a ticked box a lone "3" (ZapfDingbats' tick) and an
unticked one nothing at all.
"""

from __future__ import annotations

from pathlib import Path

import pymupdf

from docgraph.app.stores.falkordb_store import FalkorDBStore
from docgraph.ingest.readers.native import NativeReader
from docgraph.ingest.types import Region
from tests.llm_data import ask_of_pdf

TEXT_FIELDS = [
    ("reporter_name", "Reporter name *", "Jonas Lindqvist"),
    ("employee_id", "Employee ID *", "CV-20931"),
    ("depot", "Depot", "Tampere"),
    ("damage", "Estimated damage (EUR)", ""),  # left blank
]
CHECKS = [
    ("injury", "Injury involved", False),
    ("police", "Police notified", False),
    ("roadworthy", "Roadworthy", True),
]
DESCRIPTION = "Reversing truck struck dock door 4 during early loading; no cargo damage."


def _text_field(page: pymupdf.Page, name: str, rect: pymupdf.Rect, value: str, multiline: bool = False) -> None:
    widget = pymupdf.Widget()
    widget.field_type = pymupdf.PDF_WIDGET_TYPE_TEXT
    widget.field_name = name
    widget.rect = rect
    widget.field_value = value
    widget.text_fontsize = 10
    if multiline:
        widget.field_flags = pymupdf.PDF_TX_FIELD_IS_MULTILINE
    page.add_widget(widget)


def _checkbox(page: pymupdf.Page, name: str, rect: pymupdf.Rect, ticked: bool) -> None:
    widget = pymupdf.Widget()
    widget.field_type = pymupdf.PDF_WIDGET_TYPE_CHECKBOX
    widget.field_name = name
    widget.rect = rect
    widget.field_value = ticked
    page.add_widget(widget)


def incident_form(out: Path) -> Path:
    """A report form: a heading, labels left of their text fields, a multi-line field, check boxes
    before their labels, and one box after its label ("Photos attached [x]")."""
    with pymupdf.open() as doc:
        page = doc.new_page(width=595, height=842)
        page.insert_text((50, 60), "Vehicle Incident Report", fontsize=18)
        page.insert_text((50, 100), "Section A - Reporter", fontsize=12)
        y = 114
        for name, label, value in TEXT_FIELDS:
            page.insert_text((50, y + 14), label, fontsize=10)
            _text_field(page, name, pymupdf.Rect(200, y, 545, y + 20), value)
            y += 28
        page.insert_text((50, y + 14), "Description *", fontsize=10)
        _text_field(page, "description", pymupdf.Rect(200, y, 545, y + 60), DESCRIPTION, multiline=True)
        y += 74
        page.insert_text((50, y + 10), "Section B - Checks", fontsize=12)
        y += 22
        for name, label, ticked in CHECKS:
            _checkbox(page, name, pymupdf.Rect(50, y, 62, y + 12), ticked)
            page.insert_text((70, y + 10), label, fontsize=10)
            y += 20
        page.insert_text((50, y + 10), "Photos attached", fontsize=10)
        _checkbox(page, "photos", pymupdf.Rect(140, y, 152, y + 12), True)
        doc.save(out)
    return out


def _without_appearances(src: Path, out: Path) -> Path:
    """The form as pypdf or pdftk fill it: values in /V, no appearance streams, NeedAppearances."""
    with pymupdf.open(src) as doc:
        for widget in doc[0].widgets():
            doc.xref_set_key(widget.xref, "AP", "null")
        doc.xref_set_key(doc.pdf_catalog(), "AcroForm/NeedAppearances", "true")
        doc.save(out)
    return out


def _texts(path: Path) -> list[str]:
    regions: list[Region] = sorted(NativeReader().read(path).pages[0].regions, key=lambda r: r.order)
    return [r.text for r in regions if r.kind not in ("page_header", "page_footer")]


EXPECTED = [
    "Vehicle Incident Report",
    "Section A - Reporter",
    "Reporter name: Jonas Lindqvist",
    "Employee ID: CV-20931",
    "Depot: Tampere",
    "Estimated damage (EUR)",  # a blank field leaves its label as printed
    f"Description: {DESCRIPTION}",
    "Section B - Checks",
    "Injury involved: no",
    "Police notified: no",
    "Roadworthy: yes",
    "Photos attached: yes",
]


def test_each_field_reads_as_its_label_and_value_in_reading_order(tmp_path: Path) -> None:
    assert _texts(incident_form(tmp_path / "form.pdf")) == EXPECTED


def test_the_values_drawn_by_the_widgets_are_not_stored_again(tmp_path: Path) -> None:
    texts = _texts(incident_form(tmp_path / "form.pdf"))
    assert "3" not in texts  # the tick glyph
    assert sum("Jonas Lindqvist" in text for text in texts) == 1
    assert sum("CV-20931" in text for text in texts) == 1


def test_a_form_without_appearance_streams_reads_the_same(tmp_path: Path) -> None:
    bare = _without_appearances(incident_form(tmp_path / "form.pdf"), tmp_path / "bare.pdf")
    assert _texts(bare) == EXPECTED


def test_fields_without_printed_labels_take_the_label_above_or_their_tooltip(tmp_path: Path) -> None:
    with pymupdf.open() as doc:
        page = doc.new_page(width=595, height=842)
        page.insert_text((72, 100), "Delivery address", fontsize=10)
        _text_field(page, "address", pymupdf.Rect(72, 104, 400, 124), "Hallituskatu 12, Tampere")
        widget = pymupdf.Widget()
        widget.field_type = pymupdf.PDF_WIDGET_TYPE_COMBOBOX
        widget.field_name = "form1[0].shiftCode[0]"
        widget.choice_values = ["Early", "Late"]
        widget.field_value = "Late"
        widget.rect = pymupdf.Rect(72, 200, 200, 220)
        page.add_widget(widget)
        doc.save(tmp_path / "labels.pdf")
    assert _texts(tmp_path / "labels.pdf") == ["Delivery address: Hallituskatu 12, Tampere", "Shift code: Late"]


def test_a_label_printed_inside_a_fields_box_is_kept_and_labels_it(tmp_path: Path) -> None:
    """A boxed form prints its labels small in the fields' corners: every line inside a field's box
    was dropped as the widget's own, so a blank field's label vanished and a filled one read
    "Text2: Depot 4, Tampere"."""
    with pymupdf.open() as doc:
        page = doc.new_page(width=595, height=842)
        for name, top, label, value in (
            ("Text1", 100, "Description of the incident", ""),
            ("Text2", 170, "Location", "Depot 4"),
        ):
            page.draw_rect(pymupdf.Rect(72, top, 523, top + 40), color=(0, 0, 0), width=0.5)
            page.insert_text((75, top + 9), label, fontsize=7)
            _text_field(page, name, pymupdf.Rect(72, top, 523, top + 40), value)
        doc.save(tmp_path / "boxed.pdf")
    assert _texts(tmp_path / "boxed.pdf") == ["Description of the incident", "Location: Depot 4"]


def test_a_radio_group_reads_as_its_question_and_the_chosen_option(tmp_path: Path) -> None:
    with pymupdf.open() as doc:
        page = doc.new_page(width=595, height=842)
        page.insert_text((50, 80), "Police notified?", fontsize=10)
        for i, option in enumerate(["Yes", "No"]):
            widget = pymupdf.Widget()
            widget.field_type = pymupdf.PDF_WIDGET_TYPE_RADIOBUTTON
            widget.field_name = "police"
            widget.rect = pymupdf.Rect(200 + 60 * i, 70, 212 + 60 * i, 82)
            page.add_widget(widget)
            page.insert_text((216 + 60 * i, 80), option, fontsize=10)
            on = next(s for s in widget.button_states()["normal"] if s != "Off")
            doc.xref_set_key(widget.xref, "AS", f"/{on}" if option == "No" else "/Off")
        doc.save(tmp_path / "radio.pdf")
    assert _texts(tmp_path / "radio.pdf") == ["Police notified? No"]


def test_yes_and_no_check_boxes_on_a_row_read_as_their_question_and_the_ticked_answer(tmp_path: Path) -> None:
    """Each box read as its own answer word: "Yes: no", "No: yes". Labels after their boxes or before
    them; a row with nothing ticked keeps its printed words; a lone "Yes" box answers its row too."""
    with pymupdf.open() as doc:
        page = doc.new_page(width=595, height=842)
        rows = [
            ("Police notified?", "after", "No"),
            ("Injury involved?", "before", "Yes"),
            ("Dangerous goods?", "after", ""),
        ]
        for row, (question, side, ticked) in enumerate(rows):
            y = 80 + 30 * row
            page.insert_text((50, y), question, fontsize=10)
            for i, answer in enumerate(["Yes", "No"]):
                x = 250 + 70 * i
                box, label_x = (x + 22, x) if side == "after" else (x, x + 16)
                _checkbox(page, f"q{row}_{answer}", pymupdf.Rect(box, y - 10, box + 12, y + 2), answer == ticked)
                page.insert_text((label_x, y), answer, fontsize=10)
        page.insert_text((50, 200), "Photos attached", fontsize=10)
        page.insert_text((250, 200), "Yes", fontsize=10)
        _checkbox(page, "photos", pymupdf.Rect(272, 190, 284, 202), True)
        doc.save(tmp_path / "answers.pdf")
    assert _texts(tmp_path / "answers.pdf") == [
        "Police notified? No",
        "Injury involved? Yes",
        "Dangerous goods? Yes No",
        "Photos attached: Yes",
    ]


def test_the_answer_quotes_the_label_with_its_value(falkordb_store: FalkorDBStore, tmp_path: Path) -> None:
    pdf = incident_form(tmp_path / "incident.pdf")
    result = ask_of_pdf(falkordb_store, pdf, "What is the reporter name on the form?", tmp_path)

    assert result.mode == "extractive"
    assert "Reporter name: Jonas Lindqvist" in result.answer.splitlines()[0]

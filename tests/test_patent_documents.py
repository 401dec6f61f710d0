"""Patent documents: drawings labelled "FIG. 2A", paragraphs numbered "[0012]", claims that depend
on claims ("The device of claim 3, wherein ..."), and an EP-style gutter of line numbers (5, 10, 15,
...) between the two columns of text.

A patent made here as patent offices print them: a drawing sheet, two columns of numbered
paragraphs with the line numbers in the gutter, then the claims."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from docgraph.app.llm.service import ask
from docgraph.app.retrieval.base import Retriever
from docgraph.app.retrieval.document_index import SectionInfo
from docgraph.app.retrieval.kinds import named_labels
from docgraph.app.retrieval.named_parts import (
    asks_only_where,
    named_parts,
    part_index,
    part_label_words,
    resolved_parts,
    titled_sections,
)
from docgraph.app.stores.falkordb_store import FalkorDBStore
from docgraph.ingest.graph import build_graph
from docgraph.ingest.links.mentions import find_mentions
from docgraph.ingest.page.line_numbers import margin_line_numbers
from docgraph.ingest.pdf.lines import TextLine
from docgraph.ingest.readers.native import NativeReader
from docgraph.ingest.types import BBox, DocumentLayout
from docgraph.records import GraphBatch
from tests.llm_data import hybrid_over, no_llm_settings

COLUMNS = ((57.0, 282.0), (313.0, 538.0))
PARAGRAPHS = [
    "[0001] The present invention relates to a device for cooling a battery module of an electric vehicle.",
    "[0002] Conventional cooling plates carry coolant through a single serpentine channel, so that the"
    " coolant warms as it flows and the cells near the outlet are cooled less than the cells near the inlet.",
    "[0003] FIG. 2A is a top view of the cooling plate, showing the flow channels; and",
    "[0004] FIG. 2B is a cross-sectional view of the cooling plate taken along line 2B-2B.",
    "[0005] As shown in FIG. 2A, the cooling plate 112 defines a plurality of flow channels 118. Adjacent"
    " flow channels carry coolant in opposite directions, so that the warm end of each channel lies next to"
    " the cool end of its neighbour and heat spreads sideways through the plate.",
    "[0006] Referring to FIG. 2B, each flow channel 118 has a cross-section whose height decreases from"
    " about 3.0 mm at the inlet 114 to about 2.0 mm at the outlet 116. The ribs 119 between the channels"
    " carry the load of the battery module.",
    "[0007] A temperature sensor 120 is mounted on the cooling plate 112 near the outlet 116, where the"
    " coolant is warmest. The sensor may be a thermistor or a thermocouple, read by a controller 130 that"
    " opens a valve further when the temperature across the plate differs by more than four degrees.",
    "[0008] The cooling plate 112 may be made by brazing two stamped aluminium sheets together, one sheet"
    " carrying the channels 118 and the other being flat, as described in paragraph [0005] above.",
    "[0009] Alternatively, the cooling plate 112 may be extruded with the channels 118 formed as hollow"
    " profiles, and the narrowing cross-section may then be made by pressing the extrusion between tapered"
    " dies. The ribs 119 are then as thick as the walls of the profile.",
    "[0010] While the embodiments above describe a liquid coolant, the cooling plate 112 may carry a"
    " refrigerant that evaporates in the flow channels 118. In that case the narrowing cross-section keeps"
    " the vapour velocity high enough to carry the liquid film along the channel walls, and the plate"
    " works as the evaporator of the vehicle's air conditioning circuit.",
    "[0011] In tests with a module of ninety-six cells charged at three times their capacity per hour, the"
    " largest temperature difference between cells was about three degrees with the plate 112, against"
    " nearly eight degrees for a serpentine plate at the same flow of coolant.",
    "[0012] The terms first, second and the like distinguish one element from another and do not imply an"
    " order. As used herein, the term about means within ten per cent of the stated value, and a range"
    " includes its end points.",
    "[0013] The foregoing description of the embodiments has been provided for purposes of illustration. It"
    " is not intended to be exhaustive or to limit the disclosure. Individual elements or features of a"
    " particular embodiment are generally not limited to that embodiment, but are interchangeable where"
    " applicable, and may be used in a selected embodiment even if not specifically shown or described.",
]
HEADINGS = {2: "BACKGROUND", 5: "DETAILED DESCRIPTION"}  # over paragraphs [0002] and [0005]
CLAIMS = [
    "A device for cooling a battery module, comprising: a housing; a cooling plate disposed in the housing,"
    " the cooling plate having an inlet and an outlet; and a plurality of flow channels formed in the cooling"
    " plate, wherein adjacent ones of the flow channels carry coolant in opposite directions.",
    "The device of claim 1, wherein the housing is made of an aluminium alloy that surrounds the module.",
    "The device of claim 1, further comprising a temperature sensor mounted on the cooling plate adjacent"
    " the outlet, where the coolant leaving the plate is warmest.",
    "The device of claim 3, wherein the temperature sensor is a thermistor bonded to the cooling plate.",
    "The device of claim 3, further comprising a controller configured to open a valve further when a"
    " signal from the temperature sensor exceeds a threshold.",
    "A method of cooling a battery module, comprising: passing coolant through adjacent flow channels of a"
    " cooling plate in opposite directions, and reading a temperature sensor mounted on the plate.",
    "The device of claim 5 or any one of claims 1 to 3, wherein the coolant is water and glycol.",
]


def _drawing_sheet(doc: pymupdf.Document) -> None:
    page = doc.new_page(width=595, height=842)
    for label, top in (("FIG. 2A", 80.0), ("FIG. 2B", 450.0)):
        frame = pymupdf.Rect(120, top, 475, top + 300)
        page.draw_rect(frame, width=1.2)
        page.draw_line((frame.x0 + 20, frame.y1 - 20), (frame.x1 - 20, frame.y0 + 20), width=0.6)
        page.insert_text((frame.x1 + 6, top + 60), "112", fontname="helv", fontsize=10)
        page.insert_text((frame.x0 + frame.width / 2 - 25, frame.y1 + 26), label, fontname="hebo", fontsize=16)


def _description(doc: pymupdf.Document) -> None:
    """Two columns of numbered paragraphs, the line numbers 5 ... 50 in the gutter between them."""
    page = doc.new_page(width=595, height=842)
    page.insert_text((255, 40), "EP 3 456 789 A1", fontname="tibo", fontsize=10)
    column, y = 0, 80.0
    for number, text in enumerate(PARAGRAPHS, 1):
        if y > 560:  # the left column is full
            column, y = 1, 80.0
        x0, x1 = COLUMNS[column]
        if number in HEADINGS:
            page.insert_text((x0 + 70, y + 12), HEADINGS[number], fontname="tibo", fontsize=10)
            y += 20
        spare = page.insert_textbox(
            pymupdf.Rect(x0, y, x1, 770), text, fontname="tiro", fontsize=10, lineheight=1.25, align=3
        )
        y = 770 - spare + 2  # paragraphs close together, as patent offices set them
    for k in range(1, 11):
        page.insert_text((292, 80 + 12.5 * 5 * k), str(5 * k), fontname="tiro", fontsize=8)
    page.insert_text((293, 815), "2", fontname="tiro", fontsize=9)


def _claims(doc: pymupdf.Document) -> None:
    """The claims as a drafting office types them: each numbered paragraph indented on its first line
    only, its next lines back at the margin, one and a half lines apart."""
    page = doc.new_page(width=612, height=792)
    page.insert_text((72, 90), "What is claimed is:", fontname="tiro", fontsize=10)
    y = 110.0
    for number, text in enumerate(CLAIMS, 1):
        html = f"<p style='text-indent:36pt;line-height:1.5;text-align:justify'>{number}. {text}</p>"
        spare, _ = page.insert_htmlbox(pymupdf.Rect(72, y, 540, 720), html, css="p {font: 10pt serif;}")
        y = 720 - spare + 10 if spare >= 0 else y


def _printed_claims(doc: pymupdf.Document) -> None:
    """The claims as a patent office prints them: in a column, each at the margin, close together."""
    page = doc.new_page(width=595, height=842)
    page.insert_text((57, 90), "Claims", fontname="tibo", fontsize=10)
    y = 100.0
    for number, text in enumerate(CLAIMS, 1):
        spare = page.insert_textbox(pymupdf.Rect(57, y, 282, 770), f"{number}. {text}", fontname="tiro", fontsize=10)
        y = 770 - spare + 4


@pytest.fixture(scope="module")
def patent(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("patent") / "patent.pdf"
    with pymupdf.open() as doc:
        _drawing_sheet(doc)
        _description(doc)
        _claims(doc)
        _printed_claims(doc)
        doc.save(path)
    return path


@pytest.fixture(scope="module")
def layout(patent: Path) -> DocumentLayout:
    return NativeReader().read(patent)


@pytest.fixture(scope="module")
def batch(layout: DocumentLayout) -> GraphBatch:
    return build_graph(layout)


def _texts(batch: GraphBatch) -> dict[str, str]:
    return {n.key: str(n.props.get("text") or n.props.get("title") or "") for n in batch.nodes}


def _refs(batch: GraphBatch) -> set[tuple[str, str]]:
    """(first words of the referring region, the target's text) of each REF edge."""
    texts = _texts(batch)
    return {(texts[e.src_key][:6], texts[e.dst_key]) for e in batch.edges if e.type == "REF"}


def test_a_drawing_s_capital_panel_letter_is_its_label(batch: GraphBatch) -> None:
    texts = _texts(batch)
    captioned = {texts[e.src_key]: texts[e.dst_key] for e in batch.edges if e.type == "CAPTION_OF"}
    assert set(captioned) == {"FIG. 2A", "FIG. 2B"}
    figures = {e.dst_key for e in batch.edges if e.type == "CAPTION_OF"}
    cited = {texts[e.src_key][:6] for e in batch.edges if e.type == "REF" and e.dst_key in figures}
    assert cited == {"[0003]", "[0004]", "[0005]", "[0006]"}


def test_figs_abbreviated_in_the_plural_take_every_panel_named() -> None:
    mentions = find_mentions("FIGS. 2A and 2B show the plate; Figs. 3 and 4 the pump.")
    assert [m.number for m in mentions] == ["2A", "2B", "3", "4"]
    assert [m.number for m in find_mentions("FIG. 3D is a side view; the Figure 3D rendering")] == ["3D"]
    assert named_labels("What is shown in FIG. 2A?") == {("figure", "2a")}


def test_a_patent_paragraph_s_number_refers_to_it(batch: GraphBatch) -> None:
    assert ("[0008]", PARAGRAPHS[4]) in _refs(batch)


def test_a_question_names_a_patent_paragraph_by_its_number(batch: GraphBatch) -> None:
    regions = [(n.key, str(n.props["kind"]), str(n.props["text"])) for n in batch.nodes if n.label == "Region"]
    index = part_index([], regions)
    texts = _texts(batch)
    for question in ("What is paragraph [0006] about?", "Summarise para. [006]"):
        found = resolved_parts(index, named_parts(question))
        assert [texts[key][:6] for _, key in found] == ["[0006]"]
    question = "What is paragraph [0006] about?"
    assert asks_only_where(question, part_label_words(question))


def test_line_numbers_in_the_gutter_are_not_text(layout: DocumentLayout) -> None:
    page = layout.pages[1]
    assert [r.text for r in page.regions if r.text.strip().isdigit()] == ["2"]  # the page number
    assert not any(r.text.endswith(" 50") for r in page.regions)
    paragraphs = [r.text[:6] for r in page.regions if r.kind == "paragraph"]
    assert paragraphs == [f"[{n:04d}]" for n in range(1, len(PARAGRAPHS) + 1)]


def _line(text: str, x0: float, y0: float, width: float) -> TextLine:
    return TextLine(text, BBox(x0, y0, x0 + width, y0 + 8), 9.0, "Times", False, False, 0.0, 0)


def test_a_table_s_column_of_years_between_its_other_columns_is_kept() -> None:
    rows = [_line(f"release {k} of the library", 72, 100 + 12 * k, 150) for k in range(10)]
    rows += [_line(str(2010 + k), 240, 100 + 12 * k, 20) for k in range(10)]
    rows += [_line("maintained, with security fixes", 280, 100 + 12 * k, 150) for k in range(10)]
    assert margin_line_numbers(rows) == set()


@pytest.mark.parametrize("page", [2, 3])
def test_each_claim_is_a_region_of_its_own(layout: DocumentLayout, page: int) -> None:
    claims = [r.text for r in layout.pages[page].regions if r.kind in ("list", "paragraph")]
    assert claims[-len(CLAIMS) :] == [f"{n}. {text}" for n, text in enumerate(CLAIMS, 1)]


def test_a_dependent_claim_refers_to_the_claims_it_narrows_in_its_own_set(batch: GraphBatch) -> None:
    """Each claims set (page 3's, page 4's) refers within itself: a European patent prints three."""
    texts, pages = _texts(batch), {n.key: n.props.get("page") for n in batch.nodes}
    refs = [(e.src_key, e.dst_key) for e in batch.edges if e.type == "REF" and texts[e.dst_key][1:3] == ". "]
    assert all(pages[source] == pages[target] for source, target in refs)
    named = {(texts[source][:2], texts[target][:2]) for source, target in refs}
    assert named == {("2.", "1."), ("3.", "1."), ("4.", "3."), ("5.", "3.")} | {
        ("7.", n) for n in ("1.", "2.", "3.", "5.")
    }


def test_a_question_names_a_claim_by_its_number(batch: GraphBatch) -> None:
    regions = [(n.key, str(n.props["kind"]), str(n.props["text"])) for n in batch.nodes if n.label == "Region"]
    index = part_index([], regions)
    texts = _texts(batch)
    found = resolved_parts(index, named_parts("What does claim 5 add to claim 3?"))
    assert [texts[key][:2] for _, key in found] == ["5.", "3."]


def _patent_hybrid(store: FalkorDBStore, patent: Path, tmp_path: Path) -> Retriever:
    return hybrid_over(store, [patent], tmp_path / "home")


def test_a_bare_drawing_label_is_answered_by_the_text_that_describes_it(
    falkordb_store: FalkorDBStore, patent: Path, tmp_path: Path
) -> None:
    """The drawing sheet's caption is "FIG. 2B" alone and its drawing's text a reference numeral
    ("112"); what the figure shows is in the paragraph that describes the drawings."""
    hybrid = _patent_hybrid(falkordb_store, patent, tmp_path)
    named = {hit.text[:6] for hit in hybrid.retrieve("What is shown in FIG. 2B?", 10) if "kind" in hit.signals}
    assert {"[0004]", "[0006]"} <= named  # they refer to it: the label's bonus is theirs too
    result = ask("What is shown in FIG. 2B?", falkordb_store, no_llm_settings(tmp_path), hybrid)
    first = result.answer.splitlines()[0]  # [0004] "FIG. 2B is a cross-sectional view" or [0006]
    assert first.startswith(("1. “[0004] FIG. 2B", "1. “[0006] Referring to FIG. 2B")), result.answer


def test_a_paragraph_ending_in_and_stops_at_the_next_paragraph_number(layout: DocumentLayout) -> None:
    texts = [r.text for r in layout.pages[1].regions]
    assert PARAGRAPHS[2] in texts  # "[0003] FIG. 2A is a top view ...; and"
    assert PARAGRAPHS[3] in texts


def test_a_numbered_paragraph_set_larger_is_no_heading(tmp_path: Path) -> None:
    """A paragraph pasted in at 12 pt among 10 pt ones, its sentence cut off at "; and"."""
    path = tmp_path / "larger.pdf"
    with pymupdf.open() as doc:
        page, y = doc.new_page(width=595, height=842), 80.0
        for i, text in enumerate(PARAGRAPHS[:8]):
            box = pymupdf.Rect(57, y, 282, 800)
            y = 800 - page.insert_textbox(box, text, fontname="tiro", fontsize=12 if i == 2 else 10) + 4
        doc.save(path)
    kinds = {r.text[:6]: r.kind for r in NativeReader().read(path).pages[0].regions}
    assert kinds["[0003]"] == "paragraph"


def test_a_drawing_turned_on_its_sheet_keeps_its_label(tmp_path: Path) -> None:
    """A tall drawing set sideways on its sheet, "FIG. 5" and the numerals turned with it, right of
    the drawing: the label captions it, and "FIG. 5" in the text refers to it."""
    path = tmp_path / "sideways.pdf"
    with pymupdf.open() as doc:
        sheet = doc.new_page(width=612, height=792)
        sheet.draw_rect(pymupdf.Rect(150, 100, 460, 700), width=1.2)
        sheet.draw_line((170, 680), (440, 120), width=0.6)
        for numeral, y in (("500", 200), ("502", 400), ("504", 600)):
            sheet.insert_text((470, y), numeral, fontname="helv", fontsize=10, rotate=90)
        sheet.insert_text((500, 430), "FIG. 5", fontname="hebo", fontsize=16, rotate=90)
        text = doc.new_page(width=612, height=792)
        text.insert_textbox(pymupdf.Rect(50, 70, 298, 740), PARAGRAPHS[0] + " FIG. 5 is a side view of it.")
        doc.save(path)
    batch = build_graph(NativeReader().read(path))
    texts = _texts(batch)
    assert [texts[e.src_key] for e in batch.edges if e.type == "CAPTION_OF"] == ["FIG. 5"]
    assert [e.props["label"] for e in batch.edges if e.type == "REF"] == ["Figure 5"]


def test_the_claims_that_depend_on_a_named_claim_are_in_the_part(
    falkordb_store: FalkorDBStore, patent: Path, tmp_path: Path
) -> None:
    hybrid = _patent_hybrid(falkordb_store, patent, tmp_path)
    hits = hybrid.retrieve("Which claims depend on claim 3?", 10)
    assert {hit.text[:2] for hit in hits if "part" in hit.signals} == {"3.", "4.", "5.", "7."}


def test_a_section_named_by_its_title_is_the_part_asked_about(
    falkordb_store: FalkorDBStore, patent: Path, tmp_path: Path
) -> None:
    hybrid = _patent_hybrid(falkordb_store, patent, tmp_path)
    hits = [hit for hit in hybrid.retrieve("What does the background section say?", 5) if hit.kind == "paragraph"]
    assert {hit.text[:6] for hit in hits[:3]} == {"[0002]", "[0003]", "[0004]"}


@pytest.mark.parametrize(
    ("question", "titles"),
    [
        ("What does the background section say?", ["BACKGROUND"]),
        ("In the Detailed Description section, what is 112?", ["DETAILED DESCRIPTION"]),
        ("What heading is drawn on the background chapter page template?", []),  # a page template
        ("Section 2 of the background section refers to what?", []),  # a referral: references are followed
    ],
)
def test_the_sections_a_question_names_by_title(question: str, titles: list[str]) -> None:
    sections = [
        SectionInfo(section_id=title, title=title, level=1, page_start=1, parent_id=None)
        for title in ("BACKGROUND", "DETAILED DESCRIPTION", "SUMMARY")
    ]
    assert titled_sections(question, sections) == titles


def test_the_claims_are_a_section_of_their_own(batch: GraphBatch) -> None:
    """ "What is claimed is:" opens the claims as a heading would, though set as a line of text."""
    texts = _texts(batch)
    claimed = next(n.key for n in batch.nodes if n.label == "Section" and n.props["title"] == "What is claimed is:")
    under = {texts[e.src_key][:2] for e in batch.edges if e.type == "IS_UNDER" and e.dst_key == claimed}
    assert under == {"Wh"} | {f"{n}." for n in range(1, len(CLAIMS) + 1)}  # its heading, its claims

"""Medicines information and clinical guidelines as publishers set them from HTML: numbered
recommendations set a little apart, a dosing table run on over a page break without a rule over its
rest, a treatment algorithm under its heading and the sentence that leads into it, and answers that
quote the row of a dose band or the list a lead-in opens. PDFs made here with PyMuPDF's Story, read
by the native reader."""

from __future__ import annotations

from pathlib import Path

import pymupdf

from docgraph.app.llm.extractive import best_quote
from docgraph.app.llm.table_quotes import best_rows_quote, markdown_rows
from docgraph.app.retrieval.named_parts import asks_only_where, part_label_words
from docgraph.app.retrieval.relevance import named_words
from docgraph.app.retrieval.text import tokenize
from docgraph.app.stores.falkordb_store import FalkorDBStore
from docgraph.ingest.graph import build_graph
from docgraph.ingest.links.mentions import find_mentions
from docgraph.ingest.readers.native import NativeReader
from docgraph.ingest.types import DocumentLayout
from tests.llm_data import ask_of_pdf

CSS = """
body { font-family: serif; font-size: 10pt; line-height: 1.25; }
h2 { font-family: sans-serif; font-size: 11pt; font-weight: bold; margin-top: 8pt; margin-bottom: 4pt; }
p { margin-top: 0; margin-bottom: 5pt; }
td, th { border: 0.6pt solid black; padding: 2pt 4pt; font-size: 9pt; }
"""
BODY = pymupdf.Rect(56, 70, 539, 772)
FILLER = "The committee discussed the evidence on the balance of benefits and harms of treatment. " * 6
RECOMMENDATIONS = [
    ("1.3.1", "Start antibiotic treatment as soon as possible after diagnosis, within 4 hours of arrival.", "A"),
    (
        "1.3.2",
        "Offer amoxicillin 500 mg three times a day for 5 days to adults with low-severity disease.",
        "2012, amended 2019",
    ),
    ("1.3.3", "Offer co-amoxiclav with clarithromycin to adults with high-severity disease.", "B"),
]
BANDS = [
    ("10 to &lt;15 kg", "62.5 mg twice daily"),
    ("15 to &lt;25 kg", "125 mg twice daily"),
    ("25 to &lt;35 kg", "187.5 mg twice daily"),
    ("35 to &lt;45 kg", "250 mg twice daily"),
    ("&ge;45 kg", "&ndash;"),
]


def typeset(html: str, pdf: Path) -> DocumentLayout:
    """``html`` flowed over as many A4 pages as it takes, as an HTML renderer sets it, then read."""
    story = pymupdf.Story(html, user_css=CSS)
    writer = pymupdf.DocumentWriter(str(pdf))
    more = 1
    while more:
        device = writer.begin_page(pymupdf.paper_rect("a4"))
        more, _ = story.place(BODY)
        story.draw(device)
        writer.end_page()
    writer.close()
    return NativeReader().read(pdf)


def regions(layout: DocumentLayout) -> list[tuple[int, str, str]]:
    return [(page.number, region.kind, region.text) for page in layout.pages for region in page.regions]


def test_each_numbered_recommendation_is_a_paragraph_of_its_own(tmp_path: Path) -> None:
    # Each ends in its grade or its history, after its full stop; the last one, the text after it.
    paragraphs = "".join(f"<p><b>{number}</b> {text} [{grade}]</p>" for number, text, grade in RECOMMENDATIONS)
    layout = typeset(f"<h2>1.3 Choice of antibiotic</h2>{paragraphs}<p>{FILLER}</p>", tmp_path / "guideline.pdf")

    texts = [text for _, kind, text in regions(layout) if kind == "paragraph"]
    for number, text, grade in RECOMMENDATIONS:
        assert f"{number} {text} [{grade}]" in texts


def test_a_question_naming_a_recommendation_asks_only_where_it_is() -> None:
    question = "What does recommendation 1.3.2 say?"

    assert asks_only_where(question, part_label_words(question))
    assert not part_label_words("What does the third recommendation say?")


def test_a_dosing_table_run_on_without_a_rule_over_its_rest_stays_a_table(tmp_path: Path) -> None:
    # The table fills the foot of the first page: its last band, one line high, runs on to the next
    # page, whose part the renderer draws without a rule over it (each row's border is drawn under it).
    rows = "".join(f"<tr><td>{band}</td><td>{dose}</td><td>5 to 7 days</td></tr>" for band, dose in BANDS)
    table = f"<table><tr><th>Body weight</th><th>Dose</th><th>Duration</th></tr>{rows}</table>"
    html = f"<p>{FILLER * 6}</p><p>{(FILLER * 3)[:1300]}</p>{table}<p>{FILLER}</p>"
    layout = typeset(html, tmp_path / "smpc.pdf")
    assert "35 to <45 kg" in layout.pages[0].regions[-1].text, "the other bands end page 1"

    rest = layout.pages[1].regions[0]
    assert rest.kind == "table"
    assert rest.text == "| Body weight | Dose | Duration |\n| --- | --- | --- |\n| ≥45 kg | – | 5 to 7 days |"
    edges = build_graph(layout).edges
    assert any(edge.type == "HAS_NEXT" and edge.props.get("continuation") for edge in edges)


def test_a_figures_heading_and_the_sentence_leading_into_it_stay_text(tmp_path: Path) -> None:
    html = (
        f"<p>{FILLER}</p><h2>1.5 Treatment algorithm</h2><p>Figure 1 summarises the choice of antibiotic.</p>"
        '<p style="margin-top:150pt"><b>Figure 1: Antibiotic choice by severity</b></p>'
    )
    pdf = tmp_path / "algorithm.pdf"
    typeset(html, pdf)
    with pymupdf.open(pdf) as doc:  # the flowchart, its boxes labelled in another font, under the sentence
        page = doc[0]
        top = page.search_for("Figure 1 summarises")[0].y1 + 1
        for i, label in enumerate(["Score 0: low", "Score 1-2: moderate", "Score 3-5: high"]):
            box = pymupdf.Rect(90 + 150 * i, top + 60, 220 + 150 * i, top + 110)
            page.draw_rect(box, color=(0, 0, 0), fill=(0.9, 0.93, 1), width=0.8)
            inner = pymupdf.Rect(box.x0 + 3, box.y0 + 3, box.x1 - 3, box.y1 - 3)
            page.insert_textbox(inner, label, fontname="helv", fontsize=8, align=1)
            page.draw_line((295, top), (box.x0 + 65, box.y0), width=0.8)
        doc.saveIncr()
    found = regions(NativeReader().read(pdf))

    assert (1, "section_header", "1.5 Treatment algorithm") in found
    kinds = [kind for _, kind, text in found if "Figure 1 summarises" in text or "Score 0" in text]
    assert kinds == ["paragraph", "figure"]


def test_the_quote_of_a_dose_table_is_the_row_of_the_band_asked_about() -> None:
    rows = markdown_rows(
        "| Creatinine clearance (ml/min) | Dose |\n| --- | --- |\n| >50 | 500 mg every 12 hours |\n"
        "| 30–50 | Reduce dose: 250 mg every 12 hours |\n| 10–29 | Reduce dose: 250 mg every 24 hours |\n"
        "| <10 or on haemodialysis | Not recommended |"
    )

    on_dialysis = best_rows_quote(rows, set(tokenize("What is the dose in haemodialysis?")))
    at_40 = best_rows_quote(rows, set(tokenize("What dose when creatinine clearance is 40 ml/min?")))

    assert "| <10 or on haemodialysis | Not recommended |" in on_dialysis
    assert "| 30–50 | Reduce dose: 250 mg every 12 hours |" in at_40
    assert "| >50 |" not in at_40


def test_the_quote_of_a_list_of_weight_bands_is_the_band_holding_the_weight() -> None:
    items = "\n".join(f"• {band.replace('&lt;', 'under ')}: {dose}" for band, dose in BANDS[:4])

    at_20 = best_quote(items, set(tokenize("What is the dose for a child of 20 kg?")), "list")
    at_25 = best_quote(items, set(tokenize("What is the dose for a child of 25 kg?")), "list")

    assert at_20 == "• 15 to under 25 kg: 125 mg twice daily"
    assert at_25 == "• 25 to under 35 kg: 187.5 mg twice daily"


def test_a_lead_in_over_a_list_is_quoted_with_the_list(falkordb_store: FalkorDBStore, tmp_path: Path) -> None:
    # A patient leaflet: each frequency, a line that ends in a colon, over the side effects it names.
    groups = {
        "Very common (may affect more than 1 in 10 people):": ["diarrhoea", "feeling sick (nausea)", "headache"],
        "Uncommon (may affect up to 1 in 100 people):": ["ringing in the ears", "difficulty sleeping"],
    }
    items = {lead: "".join(f"<li>{item}</li>" for item in effects) for lead, effects in groups.items()}
    lists = "".join(f"<p>{lead}</p><ul>{listed}</ul>" for lead, listed in items.items())
    pdf = tmp_path / "leaflet.pdf"
    typeset(f"<h2>4. Possible side effects</h2><p>{FILLER}</p>{lists}", pdf)

    result = ask_of_pdf(falkordb_store, pdf, "What are the very common side effects?", tmp_path)

    first = result.answer.splitlines()[0]
    assert first.startswith("1. “Very common (may affect more than 1 in 10 people):”")
    assert "diarrhoea • feeling sick (nausea) • headache" in first


def test_a_paragraph_leading_into_a_list_is_quoted_with_the_list(falkordb_store: FalkorDBStore, tmp_path: Path) -> None:
    lead = "Tell your doctor if you are taking any other medicines. In particular, tell them if you take:"
    items = ["warfarin (to thin the blood)", "digoxin (for heart problems)", "ritonavir (for HIV infection)"]
    pdf = tmp_path / "leaflet.pdf"
    listed = "".join(f"<li>{item}</li>" for item in items)
    typeset(f"<h2>Other medicines and Zelvarex</h2><p>{FILLER}</p><p>{lead}</p><ul>{listed}</ul>", pdf)

    result = ask_of_pdf(falkordb_store, pdf, "Which other medicines should I tell my doctor about?", tmp_path)

    assert "• warfarin (to thin the blood) • digoxin (for heart problems)" in result.answer.splitlines()[0]


def test_a_question_what_an_abbreviation_stands_for_names_the_abbreviation_only() -> None:
    # No passage words "stand": the list of abbreviations spells ULN out ("ULN, upper limit of normal").
    assert named_words("What does ULN stand for?") == {"uln"}
    assert named_words("What is meant by ULN?") == {"uln"}


def test_a_section_of_another_document_named_before_it_is_no_reference_here() -> None:
    # A guideline's table note sends the reader to the medicine's SmPC, not to its own section 4.2.
    note = "Zelvaromycin is off-label under 6 months; see the SmPC, section 4.2, for renal dose adjustments."
    own = "Community-acquired pneumonia: antimicrobial prescribing"

    assert [m.external for m in find_mentions(note, own)] == [True]
    assert [m.external for m in find_mentions("In the Introduction, section 2 explains the scope.", own)] == [False]


def test_an_item_of_a_list_is_quoted_under_its_lead_in(falkordb_store: FalkorDBStore, tmp_path: Path) -> None:
    # "if you are taking simvastatin" alone reads as a condition to tell the doctor, not a "do not".
    items = ["if you are allergic to zelvaromycin", "if you have liver problems", "if you are taking simvastatin"]
    pdf = tmp_path / "leaflet.pdf"
    listed = "".join(f"<li>{item}</li>" for item in items)
    lead = "<p>Do not use this medicine:</p>"
    typeset(f"<h2>2. Before you take Zelvarex</h2><p>{FILLER}</p>{lead}<ul>{listed}</ul>", pdf)

    result = ask_of_pdf(falkordb_store, pdf, "Can I take Zelvarex with simvastatin?", tmp_path)

    quoted = next(line for line in result.answer.splitlines() if "simvastatin" in line)
    assert "“Do not use this medicine:” “• if you are taking simvastatin”" in quoted


def test_raised_reference_numbers_cite_the_numbered_references(tmp_path: Path) -> None:
    # Vancouver style, as medical texts cite: a raised number after the word, the list at the end.
    refs = "".join(f"<p>{n}. Author{n} A, et al. A trial of course length. Lancet 2021;3:{n}.</p>" for n in range(1, 6))
    html = (
        f"<h2>3 Rationale</h2><p>A 5-day course was as effective in children<sup>4</sup> and in adults<sup>5</sup>."
        f"</p><p>Each bed needs 20 m<sup>2</sup> of floor.</p><p>{FILLER}</p><h2>7 References</h2>{refs}"
    )
    layout = typeset(html, tmp_path / "guideline.pdf")
    batch = build_graph(layout)
    texts = {node.key: node.props.get("text", "") for node in batch.nodes}

    cited = [edge for edge in batch.edges if edge.type == "REF" and edge.props.get("kind") == "citation"]
    assert [edge.props["label"] for edge in cited] == ["[4]"]  # the list holds 4 and 5: one edge; m² none
    assert texts[cited[0].src_key].startswith("A 5-day course")
    assert "4. Author4 A" in texts[cited[0].dst_key] and "5. Author5 A" in texts[cited[0].dst_key]


def test_a_weight_no_band_holds_is_answered_with_every_band(falkordb_store: FalkorDBStore, tmp_path: Path) -> None:
    # "kg" is in every band: it names none of them; 50 kg is in none, so the list is quoted whole.
    bands = "".join(f"<li>{band.replace('&lt;', 'under ')}: {dose}</li>" for band, dose in BANDS[:4])
    pdf = tmp_path / "leaflet.pdf"
    typeset(f"<h2>3. How to take it</h2><p>{FILLER}</p><p>The usual dose by weight is:</p><ul>{bands}</ul>", pdf)

    result = ask_of_pdf(falkordb_store, pdf, "What is the dose for a child weighing 50 kg?", tmp_path)

    first = result.answer.splitlines()[0]
    assert "• 10 to under 15 kg: 62.5 mg twice daily • 15 to under 25 kg" in first
    assert "• 35 to under 45 kg: 250 mg twice daily" in first


def test_each_row_of_a_group_spanning_rows_names_its_group(tmp_path: Path) -> None:
    # An SmPC's adverse reactions: each system organ class set once, over the rows of its frequencies.
    rows = [
        ('<td rowspan="2">Nervous system disorders</td>', "Very common", "Headache"),
        ("", "Rare", "Convulsions"),
        ('<td rowspan="2">Gastrointestinal disorders</td>', "Very common", "Diarrhoea"),
        ("", "Uncommon", "Pancreatitis"),
    ]
    body = "".join(f"<tr>{group}<td>{frequency}</td><td>{reaction}</td></tr>" for group, frequency, reaction in rows)
    header = "<tr><th>System organ class</th><th>Frequency</th><th>Adverse reaction</th></tr>"
    found = regions(typeset(f"<p>{FILLER}</p><table>{header}{body}</table>", tmp_path / "smpc.pdf"))

    table = next(text for _, kind, text in found if kind == "table")
    assert "| Nervous system disorders | Rare | Convulsions |" in table
    assert "| Gastrointestinal disorders | Uncommon | Pancreatitis |" in table

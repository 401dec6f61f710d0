"""A displayed equation set on one line with its number at the column's right edge is a formula.

A typesetter sets such an equation as one line of text: MuPDF gives it as one block, with no
pieces to put together, so it has to be recognised by how it is set: its own line, indented or
centred in its column, math before an equation number "(4)" that ends at the column's right edge.
"""

from __future__ import annotations

from pathlib import Path

import pymupdf

from docgraph.ingest.graph import build_graph
from docgraph.ingest.readers.native import NativeReader
from docgraph.ingest.types import DocumentLayout

SERIF = "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf"
ITALIC = "/usr/share/fonts/truetype/dejavu/DejaVuSerif-Italic.ttf"
SIZE = 9.0
LEAD = 11.5
LEFT, GUTTER, WIDTH = 54.0, 18.0, 243.0
EQUATION = "s(q, d) = λ · c(q, d) + (1 − λ) · g(d)"
BEFORE = (
    "The final score of a passage interpolates the similarity of the first-stage retriever with "
    "the graph score of the reranker. Both scores lie between zero and one, so the mixing weight "
    "keeps the final score in that range as well:"
)
AFTER = (
    "We set the mixing weight to one third on the development split. As Eq. (4) shows, a weight "
    "of zero ranks by the graph alone, and values between one quarter and one half give results "
    "within half a point of each other on every dataset we tried."
)
RIGHT_COLUMN = (
    "Training takes fourteen hours on four GPUs with a batch of five hundred regions. We stop "
    "after thirty epochs, when the loss on held-out papers no longer falls, and keep the last "
    "checkpoint for every experiment reported in the next section of this paper."
)


def _wrap(font: pymupdf.Font, text: str) -> list[str]:
    lines: list[str] = []
    for word in text.split():
        if lines and font.text_length(f"{lines[-1]} {word}", fontsize=SIZE) <= WIDTH:
            lines[-1] += f" {word}"
        else:
            lines.append(word)
    return lines


def _paragraph(page: pymupdf.Page, x: float, y: float, text: str) -> float:
    for line in _wrap(pymupdf.Font(fontfile=SERIF), text):
        page.insert_text((x, y), line, fontname="serif", fontfile=SERIF, fontsize=SIZE)
        y += LEAD
    return y


def _two_column_paper(path: Path, equation_x: float | None = None, tag_x: float | None = None) -> Path:
    """A page of two columns; the left one holds a sentence, the equation numbered (4) and a
    sentence that refers to it. By default the equation is centred and its number ends at the
    column's right edge, as LaTeX sets it."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    y = _paragraph(page, LEFT, 80, BEFORE) + 1.2 * LEAD
    width = pymupdf.Font(fontfile=ITALIC).text_length(EQUATION, fontsize=SIZE)
    x = LEFT + (WIDTH - width) / 2 if equation_x is None else equation_x
    page.insert_text((x, y), EQUATION, fontname="italic", fontfile=ITALIC, fontsize=SIZE)
    tag_width = pymupdf.Font(fontfile=SERIF).text_length("(4)", fontsize=SIZE)
    tag_at = LEFT + WIDTH - tag_width if tag_x is None else tag_x
    page.insert_text((tag_at, y), "(4)", fontname="serif", fontfile=SERIF, fontsize=SIZE)
    _paragraph(page, LEFT, y + 1.6 * LEAD, AFTER)
    _paragraph(page, LEFT + WIDTH + GUTTER, 80, RIGHT_COLUMN)
    doc.save(path)
    doc.close()
    return path


def _kind_of_equation(layout: DocumentLayout) -> tuple[str, str]:
    (found,) = [r for page in layout.pages for r in page.regions if r.text.startswith("s(q, d)")]
    return found.kind, found.text


def test_a_centred_line_numbered_at_the_right_margin_is_a_formula(tmp_path: Path) -> None:
    layout = NativeReader().read(_two_column_paper(tmp_path / "paper.pdf"))
    assert _kind_of_equation(layout) == ("formula", f"{EQUATION} (4)")


def test_a_reference_to_a_one_line_equation_links_it(tmp_path: Path) -> None:
    layout = NativeReader().read(_two_column_paper(tmp_path / "paper.pdf"))
    batch = build_graph(layout, ingested_at="x", ingest_id="y")
    texts = {n.key: str(n.props["text"]) for n in batch.nodes if n.label == "Region"}
    links = {(e.props["label"], texts[e.dst_key]) for e in batch.edges if e.type == "REF"}
    assert ("Equation 4", f"{EQUATION} (4)") in links


def test_a_line_at_the_columns_left_edge_is_not_displayed(tmp_path: Path) -> None:
    """Set flush with the sentences around it, the line is running text however it ends."""
    layout = NativeReader().read(_two_column_paper(tmp_path / "paper.pdf", equation_x=LEFT))
    assert _kind_of_equation(layout)[0] == "paragraph"


def test_a_number_short_of_the_right_margin_is_no_equation_number(tmp_path: Path) -> None:
    """A centred line ending in "(4)" right after its text: an enumerator or a remark, not an
    equation number, which a typesetter sets at the column's edge."""
    path = _two_column_paper(tmp_path / "paper.pdf", equation_x=LEFT + 30, tag_x=LEFT + 190)
    assert _kind_of_equation(NativeReader().read(path))[0] == "paragraph"

"""Explicit references on hand-built layouts: each pattern, resolution targets, unresolved counting."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from docgraph.app.config import Settings
from docgraph.app.pipeline.readers import make_reader
from docgraph.app.resources import SAMPLES_DIR
from docgraph.ingest.graph import build_graph
from docgraph.ingest.links.references import find_mentions
from docgraph.ingest.readers.native import NativeReader
from docgraph.ingest.types import OutlineEntry, PageLayout
from docgraph.records import GraphBatch
from tests.test_graph_build import WHEN, build, edges, key_of, layout, page, region

SAMPLE = SAMPLES_DIR / "docgraph-sample.pdf"


def section_keys(batch: GraphBatch) -> dict[str, str]:
    """Each section's key by its title."""
    return {n.props["title"]: n.key for n in batch.nodes if n.label == "Section"}


def refs(batch: GraphBatch, source_text: str) -> list[tuple[str, str, str]]:
    src = key_of(batch, source_text)
    return [(e.dst_label, e.dst_key, e.props["label"]) for e in edges(batch, "REF") if e.src_key == src]


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("see Figure 2-1 and Table 4-1.", [("figure", "2-1"), ("table", "4-1")]),
        ("as Fig. 3a shows", [("figure", "3a")]),
        ("Figures 2 and 3", [("figure", "2"), ("figure", "3")]),
        ("in Figure 3.2, left", [("figure", "3.2")]),
        ("Table 2–1 lists", [("table", "2–1")]),
        ("Tables IV and V", [("table", "IV"), ("table", "V")]),
        ("Sections 2.1, 2.2, and 2.4", [("section", "2.1"), ("section", "2.2"), ("section", "2.4")]),
        ("(see Section 3.)", [("section", "3")]),
        ("§4.2 says", [("section", "4.2")]),
        ("Chapter 11 of this document", [("chapter", "11")]),
        ("details in Appendix B.", [("appendix", "B")]),
        ("by Eq. (3)", [("equation", "3")]),
        ("equation 4 gives", [("equation", "4")]),
        ("see page 22,", [("page", "22")]),
        ("cf. p. 7", [("page", "7")]),
        ("pp. 12-15", [("page", "12")]),
        ("TableStyle commands and the Table of contents", []),
        ("p.moveTo(10*u,0) and p.lineTo(1, 2)", []),
        ("expand the page 2X its size", []),
        ("rotate with the page\n1<<4", []),
        ("a section where figures go", []),
        ("Figure 3D rendering", []),
        ("siehe Abbildung 3 und Tabelle 2", [("figure", "3"), ("table", "2")]),
        ("in den Abbildungen 3 und 4, Abschnitt 2.1", [("figure", "3"), ("figure", "4"), ("section", "2.1")]),
        ("wie Abb. 5 zeigt; Seite 12", [("figure", "5"), ("page", "12")]),
        ("voir le tableau 2 et l'annexe B", [("table", "2"), ("annex", "B")]),
        ("véase la sección 4.2 y el capítulo 3", [("section", "4.2"), ("chapter", "3")]),
        ("на рисунке 3 и в таблице 2, см. раздел 4.1", [("figure", "3"), ("table", "2"), ("section", "4.1")]),
        ("如图3所示，参数见表2", [("figure", "3"), ("table", "2")]),
        ("代表2个模块的列表3", []),
        ("Goethe Str. 3 and pages 3 of 10", [("page", "3")]),
    ],
)
def test_find_mentions(text: str, found: list[tuple[str, str]]) -> None:
    assert [(m.kind, m.number) for m in find_mentions(text)] == found


def figures_doc() -> GraphBatch:
    return build(
        layout(
            page(
                1,
                region("paragraph", "As Figure 2-1 shows, and Table 4.1 lists, see also Figure 9.", 40),
                region("figure", "drawing", 100, 300),
                region("caption", "Figure 2-1: A drawing, unlike Figure 2-2", 305),
                region("table", "x y", 400, 500),
                region("caption", "Table 4-1 - Some numbers", 505),
                region("caption", "Figure 2-2: A lonely caption", 700, x0=400, x1=540),
            ),
        )
    )


def test_figure_and_table_refs_resolve_to_the_captioned_region() -> None:
    batch = figures_doc()
    source = "As Figure 2-1 shows, and Table 4.1 lists, see also Figure 9."
    assert refs(batch, source) == [
        ("Region", key_of(batch, "drawing"), "Figure 2-1"),
        ("Region", key_of(batch, "x y"), "Table 4.1"),  # "4.1" and "4-1" are one number
    ]
    assert batch.stats["unresolved_refs"] == 1  # Figure 9 does not exist: counted, not guessed


def test_caption_does_not_reference_itself_but_may_reference_others() -> None:
    batch = figures_doc()
    # Figure 2-2's caption has no figure left to caption, so the reference lands on the caption itself.
    assert refs(batch, "Figure 2-1: A drawing, unlike Figure 2-2") == [
        ("Region", key_of(batch, "Figure 2-2: A lonely caption"), "Figure 2-2")
    ]
    assert refs(batch, "Table 4-1 - Some numbers") == []
    assert refs(batch, "Figure 2-2: A lonely caption") == []
    assert batch.stats["resolved_refs"] == 3


def test_a_bare_label_split_off_a_sentence_is_a_reference_not_a_caption() -> None:
    # The reader cut "... the single panel plot in" / "Figure 1." and typed the tail a caption.
    batch = build(
        layout(
            page(
                1,
                region("paragraph", "See the single panel plot in", 40),
                region("caption", "Figure 1.", 55, x1=120),
                region("figure", "plot", 300, 500),
                region("caption", "Figure 1: A single panel plot", 505),
            ),
            page(2, region("figure", "other plot", 40, 300)),
        )
    )
    # The bare label does not caption the next page's figure.
    assert [(e.src_key, e.dst_key) for e in edges(batch, "CAPTION_OF")] == [
        (key_of(batch, "Figure 1: A single panel plot"), key_of(batch, "plot"))
    ]
    assert refs(batch, "Figure 1.") == [("Region", key_of(batch, "plot"), "Figure 1")]


def sections_doc() -> GraphBatch:
    outline = [
        OutlineEntry(1, "Chapter 2 Drawing", 1),
        OutlineEntry(2, "2.3 Paths", 1),
        OutlineEntry(1, "Chapter Three", 2),
        OutlineEntry(1, "Appendix A Demos", 2),
        OutlineEntry(1, "B Licence", 2),
    ]
    return build(
        layout(
            page(
                1,
                region("section_header", "Chapter 2 Drawing", 40),
                region("paragraph", "Read Section 2.3, §2.3 again, then Chapter 2 and Section 7.", 80),
                region("section_header", "2.3 Paths", 200),
                region("formula", "E = m c^2 (3)", 240),
                region("paragraph", "Using Eq. (3) and Equation 5, see Appendix A and Appendix B.", 280),
            ),
            page(
                2,
                region("section_header", "Chapter Three", 40),
                region("section_header", "Appendix A Demos", 200),
                region("section_header", "B Licence", 400),
                region("paragraph", "Also see Chapter 3.", 420),
            ),
            outline=outline,
        )
    )


def test_section_chapter_and_section_sign_refs_resolve_by_number() -> None:
    batch = sections_doc()
    sec = section_keys(batch)
    assert refs(batch, "Read Section 2.3, §2.3 again, then Chapter 2 and Section 7.") == [
        ("Section", sec["2.3 Paths"], "Section 2.3"),
        ("Section", sec["Chapter 2 Drawing"], "Chapter 2"),
    ]
    # "Chapter 3" exists neither as a number nor as a title starting "Chapter 3": unresolved.
    assert refs(batch, "Also see Chapter 3.") == []


def test_equation_and_appendix_refs() -> None:
    batch = sections_doc()
    sec = section_keys(batch)
    assert refs(batch, "Using Eq. (3) and Equation 5, see Appendix A and Appendix B.") == [
        ("Region", key_of(batch, "E = m c^2 (3)"), "Equation 3"),
        ("Section", sec["Appendix A Demos"], "Appendix A"),
        ("Section", sec["B Licence"], "Appendix B"),
    ]
    # Section 7, Chapter 3 and Equation 5 are the unresolved ones.
    assert (batch.stats["resolved_refs"], batch.stats["unresolved_refs"]) == (5, 3)


def test_unnumbered_subsections_of_a_numbered_section_take_the_numbers_latex_gives_them() -> None:
    """A JSS paper prints "5.1. Theory" but not the numbers of its subsubsections, which its text
    still cites as "Section 5.1.2". A section whose children print numbers lends none."""
    outline = [
        OutlineEntry(1, "5. Output module", 1),
        OutlineEntry(2, "5.1. Theory", 1),
        OutlineEntry(3, "Covariance matrix", 1),
        OutlineEntry(3, "Profiling", 2),
        OutlineEntry(1, "6. Tools", 2),
        OutlineEntry(2, "6.1. Plots", 2),
        OutlineEntry(2, "Summary", 2),
    ]
    batch = build(
        layout(
            page(
                1,
                region("section_header", "5. Output module", 40),
                region("section_header", "5.1. Theory", 80),
                region("paragraph", "Covariance matrix", 120),
                region("paragraph", "Profiles are described in Section 5.1.2, tools in Section 6.2.", 160),
            ),
            page(
                2,
                region("paragraph", "Profiling", 40),
                region("section_header", "6. Tools", 200),
                region("section_header", "6.1. Plots", 240),
                region("paragraph", "Summary", 300),
            ),
            outline=outline,
        )
    )
    sec = section_keys(batch)
    assert refs(batch, "Profiles are described in Section 5.1.2, tools in Section 6.2.") == [
        ("Section", sec["Profiling"], "Section 5.1.2")
    ]
    profiling = next(n for n in batch.nodes if n.key == sec["Profiling"])
    assert profiling.props["number"] == ""  # the implied number resolves references; none is printed


def test_page_refs_use_printed_page_numbers_from_footers() -> None:
    # Two unnumbered front pages, then printed page 1 on physical page 3.
    pages = [page(1, region("paragraph", "See page 2 and p. 9.", 40)), page(2, region("paragraph", "toc", 40))]
    pages += [
        page(n, region("paragraph", f"body {n}", 40), region("page_footer", f"{n - 2}", 760)) for n in range(3, 7)
    ]
    batch = build(layout(*pages))
    assert refs(batch, "See page 2 and p. 9.") == [("Page", "sample-doc@a1b2c3d4:p4", "page 2")]
    assert batch.stats["unresolved_refs"] == 1  # printed page 9 would be physical 11


def test_page_refs_fall_back_to_physical_pages_without_page_numbers() -> None:
    batch = build(
        layout(page(1, region("paragraph", "Turn to page 2 or page 3.", 40)), page(2, region("paragraph", "two", 40)))
    )
    assert refs(batch, "Turn to page 2 or page 3.") == [("Page", "sample-doc@a1b2c3d4:p2", "page 2")]
    assert batch.stats["unresolved_refs"] == 1


def test_running_heads_and_headers_are_not_reference_sources() -> None:
    batch = build(
        layout(
            page(
                1,
                region("page_header", "Chapter 1: Intro", 20),
                region("section_header", "1 Intro", 40),
                region("paragraph", "plain", 80),
                region("page_footer", "Page 1", 760),
            )
        )
    )
    assert edges(batch, "REF") == []
    assert batch.stats["resolved_refs"] == batch.stats["unresolved_refs"] == 0


def merged_papers() -> GraphBatch:
    """Two papers bound in one PDF, each with its own Figure 1, Section 2 and Eq. (1)."""

    def paper(first: int, name: str) -> list[PageLayout]:
        return [
            page(
                first,
                region("title", f"{name}: A Study", 40, font_size=20),
                region("section_header", f"2 {name} Methods", 120),
                region("formula", f"y = {name[0].lower()} x (1)", 160),
                region("figure", f"{name} drawing", 200, 400),
                region("caption", f"Figure 1: The {name} setup", 405),
            ),
            page(first + 1, region("paragraph", f"In {name}, Figure 1 and Eq. (1) follow from Section 2.", 60)),
        ]

    return build(layout(*paper(1, "Alpha"), *paper(3, "Beta")))


def test_a_merged_pdf_refers_each_paper_to_its_own_numbers() -> None:
    """Every "Figure 1" of the second paper pointed at the first paper's figure."""
    batch = merged_papers()
    sec = section_keys(batch)
    for name in ("Alpha", "Beta"):
        assert refs(batch, f"In {name}, Figure 1 and Eq. (1) follow from Section 2.") == [
            ("Region", key_of(batch, f"{name} drawing"), "Figure 1"),
            ("Region", key_of(batch, f"y = {name[0].lower()} x (1)"), "Equation 1"),
            ("Section", sec[f"2 {name} Methods"], "Section 2"),
        ]


def test_a_number_only_another_part_has_still_resolves_there() -> None:
    """A title typed inside one paper splits it in parts; its references still reach back."""
    batch = build(
        layout(
            page(1, region("figure", "plot", 100, 300), region("caption", "Figure 4: A plot", 305)),
            page(2, region("title", "A Big Heading", 40, font_size=20), region("paragraph", "Figure 4 shows it.", 80)),
        )
    )
    assert refs(batch, "Figure 4 shows it.") == [("Region", key_of(batch, "plot"), "Figure 4")]


def test_a_merged_pdf_read_from_its_pages_refers_each_paper_to_its_own_targets(tmp_path: Path) -> None:
    """The sample bound twice, with the outline a merging tool writes (each paper a top-level entry):
    every reference of the second paper went to the first paper's table, figure and sections."""
    sample = pymupdf.open(SAMPLE)
    pages = sample.page_count
    outline = [[level + 1, title, page] for level, title, page in sample.get_toc()]
    merged = pymupdf.open()
    for _ in range(2):
        merged.insert_pdf(sample)
    merged.set_toc(
        [[1, "Paper A", 1], *outline, [1, "Paper B", pages + 1], *[[lv, t, p + pages] for lv, t, p in outline]]
    )
    merged.save(tmp_path / "proceedings.pdf")
    batch = build_graph(make_reader("auto", Settings(home=tmp_path)).read(tmp_path / "proceedings.pdf"), WHEN)
    page_of = {n.key: n.props.get("page", n.props.get("page_start")) for n in batch.nodes}
    links = [(page_of[e.src_key], page_of[e.dst_key]) for e in edges(batch, "REF")]
    second = [(source, target) for source, target in links if source > pages]
    assert len(second) == len(links) // 2 > 0  # the second paper refers as often as the first
    assert all(target > pages for _, target in second), links
    assert all(target <= pages for source, target in links if source <= pages), links


@pytest.mark.parametrize(("width", "height", "linked"), [(842, 595, True), (595, 842, False)])
def test_a_deck_refers_to_its_slides_by_number(tmp_path: Path, width: int, height: int, linked: bool) -> None:
    """A slide deck's "See slide 3 for the headcount" made no edge: only pages were referred to. A
    deck's pages are landscape; in a portrait document "slide 2 mm" is no reference at all."""
    pdf = tmp_path / "deck.pdf"
    texts = ["See slide 3 for the headcount by depot.", "Slide 2 mm of shim under the rail.", "Depot headcount"]
    with pymupdf.open() as doc:
        for text in texts:
            doc.new_page(width=width, height=height).insert_text((60, 120), text, fontname="helv", fontsize=20)
        doc.save(pdf)
    batch = build_graph(NativeReader().read(pdf), WHEN)
    slide_3 = next(n.key for n in batch.nodes if n.label == "Page" and n.props["number"] == 3)
    assert refs(batch, "See slide 3 for the headcount by depot.") == ([("Page", slide_3, "slide 3")] if linked else [])
    assert linked or batch.stats["unresolved_refs"] == 0  # not counted as a reference that found nothing

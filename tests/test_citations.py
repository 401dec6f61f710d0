"""Bibliographic citations -> REF edges (kind "citation"), on hand-built layouts and on zoo.pdf.

zoo.pdf (JSS style) was read by hand: page 22 says "For more information on the package
strucchange and the function gefp see Zeileis et al. (2002) and Zeileis (2006)."; the References
section starts on page 26 and the entry "Zeileis A (2006). "Implementing a Class of Structural
Change Tests: An Econometric Computing Approach." Computational Statistics & Data Analysis, 50,
2987-3008." is on page 27, where the reader makes it a region of its own.
"""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from docgraph.ingest.graph import build_graph
from docgraph.ingest.links.citations import find_citations, is_bibliography_title
from docgraph.ingest.readers.native import NativeReader
from docgraph.ingest.types import OutlineEntry
from docgraph.records import GraphBatch, NodeRecord, RegionKind
from tests.test_graph_build import build, edges, key_of, layout, page, region

ZOO = Path("/work/shared/bench/dev/zoo.pdf")

# Bibliography entries of the author-year document.
ZEILEIS_2006 = "Zeileis A (2006). Implementing a class of structural change tests. CSDA, 50, 2987-3008."
ZG_2005 = "Zeileis, A., & Grothendieck, G. (2005). zoo: S3 infrastructure. Journal of Statistical Software, 14."
SMITH_A = "Smith J, Jones K, Lee M (2019a). First paper. Journal A, 1, 1-10."
SMITH_B_AND_HYNDMAN = (
    "Smith J, Jones K, Lee M (2019b). Second paper. Journal B, 2, 3-4. "
    "Hyndman RJ (2008). Forecasting with exponential smoothing. Springer, Berlin."
)
KLEIBER = "Kleiber C, Zeileis A (2008). Applied Econometrics with R. Springer-Verlag, New York."
BROWN = "Brown, P., & Green, Q. (2010). Colours. Journal C, 3."
BROWN_WHITE = "Brown, P., & White, R. (2010). Shades. Journal D, 4."
VAN_DER_BERG = "van der Berg, P. (2007). Particles. Journal E, 5."
MULLER = "Müller-Hansen K (2003). Umlauts. Journal F, 6."
R_CORE = "R Core Team (2017). R: A Language and Environment for Statistical Computing."

NARRATIVE = "As Zeileis (2006) shows and Zeileis and Grothendieck (2005) confirm, see also Smith et al. (2019a, b)."
PARENTHETICAL = "Series are common (Zeileis 2006; Hyndman, 2008), and (see Kleiber and Zeileis 2008, p. 3)."
NAMES = "Notably, van der Berg (2007) disagrees with Müller-Hansen (2003) (R Core Team 2017)."
TIES = "Brown and White (2010) differ; Brown (2010) is ambiguous and Brown et al. (2010) too."
NOT_CITATIONS = (
    "In 2006 the package grew, Zeileis 2006 released it, Table 2 (2006) lists it, "
    "Nobody (2006) wrote it (Version 2007) and Zeileis (2007) did not."
)


def author_year_doc() -> GraphBatch:
    return build(
        layout(
            page(
                1,
                region("section_header", "1 Introduction", 40),
                region("paragraph", NARRATIVE, 60),
                region("paragraph", PARENTHETICAL, 80),
                region("paragraph", NAMES, 100),
                region("paragraph", TIES, 120),
                region("paragraph", NOT_CITATIONS, 140),
                region("code", "R> zeileis <- Zeileis (2006)", 160),
                region("section_header", "References", 200),
                region("paragraph", ZEILEIS_2006, 220),
                region("paragraph", ZG_2005, 240),
                region("list", SMITH_A, 260),
                region("list", SMITH_B_AND_HYNDMAN, 280),
                region("paragraph", KLEIBER, 300),
            ),
            page(
                2,
                region("paragraph", BROWN, 40),
                region("paragraph", BROWN_WHITE, 60),
                region("paragraph", VAN_DER_BERG, 80),
                region("paragraph", MULLER, 100),
                region("paragraph", R_CORE, 120),
                region("section_header", "A Reference card", 200),
                region("paragraph", "Zeileis A (2007). An appendix, not an entry.", 220),
            ),
        )
    )


def cites(batch: GraphBatch, source_text: str) -> list[tuple[str, str]]:
    """(cited region's text, label) of each citation edge leaving the region with ``source_text``."""
    src = key_of(batch, source_text)
    texts = {n.key: n.props["text"] for n in batch.nodes if n.label == "Region"}
    return [
        (texts[e.dst_key], e.props["label"])
        for e in edges(batch, "REF")
        if e.src_key == src and e.props["kind"] == "citation"
    ]


def test_narrative_citations_with_et_al_and_year_suffixes() -> None:
    assert cites(author_year_doc(), NARRATIVE) == [
        (ZEILEIS_2006, "Zeileis (2006)"),
        (ZG_2005, "Zeileis and Grothendieck (2005)"),
        (SMITH_A, "Smith et al. (2019a, b)"),
        (SMITH_B_AND_HYNDMAN, "Smith et al. (2019a, b)"),  # "b" is 2019b, in a region of two entries
    ]


def test_parenthetical_citations_split_at_semicolons() -> None:
    assert cites(author_year_doc(), PARENTHETICAL) == [
        (ZEILEIS_2006, "Zeileis 2006"),
        (SMITH_B_AND_HYNDMAN, "Hyndman, 2008"),
        (KLEIBER, "Kleiber and Zeileis 2008"),
    ]


def test_particles_hyphens_accents_corporate_authors_and_sentence_openers() -> None:
    assert cites(author_year_doc(), NAMES) == [
        (VAN_DER_BERG, "van der Berg (2007)"),
        (MULLER, "Müller-Hansen (2003)"),
        (R_CORE, "R Core Team 2017"),
    ]


def test_a_second_author_settles_a_tie_and_an_unsettled_tie_links_nothing() -> None:
    batch = author_year_doc()
    assert cites(batch, TIES) == [(BROWN_WHITE, "Brown and White (2010)")]


def test_years_that_are_not_citations_link_nothing() -> None:
    batch = author_year_doc()
    assert cites(batch, NOT_CITATIONS) == []
    assert cites(batch, "R> zeileis <- Zeileis (2006)") == []  # code is not searched
    # Unresolved: Brown (2010), Brown et al. (2010), Nobody (2006), Version 2007, Zeileis (2007) and
    # the appendix line "Zeileis A (2007)" (the appendix after the References section is not part of it).
    assert batch.stats["unresolved_citations"] == 6
    assert batch.stats["resolved_citations"] == 11


def test_bibliography_regions_cite_nothing_and_every_pair_is_linked_once() -> None:
    batch = author_year_doc()
    citation_edges = [e for e in edges(batch, "REF") if e.props["kind"] == "citation"]
    pairs = [(e.src_key, e.dst_key) for e in citation_edges]
    assert len(pairs) == len(set(pairs)) == 11
    assert cites(batch, KLEIBER) == []


NUMERIC = "As shown in [3, 5-7] and again [2]; the interval [0, 1], x[1] and [9] are not citations."


def cited_doc(text: str, heading: str, entries: list[str], kind: RegionKind) -> GraphBatch:
    """One page: a paragraph that cites, then a bibliography heading and its entries."""
    bibliography = (region(kind, entry, 120 + 20 * i) for i, entry in enumerate(entries))
    return build(layout(page(1, region("paragraph", text, 40), region("section_header", heading, 100), *bibliography)))


def test_numeric_citations_resolve_ranges_and_only_numbers_with_an_entry() -> None:
    entries = ["[1] A. Ant. Ants. J. Insects, 1990.", "[2] B. Bee. Bees. J. Insects, 1991."]
    entries += ["[3] C. Cat. Cats. Pets, 1992. [4] D. Dog. Dogs. Pets, 1993."]
    entries += ["5. E. Eel. Eels. Fish, 1994.", "[6] F. Fox. Foxes. Wild, 1995.", "[7] G. Gnu. Gnus. Wild, 1996."]
    batch = cited_doc(NUMERIC, "7 Bibliography", entries, "list")
    assert cites(batch, NUMERIC) == [
        (entries[2], "[3, 5-7]"),
        (entries[3], "[3, 5-7]"),
        (entries[4], "[3, 5-7]"),
        (entries[5], "[3, 5-7]"),
        (entries[1], "[2]"),
    ]
    assert (batch.stats["resolved_citations"], batch.stats["unresolved_citations"]) == (2, 1)  # [9]


def test_numbered_entries_after_urls_and_line_breaks_inside_entries() -> None:
    """ACM style: an entry often ends in a URL or DOI, not a period, and the reader's regions break
    inside entries, so "[n]" starts an entry anywhere in a region, as the next number only."""
    entries = [
        "[1] A. Ant. 2007. Ants. Retrieved 2008 from http://ants.example/index.html [2] B. Bee",
        "and C. Cow. 2007. Bees and cows. Commun. ACM 50, 1 (2007), 36-44. https://doi.org/10.1145/1188913.",
        "1188915 [3] D. Dog. 1979. Dogs, see [5]. Master's thesis. [4] E. Eel. 2003. Eels. arXiv:1403.1349",
        "[5] F. Fox. 2013. Foxes. https://doi.org/10.1/5",
    ]
    text = "Journal articles [2], theses [3] and preprints [4, 5]."
    batch = cited_doc(text, "References", entries, "paragraph")
    assert cites(batch, text) == [
        (entries[0], "[2]"),
        (entries[2], "[3]"),  # [4] is in the same region: one edge per pair
        (entries[3], "[4, 5]"),
    ]
    assert (batch.stats["resolved_citations"], batch.stats["unresolved_citations"]) == (3, 0)


def test_a_bibliography_heading_outside_the_outline_starts_a_run_up_to_the_next_heading() -> None:
    citing = "Both Zeileis (2006) and Zeileis (2010) are cited."
    batch = build(
        layout(
            page(
                1,
                region("section_header", "1 Introduction", 40),
                region("paragraph", citing, 60),
                region("section_header", "Bibliography", 100),
                region("paragraph", ZEILEIS_2006, 120),
                region("section_header", "Index", 200),
                region("paragraph", "Zeileis A (2010). An index line, not an entry.", 220),
            ),
            outline=[OutlineEntry(1, "1 Introduction", 1), OutlineEntry(1, "Index", 1)],
        )
    )
    assert cites(batch, citing) == [(ZEILEIS_2006, "Zeileis (2006)")]
    # "Zeileis (2010)" and the index line itself, which is text after the run, not an entry.
    assert batch.stats["unresolved_citations"] == 2


def test_no_bibliography_no_citations() -> None:
    batch = build(layout(page(1, region("paragraph", NARRATIVE, 40), region("paragraph", ZEILEIS_2006, 60))))
    assert cites(batch, NARRATIVE) == []
    assert batch.stats["resolved_citations"] == batch.stats["unresolved_citations"] == 0


@pytest.mark.parametrize(
    ("title", "is_bib"),
    [
        ("References", True),
        ("7 References", True),
        ("A References", True),
        ("Appendix B Bibliography", True),
        ("Literature Cited", True),
        ("Reference card", False),
        ("Cross-references", False),
        ("References to other sections", False),
    ],
)
def test_bibliography_titles(title: str, is_bib: bool) -> None:
    assert is_bibliography_title(title) is is_bib


def test_find_citations_labels() -> None:
    found = find_citations("see Zeileis et al. (2002) and Zeileis (2006), (Smith 2006, 2008) and [12]")
    assert [(c.label, c.year) for c in found] == [
        ("Zeileis et al. (2002)", "2002"),
        ("Zeileis (2006)", "2006"),
        ("Smith 2006", "2006"),
        ("Smith 2006", "2008"),
        ("[12]", ""),
    ]


# ---- a real paper --------------------------------------------------------------------------


def region_with(batch: GraphBatch, text: str, page_number: int) -> NodeRecord:
    (found,) = [
        n
        for n in batch.nodes
        if n.label == "Region" and n.props["page"] == page_number and text in " ".join(n.props["text"].split())
    ]
    return found


@pytest.mark.slow
def test_zoo_citations_link_to_their_reference_entries() -> None:
    zoo = build_graph(NativeReader().read(ZOO), "2024-01-01T00:00:00+00:00")
    gefp = region_with(zoo, "strucchange and the function gefp see Zeileis et al. (2002) and Zeileis (2006)", 22)
    zeileis_2006 = region_with(zoo, "Computational Statistics & Data Analysis", 27)
    assert zeileis_2006.props["text"].startswith("Zeileis A (2006).")
    strucchange = region_with(zoo, "Zeileis A, Leisch F, Hornik K, Kleiber C (2002)", 27)
    cited = {
        (e.dst_key, e.props["label"])
        for e in zoo.edges
        if e.type == "REF" and e.src_key == gefp.key and e.props.get("kind") == "citation"
    }
    assert cited == {(strucchange.key, "Zeileis et al. (2002)"), (zeileis_2006.key, "Zeileis (2006)")}
    # Every citation in the paper's text resolves: 14 (source, entry) pairs, none unresolved.
    assert sum(1 for e in zoo.edges if e.props.get("kind") == "citation") == 14
    assert zoo.stats["unresolved_citations"] == 0


def test_a_reference_list_set_without_space_between_entries_is_read_entry_by_entry(tmp_path: Path) -> None:
    """Entries with hanging labels and 1.5 pt between them were one region: "[2] and [4]" cited
    the whole list once, as "[2]", and no entry could be told apart."""
    entries = [
        ["V. Karpukhin et al. Dense passage retrieval for open-domain", "question answering. In Proc. EMNLP, 2020."],
        ["P. Dasigi et al. A dataset of information-seeking questions", "anchored in research papers. NAACL, 2021."],
        ["J. Lee. Footnotes considered harmful. Journal of", "Typography, 2017."],
        ["R. Nogueira et al. Document ranking with a pretrained", "sequence-to-sequence model. EMNLP, 2020."],
    ]
    body = ["Dense retrievers [2] and rerankers [4] answer questions over", "papers, as [1] showed."]
    pdf = tmp_path / "paper.pdf"
    with pymupdf.open() as doc:
        page = doc.new_page()
        page.insert_text((72, 50), "Rerankers for Scientific Questions", fontname="hebo", fontsize=16)
        page.insert_text((72, 72), "1 Introduction", fontname="hebo", fontsize=12)
        for n, line in enumerate(body):
            page.insert_text((72, 92 + 12 * n), line, fontname="helv", fontsize=10)
        page.insert_text((72, 140), "References", fontname="hebo", fontsize=12)
        y = 150.0
        for number, lines in enumerate(entries, start=1):
            for n, line in enumerate(lines):
                y += 10
                if n == 0:
                    page.insert_text((72, y), f"[{number}]", fontname="helv", fontsize=8)
                page.insert_text((90, y), line, fontname="helv", fontsize=8)
            y += 1.5
        doc.save(pdf)
    batch = build_graph(NativeReader().read(pdf), "2024-01-01T00:00:00+00:00")
    texts = {n.key: n.props["text"] for n in batch.nodes if n.label == "Region"}
    assert [t[:6] for t in texts.values() if t.startswith("[")] == ["[1] V.", "[2] P.", "[3] J.", "[4] R."]
    cited = sorted((e.props["label"], texts[e.dst_key][:6]) for e in batch.edges if e.props.get("kind") == "citation")
    assert cited == [("[1]", "[1] V."), ("[2]", "[2] P."), ("[4]", "[4] R.")]


def test_prose_that_opens_sentences_with_citations_stays_one_paragraph(tmp_path: Path) -> None:
    """IEEE-style related work ("[3] introduced ... reports. " | "[5] extended ...") was cut at each
    line opening with a citation after a sentence end: its labels neither hang nor count up by one."""
    lines = [
        "[3] introduced retrieval over document graphs and reported large gains on long",
        "reports. Their index keeps one node per paragraph and links them in reading order.",
        "[5] extended it to tables, keeping each row as a node of its own, and showed that",
        "row-level nodes answer numeric questions far more often than page-level ones do.",
    ]
    pdf = tmp_path / "related.pdf"
    with pymupdf.open() as doc:
        page = doc.new_page()
        page.insert_text((72, 72), "Related work", fontname="hebo", fontsize=12)
        for n, line in enumerate(lines):
            page.insert_text((72, 92 + 12.5 * n), line, fontname="helv", fontsize=10)
        doc.save(pdf)
    regions = NativeReader().read(pdf).pages[0].regions
    assert [region.text[:16] for region in regions if region.kind == "paragraph"] == ["[3] introduced r"]

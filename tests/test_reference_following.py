"""Query classification for reference questions, and the re-ranking that follows references."""

from __future__ import annotations

import pytest

from docgraph.app.retrieval.base import ScoredRegion
from docgraph.app.retrieval.references import asks_about_reference, follow_references


@pytest.mark.parametrize(
    "question",
    [
        "The canvas constructor description says encryption is explained further in Chapter 4. What key strength?",
        "Section 2.2 defers the details of the monthly time classes to a later section. How is yearmon defined?",
        "For further reading on gefp, the strucchange section cites Zeileis (2006). In which journal?",
        "The 'Simple parsing' section points to a routine for decoding simple DER types. Where does its output point?",
        "The monochrome section points readers to the gray palette option. Which end maps to white?",
        "The entries for minor tics refer to set mxtics. What does its frequency argument count?",
        "It keeps only the longest glob pattern, 'as previously discussed'. Which pattern must win?",
        "The overview ends with 'see also Chapter 7'. Which function opens a gzip-compressed file there?",
        "The notes say mpfr.h may be included twice, pointing to Section 4.1. Which macro gives the I/O prototypes?",
        "The entry for literal.role says its values are specified in Section 4.12.1. Which one is the default?",
        "The latex.index.tool entry says to read Section 4.13. Which xindy language does 'de' map to?",
        "Appendix C has an overview of the methods. According to that table's caption, what is in its last block?",
        "The driver argument's description sends the reader to Appendix C. How many drivers are there?",
        "auto.arima() is said to implement the algorithm of Section 3. When is a candidate model rejected?",
        "The parameters are optimized as if minimizing equation (7). What does that equation sum?",
        "The example says the factors have no effect on the splitting procedure (step 3). Which search does it use?",
        "The text says to see the Appendix for the internal parameters. What is the default of fdev?",
        "Pairwise comparisons are illustrated in Subsection 6.1. Which allele length counts as long?",
    ],
)
def test_questions_about_what_a_passage_refers_to_are_recognised(question: str) -> None:
    assert asks_about_reference(question)


@pytest.mark.parametrize(
    "question",
    [
        "How can a program tell that a directory is a mount point?",
        "Which data points are drawn as filled dots in the marker example?",
        "What is the default size of PostScript output, compared with EPS output?",
        "Which referee approved the release?",
        "Where can someone reading the PDF see the metadata set through setAuthor?",
        "Which values are given in the list of options for the default position?",
        "What does the reading of a file given in a specified encoding return?",
        "In Table 2, which model has the lowest AIC?",
        "How many steps does the generic partitioning algorithm have?",
        "Which sections of the appendix list the driver options?",
        "What does the caption of Figure 3 say about the dashed line?",
    ],
)
def test_other_questions_are_not(question: str) -> None:
    assert not asks_about_reference(question)


def _hit(region_id: str, page: int, score: float, doc_id: str = "doc") -> ScoredRegion:
    return ScoredRegion(region_id, doc_id, page, (), "paragraph", region_id, score, {"dense": score})


def test_pages_the_best_hits_refer_to_gain_a_share_of_their_score() -> None:
    hits = [_hit("a", 17, 2.0), _hit("b", 17, 1.8), _hit("c", 9, 1.5), _hit("d", 3, 1.4), _hit("e", 5, 1.0)]
    refers = {"a": frozenset({3, 17}), "c": frozenset({5})}  # c is not among the best two
    ranked = follow_references(hits, lambda region_id: refers.get(region_id, frozenset()), weight=0.5, hops=2)
    assert [h.region_id for h in ranked] == ["d", "a", "b", "c", "e"]
    d = ranked[0]
    assert d.score == pytest.approx(2.4) and d.signals == {"dense": 1.4, "reference": pytest.approx(1.0)}
    assert all("reference" not in h.signals for h in ranked[1:])  # a's own page gains nothing


def test_the_largest_gain_counts_once_and_other_documents_are_untouched() -> None:
    hits = [_hit("a", 1, 2.0), _hit("b", 2, 1.0), _hit("c", 4, 0.5), _hit("x", 4, 0.9, doc_id="other")]
    refers = {"a": frozenset({4}), "b": frozenset({4})}
    ranked = follow_references(hits, lambda region_id: refers.get(region_id, frozenset()), weight=0.5, hops=2)
    by_id = {h.region_id: h for h in ranked}
    assert by_id["c"].score == pytest.approx(1.5)  # 0.5 + max(0.5 x 2.0, 0.5 x 1.0)
    assert by_id["x"].score == pytest.approx(0.9) and "reference" not in by_id["x"].signals


def test_without_references_the_ranking_is_unchanged() -> None:
    hits = [_hit("a", 1, 2.0), _hit("b", 2, 1.0)]
    assert follow_references(hits, lambda region_id: frozenset(), weight=0.5, hops=2) == hits

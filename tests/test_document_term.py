"""The hybrid's document term: a share of the best evidence, added only across documents."""

from __future__ import annotations

import pytest

from docgraph.app.retrieval.base import ScoredRegion
from docgraph.app.retrieval.hybrid import document_terms


def hit(doc: str, score: float) -> ScoredRegion:
    return ScoredRegion(f"{doc}@v:{score}", doc, 1, (), "paragraph", "", score)


def test_a_document_with_more_good_passages_gains_more() -> None:
    # "intro" explains the topic over three passages; "reference" mentions it once, best of all.
    hits = [hit("reference", 1.0), hit("intro", 0.9), hit("intro", 0.8), hit("intro", 0.7), hit("reference", 0.1)]
    terms = document_terms(hits, 0.5, regions=3)
    intro, reference = 0.9 + 0.8 + 0.7, 1.0 + 0.1
    assert terms[1] == terms[2] == terms[3] == pytest.approx(0.5)
    assert terms[0] == terms[4] == pytest.approx(0.5 * reference / intro)


def test_hits_of_one_document_gain_nothing() -> None:
    assert document_terms([hit("a", 1.0), hit("a", 0.5)], 0.5, regions=3) == [0.0, 0.0]

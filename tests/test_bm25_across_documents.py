"""BM25 across several documents' indexes: one scale, as one index over all their texts would give."""

from __future__ import annotations

import numpy as np
import pytest

from docgraph.app.retrieval.bm25 import BM25Index, scores_across, shared_statistics

# A long manual where "mixer" is rare, and a short guide about the mixer on every page.
MANUAL = ["the mixer object"] + [f"function number {i} returns a value" for i in range(40)]
GUIDE = ["set up the mixer channels", "the mixer volume and the mixer gain", "save the mixer state"]


def test_shared_statistics_are_those_of_one_index_over_all_texts() -> None:
    manual, guide, whole = BM25Index(MANUAL), BM25Index(GUIDE), BM25Index(MANUAL + GUIDE)
    shared = shared_statistics([manual, guide], "mixer volume")
    assert shared.average_length == pytest.approx(float(whole.lengths.mean()))
    for term in ("mixer", "volume"):
        assert shared.idf[term] == pytest.approx(float(whole.idf[whole.vocabulary[term]]), rel=1e-12)


def test_across_documents_a_word_rare_in_a_long_manual_is_not_rare_in_the_store() -> None:
    manual, guide = BM25Index(MANUAL), BM25Index(GUIDE)
    own = {"manual": manual.scores("mixer"), "guide": guide.scores("mixer")}
    across = scores_across({"manual": manual, "guide": guide}, "mixer")
    # Each index on its own: the manual's one mention outscores every page of the guide about it.
    assert own["manual"].max() > own["guide"].max()
    # On one scale the guide's pages lead, and within each document the order is unchanged.
    assert across["guide"].max() > across["manual"].max()
    for name in own:
        assert list(np.argsort(-own[name], kind="stable")) == list(np.argsort(-across[name], kind="stable"))


def test_scores_across_documents_are_those_of_one_index_over_all_texts() -> None:
    manual, guide, whole = BM25Index(MANUAL), BM25Index(GUIDE), BM25Index(MANUAL + GUIDE)
    across = scores_across({"manual": manual, "guide": guide}, "mixer volume gain")
    joined = np.concatenate([across["manual"], across["guide"]])
    assert np.allclose(joined, whole.scores("mixer volume gain"), rtol=1e-6)


def test_one_index_keeps_its_own_scores() -> None:
    manual = BM25Index(MANUAL)
    assert np.array_equal(scores_across({"manual": manual}, "mixer object")["manual"], manual.scores("mixer object"))

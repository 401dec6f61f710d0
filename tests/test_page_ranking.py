"""Page ranking from region hits: a page's best hit, plus a bonus for its other hits."""

from __future__ import annotations

from docgraph.app.retrieval.base import ScoredRegion
from docgraph.app.retrieval.pages import rank_pages

DOC = "manual"


def _hit(row: int, page: int, score: float) -> ScoredRegion:
    return ScoredRegion(f"{DOC}@v:r{row}", DOC, page, (), "paragraph", "", score)


def test_a_page_is_ranked_by_its_best_hit_plus_a_bonus_for_the_rest() -> None:
    hits = [_hit(1, 1, 1.0), _hit(5, 3, 0.9), _hit(6, 4, 0.8), _hit(4, 3, 0.5)]
    assert [p.page for p in rank_pages(hits, 3, bonus=0.0)] == [1, 3, 4]
    ranked = rank_pages(hits, 3, bonus=0.5)  # 0.9 + 0.5 x 0.5 beats 1.0
    assert [p.page for p in ranked] == [3, 1, 4]
    assert ranked[0].regions == (f"{DOC}@v:r5", f"{DOC}@v:r4")  # best first
    assert [p.page for p in rank_pages(hits, 2, bonus=0.0)] == [1, 3]

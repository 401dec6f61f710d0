"""Page ranking from region hits, and pages carried over a page break by a page-closing hit."""

from __future__ import annotations

from app.retrieval.base import ScoredRegion
from app.retrieval.corpus import DocumentIndex, RegionInfo
from app.retrieval.pages import carried_pages, rank_pages

DOC = "manual"


def _document() -> DocumentIndex:
    """Page 1: header, two paragraphs, footer; page 2 blank; page 3: figure, remark; page 4: text."""
    layout = [(1, "section_header"), (1, "paragraph"), (1, "paragraph"), (1, "page_footer")]
    layout += [(3, "figure"), (3, "paragraph"), (4, "paragraph")]
    regions = [
        RegionInfo(f"{DOC}@v:r{n}", DOC, page, n, kind, (0.0, 0.0, 1.0, 1.0), f"text {n}", None)
        for n, (page, kind) in enumerate(layout)
    ]
    return DocumentIndex(DOC, "sha", regions, [1, 2, 3, 4], ["a", "", "b", "c"], {})


def _hit(row: int, page: int, score: float) -> ScoredRegion:
    return ScoredRegion(f"{DOC}@v:r{row}", DOC, page, (), "paragraph", "", score)


def test_a_page_is_ranked_by_its_best_hit_plus_a_bonus_for_the_rest() -> None:
    hits = [_hit(1, 1, 1.0), _hit(5, 3, 0.9), _hit(6, 4, 0.8), _hit(4, 3, 0.5)]
    assert [p.page for p in rank_pages(hits, 3, bonus=0.0)] == [1, 3, 4]
    assert [p.page for p in rank_pages(hits, 3, bonus=0.5)] == [3, 1, 4]  # 0.9 + 0.5 x 0.5 beats 1.0


def test_a_hit_that_closes_its_page_carries_the_next_page_with_body_text() -> None:
    documents = {DOC: _document()}
    closing = _hit(2, 1, 1.0)  # the last body region of page 1 (the footer does not count)
    assert carried_pages([closing], documents, carry=0.7, tail=1, top=10) == {(DOC, 3): 0.7}  # page 2 is blank
    opening = _hit(0, 1, 1.0)  # the header opens page 1: nothing to carry
    assert carried_pages([opening], documents, carry=0.7, tail=1, top=10) == {}
    assert carried_pages([opening], documents, carry=0.7, tail=3, top=10) == {(DOC, 3): 0.7}
    assert carried_pages([closing], documents, carry=0.0, tail=1, top=10) == {}
    assert carried_pages([_hit(6, 4, 1.0)], documents, carry=0.7, tail=1, top=10) == {}  # the last page
    assert carried_pages([_hit(6, 4, 1.0), closing], documents, carry=0.7, tail=1, top=1) == {}  # only the top hit


def test_a_carried_page_ranks_by_its_own_hits_or_the_carry_whichever_is_higher() -> None:
    hits = [_hit(2, 1, 1.0), _hit(6, 4, 0.6), _hit(5, 3, 0.2)]
    carried = {(DOC, 3): 0.7}
    ranked = rank_pages(hits, 5, bonus=0.0, carried=carried)
    assert [(p.page, round(p.score, 2)) for p in ranked] == [(1, 1.0), (3, 0.7), (4, 0.6)]
    assert ranked[1].regions == (f"{DOC}@v:r5",)
    only_carried = rank_pages(hits[:1], 5, bonus=0.0, carried=carried)
    assert [(p.page, p.regions) for p in only_carried] == [(1, (f"{DOC}@v:r2",)), (3, ())]

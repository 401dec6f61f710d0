"""Page ranking from region hits: a page is as good as its best region, plus a little for the rest.

The bonus lets a page with several good regions beat a page with one equally good region, without
letting a page full of weak matches beat one strong match.

A page can also be *carried*: when one of the best regions closes its page, the reading order goes
on at the top of the next page, and what is asked about often lies there (the figure and the
remark after a passage, a list whose lead-in matched). Such a next page is ranked as if it held a
region scoring ``carry`` times the closing region's score (see :func:`carried_pages`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from app.retrieval.base import PageHit, ScoredRegion
from app.retrieval.corpus import DocumentIndex

# Weight of the page's other regions' scores. 0 (pure max) measured best for the hybrid, whose
# region scores already include the whole page's BM25; region-only variants use a little.
SUM_BONUS = 0.1
MAX_BONUS_REGIONS = 4  # only the best few others count

PageKey = tuple[str, int]  # (doc_id, page)


def rank_pages(
    hits: Sequence[ScoredRegion], k: int, bonus: float = SUM_BONUS, carried: Mapping[PageKey, float] | None = None
) -> list[PageHit]:
    """The ``k`` best (doc_id, page) pairs by max region score + ``bonus`` x the next best scores,
    or by a ``carried`` score where that is higher."""
    grouped: dict[PageKey, list[ScoredRegion]] = {}
    for hit in hits:
        grouped.setdefault((hit.doc_id, hit.page), []).append(hit)
    scores: dict[PageKey, float] = {}
    for key, group in grouped.items():
        group.sort(key=lambda h: -h.score)
        rest = sum(h.score for h in group[1 : 1 + MAX_BONUS_REGIONS])
        scores[key] = group[0].score + bonus * rest
    for key, score in (carried or {}).items():
        scores[key] = max(score, scores.get(key, 0.0))
    # Ties: the page whose best hit came first in the hit list wins (dicts keep first sight).
    ranked = sorted(scores.items(), key=lambda item: -item[1])[:k]
    return [
        PageHit(doc, page, score, tuple(h.region_id for h in grouped.get((doc, page), [])))
        for (doc, page), score in ranked
    ]


def carried_pages(
    hits: Sequence[ScoredRegion], documents: Mapping[str, DocumentIndex], carry: float, tail: int, top: int
) -> dict[PageKey, float]:
    """Next pages carried by the ``top`` hits that are among the last ``tail`` body regions of
    their page: (doc_id, next page) -> ``carry`` x the best such hit's score."""
    carried: dict[PageKey, float] = {}
    if carry <= 0 or tail <= 0:
        return carried
    for hit in hits[:top]:
        document = documents.get(hit.doc_id)
        if document is None or not _closes_page(document, hit, tail):
            continue
        following = _next_page(document, hit.page)
        if following is not None:
            key = (hit.doc_id, following)
            carried[key] = max(carried.get(key, 0.0), carry * hit.score)
    return carried


def _closes_page(document: DocumentIndex, hit: ScoredRegion, tail: int) -> bool:
    rows = document.page_rows.get(hit.page, [])
    row = document.region_row.get(hit.region_id)
    return row is not None and row in rows[-tail:]


def _next_page(document: DocumentIndex, page: int) -> int | None:
    """The next page that has body regions (blank pages carry nothing)."""
    later = [number for number in document.page_rows if number > page]
    return min(later) if later else None

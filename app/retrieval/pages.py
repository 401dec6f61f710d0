"""Page ranking from region hits: a page is as good as its best region, plus a little for the rest.

The bonus lets a page with several good regions beat a page with one equally good region, without
letting a page full of weak matches beat one strong match.
"""

from __future__ import annotations

from collections.abc import Sequence

from docgraph.app.retrieval.base import PageHit, ScoredRegion

# Weight of the page's other regions' scores. 0 (pure max) measured best for the hybrid, whose
# region scores already include the whole page's BM25; region-only variants use a little.
SUM_BONUS = 0.1
MAX_BONUS_REGIONS = 4  # only the best few others count


def rank_pages(hits: Sequence[ScoredRegion], k: int, bonus: float = SUM_BONUS) -> list[PageHit]:
    """The ``k`` best (doc_id, page) pairs by max region score + ``bonus`` x the next best scores."""
    grouped: dict[tuple[str, int], list[ScoredRegion]] = {}
    for hit in hits:
        grouped.setdefault((hit.doc_id, hit.page), []).append(hit)
    ranked: list[PageHit] = []
    for (doc_id, page), group in grouped.items():
        group.sort(key=lambda h: -h.score)
        rest = sum(h.score for h in group[1 : 1 + MAX_BONUS_REGIONS])
        score = group[0].score + bonus * rest
        regions = tuple(h.region_id for h in group)
        ranked.append(PageHit(doc_id, page, score, regions, tuple(group[0].signals.items())))
    # Ties: the page whose best hit came first in the hit list wins (stable sort on first sight).
    ranked.sort(key=lambda p: -p.score)
    return ranked[:k]

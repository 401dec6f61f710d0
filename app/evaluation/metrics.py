"""Page-level Recall@K: a question is a hit at K when any gold page is among the first K ranked pages.

Averaged over questions (each question counts once, however many gold pages it has), overall and
per question type.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from docgraph.app.retrieval.base import PageHit

CUTOFFS: tuple[int, ...] = (1, 3, 5)


def hit_at(ranked_pages: Sequence[int], gold: Iterable[int], k: int) -> bool:
    """Whether a gold page is among the first ``k`` distinct ranked pages."""
    wanted = set(gold)
    distinct: list[int] = []
    for page in ranked_pages:
        if page not in distinct:
            distinct.append(page)
        if len(distinct) == k:
            break
    return any(page in wanted for page in distinct)


@dataclass(frozen=True, slots=True)
class QuestionOutcome:
    question_id: str
    type: str
    gold: frozenset[int]
    ranked: tuple[int, ...]  # pages, best first
    scored: tuple[PageHit, ...] = ()  # the same pages with their scores and best hits' signal terms

    def hit(self, k: int) -> bool:
        return hit_at(self.ranked, self.gold, k)

    def first_hit_rank(self) -> int | None:
        """1-based rank of the first gold page, None when none was ranked."""
        for rank, page in enumerate(self.distinct_pages(), start=1):
            if page in self.gold:
                return rank
        return None

    def distinct_pages(self, limit: int | None = None) -> list[int]:
        """The ranked pages without repeats, best first (the first ``limit``)."""
        return list(dict.fromkeys(self.ranked))[:limit]

    def first_and_gold(self) -> tuple[PageHit, PageHit] | None:
        """The page ranked first and the best-ranked gold page, when both are among ``scored``."""
        gold = next((hit for hit in self.scored if hit.page in self.gold), None)
        return (self.scored[0], gold) if gold is not None else None

    def to_json(self) -> dict[str, Any]:
        """``{"id", "type", "gold", "ranked", "gold_rank"}``: the pages ranked first (as many as the
        largest cutoff) and the rank of the first gold page (null when none was ranked); with
        ``scored``, also ``first`` and ``gold_hit`` (``{"page", "score", "signals"}``: the page ranked
        first and the best-ranked gold page, each with its best hit's weighted signal terms)."""
        data: dict[str, Any] = {
            "id": self.question_id,
            "type": self.type,
            "gold": sorted(self.gold),
            "ranked": self.distinct_pages(max(CUTOFFS)),
            "gold_rank": self.first_hit_rank(),
        }
        if self.scored:
            data["first"] = _page_json(self.scored[0])
            pair = self.first_and_gold()
            if pair is not None:
                data["gold_hit"] = _page_json(pair[1])
        return data


def _page_json(hit: PageHit) -> dict[str, Any]:
    return {"page": hit.page, "score": round(hit.score, 6), "signals": {n: round(v, 6) for n, v in hit.signals}}


@dataclass(slots=True)
class RecallSummary:
    n: int
    recall: dict[int, float] = field(default_factory=dict)  # K -> recall in [0, 1]

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"n": self.n}
        out.update({f"recall@{k}": round(v, 4) for k, v in sorted(self.recall.items())})
        return out


def recall(outcomes: Sequence[QuestionOutcome], cutoffs: Sequence[int] = CUTOFFS) -> RecallSummary:
    n = len(outcomes)
    values = {k: (sum(o.hit(k) for o in outcomes) / n if n else 0.0) for k in cutoffs}
    return RecallSummary(n=n, recall=values)


def by_type(outcomes: Sequence[QuestionOutcome]) -> dict[str, list[QuestionOutcome]]:
    """The outcomes grouped by question type, types in name order."""
    groups: dict[str, list[QuestionOutcome]] = {}
    for outcome in outcomes:
        groups.setdefault(outcome.type, []).append(outcome)
    return dict(sorted(groups.items()))


def recall_by_type(outcomes: Sequence[QuestionOutcome], cutoffs: Sequence[int] = CUTOFFS) -> dict[str, RecallSummary]:
    return {kind: recall(group, cutoffs) for kind, group in by_type(outcomes).items()}

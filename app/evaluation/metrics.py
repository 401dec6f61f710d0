"""Page-level Recall@K: a question is a hit at K when any gold page is among the first K ranked pages.

Averaged over questions (each question counts once, however many gold pages it has), overall and
per question type.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from docgraph.app.retrieval.base import PageHit

CUTOFFS: tuple[int, ...] = (1, 3, 5)
SCOPES = ("document", "corpus")  # each question asked inside its own document, or of the whole store


PageKey = tuple[str, int]  # (doc_id, 1-based page): a page of the store


def hit_at(ranked_pages: Sequence[Hashable], gold: Iterable[Hashable], k: int) -> bool:
    """Whether a gold page is among the first ``k`` distinct ranked pages."""
    wanted = set(gold)
    distinct: list[Hashable] = []
    for page in ranked_pages:
        if page not in distinct:
            distinct.append(page)
        if len(distinct) == k:
            break
    return any(page in wanted for page in distinct)


@dataclass(frozen=True, slots=True)
class QuestionOutcome:
    """One question's ranked pages. A hit needs the right document and page: asked inside its own
    document (scope ``document``) every ranked page is in it; asked of the whole store (``corpus``)
    a page of another document is a miss."""

    question_id: str
    type: str
    doc_id: str  # the document the question is about
    gold: frozenset[int]  # its pages that hold the answer
    ranked: tuple[PageKey, ...]  # pages, best first
    scored: tuple[PageHit, ...] = ()  # the same pages with their scores and best hits' signal terms

    @property
    def gold_keys(self) -> frozenset[PageKey]:
        return frozenset((self.doc_id, page) for page in self.gold)

    def hit(self, k: int) -> bool:
        return hit_at(self.ranked, self.gold_keys, k)

    def first_hit_rank(self) -> int | None:
        """1-based rank of the first gold page, None when none was ranked."""
        gold = self.gold_keys
        for rank, key in enumerate(self.distinct_pages(), start=1):
            if key in gold:
                return rank
        return None

    def distinct_pages(self, limit: int | None = None) -> list[PageKey]:
        """The ranked pages without repeats, best first (the first ``limit``)."""
        return list(dict.fromkeys(self.ranked))[:limit]

    def right_document(self, k: int = 1) -> bool:
        """Whether one of the first ``k`` distinct pages is in the question's document."""
        return any(doc == self.doc_id for doc, _ in self.distinct_pages(k))

    def first_and_gold(self) -> tuple[PageHit, PageHit] | None:
        """The page ranked first and the best-ranked gold page, when both are among ``scored``."""
        gold = next((hit for hit in self.scored if (hit.doc_id, hit.page) in self.gold_keys), None)
        return (self.scored[0], gold) if gold is not None else None

    def page_label(self, key: PageKey) -> int | str:
        """A page of the question's document as its number; another document's as ``"<doc_id> p.N"``."""
        doc, page = key
        return page if doc == self.doc_id else f"{doc} p.{page}"

    def to_json(self) -> dict[str, Any]:
        """``{"id", "type", "doc", "gold", "ranked", "gold_rank"}``: the pages ranked first (as many as
        the largest cutoff; a page of another document as ``"<doc_id> p.N"``) and the rank of the first
        gold page (null when none was ranked); with ``scored``, also ``first`` and ``gold_hit``
        (``{"page", "score", "signals"}``: the page ranked first and the best-ranked gold page, each
        with its best hit's weighted signal terms)."""
        data: dict[str, Any] = {
            "id": self.question_id,
            "type": self.type,
            "doc": self.doc_id,
            "gold": sorted(self.gold),
            "ranked": [self.page_label(key) for key in self.distinct_pages(max(CUTOFFS))],
            "gold_rank": self.first_hit_rank(),
        }
        if self.scored:
            data["first"] = self._page_json(self.scored[0])
            pair = self.first_and_gold()
            if pair is not None:
                data["gold_hit"] = self._page_json(pair[1])
        return data

    def _page_json(self, hit: PageHit) -> dict[str, Any]:
        signals = {n: round(v, 6) for n, v in hit.signals}
        return {"page": self.page_label((hit.doc_id, hit.page)), "score": round(hit.score, 6), "signals": signals}


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

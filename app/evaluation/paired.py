"""Paired comparison of two retriever variants on the same questions.

Recall on a few dozen questions moves in steps of one question (1.7 points on 60, 8.3 on a type of
12), so "variant A beats B by 3.3 points" says little until it is known how many questions each
found that the other missed. A comparison lists those questions (``wins``: found within K by the
variant only, ``losses``: by the baseline only) and the two-sided exact McNemar p-value: the chance
of a split at least that lopsided if neither variant were better (a sign test over the questions
where they disagree). It is exact, so the same outcomes give the same p-value on every run.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from docgraph.app.evaluation.metrics import QuestionOutcome, by_type


def mcnemar_exact(wins: int, losses: int) -> float:
    """Two-sided exact McNemar p-value for ``wins`` against ``losses`` discordant questions."""
    discordant = wins + losses
    if discordant == 0:
        return 1.0
    tail = sum(math.comb(discordant, i) for i in range(min(wins, losses) + 1))
    return min(1.0, 2 * tail / (1 << discordant))  # exact integers: no overflow however many


@dataclass(frozen=True, slots=True)
class PairedComparison:
    k: int
    n: int
    wins: tuple[str, ...]  # question ids the variant finds within k and the baseline does not
    losses: tuple[str, ...]  # the other way round

    @property
    def delta(self) -> float:
        """Recall@k of the variant minus the baseline's, in [-1, 1]."""
        return (len(self.wins) - len(self.losses)) / self.n if self.n else 0.0

    @property
    def p_value(self) -> float:
        return mcnemar_exact(len(self.wins), len(self.losses))

    def to_json(self) -> dict[str, Any]:
        return {
            "delta": round(self.delta, 4),
            "wins": list(self.wins),
            "losses": list(self.losses),
            "p_value": round(self.p_value, 4),
        }


def compare(variant: Sequence[QuestionOutcome], baseline: Sequence[QuestionOutcome], k: int) -> PairedComparison:
    """Compare two variants' outcomes on the same questions at cutoff ``k``."""
    by_id = {outcome.question_id: outcome for outcome in baseline}
    if set(by_id) != {outcome.question_id for outcome in variant}:
        raise ValueError("a paired comparison needs both variants' outcomes on the same questions")
    wins = tuple(o.question_id for o in variant if o.hit(k) and not by_id[o.question_id].hit(k))
    losses = tuple(o.question_id for o in variant if by_id[o.question_id].hit(k) and not o.hit(k))
    return PairedComparison(k=k, n=len(variant), wins=wins, losses=losses)


def compare_by_type(
    variant: Sequence[QuestionOutcome], baseline: Sequence[QuestionOutcome], k: int
) -> dict[str, PairedComparison]:
    """:func:`compare` within each question type, types in name order."""
    theirs = by_type(baseline)
    return {kind: compare(mine, theirs.get(kind, []), k) for kind, mine in by_type(variant).items()}

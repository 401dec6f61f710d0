"""Reciprocal-rank fusion: each ranked list gives an item ``weight / (k + rank)``.

Ranks, not raw scores, are fused because cosine similarities and BM25 scores live on unrelated
scales; RRF needs no calibration and is robust to one signal being confidently wrong.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

RRF_K = 60.0

Key = TypeVar("Key", bound=Hashable)


@dataclass(slots=True)
class Fused(Generic[Key]):
    key: Key
    score: float = 0.0
    contributions: dict[str, float] = field(default_factory=dict)


def rrf_term(rank: int, weight: float = 1.0, k: float = RRF_K) -> float:
    """The contribution of a 1-based ``rank``."""
    return weight / (k + rank)


def reciprocal_rank_fusion(
    rankings: Mapping[str, Sequence[Key]],
    weights: Mapping[str, float] | None = None,
    k: float = RRF_K,
) -> list[Fused[Key]]:
    """Fuse named rankings (best first) into one list, best first; ties keep first-seen order."""
    fused: dict[Key, Fused[Key]] = {}
    for name, ranking in rankings.items():
        weight = 1.0 if weights is None else weights.get(name, 1.0)
        if weight == 0.0:
            continue
        for rank, key in enumerate(ranking, start=1):
            entry = fused.setdefault(key, Fused(key))
            term = rrf_term(rank, weight, k)
            entry.score += term
            entry.contributions[name] = entry.contributions.get(name, 0.0) + term
    return sorted(fused.values(), key=lambda f: -f.score)

"""What every retriever returns, and the protocol they share.

A retriever ranks Region nodes for a query, over the whole corpus or inside one document. Each hit
says which signals put it there (``signals``: signal name -> that signal's score) and carries its
graph neighbourhood as ``context`` (caption/figure partner, what it refers to, its continuation
across a page break), which an answerer reads with the hit but which is not a hit of its own.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from docgraph.errors import QuestionError


@dataclass(frozen=True, slots=True)
class ContextRegion:
    """A neighbour of a hit. ``relation`` says how it is tied to the hit:

    ``caption`` (the hit's caption), ``captioned`` (the figure/table the hit captions), ``refers_to``
    (what the hit points at), ``referred_by``, ``continues`` (the hit's continuation on the next
    page), ``continued_from`` (the part before a page break); where the text does not run on over
    the break, ``next_page`` (the region starting the next page) or ``previous_page``.
    """

    region_id: str
    page: int
    kind: str
    text: str
    relation: str
    bbox: tuple[float, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "region_id": self.region_id,
            "page": self.page,
            "kind": self.kind,
            "text": self.text,
            "relation": self.relation,
            "bbox": list(self.bbox),
        }


@dataclass(slots=True)
class ScoredRegion:
    region_id: str
    doc_id: str
    page: int  # 1-based physical page
    bbox: tuple[float, ...]
    kind: str
    text: str
    score: float
    signals: dict[str, float] = field(default_factory=dict)
    context: list[ContextRegion] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "region_id": self.region_id,
            "doc_id": self.doc_id,
            "page": self.page,
            "bbox": list(self.bbox),
            "kind": self.kind,
            "text": self.text,
            "score": round(self.score, 6),
            "signals": {name: round(value, 6) for name, value in self.signals.items()},
            "context": [c.to_json() for c in self.context],
        }


@dataclass(frozen=True, slots=True)
class PageHit:
    """A page ranked for a query; ``regions`` are the ids of its hits, best first, and ``signals``
    its best hit's (signal, weighted term) pairs (none from a retriever that ranks whole pages)."""

    doc_id: str
    page: int
    score: float
    regions: tuple[str, ...] = ()
    signals: tuple[tuple[str, float], ...] = ()


@runtime_checkable
class Retriever(Protocol):
    name: str

    def retrieve(self, query: str, k: int = 10, doc_id: str | None = None) -> list[ScoredRegion]:
        """The ``k`` best regions, best first; only ``doc_id``'s regions when it is given."""
        ...

    def rank_pages(self, query: str, k: int = 5, doc_id: str | None = None) -> list[PageHit]:
        """The ``k`` best pages, best first."""
        ...


def check_query(query: str, k: int) -> None:
    """What every retriever checks first: a question with something in it, and ``k`` at least 1."""
    check_question(query)
    check_k(k)


def check_question(question: str) -> None:
    """Refuse a question with nothing in it (``QuestionError``): every region would match it equally."""
    if not question.strip():
        raise QuestionError("the question is empty")


def check_k(k: int) -> None:
    """Refuse to read fewer than one region (``QuestionError``): ``hits[:k]`` with a negative ``k``
    would give nearly every candidate instead."""
    if k < 1:
        raise QuestionError(f"k is the number of regions to read: at least 1, not {k}")

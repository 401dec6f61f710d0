"""Answers for display: citation tags turned into numbered markers, and what each citation shows."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from docgraph.app.llm.answer import AnswerResult
from docgraph.app.llm.citations import Citation


@dataclass(frozen=True, slots=True)
class NumberedCitation:
    number: int
    citation: Citation

    @property
    def button_label(self) -> str:
        ocr = " (OCR)" if self.citation.ocr else ""
        return f"[{self.number}] {self.citation.doc_id} p.{self.citation.page} · {self.citation.kind}{ocr}"


def numbered_citations(citations: Sequence[Citation]) -> list[NumberedCitation]:
    return [NumberedCitation(number, citation) for number, citation in enumerate(citations, start=1)]


def numbered_answer(result: AnswerResult) -> str:
    """The answer with each ``[tag]`` replaced by its citation number, e.g. ``[2]``."""
    text = result.answer
    for numbered in numbered_citations(result.citations):
        text = text.replace(f"[{numbered.citation.tag}]", f" **[{numbered.number}]**")
    return text.replace("  **[", " **[").strip()


def page_highlights(citations: Sequence[Citation], doc_id: str, page: int) -> set[str]:
    """The cited regions on one page: they are filled in on its image."""
    return {c.region_id for c in citations if c.doc_id == doc_id and c.page == page}


def route_summary(result: AnswerResult) -> str:
    """How the answer was made, in one line: route, answer mode, re-reads, time."""
    parts = [f"route: {result.route}", f"answer: {result.mode}"]
    if result.rereads:
        parts.append(f"re-reads: {result.rereads}")
    total = result.timings.get("total")
    if total is not None:
        parts.append(f"{total:.1f}s")
    return " · ".join(parts)

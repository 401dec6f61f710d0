"""Cited answers: the prompt, one generation, the citation check, and the result object.

The model sees the tagged context (see :mod:`app.llm.context`) and must cite tags; the reply is
streamed to a callback as it arrives and then checked: tags that do not name a context region are
removed from the answer and counted (:mod:`app.llm.citations`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from docgraph.app.llm.citations import CheckedAnswer, Citation, check_citations
from docgraph.app.llm.client import Completion, LLMClient, Message, StreamCallback, TokenUsage
from docgraph.app.llm.context import Context, Passage
from docgraph.app.llm.prompting import fill, template
from docgraph.app.stores.base import Row

MAX_PROMPT_ROWS = 50
MAX_ROWS_CHARS = 6000


@dataclass
class AnswerResult:
    question: str
    answer: str = ""
    mode: str = "extractive"  # llm | extractive
    route: str = "retrieve"  # cypher | retrieve | decompose
    citations: list[Citation] = field(default_factory=list)
    evidence: list[Passage] = field(default_factory=list)  # the smallest set the answer rests on
    removed_citations: list[str] = field(default_factory=list)  # invented tags taken out of the answer
    cypher: str | None = None
    rows: list[Row] | None = None
    tokens: TokenUsage = field(default_factory=TokenUsage)
    timings: dict[str, float] = field(default_factory=dict)
    trace: list[dict[str, Any]] = field(default_factory=list)  # routing, retrieval, rereads, fallbacks
    entropy: float | None = None  # mean token entropy of the final answer, when the endpoint gave logprobs
    rereads: int = 0
    abstained: bool = False  # the evidence was below the bar: the answer says so and lists the nearest passages
    context: Context | None = None  # what the answer was made from (the last round's), for evaluation
    relevance: dict[str, float] | None = None  # the evidence measures (app.retrieval.relevance.Evidence)
    llm_fallback: str = ""  # why the configured LLM gave no answer (it timed out): the answer quotes the documents

    def note(self, step: str, **details: Any) -> None:
        self.trace.append({"step": step, **details})

    def to_json(self) -> dict[str, Any]:
        return {
            "question": self.question,
            "answer": self.answer,
            "mode": self.mode,
            "llm_fallback": self.llm_fallback or None,
            "route": self.route,
            "citations": [c.to_json() for c in self.citations],
            "removed_citations": len(self.removed_citations),
            "invented_tags": list(self.removed_citations),
            "evidence": [p.to_json() for p in self.evidence],
            "cypher": self.cypher,
            "rows": self.rows,
            "tokens": self.tokens.to_json(),
            "timings": {name: round(seconds, 3) for name, seconds in self.timings.items()},
            "entropy": None if self.entropy is None else round(self.entropy, 4),
            "rereads": self.rereads,
            "abstained": self.abstained,
            "relevance": self.relevance,
            "trace": self.trace,
        }


@dataclass(frozen=True, slots=True)
class Extras:
    """What a prompt carries beside the evidence: sub-questions, or a database query and its rows."""

    sub_questions: Sequence[str] = ()
    cypher: str | None = None
    rows: Sequence[Row] = ()
    rows_truncated: bool = False


def answer_messages(question: str, context: Context, extras: Extras = Extras()) -> list[Message]:
    evidence = context.render() or "(no evidence was found)"
    user = fill("answer_user", context=evidence, extra=_extra_text(extras), question=question.strip())
    return [{"role": "system", "content": template("answer_system")}, {"role": "user", "content": user}]


def generate_answer(
    question: str,
    context: Context,
    client: LLMClient,
    *,
    extras: Extras = Extras(),
    stream: StreamCallback | None = None,
    logprobs: bool = False,
) -> tuple[Completion, CheckedAnswer]:
    """One answer from the model, its citations checked against ``context``."""
    completion = client.chat(answer_messages(question, context, extras), stream=stream, logprobs=logprobs)
    return completion, check_citations(completion.text, context)


def _extra_text(extras: Extras) -> str:
    parts: list[str] = []
    if extras.sub_questions:
        listed = "\n".join(f"{i}. {q}" for i, q in enumerate(extras.sub_questions, start=1))
        parts.append(fill("answer_subquestions", sub_questions=listed))
    if extras.cypher is not None:
        shown = list(extras.rows)[:MAX_PROMPT_ROWS]
        more = extras.rows_truncated or len(extras.rows) > len(shown)
        parts.append(
            fill(
                "answer_rows",
                cypher=extras.cypher,
                row_count=str(len(extras.rows)),
                truncated=" (cut off at the row limit)" if more else "",
                rows=_rows_text(shown),
            )
        )
    return "".join(f"\n{part}\n" for part in parts)


def _rows_text(rows: Sequence[Row]) -> str:
    if not rows:
        return "(no rows)"
    text = "\n".join(json.dumps(row, default=str, ensure_ascii=False) for row in rows)
    return text if len(text) <= MAX_ROWS_CHARS else text[:MAX_ROWS_CHARS] + "\n…"

"""``docgraph calibrate-uncertainty``: set the configured model's entropy threshold from its own answers.

Each question is asked once (no re-reads); the threshold is the entropy that ``share`` of the first
answers exceed, so the uncertainty loop re-reads the model's least certain answers whatever the
scale of its entropies (see app.llm.calibration).
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from docgraph.app.config import Settings
from docgraph.app.evaluation.questions import json_records
from docgraph.app.jobs.documents import find_document
from docgraph.app.llm.answer import AnswerResult
from docgraph.app.llm.calibration import save_threshold
from docgraph.app.llm.service import ask
from docgraph.app.retrieval.base import Retriever
from docgraph.app.stores.base import GraphStore
from docgraph.errors import ConfigError, LLMRequestError, QuestionsError

DEFAULT_SHARE = 0.25  # re-read the model's least certain quarter of answers
MIN_ANSWERS = 5  # fewer first-round entropies than this make no threshold

Progress = Callable[[str, int, int], None]


@dataclass(frozen=True, slots=True)
class CalibrationQuestion:
    question: str
    doc: str | None = None  # asked of this document only (file name or id), as a reader of one manual asks


@dataclass
class Calibration:
    model: str
    threshold: float
    share: float
    entropies: list[float]
    asked: int
    path: Path

    def to_json(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "threshold": round(self.threshold, 4),
            "share": self.share,
            "asked": self.asked,
            "answers_with_entropy": len(self.entropies),
            "median_entropy": round(statistics.median(self.entropies), 4),
            "path": str(self.path),
        }


def load_calibration_questions(path: Path) -> list[CalibrationQuestion]:
    """JSON lines with a ``question`` and optionally a ``doc`` (the eval question files qualify)."""
    questions: list[CalibrationQuestion] = []
    for where, record in json_records(path):
        if "question" not in record:
            raise QuestionsError(f"{where}: not a JSON object with a question")
        doc = str(record["doc"]) if record.get("doc") else None
        questions.append(CalibrationQuestion(str(record["question"]), doc))
    return questions


def calibrate_uncertainty(
    questions: Sequence[CalibrationQuestion],
    store: GraphStore,
    settings: Settings,
    retriever: Retriever,
    share: float = DEFAULT_SHARE,
    progress: Progress | None = None,
) -> Calibration:
    """Ask each question once (first round only), set and save the model's threshold."""
    if not 0 < share < 1:
        raise ConfigError(f"--share must lie between 0 and 1, not {share:g}")
    if len(questions) < MIN_ANSWERS:  # said before the model is asked anything
        raise ConfigError(f"{len(questions)} questions make no threshold: give at least {MIN_ANSWERS}")
    first_round = settings.model_copy(update={"llm_max_rereads": 0})
    doc_ids = {item.doc: str(find_document(store, item.doc)["doc_id"]) for item in questions if item.doc}
    entropies: list[float] = []
    unanswered: dict[str, int] = {}  # why the model gave no answer to measure: abstained, timed out, …
    for done, item in enumerate(questions, start=1):
        result = ask(item.question, store, first_round, retriever, doc_id=doc_ids.get(item.doc or ""))
        if result.entropy is not None:
            entropies.append(result.entropy)
        else:
            why = _why_unmeasured(result)
            unanswered[why] = unanswered.get(why, 0) + 1
        if progress is not None:
            progress("calibrate", done, len(questions))
    if len(entropies) < MIN_ANSWERS:
        reasons = "; ".join(f"{count} {why}" for why, count in unanswered.items())
        raise LLMRequestError(
            f"only {len(entropies)} of {len(questions)} answers of {settings.llm_model} could be measured "
            f"(at least {MIN_ANSWERS} are needed): {reasons}"
        )
    threshold = upper_quantile(entropies, share)
    record = {"threshold": round(threshold, 4), "share": share, "answers": len(entropies), "asked": len(questions)}
    path = save_threshold(settings.home, settings.llm_model, record)
    return Calibration(settings.llm_model, threshold, share, entropies, len(questions), path)


def _why_unmeasured(result: AnswerResult) -> str:
    """Why an answer gave no entropy, as the calibration's error counts it."""
    if result.abstained:
        return "abstained (the documents did not seem to answer, the model was not asked)"
    if result.llm_fallback:
        return f"got no answer from the model ({result.llm_fallback}: raise DOCGRAPH_LLM_TIMEOUT_S)"
    if result.mode != "llm":
        return "were answered without the model"
    return "came without log-probabilities (the endpoint gave none)"


def upper_quantile(values: Sequence[float], share: float) -> float:
    """The value that ``share`` of ``values`` exceed (linear interpolation between neighbours)."""
    ordered = sorted(values)
    position = (1 - share) * (len(ordered) - 1)
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)

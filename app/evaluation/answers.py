"""``docgraph eval --answers``: the whole ``ask`` path per question, measured on what the generator
is handed and on what comes back.

Per variant and scope:

- ``evidence_recall``: a gold page among the answer's citations;
- ``context_recall@W``: the gold answer string in the first W words of the context the answer was
  made from (the cost of noise: how much the generator must read before the answer is there);
- ``context_words_before_gold``: median words of context before the first passage on a gold page;
- ``answer_contains_gold`` and ``answer_f1``: the normalised gold answer inside the answer, and
  token F1 against it (meaningful with an LLM; an extractive answer is quotes);
- ``citation_precision``: the share of citations on gold pages; ``abstained``: how often ask said
  the documents do not answer; ``errors``: questions whose answer failed at the LLM endpoint (a
  rejected request): they count as misses, and the run goes on.

Questions without a gold ``answer`` count only for the page-based measures.
"""

from __future__ import annotations

import re
import statistics
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from docgraph.app.config import Settings
from docgraph.app.evaluation.questions import Question
from docgraph.app.llm.answer import AnswerResult
from docgraph.app.llm.service import ASK_K, ask
from docgraph.app.retrieval.base import Retriever
from docgraph.app.stores.base import GraphStore
from docgraph.errors import LLMRequestError

WORD_CUTOFFS = (100, 200, 400)
_NOT_WORD = re.compile(r"[^0-9a-z]+")


@dataclass(frozen=True, slots=True)
class AnswerOutcome:
    id: str
    type: str
    gold_answer: str
    cited_gold: int  # citations on a gold page
    cited: int
    gold_at_word: int | None  # where the gold answer starts in the context, in words (None: absent)
    words_before_gold_page: int | None  # context words before the first gold-page passage
    answer: str
    abstained: bool
    error: str = ""  # why the endpoint gave no answer (the other fields are then empty)
    llm_fallback: str = ""  # why the configured LLM did not answer (it timed out): the answer quotes the documents

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "type": self.type,
            "cited": self.cited,
            "cited_gold": self.cited_gold,
            "gold_at_word": self.gold_at_word,
            "words_before_gold_page": self.words_before_gold_page,
            "abstained": self.abstained,
            "answer": self.answer,
            **({"error": self.error} if self.error else {}),
            **({"llm_fallback": self.llm_fallback} if self.llm_fallback else {}),
        }


def normalised(text: str) -> str:
    """Lower case, every run of non-alphanumerics one space: how answers are compared."""
    return _NOT_WORD.sub(" ", text.lower()).strip()


def token_f1(answer: str, gold: str) -> float:
    predicted, expected = normalised(answer).split(), normalised(gold).split()
    common = sum((Counter(predicted) & Counter(expected)).values())
    if not predicted or not expected or not common:
        return 0.0
    precision, recall = common / len(predicted), common / len(expected)
    return 2 * precision * recall / (precision + recall)


def outcome_of(question: Question, doc_id: str, result: AnswerResult) -> AnswerOutcome:
    gold_pages = {(doc_id, page) for page in question.pages}
    passages = result.context.passages if result.context is not None else []
    words: list[str] = []
    before_gold: int | None = None
    for passage in passages:
        if before_gold is None and (passage.doc_id, passage.page) in gold_pages:
            before_gold = len(words)
        words += normalised(passage.shown).split()
    return AnswerOutcome(
        id=question.id,
        type=question.type,
        gold_answer=question.answer,
        cited_gold=sum((c.doc_id, c.page) in gold_pages for c in result.citations),
        cited=len(result.citations),
        gold_at_word=_position(words, normalised(question.answer).split()),
        words_before_gold_page=before_gold,
        answer=result.answer,
        abstained=result.abstained,
        llm_fallback=result.llm_fallback,
    )


def _position(words: list[str], gold: list[str]) -> int | None:
    """The word index where ``gold`` (a word sequence) starts in ``words``."""
    if not gold:
        return None
    for start in range(len(words) - len(gold) + 1):
        if words[start : start + len(gold)] == gold:
            return start
    return None


def ask_for_answers(
    retriever: Retriever,
    questions: Sequence[Question],
    doc_ids: dict[str, str],
    store: GraphStore,
    settings: Settings,
    scope: str,
    progress: Callable[[int, int], None] | None = None,
) -> list[AnswerOutcome]:
    """Each question through the whole ask path; ``progress`` is told (done, total) after each."""
    outcomes = []
    for done, question in enumerate(questions, 1):
        doc_id = doc_ids[question.doc]
        try:
            result = ask(
                question.question, store, settings, retriever, k=ASK_K, doc_id=doc_id if scope == "document" else None
            )
            outcomes.append(outcome_of(question, doc_id, result))
        except LLMRequestError as error:  # one question's rejected request, not the end of the run
            outcomes.append(_failed(question, str(error)))
        if progress:
            progress(done, len(questions))
    return outcomes


def _failed(question: Question, error: str) -> AnswerOutcome:
    return AnswerOutcome(question.id, question.type, question.answer, 0, 0, None, None, "", False, error)


def summary(outcomes: Sequence[AnswerOutcome]) -> dict[str, Any]:
    """The measures of the module docstring over ``outcomes`` (rates as fractions)."""
    with_gold = [o for o in outcomes if normalised(o.gold_answer)]  # a gold of punctuation alone: none
    row: dict[str, Any] = {"n": len(outcomes), "with_gold_answer": len(with_gold)}
    row["evidence_recall"] = _rate(o.cited_gold > 0 for o in outcomes)
    for cutoff in WORD_CUTOFFS:
        row[f"context_recall@{cutoff}"] = _rate(_gold_within(o, cutoff) for o in with_gold)
    before = [o.words_before_gold_page for o in outcomes if o.words_before_gold_page is not None]
    row["context_words_before_gold"] = statistics.median(before) if before else None
    row["gold_page_in_context"] = _rate(o.words_before_gold_page is not None for o in outcomes)
    row["answer_contains_gold"] = _rate(_answer_holds_gold(o) for o in with_gold)
    row["answer_f1"] = (
        round(statistics.fmean(token_f1(o.answer, o.gold_answer) for o in with_gold), 4) if with_gold else None
    )
    cited = sum(o.cited for o in outcomes)
    row["citation_precision"] = round(sum(o.cited_gold for o in outcomes) / cited, 4) if cited else None
    row["abstained"] = _rate(o.abstained for o in outcomes)
    row["errors"] = sum(1 for o in outcomes if o.error)
    row["llm_fallbacks"] = sum(1 for o in outcomes if o.llm_fallback)  # extractive answers of a configured LLM
    return row


def fallback_warning(variant: str, outcomes: Sequence[AnswerOutcome]) -> str | None:
    """What to say when answers of a configured LLM fell back to quoting the documents: the answer
    measures are then partly the extractive answer's."""
    what = f"answers of {variant} quote the documents, the LLM having given none"
    return _how_many(what, [o.llm_fallback for o in outcomes])


def error_warning(variant: str, outcomes: Sequence[AnswerOutcome]) -> str | None:
    """What to say when the LLM endpoint refused questions: they count as misses in every measure."""
    what = f"questions of {variant} got no answer from the LLM endpoint and count as misses"
    return _how_many(what, [o.error for o in outcomes])


def _how_many(what: str, reasons: Sequence[str]) -> str | None:
    """ "N of M <what> (first: <reason>)" over the outcomes' ``reasons`` ("" where none); None if none."""
    given = [reason for reason in reasons if reason]
    return f"{len(given)} of {len(reasons)} {what} (first: {given[0]})" if given else None


def answer_misses(outcomes: Sequence[AnswerOutcome], words: int = 200) -> list[AnswerOutcome]:
    """The questions with a gold answer whose context did not hold it within ``words`` words."""
    return [o for o in outcomes if normalised(o.gold_answer) and not _gold_within(o, words)]


def _answer_holds_gold(outcome: AnswerOutcome) -> bool:
    """Whether the answer holds the gold answer's words in a row (whole words: "8" is not in "1998")."""
    return _position(normalised(outcome.answer).split(), normalised(outcome.gold_answer).split()) is not None


def _gold_within(outcome: AnswerOutcome, words: int) -> bool:
    """Whether the whole gold answer, its last word too, lies within the context's first ``words``."""
    if outcome.gold_at_word is None:
        return False
    return outcome.gold_at_word + len(normalised(outcome.gold_answer).split()) <= words


def _rate(flags: Any) -> float | None:
    values = [bool(flag) for flag in flags]
    return round(sum(values) / len(values), 4) if values else None

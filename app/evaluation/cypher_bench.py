"""``docgraph eval-cypher``: text-to-Cypher measured on structural questions with gold queries.

Each line of the questions file is ``{"id", "question", "gold", "type", "ordered"}``; the gold
query's rows are the reference. The configured model writes a query per question through the same
repair loop as ``docgraph text2cypher`` (the database's errors fed back); it is right when its rows
hold the same values as the gold rows (column names aside; as a multiset, or in order when
``ordered``). Reported: execution accuracy, how often the first query was valid, tries used, and
tokens, overall and per question type.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from docgraph.app.config import Settings
from docgraph.app.evaluation.questions import json_records
from docgraph.app.llm.client import LLMClient, TokenUsage
from docgraph.app.llm.text2cypher import generate_cypher
from docgraph.app.stores.base import GraphStore, Row
from docgraph.errors import (
    LLMRequestError,
    LLMTimeoutError,
    QuerySyntaxError,
    QueryTimeoutError,
    QuestionsError,
    ReadOnlyViolationError,
    Text2CypherError,
)

ProgressFn = Callable[[str, int, int], None]


@dataclass(frozen=True, slots=True)
class CypherQuestion:
    id: str
    question: str
    gold: str
    type: str = "other"
    ordered: bool = False


@dataclass(frozen=True, slots=True)
class CypherOutcome:
    id: str
    type: str
    correct: bool
    first_try_valid: bool
    tries: int
    valid: bool  # some query passed every check and ran
    tokens: int
    query: str
    error: str = ""
    unanswered: bool = False  # the model's server refused the request or did not answer in time

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "type": self.type,
            "correct": self.correct,
            "first_try_valid": self.first_try_valid,
            "tries": self.tries,
            "valid": self.valid,
            "tokens": self.tokens,
            "query": self.query,
            "error": self.error,
            "unanswered": self.unanswered,
        }


def load_cypher_questions(path: Path) -> list[CypherQuestion]:
    questions: list[CypherQuestion] = []
    for where, record in json_records(path):
        try:
            question = CypherQuestion(
                id=str(record["id"]),
                question=_string(record["question"], "question", where),
                gold=_string(record["gold"], "gold", where),
                type=str(record.get("type") or "other"),
                ordered=_flag(record.get("ordered", False), where),
            )
        except KeyError as exc:
            raise QuestionsError(f"{where}: not a text-to-Cypher question (no {exc} field)") from exc
        if question.type == "all":
            raise QuestionsError(f"{where}: 'all' names the whole set in the report; give the type another name")
        if any(known.id == question.id for known in questions):
            raise QuestionsError(f"{where}: duplicate question id {question.id!r}")
        questions.append(question)
    if not questions:
        raise QuestionsError(f"{path} holds no questions")
    return questions


def _string(value: Any, name: str, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise QuestionsError(f"{where}: {name!r} must be a non-empty string, got {value!r}")
    return value


def _flag(value: Any, where: str) -> bool:
    if value is None:  # left out
        return False
    if not isinstance(value, bool):
        raise QuestionsError(f"{where}: 'ordered' must be true or false, got {value!r}")
    return value


def same_rows(found: Sequence[Row], gold: Sequence[Row], ordered: bool) -> bool:
    """Whether two results hold the same values, column names aside."""
    mine, theirs = [_values(row) for row in found], [_values(row) for row in gold]
    return mine == theirs if ordered else Counter(mine) == Counter(theirs)


def _values(row: Row) -> tuple[Any, ...]:
    return tuple(_comparable(value) for value in row.values())


def _comparable(value: Any) -> Any:
    """``value`` hashable and comparable: floats rounded, lists as tuples, maps (and the nodes and
    relationships a query returns whole, read as maps) as their items sorted by key."""
    if isinstance(value, float):
        return round(value, 6) if not value.is_integer() else int(value)
    if isinstance(value, list):
        return tuple(_comparable(item) for item in value)
    if isinstance(value, dict):
        return tuple((str(key), _comparable(item)) for key, item in sorted(value.items(), key=lambda kv: str(kv[0])))
    return value


def ask_question(
    question: CypherQuestion, gold: Sequence[Row], store: GraphStore, settings: Settings, client: LLMClient
) -> CypherOutcome:
    """One question: the model's query against ``gold`` (its gold query's rows), read up to as many
    rows as the gold holds. A request the model's server refused or did not answer in time is this
    question's failure; an unreachable server or store ends the run."""
    if len(gold) > settings.text2cypher_row_limit:  # rows cut at the limit could never match the gold
        settings = settings.model_copy(update={"text2cypher_row_limit": len(gold)})
    usage = TokenUsage()
    try:
        result = generate_cypher(question.question, store, settings, client, run=True, usage=usage)
    except Text2CypherError as error:
        first = bool(error.attempts) and not error.attempts[0]["error"]
        tries = len(error.attempts)
        last = error.attempts[-1]["query"] if error.attempts else ""
        return CypherOutcome(question.id, question.type, False, first, tries, False, _tokens(usage), last, str(error))
    except (LLMRequestError, LLMTimeoutError) as error:  # unanswered only if no try was answered
        tries, answered = usage.calls + 1, usage.calls > 0
        return CypherOutcome(
            question.id, question.type, False, False, tries, False, _tokens(usage), "", str(error), not answered
        )
    return CypherOutcome(
        id=question.id,
        type=question.type,
        correct=same_rows(result.rows, gold, question.ordered) and not result.truncated,
        first_try_valid=not result.attempts[0].error,
        tries=len(result.attempts),
        valid=True,
        tokens=_tokens(usage),
        query=result.cypher,
    )


def gold_rows(question: CypherQuestion, store: GraphStore) -> list[Row]:
    """The gold query's rows; a gold query the store refuses means the file is wrong: says which line."""
    try:
        return store.read(question.gold)
    except (QuerySyntaxError, ReadOnlyViolationError, QueryTimeoutError) as error:
        raise QuestionsError(f"{question.id}: the gold query does not run: {error}") from error


def empty_gold_warning(questions: Sequence[CypherQuestion], golds: Sequence[Sequence[Row]]) -> str | None:
    """What to say of gold queries that find nothing (``golds``, their rows: none, or only zeros, nulls
    and empty lists): their documents are likely not stored, and a wrong query may match them. None
    when every gold query finds something; ``QuestionsError`` when none does (nothing is measured)."""
    empty = [question.id for question, gold in zip(questions, golds, strict=True) if _finds_nothing(gold)]
    if empty and len(empty) == len(questions):
        raise QuestionsError(
            "the gold queries find nothing in this store (no rows, or only zeros and nulls): ingest the "
            "documents they ask about (--docs), or name the store that holds them (--store)"
        )
    if not empty:
        return None
    return (
        f"{len(empty)} of {len(questions)} gold queries find nothing in this store ({', '.join(empty[:5])}"
        f"{', ...' if len(empty) > 5 else ''}): are their documents stored? A wrong query may match them"
    )


def _finds_nothing(rows: Sequence[Row]) -> bool:
    return all(value in (0, None, [], "") for row in rows for value in row.values())


def run_cypher_bench(
    questions: Sequence[CypherQuestion],
    golds: Sequence[Sequence[Row]],
    store: GraphStore,
    settings: Settings,
    client: LLMClient,
    progress: ProgressFn | None = None,
) -> list[CypherOutcome]:
    """Each question asked of the model and scored against its gold rows (``golds``, in order)."""
    outcomes = []
    for done, (question, gold) in enumerate(zip(questions, golds, strict=True), 1):
        outcomes.append(ask_question(question, gold, store, settings, client))
        if progress:
            progress("eval-cypher", done, len(questions))
    return outcomes


def cypher_summary(outcomes: Sequence[CypherOutcome]) -> dict[str, Any]:
    """Overall and per type: execution accuracy, first-try validity, valid at all, tries, tokens."""
    groups: dict[str, list[CypherOutcome]] = {"all": list(outcomes)}
    for outcome in outcomes:
        groups.setdefault(outcome.type, []).append(outcome)
    return {name: _row(group) for name, group in groups.items()}


def _row(group: Sequence[CypherOutcome]) -> dict[str, Any]:
    return {
        "n": len(group),
        "execution_accuracy": round(sum(o.correct for o in group) / len(group), 4),
        "first_try_valid": round(sum(o.first_try_valid for o in group) / len(group), 4),
        "valid": round(sum(o.valid for o in group) / len(group), 4),
        "mean_tries": round(statistics.fmean(o.tries for o in group), 2),
        "tokens": sum(o.tokens for o in group),
        "unanswered": sum(o.unanswered for o in group),
    }


def unanswered_warning(outcomes: Sequence[CypherOutcome]) -> str | None:
    """What to say when the model's server left questions unanswered: they count as wrong, and a
    run where it answered none measured the setup, not the model (the caller then fails)."""
    unanswered = [o for o in outcomes if o.unanswered]
    if not unanswered:
        return None
    return f"{len(unanswered)} of {len(outcomes)} questions got no reply from the model (first: {unanswered[0].error})"


def _tokens(usage: TokenUsage) -> int:
    return usage.prompt + usage.completion

"""Evaluation questions: one JSON object per line (see shared/bench/README.md).

``{"id": "rl-02", "doc": "reportlab-userguide.pdf", "question": "...", "pages": [9, 10],
"answer": "Ben Echols", "type": "cross_page"}`` - ``pages`` are 1-based physical pages holding the
evidence; retrieving any one of them is a hit.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from docgraph.errors import QuestionsError

__all__ = ["Question", "QuestionsError", "json_records", "load_questions", "parse_question"]


@dataclass(frozen=True, slots=True)
class Question:
    id: str
    doc: str  # file name of the document, as in the docs folder
    question: str
    pages: frozenset[int]
    answer: str = ""
    type: str = "local"


def parse_question(record: dict[str, Any], where: str) -> Question:
    try:
        question = Question(
            id=_identifier(record["id"], where),
            doc=_string(record["doc"], "doc", where),
            question=_string(record["question"], "question", where),
            pages=_page_numbers(record["pages"], where),
            answer=_text(record.get("answer"), "answer", where),
            type=_string("local" if record.get("type") in (None, "") else record["type"], "type", where),
        )
    except KeyError as exc:
        raise QuestionsError(f"{where}: not a question record (no {exc} field)") from exc
    if Path(question.doc).name != question.doc:
        raise QuestionsError(f"{where}: 'doc' must be a file name in the docs folder, not a path ({question.doc!r})")
    if not question.question.strip():
        raise QuestionsError(f"{where}: empty question")
    return question


def _page_numbers(value: Any, where: str) -> frozenset[int]:
    """A list of 1-based page numbers (8, 8.0 or "8"): the string "12" is not pages 1 and 2, nor is
    1.9 page 1."""
    pages = [_whole_number(page) for page in value] if isinstance(value, list) else []
    if not pages or any(page is None or page < 1 for page in pages):
        raise QuestionsError(f"{where}: 'pages' must be a list of 1-based page numbers, got {value!r}")
    return frozenset(page for page in pages if page is not None)


def _whole_number(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().isdigit():
        return int(value)
    return None


def _identifier(value: Any, where: str) -> str:
    """A question's id: a string or a number (null, a list or a map names no question)."""
    if isinstance(value, bool) or not isinstance(value, str | int | float) or not str(value).strip():
        raise QuestionsError(f"{where}: 'id' must be a string or a number, got {value!r}")
    return str(value)


def _string(value: Any, name: str, where: str) -> str:
    """A field that must be a string (a list of words is no question, a map no question type)."""
    if not isinstance(value, str):
        raise QuestionsError(f"{where}: {name!r} must be a string, got {value!r}")
    return value


def _text(value: Any, name: str, where: str) -> str:
    """A string field that may be left out (or null): "" then; a number is its digits (an answer 6)."""
    if value is None:
        return ""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    if not isinstance(value, str):
        raise QuestionsError(f"{where}: {name!r} must be a string, got {value!r}")
    return value


def json_records(path: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    """Each non-blank line of a JSON-lines file as (``file:line``, its object), in file order."""
    if not path.is_file():
        raise QuestionsError(f"{path}: no such questions file")
    for number, line in enumerate(path.read_text(encoding="utf-8-sig").splitlines(), start=1):  # a BOM too
        if not line.strip():
            continue
        where = f"{path.name}:{number}"
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise QuestionsError(f"{where}: invalid JSON ({exc.msg})") from exc
        if not isinstance(record, dict):
            raise QuestionsError(f"{where}: expected a JSON object")
        yield where, record


def load_questions(path: Path) -> list[Question]:
    """All questions of a JSON-lines file, in file order; blank lines are skipped."""
    questions: list[Question] = []
    seen: set[str] = set()
    for where, record in json_records(path):
        question = parse_question(record, where)
        if question.id in seen:
            raise QuestionsError(f"{where}: duplicate question id {question.id!r}")
        seen.add(question.id)
        questions.append(question)
    if not questions:
        raise QuestionsError(f"{path}: holds no questions")
    return questions

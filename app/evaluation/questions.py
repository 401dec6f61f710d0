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
        pages = frozenset(int(p) for p in record["pages"])
        question = Question(
            id=str(record["id"]),
            doc=str(record["doc"]),
            question=str(record["question"]),
            pages=pages,
            answer=str(record.get("answer", "")),
            type=str(record.get("type") or "local"),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise QuestionsError(f"{where}: not a question record ({exc})") from exc
    if not question.pages or min(question.pages) < 1:
        raise QuestionsError(f"{where}: 'pages' must list 1-based page numbers")
    if not question.question.strip():
        raise QuestionsError(f"{where}: empty question")
    return question


def json_records(path: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    """Each non-blank line of a JSON-lines file as (``file:line``, its object), in file order."""
    if not path.is_file():
        raise QuestionsError(f"{path}: no such questions file")
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
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
    return questions

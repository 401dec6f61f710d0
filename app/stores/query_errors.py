"""Query errors as people read them: one line naming the position, and the query line with a caret.

FalkorDB reports ``errMsg: Invalid input 'R': expected … line: 1, column: 10, offset: 9 errCtx: …
errCtxOffset: 9``; Neo4j ``… Invalid input 'R': expected … (line 1, column 10 (offset: 9)) …``.
Both become ``Syntax error at line 1, column 10: Invalid input 'R': expected …``; a message
without a position (``'m' not defined``) is kept as it is, on one line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_MESSAGE_CHARS = 160  # a long list of what the parser expected is cut here
_FALKORDB = re.compile(r"errMsg:\s*(?P<message>.*?)\s+line:\s*(?P<line>\d+),\s*column:\s*(?P<column>\d+)", re.DOTALL)
_NEO4J = re.compile(
    r"(?:message:\s*)?(?P<message>[^{}]*?)\s*\(line (?P<line>\d+), column (?P<column>\d+) \(offset: \d+\)\)", re.DOTALL
)


@dataclass(frozen=True, slots=True)
class QueryProblem:
    """What went wrong with a query, and where (1-based line and column) when the database said."""

    message: str
    line: int | None = None
    column: int | None = None

    @property
    def summary(self) -> str:
        """One line: ``Syntax error at line 1, column 10: …``, or the message alone."""
        if self.line is None or self.column is None:
            return self.message
        return f"Syntax error at line {self.line}, column {self.column}: {self.message}"

    def pointer(self, query: str) -> str:
        """The query line the error is on and a caret under its column; empty without a position."""
        lines = query.splitlines()
        if self.line is None or self.column is None or not 1 <= self.line <= len(lines):
            return ""
        text = lines[self.line - 1]
        return f"{text}\n{' ' * min(self.column - 1, len(text))}^"


def query_problem(error_text: str) -> QueryProblem:
    """The message and position in a FalkorDB or Neo4j query error's text."""
    flat = " ".join(error_text.split())
    for pattern in (_FALKORDB, _NEO4J):
        found = pattern.search(flat)
        if found:
            message = _clip(found.group("message").strip(" :"))
            return QueryProblem(message, int(found.group("line")), int(found.group("column")))
    return QueryProblem(_clip(flat))


def _clip(text: str) -> str:
    return text if len(text) <= MAX_MESSAGE_CHARS else text[: MAX_MESSAGE_CHARS - 1] + "…"

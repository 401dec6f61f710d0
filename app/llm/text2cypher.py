"""Text-to-Cypher: a question in, a checked read-only query (and its rows) out.

The prompt holds the schema (``schema/graph.yaml`` via :mod:`app.stores.schema`), the live label and
relationship counts of the store, the store's dialect notes and the worked examples of
``cypher/examples/``. Every generated query is checked before it runs (:mod:`app.llm.cypher_guard`),
planned by the database (``store.explain``: syntax and unknown names), and run only through
``store.read`` — read-only by the database's own rule — with the query time limit and a row limit.
When any step fails, the error text goes back to the model for a corrected query, up to
``settings.text2cypher_max_tries`` times; the last failure is raised as :class:`Text2CypherError`.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from docgraph.app.config import Settings
from docgraph.app.llm.client import LLMClient, Message, TokenUsage
from docgraph.app.llm.cypher_guard import (
    bounded_rows,
    check_read_only,
    clean_query,
    code_only,
    escapes_decoded,
    unsupplied_parameters,
    with_row_limit,
)
from docgraph.app.llm.prompting import fill, template
from docgraph.app.resources import CYPHER_DIR
from docgraph.app.stores.base import GraphStore, Row
from docgraph.app.stores.query_errors import query_problem
from docgraph.app.stores.schema import load_graph_schema
from docgraph.errors import QuerySyntaxError, StoreError, StoreUnavailableError, Text2CypherError

MAX_ECHOED_CHARS = 4000  # of a refused reply, sent back with the database's error for another try
# The words a Cypher query may begin with (writes too: the guard names them); other text is prose.
CLAUSES = frozenset(
    [
        "MATCH",
        "OPTIONAL",
        "WITH",
        "UNWIND",
        "RETURN",
        "CALL",
        "UNION",
        "EXPLAIN",
        "PROFILE",
        "CREATE",
        "MERGE",
        "DELETE",
        "DETACH",
        "SET",
        "REMOVE",
        "DROP",
        "FOREACH",
        "LOAD",
        "USE",
        "SHOW",
        "GRANT",
        "REVOKE",
        "DENY",
        "ALTER",
        "RENAME",
        "START",
        "STOP",
        "TERMINATE",
    ]
)

EXAMPLES_DIR = CYPHER_DIR / "examples"
DATABASE_NAMES = {"falkordb": "FalkorDB", "neo4j": "Neo4j 5"}
# A fenced block: its info string is dropped, a known tag even on the query's own line, any other
# word ("c", "text", "plaintext" from small models) when a line break follows it. A block whose
# closing fence never came (the reply's token budget ran out) runs to the end of the reply.
_CODE_BLOCK = re.compile(
    r"```[ \t]*(?:(?:cypher|opencypher|sql|neo4j)\b[ \t]*\n?|[^\s`]*[ \t]*\n)?(.*?)(?:```|\Z)",
    re.DOTALL | re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class CypherAttempt:
    query: str
    error: str = ""  # empty for the accepted query

    def to_json(self) -> dict[str, str]:
        return {"query": self.query, "error": self.error}


@dataclass
class Text2CypherResult:
    question: str
    cypher: str  # the accepted query, as run (with the row limit applied)
    ran: bool = False
    rows: list[Row] = field(default_factory=list)
    truncated: bool = False  # more rows than text2cypher_row_limit, or longer lists: the rest were dropped
    attempts: list[CypherAttempt] = field(default_factory=list)
    tokens: TokenUsage = field(default_factory=TokenUsage)
    timings: dict[str, float] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "question": self.question,
            "cypher": self.cypher,
            "ran": self.ran,
            "rows": self.rows,
            "truncated": self.truncated,
            "attempts": [attempt.to_json() for attempt in self.attempts],
            "tokens": self.tokens.to_json(),
            "timings": {name: round(seconds, 3) for name, seconds in self.timings.items()},
        }


@dataclass(frozen=True, slots=True)
class WorkedExample:
    question: str
    query: str


@cache
def worked_examples() -> tuple[WorkedExample, ...]:
    """``cypher/examples/*.cypher``: a ``// question:`` comment line, then the query."""
    examples: list[WorkedExample] = []
    for path in sorted(EXAMPLES_DIR.glob("*.cypher")):
        lines = path.read_text(encoding="utf-8").splitlines()
        question = next((line.split(":", 1)[1].strip() for line in lines if line.startswith("// question:")), "")
        query = "\n".join(line for line in lines if not line.lstrip().startswith("//")).strip()
        if question and query:
            examples.append(WorkedExample(question, query))
    return tuple(examples)


def system_prompt(store: GraphStore, settings: Settings) -> str:
    counts = store.counts()
    examples = "\n\n".join(f"Question: {ex.question}\n```cypher\n{ex.query}\n```" for ex in worked_examples())
    return fill(
        "text2cypher",
        database=DATABASE_NAMES.get(store.dialect, store.dialect),
        schema=load_graph_schema().to_text(),
        counts=_counts_text(counts.labels) + "\n" + _counts_text(counts.relationship_types),
        row_limit=str(settings.text2cypher_row_limit),
        dialect_notes=template(f"dialect_{store.dialect}"),
        examples=examples,
    )


def generate_cypher(
    question: str,
    store: GraphStore,
    settings: Settings,
    client: LLMClient,
    run: bool = False,
    usage: TokenUsage | None = None,
) -> Text2CypherResult:
    """Ask for a query until one passes every check (and runs, when ``run``), feeding errors back.

    The tokens spent, whether a query came out or not, are also added to ``usage`` when given.
    """
    result = Text2CypherResult(question=question, cypher="")
    try:
        return _generate(result, store, settings, client, run)
    finally:
        if usage is not None:
            usage.merge(result.tokens)


def _generate(
    result: Text2CypherResult, store: GraphStore, settings: Settings, client: LLMClient, run: bool
) -> Text2CypherResult:
    started = time.perf_counter()
    question = result.question
    messages: list[Message] = [
        {"role": "system", "content": system_prompt(store, settings)},
        {"role": "user", "content": question.strip()},
    ]
    for _ in range(settings.text2cypher_max_tries):
        completion = client.chat(messages)
        result.tokens.add(completion)
        query = extract_query(completion.text)
        try:
            _check_and_run(query, store, settings, run, result)
        except StoreUnavailableError:
            raise
        except StoreError as error:
            result.attempts.append(CypherAttempt(query, str(error)))
            messages += [
                {"role": "assistant", "content": completion.text[:MAX_ECHOED_CHARS]},
                {"role": "user", "content": fill("text2cypher_retry", error=str(error))},
            ]
            continue
        result.attempts.append(CypherAttempt(query))
        result.timings["text2cypher"] = time.perf_counter() - started
        return result
    last = result.attempts[-1]
    raise Text2CypherError(
        f"no valid read-only query after {len(result.attempts)} tries; the last, {_one_line(last.query)!r}, "
        f"failed with: {last.error}",
        [attempt.to_json() for attempt in result.attempts],
    )


def extract_query(reply: str) -> str:
    """The query in the reply's first code block, or the whole reply when it has none. One fence
    alone either closes a query on its own line ("MATCH ... RETURN n ```", prose perhaps after: the
    text before it) or opens a block the token budget cut off ("```cypher\nMATCH ...": to the end)."""
    head, fence, _ = reply.partition("```")
    if fence and reply.count("```") == 1 and head.rsplit("\n", 1)[-1].strip():
        return clean_query(head)
    block = _CODE_BLOCK.search(reply)
    if block is not None and block.group(1).strip():
        return clean_query(block.group(1))
    return clean_query(head)  # no block, or an empty one after the query


def run_written_query(
    query: str, store: GraphStore, settings: Settings, params: dict[str, Any] | None = None, run: bool = True
) -> Text2CypherResult:
    """A query a person wrote, checked and run as a generated one is: read-only, with the row limit
    and the written-query time budget (``run=False`` only has the database check it)."""
    cleaned = clean_query(query)
    check_read_only(cleaned)
    result = Text2CypherResult(question="", cypher=with_row_limit(cleaned, settings.text2cypher_row_limit))
    try:
        if run:
            _read_rows(result, store, settings, params or {})
        else:
            started = time.perf_counter()
            store.explain(result.cypher, params or {})
            result.timings["query"] = time.perf_counter() - started
    except StoreError as error:
        if type(error) not in (QuerySyntaxError, StoreError):  # the store's own trouble (unavailable, a timeout)
            raise
        raise type(error)(_said_of_written(str(error), cleaned, result.cypher, store, params or {})) from error
    return result


def _said_of_written(error: str, query: str, limited: str, store: GraphStore, params: dict[str, Any]) -> str:
    """The database's refusal in terms of the query as written: a position in its own text (not in
    the LIMIT line added to it), or the parameters it uses that ``params`` lacks, by name."""
    if limited != query:
        try:
            store.explain(query, params)
        except QuerySyntaxError as own:  # the query as written fails too: say where, in its own text
            error = str(own)
        except StoreError:  # the check itself failed (store gone, no right): the first error stands
            pass
    problem = query_problem(error)
    if problem.line is not None:
        return problem.summary
    missing = unsupplied_parameters(error, query, params)
    if missing:
        named = ", ".join(f"${name}" for name in missing)
        return f'the query uses {named}, which the parameters do not give (e.g. {{"{missing[0]}": ...}})'
    return error


def _check_and_run(query: str, store: GraphStore, settings: Settings, run: bool, result: Text2CypherResult) -> None:
    if not query:
        raise QuerySyntaxError("the reply held no query")
    first = code_only(escapes_decoded(query)).split(maxsplit=1)[:1]  # C\u0041LL is CALL
    if first and first[0].split("(")[0].upper() not in CLAUSES:  # prose: its "use" is no USE clause
        raise QuerySyntaxError(f"the reply is not a Cypher query (it begins {query[:40]!r}): answer with the query")
    check_read_only(query)
    limited = with_row_limit(query, settings.text2cypher_row_limit)
    store.explain(limited)
    result.cypher = limited
    if run:
        _read_rows(result, store, settings, {})


def _read_rows(result: Text2CypherResult, store: GraphStore, settings: Settings, params: dict[str, Any]) -> None:
    """Run ``result.cypher`` read-only within the written-query budget; keep at most the row limit."""
    started = time.perf_counter()
    rows = store.read(result.cypher, params, timeout_s=settings.user_query_timeout_s)
    result.timings["query"] = time.perf_counter() - started
    result.ran = True
    result.rows, result.truncated = bounded_rows(rows, settings.text2cypher_row_limit)


def _counts_text(counts: dict[str, int]) -> str:
    return ", ".join(f"{name} {count}" for name, count in sorted(counts.items())) or "(empty)"


def _one_line(text: str, limit: int = 160) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"

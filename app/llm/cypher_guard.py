"""Checks on a generated query before it goes to the database.

The database is the real lock: generated queries only ever run through ``store.read`` (FalkorDB's
``GRAPH.RO_QUERY``, Neo4j's read access mode), which refuses writes. This module adds what the read
path does not cover — ``LOAD CSV`` reads files of the database server, procedures and some APOC
functions reach beyond the graph (files, URLs, Cypher in a string) — and turns a write into a clear
message for the model before any round trip. It also bounds what a query returns: rows, long lists,
vectors.
"""

from __future__ import annotations

import re
from typing import Any

from docgraph.app.stores.base import Row
from docgraph.app.stores.schema import is_vector_property
from docgraph.errors import ReadOnlyViolationError

MAX_LIST_ITEMS = 1000  # items kept of one list in a written query's rows

# Read-only procedures a question about the graph may need; every other CALL is refused.
ALLOWED_PROCEDURES = frozenset(
    {
        "db.labels",
        "db.relationshiptypes",
        "db.propertykeys",
        "db.idx.fulltext.querynodes",
        "db.index.fulltext.querynodes",
    }
)
# A clause word, not a name spelled like one: a variable ``(use:Region)``, ``count(set)``,
# ``use.name`` or ``[show]`` has a bracket before it or ``.``, ``:``, ``,`` or a closing bracket after.
_FORBIDDEN = re.compile(
    r"(?<![.\w$(\[])(CREATE|MERGE|DELETE|DETACH|SET|REMOVE|DROP|FOREACH|LOAD\s+CSV|PERIODIC\s+COMMIT"
    r"|GRANT|REVOKE|DENY|ALTER|RENAME|START\s+DATABASE|STOP\s+DATABASE|TERMINATE|SHOW|USE)\b(?!\s*[.:,)\]])",
    re.IGNORECASE,
)
# APOC functions that only compute on values; any other apoc.* function (apoc.cypher.*, apoc.load.*,
# apoc.util.*, …) can run Cypher from a string or read files and URLs, so it is refused.
ALLOWED_APOC_FUNCTIONS = ("agg", "coll", "convert", "date", "map", "math", "number", "temporal", "text")
_CALL = re.compile(r"(?<![.\w$])CALL\s*(\{|[A-Za-z_][\w.]*)", re.IGNORECASE)
_FUNCTION = re.compile(r"(?<![.\w$])(apoc(?:\.\w+)+)\s*\(", re.IGNORECASE)
_STRING_OR_COMMENT = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"|`[^`]*`|//[^\n]*|/\*.*?\*/", re.DOTALL)
_TRAILING_LIMIT = re.compile(r"\bLIMIT\s+(\d+|\$\w+)\s*$", re.IGNORECASE)
_RETURN = re.compile(r"(?<![.\w$])RETURN\b", re.IGNORECASE)
# Neo4j reads \uXXXX escapes anywhere in a query, keywords and names too (M\u0041TCH is MATCH), so
# the checks run on the query as written and again with its escapes decoded.
_UNICODE_ESCAPE = re.compile(r"\\u+([0-9A-Fa-f]{4})|\\U([0-9A-Fa-f]{8})")


_PARAMETER = re.compile(r"\$([A-Za-z_][A-Za-z0-9_]*)")  # a query's $name


def code_only(query: str) -> str:
    """The query with string literals, quoted names and comments blanked out, so words inside them
    (a title containing "Set", a comment) are not mistaken for clauses."""
    return _STRING_OR_COMMENT.sub(lambda m: " " * len(m.group(0)), query)


def unsupplied_parameters(error: str, query: str, params: dict[str, Any]) -> list[str]:
    """The ``$names`` of ``query`` that ``params`` lacks, in order, when the database's ``error``
    is about missing parameters (FalkorDB says only "Missing parameters"); else none."""
    if not any(said in error.lower() for said in ("missing parameters", "expected parameter")):
        return []
    return [name for name in dict.fromkeys(_PARAMETER.findall(code_only(query))) if name not in params]


def names_unquoted(query: str) -> str:
    """The query with strings and comments blanked but quoted names spelled out, and no spaces around
    the dots of a dotted name: what a procedure or function is really called (`apoc`.`load`.`json`
    and apoc . load . json are apoc.load.json). A quoted name keeps a space on either side, so that a
    word written right after it (`x`CALL) still reads as a word of its own."""

    def spelled(match: re.Match[str]) -> str:
        text = match.group(0)
        if text.startswith("`"):
            return " " + re.sub(r"[^\w.]", "_", text[1:-1]) + " "
        return " " * len(text)

    return re.sub(r"\s*\.\s*", ".", _STRING_OR_COMMENT.sub(spelled, query))


def check_read_only(query: str) -> None:
    """Raise :class:`ReadOnlyViolationError` for anything but a plain read of the graph, whether
    written plainly or with unicode escapes."""
    for view in dict.fromkeys((query, escapes_decoded(query))):
        _check_plain_read(view)


def escapes_decoded(query: str) -> str:
    """The query with every ``\\uXXXX`` and ``\\UXXXXXXXX`` escape replaced by its character."""

    def character(match: re.Match[str]) -> str:
        code = int(match.group(1) or match.group(2), 16)
        return chr(code) if code <= 0x10FFFF else "\ufffd"

    return _UNICODE_ESCAPE.sub(character, query)


def clause_view(query: str) -> str:
    """The query with each string, comment and quoted name a plain word: a clause word written
    against one (SET `n`.x, SET/*c*/.x) is still seen as a clause, not taken for a name."""
    return _STRING_OR_COMMENT.sub(" q ", query)


def _check_plain_read(query: str) -> None:
    clause = _FORBIDDEN.search(clause_view(query))
    if clause:
        name = " ".join(clause.group(1).upper().split())
        raise ReadOnlyViolationError(f"{name} is not allowed: queries here may only read the graph")
    names = names_unquoted(query)
    for call in _CALL.finditer(names):
        target = call.group(1)
        if target != "{" and target.lower() not in ALLOWED_PROCEDURES:
            raise ReadOnlyViolationError(
                f"CALL {target} is not allowed: only {', '.join(sorted(ALLOWED_PROCEDURES))} may be called"
            )
    for function in _FUNCTION.finditer(names):
        name = function.group(1)
        if name.split(".")[1].lower() not in ALLOWED_APOC_FUNCTIONS:
            allowed = ",".join(ALLOWED_APOC_FUNCTIONS)
            raise ReadOnlyViolationError(f"{name} is not allowed: of APOC only apoc.{{{allowed}}} functions may run")


def clean_query(text: str) -> str:
    """Trim whitespace and trailing semicolons (the drivers take one statement without them)."""
    return text.strip().rstrip(";").strip()


def with_row_limit(query: str, row_limit: int) -> str:
    """Append ``LIMIT row_limit + 1`` when the query ends in a RETURN without a LIMIT of its own,
    and lower a larger final LIMIT to it, so that the database stops reading there.

    One row over the limit tells the caller the result was cut off. A final LIMIT given as a
    parameter, or a query that does not end in RETURN (a lone CALL), is left as it is and its rows
    are cut after reading instead. No ``CALL { ... }`` wrapping: it is not portable across the
    databases (so in a UNION only the last part is limited by the database).
    """
    query = clean_query(query)
    code = code_only(query)
    limit = _TRAILING_LIMIT.search(code)
    if limit is not None:
        given = limit.group(1)
        if given.isdigit() and int(given) > row_limit + 1:
            return f"{query[: limit.start(1)]}{row_limit + 1}{query[limit.end(1) :]}"
        return query
    if not _RETURN.search(code):
        return query
    return f"{query}\nLIMIT {row_limit + 1}"


def bounded_rows(rows: list[Row], row_limit: int) -> tuple[list[Row], bool]:
    """At most ``row_limit`` rows, every list in them cut to ``MAX_LIST_ITEMS`` and the vector
    properties of returned nodes and relationships left out (a note of their length stays), so a
    written query's answer fits a reply or a prompt; and whether anything was cut."""
    cut = len(rows) > row_limit
    bounded: list[Row] = []
    for row in rows[:row_limit]:
        kept, row_cut = _bounded(row)
        bounded.append(kept)
        cut = cut or row_cut
    return bounded, cut


def _bounded(value: Any) -> tuple[Any, bool]:
    if isinstance(value, list):
        items = [_bounded(item) for item in value[:MAX_LIST_ITEMS]]
        return [item for item, _ in items], len(value) > MAX_LIST_ITEMS or any(cut for _, cut in items)
    if not isinstance(value, dict):
        return value, False
    cut = False
    kept: dict[str, Any] = {}
    entity = "properties" in value and ("labels" in value or "type" in value)
    for key, item in value.items():
        if entity and key == "properties" and isinstance(item, dict):
            item = {
                name: f"<vector of {len(prop)} numbers left out>"
                if is_vector_property(name) and isinstance(prop, list)
                else prop
                for name, prop in item.items()
            }
        kept[key], item_cut = _bounded(item)
        cut = cut or item_cut
    return kept, cut

"""Loads named Cypher queries from ``cypher/``.

A dialect folder (``cypher/neo4j``, ``cypher/falkordb``) overrides the shared file of the same name.
Templates may hold ``{placeholders}`` for labels and relationship types, which Cypher cannot take
as parameters; :func:`render` fills them only with identifiers that pass :func:`identifier`.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from docgraph.app.resources import CYPHER_DIR
from docgraph.errors import CypherNotFoundError

_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


@cache
def load(name: str, dialect: str | None = None) -> str:
    """Return the text of ``name.cypher``, the dialect's version when there is one."""
    candidates: list[Path] = []
    if dialect:
        candidates.append(CYPHER_DIR / dialect / f"{name}.cypher")
    candidates.append(CYPHER_DIR / f"{name}.cypher")
    for path in candidates:
        if path.is_file():
            return _strip_comments(path.read_text(encoding="utf-8"))
    raise CypherNotFoundError(f"no Cypher file named {name!r} (dialect {dialect or 'shared'})")


def identifier(value: str) -> str:
    """Return ``value`` if it is a safe label/type/property name, else raise ValueError."""
    if not _IDENTIFIER.match(value):
        raise ValueError(f"not a valid Cypher identifier: {value!r}")
    return value


def render(name: str, dialect: str | None = None, **identifiers: str) -> str:
    """Load a template and fill its ``{placeholders}`` with checked identifiers."""
    text = load(name, dialect)
    safe = {key: identifier(value) for key, value in identifiers.items()}
    for key, value in safe.items():
        text = text.replace("{" + key + "}", value)
    return text


def _strip_comments(text: str) -> str:
    lines = [line for line in text.splitlines() if not line.lstrip().startswith("//")]
    return "\n".join(lines).strip()

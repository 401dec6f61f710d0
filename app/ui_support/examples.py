"""The worked example queries of ``cypher/examples/``, each with the question in its header."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from docgraph.app.resources import CYPHER_DIR

EXAMPLES_DIR = CYPHER_DIR / "examples"  # also text-to-Cypher's worked examples
ANALYST_DIR = CYPHER_DIR / "analyst"  # the README's queries for analysts (Neo4j Browser and the UI)
_QUESTION = "// question:"


@dataclass(frozen=True, slots=True)
class CypherExample:
    name: str  # the file stem
    question: str
    query: str  # the file without its question line; other comments stay (valid Cypher)


def load_examples(*folders: Path) -> list[CypherExample]:
    """Every ``*.cypher`` of ``folders`` (default: the worked examples and the analyst queries),
    sorted by question; a file without a question line is named by its file name."""
    paths = [path for folder in folders or (EXAMPLES_DIR, ANALYST_DIR) for path in sorted(folder.glob("*.cypher"))]
    return sorted((_example(path) for path in paths), key=lambda example: example.question.lower())


def _example(path: Path) -> CypherExample:
    lines = path.read_text(encoding="utf-8").splitlines()
    question = next((line[len(_QUESTION) :].strip() for line in lines if line.startswith(_QUESTION)), "")
    body = "\n".join(line for line in lines if not line.startswith(_QUESTION)).strip()
    return CypherExample(path.stem, question or path.stem.replace("_", " "), body)

"""Examples: the worked queries of ``cypher/examples/`` (question in the header), and questions a
new reader could ask, made from what is stored."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from docgraph.app.jobs.documents import list_documents
from docgraph.app.resources import CYPHER_DIR
from docgraph.app.stores import cypher
from docgraph.app.stores.base import GraphStore, Row

EXAMPLES_DIR = CYPHER_DIR / "examples"  # also text-to-Cypher's worked examples
ANALYST_DIR = CYPHER_DIR / "analyst"  # the README's queries for analysts (Neo4j Browser and the UI)
_QUESTION = "// question:"
_NUMBERING = re.compile(r"^(?:[A-Z]\.|\d+(?:\.\d+)*\.?)\s+")  # "2.1. ", "3 ", "A. "
_DOC_LITERAL = re.compile(r"(doc_id:\s*)'([^'\\]*)'")  # a document named in a query: doc_id: 'report'


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


def example_questions(store: GraphStore, count: int = 3) -> list[str]:
    """Questions a new reader could ask about what is stored, made from the stored section titles
    (the fullest sections, documents taking turns), else from the document titles."""
    rows = store.read(cypher.load("ui_example_sections", store.dialect), {"limit": count * 10})
    titled = [(str(row["doc_id"]), _bare_title(str(row["title"] or ""))) for row in rows]
    # Several words say more than one ("Introduction"); a title of one character says nothing.
    titled = sorted((pair for pair in titled if len(pair[1]) > 2), key=lambda pair: len(pair[1].split()) < 2)
    # The title alone: a document's id in the question is a word no passage holds, and made a
    # suggested question abstain (docs/experiments/abstention.md).
    questions = [f"What does the section “{title}” say?" for _, title in _taking_turns(titled)]
    if not questions:
        documents = list_documents(store)
        questions = [f"What is {_document_name(d)} about?" for d in documents]
    return list(dict.fromkeys(questions))[:count]


def _document_name(document: Row) -> str:
    """A document as a question names it: its title, whose words its pages hold (its id is a word
    no passage holds, and made the question abstain), else its id."""
    title = " ".join(str(document.get("title") or "").split())
    return f"“{title}”" if len(title) > 2 else str(document["doc_id"])


def _bare_title(title: str) -> str:
    """A section title without its number ("2.1. Feeding" -> "Feeding") or trailing colon."""
    return _NUMBERING.sub("", " ".join(title.split())).rstrip(":").strip()


def _taking_turns(pairs: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """``(doc_id, title)`` pairs reordered so that each document's first comes before any second."""
    rank: dict[str, int] = {}
    keyed = []
    for position, (doc_id, title) in enumerate(pairs):
        rank[doc_id] = rank.get(doc_id, -1) + 1
        keyed.append((rank[doc_id], position, doc_id, title))
    return [(doc_id, title) for _, _, doc_id, title in sorted(keyed)]


def example_on_store(query: str, documents: list[Row]) -> tuple[str, str]:
    """An example query asking about a document the store lacks (the worked examples name
    "report") asked of the stored document with the most pages instead, and a line saying so;
    the query as it is, and no line, when it names none or a stored one."""
    pages = {str(row["doc_id"]): int(row.get("pages") or 0) for row in documents}
    absent = [match.group(2) for match in _DOC_LITERAL.finditer(query) if match.group(2) not in pages]
    if not absent or not pages:
        return query, ""
    largest = max(pages, key=lambda doc_id: pages[doc_id])

    def stored(match: re.Match[str]) -> str:
        return match.group(0) if match.group(2) in pages else f"{match.group(1)}'{largest}'"

    note = f"The example's document {absent[0]!r} is not stored: it asks about {largest!r} instead."
    return _DOC_LITERAL.sub(stored, query), note

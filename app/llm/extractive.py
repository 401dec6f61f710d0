"""The answer without an LLM: the best evidence passages quoted, each with its citation tag.

From each of the best-ranked retrieved regions the sentences that share the most words with the
question are quoted (a window of up to two sentences), so the reader sees the part that matters
rather than a whole page. From a table, its header row and the rows that share the most words with
the question are quoted, so the row that answers is there however far down the table it is.
"""

from __future__ import annotations

from dataclasses import dataclass

from docgraph.app.llm.citations import Citation, cite_passages
from docgraph.app.llm.context import Context, Passage
from docgraph.app.llm.text_units import is_table_rule, sentences
from docgraph.app.retrieval.text import tokenize

MAX_PASSAGES = 3
MAX_QUOTE_CHARS = 360
WINDOW_SENTENCES = 2
TABLE_ROWS_QUOTED = 2
HEADING_KINDS = frozenset({"title", "section_header", "page_header", "page_footer"})
NO_EVIDENCE = "No passage of the stored documents matches this question."


@dataclass
class ExtractiveAnswer:
    text: str
    citations: list[Citation]
    passages: list[Passage]


def extractive_answer(question: str, context: Context, max_passages: int = MAX_PASSAGES) -> ExtractiveAnswer:
    chosen = best_passages(context, max_passages)
    if not chosen:
        return ExtractiveAnswer(NO_EVIDENCE, [], [])
    terms = content_words(question)
    lines = [f"{i}. “{quote_passage(p, terms)}” [{context.tag_of(p)}]" for i, p in enumerate(chosen, start=1)]
    return ExtractiveAnswer("\n".join(lines), cite_passages(chosen, context), chosen)


def best_passages(context: Context, limit: int) -> list[Passage]:
    """The highest-scored retrieved passages with content; headings and graph context only when
    nothing better was found (a bare heading answers nothing)."""
    with_text = [p for p in context.passages if p.text.strip() or p.description.strip()]
    ranked = sorted(with_text, key=lambda p: (p.via != "retrieved", p.kind in HEADING_KINDS, -p.score))
    content = [p for p in ranked if p.via == "retrieved" and p.kind not in HEADING_KINDS]
    return (content or ranked)[:limit]


def content_words(text: str) -> set[str]:
    """The words retrieval matches on (stop words out, plurals and spellings folded, CJK in pairs)."""
    return {word for word in tokenize(text) if len(word) > 1}


def quote_passage(passage: Passage, terms: set[str]) -> str:
    if passage.kind == "table" and len(table_rows := markdown_rows(passage.text)) > 1:
        return best_rows_quote(table_rows, terms)
    return best_quote(passage.text or passage.description, terms)


def markdown_rows(text: str) -> list[str]:
    """The rows of a markdown table (separator rows left out), each as one line."""
    lines = [line.strip() for line in text.splitlines()]
    return [line for line in lines if line.startswith("|") and not is_table_rule(line)]


def best_rows_quote(rows: list[str], terms: set[str]) -> str:
    """The header row, then the rows sharing the most words with the question, in table order."""
    header, body = rows[0], rows[1:]
    shared = [len(terms & content_words(row)) for row in body]
    ranked = sorted(range(len(body)), key=lambda i: (-shared[i], i))
    chosen = sorted(i for i in ranked[:TABLE_ROWS_QUOTED] if shared[i]) or [0]
    parts = [header]
    for previous, i in zip([-1, *chosen], chosen, strict=False):
        parts.append(("… " if i > previous + 1 else "") + body[i])
    return _cut(" ".join(parts))


def best_quote(text: str, terms: set[str]) -> str:
    """The window of sentences sharing the most words with the question, cut to a readable length."""
    units = sentences(text) or [" ".join(text.split())]
    windows = [" ".join(units[i : i + WINDOW_SENTENCES]) for i in range(len(units))]
    return _cut(max(windows, key=lambda window: len(terms & content_words(window))))


def _cut(quote: str) -> str:
    if len(quote) <= MAX_QUOTE_CHARS:
        return quote
    return quote[:MAX_QUOTE_CHARS].rsplit(" ", 1)[0] + " …"

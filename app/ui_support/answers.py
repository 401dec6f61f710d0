"""Answers for display: citation tags turned into numbered markers, what each citation shows, the trace."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from docgraph.app.llm.answer import AnswerResult
from docgraph.app.llm.citations import Citation

# ![alt](url), ![alt](url "title"), ![alt][ref] and ![alt]: an image the browser would fetch.
_IMAGE = re.compile(r"!\[([^\]]*)\](?:\([^)]*\)|\[[^\]]*\])?")
_MARKDOWN_SIGN = re.compile(r"[\\`*_{}\[\]()!|$<>~]")  # inline: links, images, emphasis, code, LaTeX
_BLOCK_START = re.compile(r"^(\d*)([#>+.)-])")  # a heading, quote or list item when it starts the text
# A group of citation tags, "[zoo p.3 #r7]" or "[zoo p.3 #r7; zoo p.4 #r2]".
_CITATION_GROUP = re.compile(r"\s?\[[^\[\]]*#[^\[\]]*\]")
_OPEN_BRACKET = re.compile(r"\s?\[[^\[\]]*$")
_CITATION_TAG = re.compile(r"(\[[^\[\]]*#[^\[\]]*\])")
# Code the reader sees as written (a backslash in it would show): fenced blocks (to the end when
# not closed), ``double`` and `single` backtick spans.
_CODE = re.compile(r"(```.*?(?:```|\Z)|``[^`]*``|`[^`\n]*`)", re.DOTALL)
_BARE_DOLLAR = re.compile(r"(?<!\\)\$")  # not one the model escaped itself
# A line break inside a quote (a code listing's next line, with its indent), not one before the
# next numbered quote or a blank line.
_QUOTE_LINE_BREAK = re.compile(r"\n(?!\d+\. “)( *)(?=\S)")
TRACE_ITEMS = 5  # list items a trace line names before "and N more"
TRACE_CHARS = 200  # longest text a trace line quotes


@dataclass(frozen=True, slots=True)
class NumberedCitation:
    number: int
    citation: Citation

    @property
    def button_label(self) -> str:
        ocr = " (OCR)" if self.citation.ocr else ""
        return f"[{self.number}] {self.citation.doc_id} p.{self.citation.page} · {self.citation.kind}{ocr}"


def numbered_citations(citations: Sequence[Citation]) -> list[NumberedCitation]:
    return [NumberedCitation(number, citation) for number, citation in enumerate(citations, start=1)]


def numbered_answer(result: AnswerResult) -> str:
    """The answer as safe Markdown, each ``[tag]`` replaced by its citation number, e.g. ``[2]``.
    An extractive answer quotes the documents: its quotes are shown as written (``Journals$age``
    is no formula, ``char * name`` no emphasis)."""
    text = _verbatim_but_tags(result.answer) if result.mode == "extractive" else safe_markdown(result.answer)
    for numbered in numbered_citations(result.citations):
        text = text.replace(f"[{numbered.citation.tag}]", f" **[{numbered.number}]**")
    return text.replace("  **[", " **[").strip()


def streamed_answer(pieces: Sequence[str]) -> str:
    """The answer as it streams in, safe Markdown without citation tags: the final answer numbers
    the citations it keeps, and a tag it drops must never have been shown."""
    text = _CITATION_GROUP.sub("", "".join(pieces))
    return safe_markdown(_OPEN_BRACKET.sub("", text))  # a tag still streaming in


def safe_markdown(text: str) -> str:
    """Model text to render as Markdown: images become their alt text, so that the reader's browser
    fetches nothing the model names (Streamlit already escapes raw HTML), and a dollar sign outside
    code is a dollar sign ("$5 to $10" was set as a formula)."""
    text = _IMAGE.sub(lambda match: match.group(1), text)
    pieces = _CODE.split(text)  # code at the odd places: a backslash there would show
    return "".join(piece if i % 2 else _BARE_DOLLAR.sub(r"\\$", piece) for i, piece in enumerate(pieces))


def _verbatim_but_tags(text: str) -> str:
    """Every Markdown and LaTeX sign escaped but in citation tags (numbered next); lines kept: a
    quoted listing's line breaks are hard breaks and its indents non-breaking spaces (Markdown
    would run its lines into one and drop the indents)."""
    pieces = _CITATION_TAG.split(text)  # tags at the odd places
    escaped = "".join(piece if i % 2 else _MARKDOWN_SIGN.sub(r"\\\g<0>", piece) for i, piece in enumerate(pieces))
    return _QUOTE_LINE_BREAK.sub(lambda match: "\\\n" + "\u00a0" * len(match.group(1)), escaped)


def markdown_text(text: str) -> str:
    """Text from a PDF or a person shown inside Markdown as it is written: every Markdown and LaTeX
    sign escaped, so a heading holding ``![x](http://…)`` fetches nothing and "$5 … $10" is not
    set as a formula."""
    escaped = _MARKDOWN_SIGN.sub(r"\\\g<0>", " ".join(text.split()))
    return _BLOCK_START.sub(r"\1\\\2", escaped)


def page_highlights(citations: Sequence[Citation], doc_id: str, page: int) -> set[str]:
    """The cited regions on one page: they are filled in on its image."""
    return {c.region_id for c in citations if c.doc_id == doc_id and c.page == page}


def route_summary(result: AnswerResult) -> str:
    """How the answer was made, in one line: route, answer mode, re-reads, time."""
    parts = [f"route: {result.route}", f"answer: {result.mode}"]
    if result.rereads:
        parts.append(f"re-reads: {result.rereads}")
    total = result.timings.get("total")
    if total is not None:
        parts.append(f"{total:.1f}s")
    return " · ".join(parts)


def trace_lines(trace: Sequence[Mapping[str, Any]]) -> list[str]:
    """The answer's trace as Markdown lines, one step each: what was done and with what, with
    every value written out (long lists shortened) rather than folded away as JSON."""
    return [_trace_line(step) for step in trace]


def _trace_line(step: Mapping[str, Any]) -> str:
    details = [
        f"{key.replace('_', ' ')}: {_trace_value(value)}" for key, value in step.items() if key != "step" and value
    ]
    return f"**{str(step.get('step', '?')).replace('_', ' ')}** — " + ("; ".join(details) or "done")


def _trace_value(value: Any) -> str:
    if isinstance(value, Mapping):
        return ", ".join(f"{key} {_trace_value(item)}" for key, item in value.items())
    if isinstance(value, list | tuple):
        shown = ", ".join(f"`{item}`" for item in value[:TRACE_ITEMS])
        more = f" and {len(value) - TRACE_ITEMS} more" if len(value) > TRACE_ITEMS else ""
        return f"{len(value)} ({shown}{more})"
    text = safe_markdown(" ".join(str(value).split()))
    return text if len(text) <= TRACE_CHARS else text[: TRACE_CHARS - 1] + "…"

"""Headings among the evidence: a heading says where text is, not text, so a heading hit stands for
its section's text in the extractive answer and brings the text under it into the context."""

from __future__ import annotations

import re
from dataclasses import replace

from docgraph.app.llm.context import Context, Passage
from docgraph.app.llm.question_terms import shared_words, terms_in
from docgraph.ingest.labels import JUMP_IN, JUMP_OUT

_WORD = re.compile(r"[^\W\d_]{3,}")
HEADING_KINDS = frozenset({"title", "section_header", "page_header", "page_footer"})
AFTER_HEADING_STEP = 1e-3  # a section's other hits rank just after the text under its heading hit


def says_nothing(passage: Passage) -> bool:
    """A heading, or a newsletter's jump line ("Continued from page 1"): where text is, not text;
    or a number alone (a chart's tick value, a slide's "7 / 19" read with its navigation symbols)."""
    text = passage.text.strip()
    bare_number = passage.kind in ("paragraph", "figure") and not has_words(text) and not passage.description
    return passage.kind in HEADING_KINDS or bare_number or bool(JUMP_IN.match(text) or JUMP_OUT.match(text))


def heading_hit(passage: Passage) -> bool:
    return passage.via == "retrieved" and passage.kind == "section_header"


def passed_under_heading(passage: Passage) -> bool:
    """Passed over on the way from a heading to the text it heads: a running head or foot, or a
    picture or number without words (a logo, a chart's tick values). Another heading stops the way."""
    furniture = passage.kind in ("page_header", "page_footer")
    return furniture or (passage.kind not in HEADING_KINDS and not has_words(passage.text))


def bodies_for_heading_hits(context: Context, passages: list[Passage], terms: set[str]) -> list[Passage]:
    """Each heading hit stands for its section's text, with the heading's score: for the text under
    it (its ``next`` neighbour), taken as retrieved (asked "What does the slide on round robin say?",
    a slide's title matches best and its bullets are the answer; "1 Scope" by the paragraph under
    it); or for the section's hit with content that holds more of the question's ``terms`` the
    heading does not than that text does ("Very common:" and its list under "Possible side effects",
    not the generic paragraph under the heading), lifted to the heading's score where lower. The text
    under it comes before the section's hits that hold only the heading's words of the question: a
    term's definition before its note that repeats the term."""
    found = list(passages)
    for i, hit in enumerate(found):
        if not heading_hit(hit):
            continue
        rest = terms - terms_in(terms, hit.text)  # the heading's words are its text's too
        section = (hit.doc_id, hit.section)  # its hits with content:
        told = [j for j, p in enumerate(found) if (p.doc_id, p.section) == section and says_something(context, p)]
        best = max(told, key=lambda j: (shared_words(rest, found[j].text), found[j].score), default=None)
        body = context.neighbour(hit, "next")
        under = shared_words(rest, body.text) if body is not None and not says_nothing(body) else -1
        if best is not None and shared_words(rest, found[best].text) > under:
            found[best] = replace(found[best], score=max(found[best].score, hit.score))
        elif body is not None and under >= 0:  # before the hits that only repeat the heading's words
            named = terms - rest  # the question's words the heading holds
            quiet = [j for j in told if shared_words(named, found[j].text) and not shared_words(rest, found[j].text)]
            top = max([hit.score, *(found[j].score for j in quiet)])
            found[i] = replace(body, via="retrieved", score=top)
            for j in quiet:
                found[j] = replace(found[j], score=min(found[j].score, top - AFTER_HEADING_STEP))
    return found


def says_something(context: Context, passage: Passage) -> bool:
    return context.is_hit(passage) and not says_nothing(passage)


def has_words(text: str) -> bool:
    """Whether ``text`` holds a word, not only a drawing's numerals and step labels ("S1 S2", "112")."""
    return _WORD.search(text) is not None

"""Floats in an extractive answer: a figure or table found without words of its own stands for
its caption, and what counts as words (not a drawing's numerals or a chart's tick values)."""

from __future__ import annotations

from dataclasses import replace

from docgraph.app.llm.context import Context, Passage
from docgraph.app.llm.heading_hits import has_words
from docgraph.ingest.links.edges import caption_label


def captions_for_bare_hits(context: Context) -> list[Passage]:
    """The context's passages, each figure or table hit with no text replaced by its caption, taken
    as retrieved with the hit's score (a chart drawn without words is found by its caption); a
    drawing whose text is its reference numerals ("112 114") under a bare label ("FIG. 2B") by the
    passage that refers to it, which says what it shows ("FIG. 2B is a cross-sectional view ...")."""
    passages = list(context.passages)
    for i, hit in enumerate(passages):
        if not context.is_hit(hit) or hit.kind not in ("figure", "table") or hit.description.strip():
            continue
        caption = context.neighbour(hit, "caption")
        told = caption if caption is not None and caption.text.strip() else None
        if told is not None and _bare_label(told.text):
            told = context.neighbour(hit, "referred_by") or (told if not hit.text.strip() else None)
        if told is not None and not has_words(hit.text):
            passages[i] = replace(told, via="retrieved", score=hit.score)
    return passages


def _bare_label(text: str) -> bool:
    label = caption_label(text)
    return label is not None and label.bare

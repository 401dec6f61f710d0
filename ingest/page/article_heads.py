"""A newsletter's or magazine's article head: the headline, then a deck (a sentence or two set
smaller, under it) and a byline ("By Priya Shah", "Words by Sarah Lund · Photos by Ben Ortiz").
Set larger or bolder than the text, the deck and the byline read as section headers, and as
sections they would head the article in the headline's place ("By Priya Shah" > the whole
article). They are paragraphs of the headline's section.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from docgraph.ingest.page.blocks import Block
from docgraph.ingest.page.classify import NUMBERED_HEADING_RE

# "by" then a name: two capitalised words at least ("By Region" is a heading)
BYLINE = re.compile(
    r"^(?:(?:[Ww]ords|[Tt]ext|[Ss]tory|[Rr]eport|[Ii]nterview|[Pp]hotos?|[Pp]ictures?|[Pp]hotography)\s+)?"
    r"(?:[Bb]y|BY)\s+[A-Z][\w'.-]*\s+[A-Z]"
)
MAX_BYLINE_WORDS = 12
MIN_DECK_WORDS = 8  # a heading is a few words; a deck is a sentence
HEADLINE_SCALE = 1.2  # the headline is set this much larger than its deck, at least
DECK_GAP = 1.0  # font sizes of the deck's between it and the headline, at most


def demote_article_heads(blocks: Sequence[Block]) -> None:
    """Turn bylines and decks that were called section headers into paragraphs."""
    heads = [b for b in blocks if b.kind == "section_header"]
    decks = {id(b) for b in heads if any(_deck_under(b, headline) for headline in heads if headline is not b)}
    for block in heads:
        if _byline(block) or id(block) in decks:
            block.kind = "paragraph"


def _byline(block: Block) -> bool:
    text = block.raw_text
    return bool(BYLINE.match(text)) and len(text.split()) <= MAX_BYLINE_WORDS and text[-1:] not in ".:"


def _deck_under(deck: Block, headline: Block) -> bool:
    """``deck`` is a sentence set right under ``headline``, smaller, in its column."""
    a, b = headline.bbox, deck.bbox
    close = -1.0 <= b.y0 - a.y1 <= DECK_GAP * deck.size
    smaller = headline.size >= HEADLINE_SCALE * deck.size
    sentence = len(deck.raw_text.split()) >= MIN_DECK_WORDS and not NUMBERED_HEADING_RE.match(deck.raw_text)
    return close and smaller and sentence and a.x_overlap(b) > 0 and abs(a.x0 - b.x0) <= deck.size

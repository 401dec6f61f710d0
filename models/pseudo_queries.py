"""Self-supervised pseudo-queries made from a document's own graph.

A real question about a region often names things the region itself does not say: the topic is in
the section heading, the sentence before the table, the caption, the part of the paragraph on the
previous page, or the passage that points at it. So besides plain "local" queries (a phrase of the
region), most queries here combine a phrase from a *neighbour* with a phrase from the target. Their
answer is the target, so the GNN learns to pull each relation's context into the target's vector:

- ``local``: a phrase of the region -> the region (keeps local matching intact)
- ``context``: an enclosing section title + a phrase of the region -> the region
- ``adjacent``: a phrase of the preceding region on the page + a phrase of the region -> the region
- ``cross_page``: phrases from both sides of a page break or continuation -> either side
- ``caption``: a phrase of the caption + (some of) the figure/table's text -> the figure/table
- ``reference``: a phrase around a reference + a phrase of what it points at -> the target

Everything is drawn from a seeded generator, so the same batch and seed give the same queries.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from docgraph.records import FURNITURE_KINDS, GraphBatch, NodeRecord

HEADER_KINDS = frozenset({"section_header", "title"})
MIN_WORDS = 4  # a region with fewer words gives no phrase worth asking about
MAX_SOURCE_WORDS = 200  # phrases come from the start of long regions (what the encoder sees)
MAX_SECTION_TARGETS = 3  # a reference to a section answers with its first few regions

_NUMBERING = re.compile(r"^\s*(?:[A-Z]|\d{1,3})(?:\.\d{1,3})*\.?\s+(?=\S)")
_CAPTION_LABEL = re.compile(r"^\s*(?:Figure|Fig\.|Table|Tab\.|Listing|Example)\s*[0-9A-Z.\-:]*\s*", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class PseudoQuery:
    text: str
    positives: tuple[str, ...]  # Region keys that answer it
    kind: str
    doc_id: str

    @property
    def anchor(self) -> str:
        """The main target; held-out splits are made by it, so no target is in both splits."""
        return self.positives[0]


@dataclass(frozen=True, slots=True)
class QueryMix:
    """Expected queries per eligible region or edge, by kind (a fraction is a probability)."""

    local: float = 0.5
    context: float = 0.5
    adjacent: float = 0.5
    cross_page: float = 2.0
    caption: float = 1.0
    reference: float = 1.0


@dataclass(slots=True)
class DocumentView:
    """The parts of one document's graph that queries are made from."""

    doc_id: str
    regions: dict[str, NodeRecord] = field(default_factory=dict)  # body regions only
    sections: dict[str, NodeRecord] = field(default_factory=dict)
    owner: dict[str, str] = field(default_factory=dict)  # region/section key -> its section
    reading: list[tuple[str, str, bool]] = field(default_factory=list)  # (prev, next, crosses a break)
    captions: list[tuple[str, str]] = field(default_factory=list)  # (caption, figure/table)
    references: list[tuple[str, str, str]] = field(default_factory=list)  # (source region, label, key)
    page_regions: dict[str, list[str]] = field(default_factory=dict)  # page key -> its body regions

    @classmethod
    def of(cls, batch: GraphBatch) -> DocumentView:
        view = cls(batch.doc_id)
        for node in batch.nodes:
            if node.label == "Region" and node.props.get("kind") not in FURNITURE_KINDS:
                view.regions[node.key] = node
            elif node.label == "Section":
                view.sections[node.key] = node
        for edge in batch.edges:
            if edge.type == "IS_UNDER" and edge.dst_label == "Section":
                view.owner[edge.src_key] = edge.dst_key
            elif edge.type == "HAS_NEXT" and edge.src_label == "Region" and edge.dst_label == "Region":
                crossing = bool(edge.props.get("cross_page")) or bool(edge.props.get("continuation"))
                view.reading.append((edge.src_key, edge.dst_key, crossing))
            elif edge.type == "CAPTION_OF":
                view.captions.append((edge.src_key, edge.dst_key))
            elif edge.type == "REF" and edge.src_label == "Region":
                view.references.append((edge.src_key, edge.dst_label, edge.dst_key))
            elif edge.type == "ON_PAGE" and edge.src_key in view.regions:
                view.page_regions.setdefault(edge.dst_key, []).append(edge.src_key)
        return view

    def words(self, key: str) -> list[str]:
        node = self.regions.get(key)
        return str(node.props.get("text") or "").split()[:MAX_SOURCE_WORDS] if node else []

    def kind(self, key: str) -> str:
        return str(self.regions[key].props.get("kind", "")) if key in self.regions else ""

    def section_titles(self, key: str, depth: int = 3) -> list[str]:
        """Titles of the enclosing sections, nearest first, numbering stripped."""
        titles: list[str] = []
        current = self.owner.get(key)
        seen: set[str] = set()
        while current is not None and current not in seen and len(titles) < depth:
            seen.add(current)
            title = _NUMBERING.sub(
                "", str(self.sections[current].props.get("title", "")) if current in self.sections else ""
            )
            if title.strip():
                titles.append(" ".join(title.split()))
            current = self.owner.get(current)
        return titles

    def section_members(self, section_key: str) -> list[str]:
        """The section's own body regions in reading order (headers left out)."""
        members = [k for k, owner in self.owner.items() if owner == section_key and k in self.regions]
        members = [k for k in members if self.kind(k) not in HEADER_KINDS]
        return sorted(
            members,
            key=lambda k: (int(self.regions[k].props.get("page", 0)), int(self.regions[k].props.get("order", 0))),
        )


def phrase(rng: np.random.Generator, words: Sequence[str], shortest: int, longest: int) -> str:
    """A random run of ``shortest``..``longest`` consecutive words (all of them if fewer)."""
    if len(words) <= shortest:
        return " ".join(words)
    length = int(rng.integers(shortest, min(longest, len(words)) + 1))
    start = int(rng.integers(0, len(words) - length + 1))
    return " ".join(words[start : start + length])


def _times(rng: np.random.Generator, rate: float) -> int:
    """How many queries to make for a unit with expected count ``rate``."""
    whole = int(rate)
    return whole + int(rng.random() < rate - whole)


def _join(rng: np.random.Generator, first: str, second: str) -> str:
    """Both parts in a random order: a question may name the topic first or last."""
    return f"{first} {second}" if rng.random() < 0.5 else f"{second} {first}"


def make_queries(batch: GraphBatch, seed: int = 0, mix: QueryMix | None = None) -> list[PseudoQuery]:
    """Every pseudo-query of one (embedded or not) document batch."""
    mix = mix or QueryMix()
    view = DocumentView.of(batch)
    rng = np.random.default_rng([seed, int(hashlib.sha256(batch.doc_id.encode()).hexdigest()[:8], 16)])
    queries: list[PseudoQuery] = []
    queries += _local_and_context(view, rng, mix)
    queries += _reading_queries(view, rng, mix)
    queries += _caption_queries(view, rng, mix)
    queries += _reference_queries(view, rng, mix)
    return [q for q in queries if q.text.strip()]


def _local_and_context(view: DocumentView, rng: np.random.Generator, mix: QueryMix) -> list[PseudoQuery]:
    queries: list[PseudoQuery] = []
    for key in view.regions:
        words = view.words(key)
        if len(words) < MIN_WORDS or view.kind(key) in HEADER_KINDS:
            continue
        for _ in range(_times(rng, mix.local)):
            queries.append(PseudoQuery(phrase(rng, words, 6, 14), (key,), "local", view.doc_id))
        titles = view.section_titles(key)
        for _ in range(_times(rng, mix.context) if titles else 0):
            title = titles[int(rng.integers(0, len(titles)))]
            queries.append(PseudoQuery(_join(rng, title, phrase(rng, words, 3, 8)), (key,), "context", view.doc_id))
    return queries


def _reading_queries(view: DocumentView, rng: np.random.Generator, mix: QueryMix) -> list[PseudoQuery]:
    queries: list[PseudoQuery] = []
    for before, after, crossing in view.reading:
        first, second = view.words(before), view.words(after)
        if len(first) < MIN_WORDS or len(second) < MIN_WORDS:
            continue
        if crossing:
            for _ in range(_times(rng, mix.cross_page)):
                text = f"{phrase(rng, first, 3, 8)} {phrase(rng, second, 3, 8)}"
                queries.append(
                    PseudoQuery(
                        text, (after, before) if rng.random() < 0.5 else (before, after), "cross_page", view.doc_id
                    )
                )
        elif view.kind(after) not in HEADER_KINDS:
            for _ in range(_times(rng, mix.adjacent)):
                text = _join(rng, phrase(rng, first, 3, 8), phrase(rng, second, 3, 8))
                queries.append(PseudoQuery(text, (after,), "adjacent", view.doc_id))
    return queries


def _caption_queries(view: DocumentView, rng: np.random.Generator, mix: QueryMix) -> list[PseudoQuery]:
    queries: list[PseudoQuery] = []
    for caption, target in view.captions:
        if caption not in view.regions or target not in view.regions:
            continue
        caption_words = _CAPTION_LABEL.sub("", " ".join(view.words(caption))).split()
        if len(caption_words) < 2:
            continue
        target_words = view.words(target)
        for _ in range(_times(rng, mix.caption)):
            detail = phrase(rng, target_words, 2, 6) if target_words else ""
            text = _join(rng, phrase(rng, caption_words, 3, 8), detail) if detail else phrase(rng, caption_words, 3, 8)
            queries.append(PseudoQuery(text.strip(), (target,), "caption", view.doc_id))
    return queries


def _reference_queries(view: DocumentView, rng: np.random.Generator, mix: QueryMix) -> list[PseudoQuery]:
    queries: list[PseudoQuery] = []
    for source, label, target in view.references:
        targets = _reference_targets(view, label, target)
        source_words = view.words(source)
        if not targets or len(source_words) < MIN_WORDS:
            continue
        for _ in range(_times(rng, mix.reference)):
            detail = phrase(rng, view.words(targets[0]), 3, 8)
            text = _join(rng, phrase(rng, source_words, 3, 8), detail)
            queries.append(PseudoQuery(text, tuple(targets), "reference", view.doc_id))
    return queries


def _reference_targets(view: DocumentView, label: str, target: str) -> list[str]:
    if label == "Region":
        return [target] if target in view.regions else []
    if label == "Section":
        return view.section_members(target)[:MAX_SECTION_TARGETS]
    if label == "Page":
        return [k for k in view.page_regions.get(target, []) if view.kind(k) not in HEADER_KINDS][:MAX_SECTION_TARGETS]
    return []


def split_held_out(
    queries: Sequence[PseudoQuery], share: float = 0.1, seed: int = 0
) -> tuple[list[PseudoQuery], list[PseudoQuery]]:
    """(train, held-out) by a seeded hash of each query's anchor region, so targets never straddle."""
    train: list[PseudoQuery] = []
    held: list[PseudoQuery] = []
    for query in queries:
        digest = hashlib.sha256(f"{seed}\x00{query.anchor}".encode()).digest()
        (held if int.from_bytes(digest[:4], "big") / 2**32 < share else train).append(query)
    return train, held

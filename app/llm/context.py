"""The evidence an answer may use, rendered as a compact, tagged context block.

Each region becomes one entry tagged ``[doc p.N #rK]`` (document id, page, the region's place on the
page). The best-ranked evidence comes first (what a model reads first, it uses most), each hit
followed by its graph context, in reading order within it.
The tags are the only citations an answer may make: :meth:`Context.resolve` maps a tag back to its
region, and anything that does not resolve is an invented citation.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from docgraph.app.retrieval.base import ScoredRegion
from docgraph.app.stores import cypher
from docgraph.app.stores.base import GraphStore

MAX_REGION_CHARS = 1500  # one long table or paragraph must not crowd out the rest
MAX_CONTEXT_CHARS = 14000


@dataclass(frozen=True, slots=True)
class Passage:
    region_id: str
    doc_id: str
    page: int
    order: int
    kind: str
    bbox: tuple[float, ...]
    text: str
    score: float = 0.0
    via: str = "retrieved"  # retrieved | a graph relation (caption, ref, continuation, next) | cypher
    section: str = ""
    description: str = ""
    ocr: bool = False  # some of the text was read by OCR: it may hold misread words
    excerpt: str = ""  # what the prompt shows of a long region, cut to the question (app.llm.focus)
    of_hit: str = ""  # graph context: the region id of the hit whose neighbour it is

    @property
    def shown(self) -> str:
        """The text the generator reads: the excerpt when the region was cut, else the whole text."""
        return self.excerpt or self.text

    @property
    def reading_key(self) -> tuple[str, int, int]:
        return (self.doc_id, self.page, self.order)

    @property
    def ref(self) -> str:
        """The region's short name within its page: the last part of its id (``r5`` of ``doc@v:p3:r5``)."""
        return self.region_id.rsplit(":", 1)[-1]

    def to_json(self) -> dict[str, Any]:
        return {
            "region_id": self.region_id,
            "doc_id": self.doc_id,
            "page": self.page,
            "kind": self.kind,
            "bbox": list(self.bbox),
            "text": self.text,
            "score": round(self.score, 4),
            "via": self.via,
            "section": self.section,
            "description": self.description,
            "ocr": self.ocr,
            "excerpt": self.excerpt,
        }


@dataclass
class Context:
    passages: list[Passage]  # hit by hit in rank order, reading order within each hit's group
    tags: dict[str, Passage]  # tag text (without brackets) -> region
    tag_for: dict[str, str]  # region id -> tag text
    # (hit's region id, relation) -> the neighbour's region id, as the graph tied them, whether the
    # neighbour stayed its context or is a hit of its own
    neighbours: dict[tuple[str, str], str] = field(default_factory=dict)
    # the retrieved regions, also those kept as an earlier hit's context (where they were met first)
    hits: frozenset[str] = frozenset()

    def tag_of(self, item: Passage) -> str:
        return self.tag_for[item.region_id]

    def is_hit(self, item: Passage) -> bool:
        return item.via == "retrieved" or item.region_id in self.hits

    def neighbour(self, hit: Passage, relation: str) -> Passage | None:
        """The passage tied to ``hit`` by ``relation`` (see ``ContextRegion``), if it was kept."""
        region_id = self.neighbours.get((hit.region_id, relation))
        tag = self.tag_for.get(region_id) if region_id else None
        return self.tags[tag] if tag else None

    def resolve(self, doc_id: str, page: int, ref: str) -> Passage | None:
        return self.tags.get(tag_text(doc_id, page, ref))

    def render(self) -> str:
        """The prompt block: one tagged entry per region, its section and kind in the heading."""
        blocks = [_render_entry(self.tag_of(item), item) for item in self.passages]
        return "\n\n".join(blocks)

    def region_ids(self) -> list[str]:
        return [item.region_id for item in self.passages]


def tag_text(doc_id: str, page: int, ref: str) -> str:
    return f"{doc_id} p.{page} #{ref}"


def build_context(items: Iterable[Passage], max_chars: int = MAX_CONTEXT_CHARS) -> Context:
    """Deduplicate, keep the best-ranked regions that fit ``max_chars``, order them (see
    :func:`_in_rank_groups`), tag them."""
    listed = list(items)
    unique = _deduplicate(listed)
    kept = _within_budget(unique, max_chars)
    kept = _in_rank_groups(unique, {item.region_id for item in kept})
    tags: dict[str, Passage] = {}
    for item in kept:
        tag = tag_text(item.doc_id, item.page, item.ref)
        if tag in tags:  # two versions of a document in one store; the full id keeps the tag unique
            tag = tag_text(item.doc_id, item.page, item.region_id)
        tags[tag] = item
    neighbours = {(item.of_hit, item.via): item.region_id for item in listed if item.of_hit}
    hits = frozenset(item.region_id for item in listed if item.via == "retrieved")
    return Context(kept, tags, {item.region_id: tag for tag, item in tags.items()}, neighbours, hits)


def _in_rank_groups(ranked: list[Passage], kept: set[str]) -> list[Passage]:
    """The ``kept`` passages group by group (:func:`evidence_groups`) in rank order, each group in
    reading order: the best evidence comes first and a heading still precedes its body, a page's
    foot its continuation."""
    ordered: list[Passage] = []
    for group in evidence_groups(ranked):
        ordered += sorted((item for item in group if item.region_id in kept), key=lambda item: item.reading_key)
    return ordered


def evidence_groups(ranked: Sequence[Passage]) -> list[list[Passage]]:
    """Split a ranked passage list into groups: a retrieved region followed by its graph context."""
    groups: list[list[Passage]] = []
    for passage in ranked:
        if passage.via == "retrieved" or not groups:
            groups.append([passage])
        else:
            groups[-1].append(passage)
    return groups


def first_groups(groups: Sequence[Sequence[Passage]], count: int) -> list[Passage]:
    """The passages of the first ``count`` evidence groups, in order: what one answer round reads."""
    return [passage for group in groups[:count] for passage in group]


def _deduplicate(items: Iterable[Passage]) -> list[Passage]:
    """One entry per region: the first seen (best-ranked) with the highest score of its copies."""
    first: dict[str, Passage] = {}
    for item in items:
        seen = first.get(item.region_id)
        if seen is None:
            first[item.region_id] = item
        elif item.score > seen.score:
            first[item.region_id] = replace(seen, score=item.score)
    return list(first.values())


def _within_budget(items: list[Passage], max_chars: int) -> list[Passage]:
    """Keep regions in rank order until the budget is spent; retrieved ones outrank graph expansion."""
    ranked = sorted(enumerate(items), key=lambda pair: (pair[1].via != "retrieved", pair[0]))
    kept: list[Passage] = []
    used = 0
    for _, item in ranked:
        size = min(len(item.text), MAX_REGION_CHARS) + len(item.description) + 40
        if kept and used + size > max_chars:
            continue
        kept.append(item)
        used += size
    return kept


def _render_entry(tag: str, item: Passage) -> str:
    # The model is told which text OCR read, so that it can say a misread-looking word is uncertain
    # instead of quoting it as the document's.
    kind = f"{item.kind}, read by OCR" if item.ocr else item.kind
    heading = f"[{tag}] ({kind}" + (f", section: {item.section}" if item.section else "") + ")"
    text = _shorten(item.shown.strip(), MAX_REGION_CHARS)
    parts = [heading, text] if text else [heading]
    if item.description:
        parts.append(f"Visual description: {item.description.strip()}")
    return "\n".join(parts)


def _shorten(text: str, limit: int) -> str:
    """Cut at a word boundary, keeping line breaks (a table's rows stay rows)."""
    if len(text) <= limit:
        return text
    cut = text[:limit].rsplit(" ", 1)[0]
    return cut + " …"


# ---- from the store --------------------------------------------------------------------------


def passages_from_hits(store: GraphStore, hits: Sequence[ScoredRegion]) -> list[Passage]:
    """Each hit followed by its graph context (caption, references, continuation), best hit first.

    Reading position, section and description come from the store in one query; a region the store
    no longer has is dropped (its document was deleted since it was retrieved).
    """
    wanted: list[tuple[str, str, float, str]] = []  # (region id, via, score, the hit it is context of)
    for hit in hits:
        wanted.append((hit.region_id, "retrieved", hit.score, ""))
        wanted += [(neighbour.region_id, neighbour.relation, 0.0, hit.region_id) for neighbour in hit.context]
    stored = {p.region_id: p for p in regions_by_id(store, list(dict.fromkeys(w[0] for w in wanted)))}
    return [
        replace(stored[rid], via=via, score=score, of_hit=of_hit) for rid, via, score, of_hit in wanted if rid in stored
    ]


def regions_by_id(store: GraphStore, region_ids: Sequence[str], via: str = "retrieved") -> list[Passage]:
    """Passages of stored regions, in the order of ``region_ids`` (unknown ids are skipped)."""
    if not region_ids:
        return []
    rows = store.read(cypher.load("llm_regions_by_id", store.dialect), {"ids": list(region_ids)})
    found = {str(row["region_id"]): passage_from_row(row, via) for row in rows}
    return [found[region_id] for region_id in region_ids if region_id in found]


def reading_neighbours(store: GraphStore, region_ids: Sequence[str]) -> list[Passage]:
    """The regions just before and after the given ones in reading order (HAS_NEXT, either way)."""
    if not region_ids:
        return []
    rows = store.read(cypher.load("llm_reading_neighbours", store.dialect), {"ids": list(region_ids)})
    known = set(region_ids)
    neighbours = [str(row["region_id"]) for row in rows if str(row["region_id"]) not in known]
    return regions_by_id(store, list(dict.fromkeys(neighbours)), via="next")


def lead_ins(store: GraphStore, lists: Sequence[Passage]) -> list[Passage]:
    """For each of ``lists``, the paragraph right before it that leads into it, ending in a colon
    ("Do not take Zelvarex:"), as its graph context (``via="lead_in"``): an item quoted without it
    may say the opposite of what the leaflet says."""
    if not lists:
        return []
    rows = store.read(cypher.load("llm_lead_ins", store.dialect), {"ids": [item.region_id for item in lists]})
    before = {str(row["hit"]): str(row["region_id"]) for row in rows}
    found = {p.region_id: p for p in regions_by_id(store, list(dict.fromkeys(before.values())), via="lead_in")}
    return [
        replace(found[region_id], of_hit=hit)
        for hit, region_id in before.items()
        if region_id in found and leads_in(found[region_id])
    ]


def leads_in(passage: Passage) -> bool:
    """A paragraph ending in a colon, which leads into what follows it ("Do not take Zelvarex:")."""
    return passage.kind == "paragraph" and passage.text.rstrip().endswith(":")


def next_regions(store: GraphStore, hits: Sequence[Passage], passed: Callable[[Passage], bool]) -> list[Passage]:
    """For each of ``hits``, the first region after it in reading order that is not ``passed`` over
    (a definition line after a definition line, up to four), as its graph context (``via="next"``)."""
    if not hits:
        return []
    rows = store.read(cypher.load("llm_next_regions", store.dialect), {"ids": [hit.region_id for hit in hits]})
    chains: dict[str, list[tuple[int, str]]] = {}
    for row in rows:
        chains.setdefault(str(row["hit"]), []).append((int(row["steps"]), str(row["region_id"])))
    ids = list(dict.fromkeys(region_id for chain in chains.values() for _, region_id in chain))
    found = {p.region_id: p for p in regions_by_id(store, ids, via="next")}
    after: list[Passage] = []
    for hit, chain in chains.items():
        following = [found[region_id] for _, region_id in sorted(chain) if region_id in found]
        first = next((p for p in following if not passed(p)), None)
        if first is not None:
            after.append(replace(first, of_hit=hit))
    return after


def passage_from_row(row: dict[str, Any], via: str, score: float = 0.0) -> Passage:
    return Passage(
        region_id=str(row["region_id"]),
        doc_id=str(row.get("doc_id") or ""),
        page=int(row.get("page") or 0),
        order=int(row.get("order") or 0),
        kind=str(row.get("kind") or ""),
        bbox=tuple(float(v) for v in (row.get("bbox") or ())),
        text=str(row.get("text") or ""),
        score=score,
        via=via,
        section=str(row.get("section") or ""),
        description=str(row.get("description") or ""),
        ocr=bool(row.get("ocr")),
    )

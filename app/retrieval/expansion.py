"""Graph expansion: attach each hit's neighbourhood as context (not as hits of its own).

One query (``cypher/retrieval_context.cypher``) fetches, for all hits at once: the caption of a
figure/table hit or the figure/table a caption belongs to, REF targets (and sources), and the region
that continues a hit across a page break (or that the hit continues); where the text does not run
on over the break, the region after it (``next_page``) or before it (``previous_page``).
"""

from __future__ import annotations

from collections.abc import Sequence

from docgraph.app.retrieval.base import ContextRegion, ScoredRegion
from docgraph.app.stores import cypher
from docgraph.app.stores.base import GraphStore

MAX_CONTEXT_PER_HIT = 6

# (relationship type, hit is the start node) -> relation name as the hit sees its neighbour.
_RELATION = {
    ("CAPTION_OF", True): "captioned",
    ("CAPTION_OF", False): "caption",
    ("REF", True): "refers_to",
    ("REF", False): "referred_by",
    ("HAS_NEXT", True): "continues",
    ("HAS_NEXT", False): "continued_from",
}
# A page break the text does not run on over: the regions are next to each other, nothing more.
_PAGE_TURN = {"continues": "next_page", "continued_from": "previous_page"}
# Closer ties first when a hit has more neighbours than fit.
_PRIORITY = {
    **{"caption": 0, "captioned": 0, "continues": 1, "continued_from": 1, "next_page": 1, "previous_page": 1},
    **{"refers_to": 2, "referred_by": 3},
}


def expand(store: GraphStore, hits: Sequence[ScoredRegion], limit: int = MAX_CONTEXT_PER_HIT) -> None:
    """Fill ``context`` of every hit in place."""
    if not hits:
        return
    ids = list(dict.fromkeys(h.region_id for h in hits))
    rows = store.read(cypher.load("retrieval_context", store.dialect), {"ids": ids})
    found: dict[str, list[ContextRegion]] = {}
    seen: set[tuple[str, str, str]] = set()
    for row in rows:
        relation = _RELATION.get((str(row["type"]), bool(row["outgoing"])))
        if row["type"] == "HAS_NEXT" and not row["continuation"] and relation is not None:
            relation = _PAGE_TURN[relation]
        hit_id, other = str(row["hit"]), str(row["region_id"])
        if relation is None or (hit_id, other, relation) in seen:
            continue
        seen.add((hit_id, other, relation))
        found.setdefault(hit_id, []).append(
            ContextRegion(
                region_id=other,
                page=int(row["page"]),
                kind=str(row["kind"] or ""),
                text=str(row["text"] or ""),
                relation=relation,
                bbox=tuple(float(x) for x in (row["bbox"] or ())),
            )
        )
    for hit in hits:
        context = sorted(found.get(hit.region_id, []), key=lambda c: (_PRIORITY.get(c.relation, 9), c.page))
        hit.context = context[:limit]

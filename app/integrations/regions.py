"""Retrieval hits dressed for callers outside docgraph: section path and graph context included.

A hit (:class:`~app.retrieval.base.ScoredRegion`) knows its page and box but not where it sits in
the document outline; callers that show or cite a passage want that, so it is read here in one
query for all hits. Hits come with their graph neighbourhood (caption, references, continuation
across a page break); retrievers that do not attach it themselves get it attached here.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from docgraph.app.retrieval.base import ContextRegion, Retriever, ScoredRegion, check_k, check_question
from docgraph.app.retrieval.expansion import expand
from docgraph.app.retrieval.hits import retrieve_distinct
from docgraph.app.stores import cypher
from docgraph.app.stores.base import GraphStore

# How a neighbour is introduced in a passage's text, by its relation to the hit.
RELATION_LABELS = {
    "caption": "Caption",
    "captioned": "Captioned",
    "refers_to": "Refers to",
    "referred_by": "Referred to by",
    "continues": "Continues",
    "continued_from": "Continued from",
    "next_page": "Next page",
    "previous_page": "Previous page",
}


@dataclass(slots=True)
class RegionResult:
    """One retrieved region with the outline path above it (outermost section first)."""

    hit: ScoredRegion
    section_path: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {**self.hit.to_json(), "section_path": list(self.section_path)}

    def page_content(self, with_section: bool = True) -> str:
        """The region's text, its section path on top and its graph context below."""
        lines: list[str] = []
        if with_section and self.section_path:
            lines.append("Section: " + " > ".join(self.section_path))
        if self.hit.text.strip():
            lines.append(self.hit.text.strip())
        lines += [context_line(neighbour) for neighbour in self.hit.context if neighbour.text.strip()]
        return "\n".join(lines)


def context_line(neighbour: ContextRegion) -> str:
    label = RELATION_LABELS.get(neighbour.relation, neighbour.relation)
    return f"{label} ({neighbour.kind}, p.{neighbour.page}): {neighbour.text.strip()}"


def retrieve_regions(
    store: GraphStore,
    retriever: Retriever,
    query: str,
    k: int,
    doc_id: str | None = None,
    with_context: bool = True,
) -> list[RegionResult]:
    """The ``k`` best regions for ``query``, best first, each with its section path (and context)."""
    check_question(query)
    check_k(k)
    hits = retrieve_distinct(retriever, query, k, doc_id)
    if with_context and not any(hit.context for hit in hits):
        expand(store, hits)  # this retriever does not attach the graph context itself
    if not with_context:
        for hit in hits:
            hit.context = []
    paths = section_paths(store, [hit.region_id for hit in hits])
    return [RegionResult(hit, paths.get(hit.region_id, [])) for hit in hits]


def section_paths(store: GraphStore, region_ids: Sequence[str]) -> dict[str, list[str]]:
    """Region id -> titles of the sections enclosing it, outermost first."""
    if not region_ids:
        return {}
    rows = store.read(cypher.load("integration_section_paths", store.dialect), {"ids": list(region_ids)})
    found: dict[str, list[tuple[int, str]]] = {}
    for row in rows:
        found.setdefault(str(row["region_id"]), []).append((int(row["level"] or 0), str(row["title"] or "")))
    return {region_id: [title for _, title in sorted(levels)] for region_id, levels in found.items()}

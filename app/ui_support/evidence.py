"""A region as the evidence panel shows it: text, section path and graph neighbours."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from docgraph.app.stores import cypher
from docgraph.app.stores.base import GraphStore, Row
from docgraph.app.ui_support.answers import markdown_text
from docgraph.errors import RegionNotFoundError

# (relationship type, outgoing from the region) -> what the neighbour is to the region.
_RELATIONS: dict[tuple[str, bool], str] = {
    ("CAPTION_OF", False): "caption",
    ("CAPTION_OF", True): "captions",
    ("REF", True): "refers to",
    ("REF", False): "referred by",
    ("HAS_NEXT", True): "next",
    ("HAS_NEXT", False): "previous",
    ("IS_SIMILAR", True): "similar",
    ("IS_SIMILAR", False): "similar",
    ("IS_UNDER", True): "in",
    ("ON_PAGE", True): "on page",
}
MAX_SIMILAR_SHOWN = 3  # IS_SIMILAR is top-10 per region: the panel names a few of each, the graph view all
SIMILAR_RELATIONS = ("similar", "similar elsewhere")  # in its own document; in another (similarity_corpus_k)
# What the evidence panel lists, in this order; reading order and similarity come last.
EVIDENCE_RELATIONS: tuple[str, ...] = (
    "caption",
    "captions",
    "refers to",
    "referred by",
    "continued from",
    "continues on",
    "previous",
    "next",
    "similar",
    "similar elsewhere",
)


@dataclass(frozen=True, slots=True)
class Neighbour:
    relation: str  # one of _RELATIONS' values, or "continues on" / "continued from"
    type: str  # the relationship type
    outgoing: bool
    key: str  # the neighbour's id property value
    labels: tuple[str, ...]
    kind: str = ""  # regions only
    page: int | None = None
    text: str = ""
    ref_label: str = ""  # REF only: how the text names the target ("Table 2")
    doc_id: str = ""  # the neighbour's document

    @property
    def node_label(self) -> str:
        """The neighbour's main label: Region, Section, Page or Document."""
        for label in ("Region", "Section", "Page", "Document"):
            if label in self.labels:
                return label
        return self.labels[0] if self.labels else "Node"

    def summary(self, limit: int = 160) -> str:
        """One line: the relation, what and where the neighbour is, the start of its text."""
        where = f"{self.kind or self.node_label} p.{self.page}" if self.page else self.node_label
        if self.relation == "similar elsewhere" and self.doc_id:
            where = f"{self.doc_id} {where}"
        named = f" ({self.ref_label})" if self.ref_label else ""
        text = " ".join(self.text.split())
        text = text if len(text) <= limit else text[: limit - 1] + "…"
        return f"*{self.relation}*{markdown_text(named)}: {markdown_text(where)} — {markdown_text(text)}"


@dataclass(slots=True)
class RegionEvidence:
    region_id: str
    doc_id: str
    page: int
    kind: str
    order: int
    text: str
    bbox: tuple[float, ...]
    description: str = ""
    ocr: bool = False  # some of the text was read by OCR
    sha256: str = ""
    section_path: list[str] = field(default_factory=list)  # outermost section first
    neighbours: list[Neighbour] = field(default_factory=list)

    @property
    def section_path_text(self) -> str:
        return " › ".join(self.section_path) if self.section_path else "(before the first section)"

    def evidence_neighbours(self) -> list[Neighbour]:
        """Caption, references, continuation, reading order and similar regions, in that order,
        each region once."""
        rank = {relation: i for i, relation in enumerate(EVIDENCE_RELATIONS)}
        shown = sorted(
            (n for n in self.neighbours if n.relation in rank), key=lambda n: (rank[n.relation], n.page or 0, n.key)
        )
        # kNN edges run both ways between two similar regions: list each neighbour once, and only a
        # few; a region already listed in another way (next, caption, …) is not repeated as similar.
        seen: set[tuple[str, str]] = set()
        kept: list[Neighbour] = []
        similar = dict.fromkeys(SIMILAR_RELATIONS, 0)
        for neighbour in shown:
            if (neighbour.relation, neighbour.key) in seen or (
                neighbour.relation in similar and any(k.key == neighbour.key for k in kept)
            ):
                continue
            seen.add((neighbour.relation, neighbour.key))
            if neighbour.relation in similar:
                similar[neighbour.relation] += 1
                if similar[neighbour.relation] > MAX_SIMILAR_SHOWN:
                    continue
            kept.append(neighbour)
        return kept


def region_evidence(store: GraphStore, region_id: str) -> RegionEvidence:
    rows = store.read(cypher.load("ui_region_detail", store.dialect), {"region_id": region_id})
    if not rows:
        raise RegionNotFoundError(f"no region {region_id!r} in the store: its document was deleted or replaced")
    row = rows[0]
    sections = store.read(cypher.load("ui_section_path", store.dialect), {"region_id": region_id})
    return RegionEvidence(
        region_id=str(row["region_id"]),
        doc_id=str(row["doc_id"]),
        page=int(row["page"]),
        kind=str(row["kind"]),
        order=int(row.get("order") or 0),
        text=str(row.get("text") or ""),
        bbox=tuple(float(v) for v in (row.get("bbox") or ())),
        description=str(row.get("description") or ""),
        ocr=bool(row.get("ocr")),
        sha256=str(row.get("sha256") or ""),
        section_path=[str(s["title"]) for s in sections],
        neighbours=region_neighbours(store, region_id),
    )


def region_neighbours(store: GraphStore, region_id: str) -> list[Neighbour]:
    rows = store.read(cypher.load("ui_region_neighbours", store.dialect), {"region_id": region_id})
    return [neighbour_from_row(row) for row in rows]


def neighbour_from_row(row: Row) -> Neighbour:
    kind, outgoing = str(row["type"]), bool(row["outgoing"])
    return Neighbour(
        relation=relation_name(kind, outgoing, row),
        type=kind,
        outgoing=outgoing,
        key=str(row.get("key") or ""),
        labels=tuple(str(label) for label in (row.get("labels") or ())),
        kind=str(row.get("kind") or ""),
        page=_page_of(row),
        text=str(row.get("text") or ""),
        ref_label=str(row.get("label") or ""),
        doc_id=str(row.get("doc_id") or ""),
    )


def relation_name(kind: str, outgoing: bool, props: dict[str, Any]) -> str:
    """What a neighbour is to the region; a reading-order link across a page break that carries
    the same paragraph or table on is a continuation, the rest is plain previous/next."""
    if kind == "HAS_NEXT" and props.get("continuation"):
        return "continues on" if outgoing else "continued from"
    if kind == "IS_SIMILAR" and props.get("cross_document"):
        return "similar elsewhere"
    return _RELATIONS.get((kind, outgoing), f"{kind.lower()} ({'out' if outgoing else 'in'})")


def _page_of(row: Row) -> int | None:
    if row.get("page") is not None:
        return int(row["page"])
    labels = row.get("labels") or ()
    if "Page" in labels and isinstance(row.get("number"), int):
        return int(row["number"])
    return None

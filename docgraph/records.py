"""The records one document contributes to the graph, shared by every layer.

``ingest`` builds a :class:`GraphBatch` from a document's layout, ``models`` turns it into tensors
for the GNN, and a store in ``app`` writes it in one transaction.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

RegionKind = Literal[
    "title",
    "section_header",
    "paragraph",
    "list",
    "table",
    "figure",
    "caption",
    "formula",
    "code",
    "footnote",
    "page_header",
    "page_footer",
]

REGION_KINDS: tuple[RegionKind, ...] = get_args(RegionKind)

# The id property of each node label: a node is written and found by it.
ID_PROPERTY: dict[str, str] = {
    "Document": "doc_id",
    "Page": "page_id",
    "Section": "section_id",
    "Region": "region_id",
}

# Kinds that are furniture, not content: kept as regions but out of the reading chain.
FURNITURE_KINDS: frozenset[RegionKind] = frozenset({"page_header", "page_footer"})


@dataclass(slots=True)
class NodeRecord:
    label: str  # Document | Page | Section | Region
    key: str  # value of the label's id property
    props: dict[str, Any]
    extra_labels: tuple[str, ...] = ()


@dataclass(slots=True)
class EdgeRecord:
    type: str
    src_label: str
    src_key: str
    dst_label: str
    dst_key: str
    props: dict[str, Any] = field(default_factory=dict)


# The part of a build that names the GNN checkpoint ("gnn <file> <sha256 prefix>"). Which
# checkpoint made the GNN vectors is left out of the version: stores rewrite them in place
# (app.pipeline.gnn_store.refresh_stale_gnn). Whether the GNN ran stays in: its stage adds IS_SIMILAR edges.
GNN_BUILD_PREFIX = "gnn "
ENCODER_BUILD_PREFIX = "encoder "  # the part naming the encoder ("encoder <model> (<runtime>)")
NO_EMBEDDINGS = "no embeddings"  # the part of a pipeline that does not embed, in the encoder's place
BUILD_SEPARATOR = "; "
CORPUS_LINKS_BUILD_PREFIX = "similar in corpus "  # the part of a pipeline that links to other documents


def graph_build(build: str) -> str:
    """``build`` with its GNN part naming no checkpoint: what the graph (ids, text, edges) depends on."""
    parts = (GNN_BUILD_PREFIX.strip() if p.startswith(GNN_BUILD_PREFIX) else p for p in build.split(BUILD_SEPARATOR))
    return BUILD_SEPARATOR.join(p for p in parts if p)


def document_version(sha256: str, build: str) -> str:
    """The stored version of a document: its file's sha256 alone when ``build`` is empty, else the
    sha256 of both, the GNN checkpoint left out (hex either way, so ids can take their version tag
    from it). Another GNN checkpoint keeps the version: the GNN vectors are rewritten in place."""
    digest = sha256.strip().lower()
    graph = graph_build(build)
    if not graph:
        return digest
    return hashlib.sha256(f"{digest}\n{graph}".encode()).hexdigest()


@dataclass(slots=True)
class GraphBatch:
    """Everything one document contributes to the graph, written in one transaction.

    ``sha256`` is the file's; ``build`` says how the graph was made (reader, encoder, GNN, docgraph
    release). Together (the GNN checkpoint left out) they are the document's ``version``: a store
    keeps a stored version as it is and replaces any other, so re-ingesting a file with another
    reader or encoder rebuilds it; with another GNN checkpoint, only its GNN vectors are rewritten.
    """

    doc_id: str
    sha256: str
    nodes: list[NodeRecord] = field(default_factory=list)
    edges: list[EdgeRecord] = field(default_factory=list)
    stats: dict[str, Any] = field(default_factory=dict)
    build: str = ""

    @property
    def version(self) -> str:
        return document_version(self.sha256, self.build)

    def node_counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for node in self.nodes:
            counts[node.label] = counts.get(node.label, 0) + 1
        return counts

    def edge_counts(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for edge in self.edges:
            counts[edge.type] = counts.get(edge.type, 0) + 1
        return counts

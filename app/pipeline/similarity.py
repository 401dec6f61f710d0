"""The similarity stages: IS_SIMILAR edges within a document and across stored documents.

Within a document (:class:`SimilarityStage`), kNN edges are computed in memory
(:mod:`ingest.links.similarity`) for every embedded document; they feed the GNN when one runs.
Across documents (:class:`CorpusSimilarityStage`) they are optional (``similarity_corpus_k``,
0 = off) and only link: the GNN never reads them (documents stay independent graphs, so inference
stays per document), but the evidence panel, Neo4j Browser's graph expansion and analysts' Cypher
can follow a passage to its like in another manual. They carry ``cross_document: true``, and only
neighbours with a cosine of at least ``similarity_corpus_min`` are linked.

The neighbours come from the store's vector index, one query per chunk of regions, before the
write, and go into the document's own write transaction, both ways: the stored region gets the new
one as a neighbour too, since it cannot have seen it when it was ingested. So a pair of documents
is linked by the later one's choices (a new region's ``k`` nearest among the documents stored
then); re-ingesting replaces a document's edges, in both directions, with fresh ones, and
``docgraph relink`` (:mod:`app.jobs.relink`) recomputes the whole corpus's, whatever the order.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from docgraph.app.pipeline.stages import IngestContext, embedded_batch
from docgraph.app.stores.base import GraphStore, Row
from docgraph.app.stores.cypher import load
from docgraph.errors import IngestError
from docgraph.ingest.links.similarity import DEFAULT_K, SCORE_DECIMALS, similarity_edges, similarity_nodes
from docgraph.records import FURNITURE_KINDS, EdgeRecord, GraphBatch

QUERY_CHUNK = 256  # regions per vector-index query
# The index cannot filter by document, so more neighbours are fetched than kept: a few for page
# headers and footers at first, then, for a region whose fetch held too few of other documents (a
# replaced document's stored version is still indexed, and its copies come first; an outlier's
# nearest may be other documents' running heads), GROWTH times as many, up to every region that can
# never be linked (the document's own, all page furniture) plus k: past that, the rest can be.
EXTRA = 5
GROWTH = 4
# Unlike the in-document graph, which the GNN needs complete, a link to another document should mean
# something: below about 0.5 MiniLM cosines join passages on unrelated topics.
DEFAULT_MIN_SCORE = 0.5

Neighbours = list[tuple[float, str]]  # (cosine, region id), best first


def corpus_similarity_edges(
    store: GraphStore, batch: GraphBatch, k: int, min_score: float = DEFAULT_MIN_SCORE, force: bool = False
) -> list[EdgeRecord]:
    """IS_SIMILAR edges between the batch's body regions and their ``k`` nearest regions of other
    stored documents with a cosine of at least ``min_score``, in both directions, best first per
    region. None when ``k`` is 0, or when this very version of the document is stored and the write
    is not ``force``d (it keeps the stored one as it is, links included; a forced one rewrites it)."""
    if k <= 0 or (not force and _stored_versions(store, batch.doc_id) == [batch.version]):
        return []
    vectors = {node.key: node.props["embedding"] for node in similarity_nodes(batch)}
    edges: list[EdgeRecord] = []
    for source, neighbours in nearest_in_other_documents(store, batch.doc_id, vectors, k, min_score):
        for score, target in neighbours:
            edges += _both_ways(source, target, score)
    return edges


def corpus_links_again(store: GraphStore, k: int, min_score: float, batch: GraphBatch) -> list[EdgeRecord]:
    """The batch's links to other documents chosen anew from what is stored now: its write named
    regions that another process removed since its links were chosen."""
    return corpus_similarity_edges(store, batch, k, min_score, force=True)


def nearest_in_other_documents(
    store: GraphStore, doc_id: str, vectors: Mapping[str, Sequence[float]], k: int, min_score: float
) -> Iterator[tuple[str, Neighbours]]:
    """Each of a document's region vectors (by region id) with its ``k`` nearest regions of the other
    stored documents (cosine at least ``min_score``, no page furniture), best first; one index
    query per chunk of ``QUERY_CHUNK`` regions, in region id order."""
    search = _Search(store, doc_id, k, min_score, cap=_unlinkable_regions(store, doc_id) + k + EXTRA)
    keys = sorted(vectors)
    for start in range(0, len(keys), QUERY_CHUNK):
        found = search.nearest({key: [float(v) for v in vectors[key]] for key in keys[start : start + QUERY_CHUNK]})
        for source in sorted(found):
            yield source, found[source][:k]


@dataclass
class _Search:
    store: GraphStore
    doc_id: str
    k: int
    min_score: float
    cap: int  # the largest fetch needed: every region that cannot be linked, plus k and a margin

    def nearest(self, vectors: dict[str, list[float]]) -> dict[str, Neighbours]:
        """Each vector's nearest regions of other documents (at least ``min_score``), as many as
        ``k`` wherever the index holds that many, fetching more for the vectors that need it."""
        found: dict[str, Neighbours] = {}
        pending, size = list(vectors), min(self.k + EXTRA, self.cap)
        while pending:
            fetched = self._fetch({key: vectors[key] for key in pending}, size)
            found.update({key: kept for key, (kept, _) in fetched.items()})
            if size >= self.cap:
                break
            pending = [key for key, (kept, more) in fetched.items() if len(kept) < self.k and more]
            size = min(size * GROWTH, self.cap)
        return found

    def _fetch(self, vectors: dict[str, list[float]], size: int) -> dict[str, tuple[Neighbours, bool]]:
        """Per source: the kept neighbours, and whether a bigger fetch could add any (the index gave
        all ``size`` asked for and the last was still good enough)."""
        query = load("similar_in_other_documents", self.store.dialect)
        rows = [{"src": key, "vector": vector} for key, vector in vectors.items()]
        hits: dict[str, list[Row]] = {key: [] for key in vectors}
        for row in self.store.read(query, {"rows": rows, "k": size}):
            hits[str(row["src"])].append(row)
        result: dict[str, tuple[Neighbours, bool]] = {}
        for source, found in hits.items():
            scores = [float(row["score"]) for row in found]
            kept = [
                (score, str(row["dst"]))
                for score, row in zip(scores, found, strict=True)
                if score >= self.min_score and row["doc_id"] != self.doc_id and row["kind"] not in FURNITURE_KINDS
            ]
            kept.sort(key=lambda item: (-item[0], item[1]))
            result[source] = (kept, len(found) >= size and min(scores, default=-1.0) >= self.min_score)
        return result


def _stored_versions(store: GraphStore, doc_id: str) -> list[str]:
    return [str(row["version"]) for row in store.read(load("document_versions", store.dialect), {"doc_id": doc_id})]


def _unlinkable_regions(store: GraphStore, doc_id: str) -> int:
    params = {"doc_id": doc_id, "furniture": sorted(FURNITURE_KINDS)}
    rows = store.read(load("count_unlinkable_regions", store.dialect), params)
    return int(rows[0]["regions"]) if rows else 0


def _both_ways(source: str, target: str, score: float) -> list[EdgeRecord]:
    props = {"score": round(score, SCORE_DECIMALS), "cross_document": True}
    return [
        EdgeRecord("IS_SIMILAR", "Region", source, "Region", target, props),
        EdgeRecord("IS_SIMILAR", "Region", target, "Region", source, dict(props)),
    ]


def add_similarity_edges(batch: GraphBatch, k: int = DEFAULT_K) -> None:
    """Give ``batch`` its in-document IS_SIMILAR edges (replacing any) and count them in its stats."""
    batch.edges = [edge for edge in batch.edges if edge.type != "IS_SIMILAR"]
    batch.edges += similarity_edges(batch, k)
    batch.stats["similarity_edges"] = sum(1 for edge in batch.edges if edge.type == "IS_SIMILAR")


@dataclass
class SimilarityStage:
    """Pipeline stage (after ``embed``): each embedded region linked to its ``k`` nearest in the document."""

    k: int = DEFAULT_K
    name: str = "similarity"

    def run(self, ctx: IngestContext) -> None:
        batch = embedded_batch(ctx, "similarity")
        if batch is not None:
            add_similarity_edges(batch, self.k)


@dataclass
class CorpusSimilarityStage:
    """Pipeline stage (after ``gnn``, before ``graph_write``): adds the cross-document IS_SIMILAR edges."""

    store: GraphStore
    k: int
    min_score: float = DEFAULT_MIN_SCORE
    force: bool = False  # the write rewrites a stored version: its links are made again
    name: str = "corpus_similarity"
    uses_store = True  # run by one document at a time (IngestPipeline)

    def run(self, ctx: IngestContext) -> None:
        if ctx.batch is None:
            raise IngestError(f"{ctx.path.name}: the corpus similarity stage needs a built graph")
        edges = corpus_similarity_edges(self.store, ctx.batch, self.k, self.min_score, self.force)
        ctx.batch.edges += edges
        ctx.batch.stats["corpus_similarity_edges"] = len(edges)

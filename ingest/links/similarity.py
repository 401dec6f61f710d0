"""kNN similarity edges: (:Region)-[:IS_SIMILAR {score}]->(:Region) within one document.

Embeddings are set after :func:`ingest.graph.build_graph` (by ``app.pipeline.embedding.embed_batch``), so this
runs on a finished, embedded batch. Pure numpy: cosine top-k in row blocks, so a long document
never needs the full similarity matrix in memory.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from docgraph.records import FURNITURE_KINDS, EdgeRecord, GraphBatch, NodeRecord

DEFAULT_K = 10
BLOCK_ROWS = 512
# Cells of one block of the cosine matrix: 16 MB of float32, and as much again for the ranking's
# temporaries, whatever the number of regions (a block of 512 rows grew with the document).
BLOCK_CELLS = 1 << 22
SCORE_DECIMALS = 4


def similarity_edges(batch: GraphBatch, k: int = DEFAULT_K, block_rows: int | None = None) -> list[EdgeRecord]:
    """Each embedded body Region's ``k`` most cosine-similar other Regions of the same document.

    Page headers and footers are left out: they repeat on every page and would only link to each
    other. Edges point from a region to its neighbour, best first; ``score`` is the cosine.
    """
    nodes = similarity_nodes(batch)
    if k <= 0 or len(nodes) < 2:
        return []
    vectors = normalised_rows([node.props["embedding"] for node in nodes])
    edges: list[EdgeRecord] = []
    # Edges of equal (rounded) score share one props dict: a long document has ten edges a region
    # and a few thousand distinct scores, and a dict each was most of an edge's memory. Nothing
    # changes an edge's props in place.
    shared: dict[float, dict[str, float]] = {}
    rows = block_rows or rows_per_block(len(nodes))
    for row, neighbours, scores in top_k_neighbours(vectors, k, rows):
        source = nodes[row].key
        for column, score in zip(neighbours, scores, strict=True):
            rounded = round(float(score), SCORE_DECIMALS)
            props = shared.setdefault(rounded, {"score": rounded})
            edges.append(EdgeRecord("IS_SIMILAR", "Region", source, "Region", nodes[int(column)].key, props))
    return edges


def similarity_nodes(batch: GraphBatch) -> list[NodeRecord]:
    """The Region nodes that take part: body kinds with an embedding, by key (so that ties between
    equal scores are broken the same way whatever the order of the batch's nodes)."""
    nodes = [
        node
        for node in batch.nodes
        if node.label == "Region"
        and node.props.get("kind") not in FURNITURE_KINDS
        and node.props.get("embedding") is not None
        and len(node.props["embedding"]) > 0
    ]
    return sorted(nodes, key=lambda node: node.key)


def rows_per_block(count: int) -> int:
    """Rows of the cosine matrix computed at once for ``count`` vectors: at most BLOCK_CELLS cells."""
    return max(1, min(BLOCK_ROWS, BLOCK_CELLS // max(1, count)))


def normalised_rows(rows: Sequence[Sequence[float]] | NDArray[np.float32]) -> NDArray[np.float32]:
    """Rows scaled to unit length (a zero row stays zero)."""
    matrix = np.asarray(rows, dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    scaled: NDArray[np.float32] = matrix / np.maximum(norms, 1e-12)
    return scaled


def top_k_neighbours(
    vectors: NDArray[np.float32],
    k: int,
    block_rows: int = BLOCK_ROWS,
    groups: NDArray[np.int64] | None = None,
) -> list[tuple[int, NDArray[np.int64], NDArray[np.float32]]]:
    """(row, neighbour rows best first, their cosines) for every row, itself excluded; with
    ``groups`` (a group id per row, such as its document), every row of its own group is excluded
    too, so a row may get fewer than ``k``.

    Computed per row, so the result does not depend on ``block_rows``.
    """
    count = vectors.shape[0]
    k = min(k, count - 1)
    result: list[tuple[int, NDArray[np.int64], NDArray[np.float32]]] = []
    if k <= 0:
        return result
    for start in range(0, count, block_rows):
        block = vectors[start : start + block_rows] @ vectors.T
        rows = np.arange(block.shape[0])
        block[rows, rows + start] = -np.inf  # never one's own neighbour
        if groups is not None:
            block[groups[start : start + block_rows, None] == groups[None, :]] = -np.inf
        candidates = np.argpartition(-block, k - 1, axis=1)[:, :k]
        for offset, columns in enumerate(candidates):
            scores = block[offset, columns]
            order = np.lexsort((columns, -scores))  # best score first, lower row on ties
            order = order[np.isfinite(scores[order])]
            result.append((start + offset, columns[order].astype(np.int64), scores[order].astype(np.float32)))
    return result

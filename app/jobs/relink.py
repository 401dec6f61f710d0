"""``docgraph relink``: the cross-document IS_SIMILAR links of the whole corpus, from the stored vectors.

At ingest (``similarity_corpus_k``), a pair of documents is linked by the later one's choices: a
stored region never learns of a nearer region that arrived after it, and a re-ingested document
loses the links that the others had chosen into it. Relinking makes the links independent of the
order of ingest: every stored body region takes its ``k`` nearest regions of the other documents
(cosine at least ``min_score``) and each chosen pair is linked both ways, so the result is the
union of every region's choices, what ingesting each document last would give. ``k`` = 0 removes
every cross-document link.

The neighbours are exact cosines over the stored input embeddings, computed in memory in row blocks
(numpy: about 1.5 kB per region, so 100,000 regions take 150 MB), not asked of the vector index: a
stored region's nearest indexed regions are mostly its own document's, which the index cannot
filter out, so it would have to be asked for ever more of them. Every link is chosen before any is
written: a failure while reading leaves the graph as it was. Then each document's outgoing links are
replaced by one query, so a failure while writing leaves each document with either its old links or
its new ones, which running relink again completes. Links inside a document (the GNN's kNN edges)
are never touched.

Relink may run while other processes ingest or delete documents. It notes every document's version
and ingest before it reads and again after it writes; when any differs (a document was stored,
stored again or deleted in between, so some links may point at regions that are gone or miss a new
version's), it relinks again, up to ``MAX_PASSES`` times, then says which documents kept changing.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import asdict, dataclass

import numpy as np
from numpy.typing import NDArray

from docgraph.app.pipeline.similarity import DEFAULT_MIN_SCORE
from docgraph.app.pipeline.stages import ProgressFn
from docgraph.app.stores.base import GraphStore
from docgraph.app.stores.cypher import load
from docgraph.app.stores.stamps import MAX_PASSES, changed_documents, document_stamps
from docgraph.errors import ConfigError, CorpusChangedError
from docgraph.ingest.links.similarity import SCORE_DECIMALS, normalised_rows, rows_per_block, top_k_neighbours
from docgraph.records import FURNITURE_KINDS

# One document's outgoing links, grouped by source region: {source: {target: score}}.
Links = dict[str, dict[str, float]]


@dataclass(frozen=True, slots=True)
class RelinkReport:
    k: int
    min_score: float
    documents: int
    regions: int  # body regions that looked for neighbours
    links_before: int  # cross-document IS_SIMILAR edges, each direction counted
    links_after: int
    passes: int = 1  # more than one when documents changed while relink ran

    def to_json(self) -> dict[str, object]:
        return asdict(self)


def relink_corpus(
    store: GraphStore,
    k: int,
    min_score: float = DEFAULT_MIN_SCORE,
    progress: ProgressFn | None = None,
    max_passes: int = MAX_PASSES,
) -> RelinkReport:
    """Recompute every cross-document IS_SIMILAR link of the store (see the module docstring)."""
    if k < 0:
        raise ConfigError(f"relink needs k >= 0 (0 removes every link between documents), got {k}")
    before = _count_links(store)
    changed: list[str] = []
    stamps = document_stamps(store)
    for done_passes in range(1, max_passes + 1):
        regions = _relink_once(store, sorted(stamps), k, min_score, progress)
        after = document_stamps(store)
        changed = changed_documents(stamps, after)
        if not changed:
            return RelinkReport(k, min_score, len(stamps), regions, before, _count_links(store), done_passes)
        stamps = after  # what the next pass relinks, and checks against when it has written
    raise CorpusChangedError(
        f"documents were stored or deleted during each of {max_passes} relinks ({', '.join(changed)} the last time): "
        "run docgraph relink again when they are in"
    )


def _relink_once(store: GraphStore, doc_ids: list[str], k: int, min_score: float, progress: ProgressFn | None) -> int:
    """One relink of ``doc_ids``; how many regions chose links."""
    outgoing, regions = _choose_links(store, doc_ids, k, min_score, progress)
    query = load("relink_document_similar", store.dialect)
    for done, doc_id in enumerate(doc_ids, start=1):
        store.write(query, {"doc_id": doc_id, "rows": _rows(outgoing.get(doc_id, {}))})
        if progress:
            progress("writing links", done, len(doc_ids))
    return regions


def _choose_links(
    store: GraphStore, doc_ids: list[str], k: int, min_score: float, progress: ProgressFn | None
) -> tuple[dict[str, Links], int]:
    """Every document's outgoing links (by document id), each chosen pair both ways, and how many
    regions chose."""
    keys, documents, vectors = _body_vectors(store, doc_ids if k > 0 else [], progress)
    outgoing: dict[str, Links] = defaultdict(lambda: defaultdict(dict))
    if not keys:
        return outgoing, 0
    for row, columns, scores in top_k_neighbours(vectors, k, rows_per_block(len(keys)), groups=documents):
        source = keys[row]
        for column, score in zip(columns, scores, strict=True):
            if score < min_score:
                break  # best first
            target = keys[int(column)]
            outgoing[doc_ids[documents[row]]][source][target] = float(score)
            outgoing[doc_ids[documents[column]]][target][source] = float(score)
    return outgoing, len(keys)


def _body_vectors(
    store: GraphStore, doc_ids: list[str], progress: ProgressFn | None
) -> tuple[list[str], NDArray[np.int64], NDArray[np.float32]]:
    """Every body region's id, its document (an index into ``doc_ids``) and its unit input embedding."""
    keys: list[str] = []
    documents: list[int] = []
    blocks: dict[str, NDArray[np.float32]] = {}  # per document with embedded regions
    query = load("corpus_region_vectors", store.dialect)
    for index, doc_id in enumerate(doc_ids):
        rows = store.read(query, {"doc_id": doc_id, "furniture": sorted(FURNITURE_KINDS)})
        if rows:
            keys += [str(row["key"]) for row in rows]
            documents += [index] * len(rows)
            blocks[doc_id] = normalised_rows([row["embedding"] for row in rows])
        if progress:
            progress("reading vectors", index + 1, len(doc_ids))
    sizes = {doc_id: block.shape[1] for doc_id, block in blocks.items()}
    if len(set(sizes.values())) > 1:
        found = ", ".join(f"{doc_id} {size}" for doc_id, size in sizes.items())
        raise ConfigError(
            f"documents embedded by different encoders cannot be linked ({found} dimensions): "
            "re-ingest those the configured encoder did not embed"
        )
    vectors = np.concatenate(list(blocks.values())) if blocks else np.zeros((0, 0), np.float32)
    return keys, np.asarray(documents, dtype=np.int64), vectors


def _rows(links: Links) -> list[dict[str, object]]:
    return [
        {"src": source, "dst": target, "score": round(score, SCORE_DECIMALS)}
        for source in sorted(links)
        for target, score in sorted(links[source].items())
    ]


def _count_links(store: GraphStore) -> int:
    rows = store.read(load("count_cross_document_links", store.dialect))
    return int(rows[0]["links"]) if rows else 0

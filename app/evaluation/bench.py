"""``docgraph bench``: ingestion throughput and query latency on a folder of PDFs.

The documents are (re-)ingested through the real pipeline with an empty embedding cache and timed
per stage (or, without ingest, the store is timed as it is); then each retriever variant answers
the same queries over the whole store and inside each query's own document (as ``ask`` and
``ask --doc`` do, graph context included) after one warm-up query, and the latency percentiles are
reported. Queries are the questions of any ``questions.jsonl`` found with the documents, topped
up with sentences drawn (with a fixed seed) from the stored paragraphs.
"""

from __future__ import annotations

import random
import resource
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from docgraph.app.config import Settings, load_settings
from docgraph.app.evaluation.corpus_ingest import ProgressFn, ensure_ingested
from docgraph.app.evaluation.questions import load_questions
from docgraph.app.pipeline.embedding import clear_memory_cache
from docgraph.app.pipeline.reports import IngestReport
from docgraph.app.pipeline.source_files import expand_paths
from docgraph.app.retrieval.base import Retriever
from docgraph.app.retrieval.corpus import Corpus
from docgraph.app.retrieval.registry import EVAL_VARIANTS, make_retriever
from docgraph.app.stores import cypher
from docgraph.app.stores.base import GraphStore
from docgraph.errors import ConfigError
from docgraph.ingest.structure.ids import doc_id_for
from docgraph.models.encoders import TextEncoder

DEFAULT_QUERIES = 100
QUERY_K = 10
PSEUDO_QUERY_WORDS = 12
SEED = 13


@dataclass(slots=True)
class IngestTiming:
    pages: int = 0
    seconds: float = 0.0
    stages: dict[str, float] = field(default_factory=lambda: {"read": 0.0, "graph_write": 0.0, "embed": 0.0})

    def add(self, report: IngestReport) -> None:
        self.pages += report.pages
        self.seconds += report.seconds
        timings = report.timings
        self.stages["read"] += timings.get("read", 0.0)
        # Text embeddings and the GNN's graph-aware embeddings (when the pipeline has that stage).
        self.stages["embed"] += timings.get("embed", 0.0) + timings.get("gnn", 0.0)
        # Building the graph records and writing them are one "graph_write" stage here.
        self.stages["graph_write"] += timings.get("graph", 0.0) + timings.get("graph_write", 0.0)

    def to_json(self) -> dict[str, Any]:
        rate = self.pages / self.seconds if self.seconds > 0 else 0.0
        return {
            "pages": self.pages,
            "seconds": round(self.seconds, 3),
            "pages_per_second": round(rate, 3),
            "stages": {name: round(value, 3) for name, value in self.stages.items()},
        }


@dataclass(slots=True)
class QueryTiming:
    milliseconds: list[float] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        values = np.asarray(self.milliseconds or [0.0])
        return {
            "n": len(self.milliseconds),
            "p50_ms": round(float(np.percentile(values, 50)), 2),
            "p95_ms": round(float(np.percentile(values, 95)), 2),
        }


@dataclass(frozen=True, slots=True)
class BenchQuery:
    text: str
    doc_id: str  # the document it is about, for the in-document timing


@dataclass(slots=True)
class BenchReport:
    ingest: IngestTiming | None  # None: the store was timed as it was
    query: dict[str, QueryTiming]  # variant -> latency asked of the whole store
    query_in_document: dict[str, QueryTiming]  # variant -> latency asked inside the query's document
    peak_rss_mb: int
    stored_pages: int = 0  # pages in the store the queries ran on

    def to_json(self) -> dict[str, Any]:
        return {
            "ingest": self.ingest.to_json() if self.ingest is not None else None,
            "stored_pages": self.stored_pages,
            "query": {name: timing.to_json() for name, timing in self.query.items()},
            "query_in_document": {name: timing.to_json() for name, timing in self.query_in_document.items()},
            "peak_rss_mb": self.peak_rss_mb,
        }


def peak_rss_mb() -> int:
    """Peak resident memory of this process (Linux reports kilobytes)."""
    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)


def bench_queries(paths: Sequence[Path], store: GraphStore, n: int) -> list[BenchQuery]:
    """Up to ``n`` queries: questions found beside the documents (about those benchmarked: a
    question about another is filtered to a document that is not there), then paragraph-sentence
    queries."""
    queries: list[BenchQuery] = []
    benchmarked = {doc_id_for(path.name) for path in expand_paths(paths)}
    folders = dict.fromkeys(p if p.is_dir() else p.parent for p in paths)
    for folder in folders:
        questions_file = folder / "questions.jsonl"
        if questions_file.is_file():
            asked = [BenchQuery(q.question, doc_id_for(q.doc)) for q in load_questions(questions_file)]
            queries += [query for query in asked if query.doc_id in benchmarked]
    if len(queries) < n:
        queries += pseudo_queries(store, n - len(queries))
    return queries[:n]


def pseudo_queries(store: GraphStore, n: int) -> list[BenchQuery]:
    rows = store.read(cypher.load("bench_paragraph_texts", store.dialect))
    rows = [row for row in rows if len(str(row["text"] or "").split()) >= PSEUDO_QUERY_WORDS]
    rng = random.Random(SEED)
    picked = rng.sample(rows, min(n, len(rows)))
    return [BenchQuery(" ".join(str(row["text"]).split()[:PSEUDO_QUERY_WORDS]), str(row["doc_id"])) for row in picked]


def run_bench(
    paths: Sequence[Path],
    store: GraphStore,
    encoder: TextEncoder,
    variants: Sequence[str] | None = None,
    n_queries: int = DEFAULT_QUERIES,
    progress: ProgressFn | None = None,
    settings: Settings | None = None,
    ingest: bool = True,
) -> BenchReport:
    """Re-ingest the PDFs under ``paths`` (files or folders; not when ``ingest`` is off), then time
    ``n_queries`` per variant, asked of the whole store and inside each query's document."""
    settings = settings or load_settings()
    files = expand_paths(paths)
    timing: IngestTiming | None = None
    if ingest:
        if not files:
            raise ConfigError("no PDF found in the given paths")
        timing = _timed_ingest(files, store, encoder, settings, progress)
    queries = bench_queries(paths, store, n_queries)
    if not queries:
        raise ConfigError("the store holds no paragraph to draw queries from, and no questions.jsonl was found")
    names = list(variants or EVAL_VARIANTS)
    corpus = Corpus(store)  # shared indexes, but each variant encodes its own queries
    across: dict[str, QueryTiming] = {}
    inside: dict[str, QueryTiming] = {}
    for done, name in enumerate(names):
        if progress:
            progress(f"query {name}", done, len(names))
        across[name] = _timed(make_retriever(name, store, encoder, corpus), queries, in_document=False)
        # a retriever of its own, so that no query vector is remembered from the run above
        inside[name] = _timed(make_retriever(name, store, encoder, corpus), queries, in_document=True)
    if progress:
        progress("query", len(names), len(names))
    pages = sum(len(document.page_numbers) for document in corpus.documents())
    return BenchReport(timing, across, inside, peak_rss_mb(), pages)


def _timed_ingest(
    files: list[Path], store: GraphStore, encoder: TextEncoder, settings: Settings, progress: ProgressFn | None
) -> IngestTiming:
    clear_memory_cache()  # time real encoding, not a cache left over from earlier in this process
    outcome = ensure_ingested(files, store, encoder, settings, progress, force=True)
    timing = IngestTiming()
    for report in outcome.reports:
        timing.add(report)
    return timing


def _timed(retriever: Retriever, queries: list[BenchQuery], in_document: bool) -> QueryTiming:
    retriever.retrieve("warm up the indexes", QUERY_K)
    timing = QueryTiming()
    for query in queries:
        started = time.perf_counter()
        retriever.retrieve(query.text, QUERY_K, query.doc_id if in_document else None)
        timing.milliseconds.append(1000 * (time.perf_counter() - started))
    return timing

"""Reranker weights and depths tried on one hybrid ranking per question and scope.

Each question is asked of its own document and of the whole store (``docgraph eval --scope both``):
the hybrid's best regions are ranked once, the cross-encoder scores the deepest head once, then the
ranking is fused again under each (weight, depth) (``app.retrieval.rerank.RerankWeights``). A hit
needs the right document and page. Fill the store with ``docgraph eval ... --store URL`` first.

    .venv/bin/python scripts/rerank_grid.py QUESTIONS --store URL [--checkpoint FILE]
        [--weights 0.25,0.5,1,2,100] [--depths 10,20] [--out rows.json]

Prints page R@1/3/5 per setting and scope, overall and by question type. Choose settings on tuning
questions only, never on a held-out set.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import defaultdict
from pathlib import Path

from docgraph.app.config import load_settings
from docgraph.app.evaluation.metrics import CUTOFFS, QuestionOutcome
from docgraph.app.evaluation.questions import load_questions
from docgraph.app.pipeline.embedding import configured_encoder
from docgraph.app.retrieval.base import ScoredRegion
from docgraph.app.retrieval.corpus import Corpus
from docgraph.app.retrieval.expansion import expand
from docgraph.app.retrieval.gnn import GnnRetriever
from docgraph.app.retrieval.hits import REGIONS_FOR_PAGES, QueryVectors
from docgraph.app.retrieval.hybrid import HybridRetriever
from docgraph.app.retrieval.pages import rank_pages
from docgraph.app.retrieval.rerank import DEFAULT_RERANKER, load_reranker, passage_text, rerank_terms
from docgraph.app.stores.factory import open_store
from docgraph.app.stores.schema import GNN_PROPERTY
from docgraph.ingest.structure.ids import doc_id_for


def fused(hits: list[ScoredRegion], logits: list[float], weight: float, depth: int) -> list[tuple[str, int]]:
    import numpy as np

    scores = [hit.score for hit in hits]
    for i, term in enumerate(rerank_terms(np.asarray(logits[:depth]), weight)):
        scores[i] += term
    order = sorted(range(len(hits)), key=lambda i: -scores[i])
    reranked = [
        ScoredRegion(hits[i].region_id, hits[i].doc_id, hits[i].page, (), hits[i].kind, "", scores[i]) for i in order
    ]
    return [(page.doc_id, page.page) for page in rank_pages(reranked, max(CUTOFFS), 0.0)]


def numbers(text: str, kind: type) -> list:  # type: ignore[type-arg]
    return [kind(part) for part in text.split(",") if part.strip()]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("questions", type=Path)
    parser.add_argument("--store", required=True)
    parser.add_argument("--checkpoint", type=Path, default=DEFAULT_RERANKER)
    parser.add_argument("--weights", default="0.25,0.5,1,2,100")
    parser.add_argument("--depths", default="10,20")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    settings = load_settings()
    store = open_store(settings, args.store)
    corpus = Corpus(store)
    vectors = QueryVectors(configured_encoder(settings))
    hybrid = HybridRetriever(store, corpus, vectors, gnn=GnnRetriever(store, corpus, vectors, prop=GNN_PROPERTY))
    model = load_reranker(args.checkpoint)
    depths, weights = numbers(args.depths, int), numbers(args.weights, float)
    tried = [("hybrid", 0.0, 0)] + [(f"rerank {w:g} x top {d}", w, d) for d in depths for w in weights]
    outcomes: dict[tuple[str, str], list[QuestionOutcome]] = defaultdict(list)
    seconds: list[float] = []
    for question in load_questions(args.questions):
        doc_id = doc_id_for(question.doc)
        for scope, within in (("document", doc_id), ("corpus", None)):
            hits = hybrid.scored(question.question, REGIONS_FOR_PAGES, within)
            head = hits[: max(depths)]
            started = time.perf_counter()
            expand(store, head)
            logits = model.score(question.question, [passage_text(corpus, hit) for hit in head]).tolist()
            seconds.append(time.perf_counter() - started)
            for name, weight, depth in tried:
                pages = fused(hits, logits, weight, depth)
                outcome = QuestionOutcome(question.id, question.type, doc_id, question.pages, tuple(pages))
                outcomes[(name, scope)].append(outcome)
    rows = {f"{name} | {scope}": summary(found) for (name, scope), found in outcomes.items()}
    for name, row in rows.items():
        overall = " ".join(f"{100 * row['all'][f'recall@{k}']:6.1f}" for k in CUTOFFS)
        kinds = "  ".join(f"{kind} {100 * values['recall@1']:.0f}" for kind, values in row.items() if kind != "all")
        print(f"{name:<34} {overall}   R@1 by type: {kinds}")
    seconds.sort()
    print(
        f"rerank of top {max(depths)}: p50 {1000 * seconds[len(seconds) // 2]:.0f} ms, "
        f"p95 {1000 * seconds[int(0.95 * (len(seconds) - 1))]:.0f} ms"
    )
    if args.out:
        args.out.write_text(json.dumps(rows, indent=1))
    return 0


def summary(found: list[QuestionOutcome]) -> dict[str, dict[str, float]]:
    groups: dict[str, list[QuestionOutcome]] = defaultdict(list)
    for outcome in found:
        groups["all"].append(outcome)
        groups[outcome.type].append(outcome)
    return {
        kind: {f"recall@{k}": round(sum(o.hit(k) for o in group) / len(group), 4) for k in CUTOFFS}
        | {"questions": len(group)}
        for kind, group in groups.items()
    }


if __name__ == "__main__":
    raise SystemExit(main())

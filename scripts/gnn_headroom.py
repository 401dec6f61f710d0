"""How far could any GNN signal move the hybrid's Recall@1? An upper bound per question type.

Each question's hybrid candidates are gathered once from a store that ``docgraph eval`` filled (the
documents ingested with their GNN vectors), then fused again five ways:

- ``no-gnn``: the hybrid without the GNN signal (as the eval variant),
- ``hybrid``: as shipped (no GNN term for a question whose references are followed),
- ``hybrid-gnn-on-refs``: the GNN term kept for those questions too,
- ``gold-max``: every candidate on a gold page gets the best GNN cosine among the candidates, the
  others keep theirs: a GNN that makes the gold regions its best match and changes nothing else,
- ``perfect``: gold-page candidates get the best GNN cosine, every other candidate none.

A question that ``gold-max`` does not win cannot be won by raising the gold regions' GNN vectors:
the GNN would have to lower the competing regions' cosines too. The GNN term keeps its weight (1).

    .venv/bin/python scripts/gnn_headroom.py --store 'falkordb-local://HOME?graph=dev' \\
        ../shared/bench/dev/questions.jsonl --out headroom-dev.json

Prints R@1 per variant and question type; ``--out`` keeps each question's outcome (JSON).
"""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from docgraph.app.config import load_settings
from docgraph.app.evaluation.questions import Question, load_questions
from docgraph.app.pipeline.embedding import configured_encoder
from docgraph.app.retrieval.corpus import Corpus
from docgraph.app.retrieval.gnn import GnnRetriever
from docgraph.app.retrieval.hits import REGIONS_FOR_PAGES, QueryVectors
from docgraph.app.retrieval.hybrid import Candidate, HybridRetriever, HybridWeights
from docgraph.app.retrieval.pages import rank_pages
from docgraph.app.stores.factory import open_store
from docgraph.app.stores.schema import GNN_PROPERTY
from docgraph.ingest.structure.ids import doc_id_for

FUSIONS = ("no-gnn", "hybrid", "hybrid-gnn-on-refs", "gold-max", "perfect")
TYPES = ("all", "context", "cross_page", "reference", "table", "figure", "local")


def first_page(
    hybrid: HybridRetriever, candidates: list[Candidate], weights: HybridWeights, question: str, following: bool
) -> int | None:
    """The page the fused candidates rank first, as ``HybridRetriever.rank_pages`` ranks pages."""
    hits = hybrid.ranked(candidates, question, weights, following)
    pages = rank_pages(hits[:REGIONS_FOR_PAGES], 1, weights.page_bonus)
    return pages[0].page if pages else None


def with_oracle_gnn(candidates: list[Candidate], gold: set[int], perfect: bool) -> list[Candidate]:
    """The candidates with the GNN cosine of those on a gold page raised to the best one; with
    ``perfect`` every other candidate's set to 0."""
    best = max((c.raw["gnn"] for c in candidates), default=0.0)
    changed = []
    for candidate in candidates:
        raw = dict(candidate.raw)
        if candidate.info.page in gold:
            raw["gnn"] = best
        elif perfect:
            raw["gnn"] = 0.0
        changed.append(Candidate(candidate.info, raw))
    return changed


def outcomes(hybrid: HybridRetriever, plain: HybridRetriever, question: Question) -> dict[str, bool]:
    """Whether each fusion ranks a gold page first for ``question``."""
    text, gold, doc_id = question.question, set(question.pages), doc_id_for(question.doc)
    following = hybrid.follows_references(text)  # gather leaves the page lead-in out for these
    weights = hybrid.weights
    without = replace(weights, gnn=0.0)
    gathered = hybrid.gather(text, doc_id, weights)
    pages = {
        "no-gnn": first_page(hybrid, plain.gather(text, doc_id, without), without, text, following),
        "hybrid": first_page(hybrid, gathered, without if following else weights, text, following),
        "hybrid-gnn-on-refs": first_page(hybrid, gathered, weights, text, following),
        "gold-max": first_page(hybrid, with_oracle_gnn(gathered, gold, False), weights, text, following),
        "perfect": first_page(hybrid, with_oracle_gnn(gathered, gold, True), weights, text, following),
    }
    return {name: page in gold for name, page in pages.items()}


def table(rows: list[dict[str, Any]]) -> str:
    by_type = {t: [r for r in rows if t in ("all", r["type"])] for t in TYPES}
    lines = [
        f"{'R@1':<20}" + "".join(f"{t[:10]:>11}" for t in TYPES),
        f"{'questions':<20}" + "".join(f"{len(by_type[t]):>11}" for t in TYPES),
    ]
    for name in FUSIONS:
        cells = [f"{100 * sum(r[name] for r in c) / len(c):>11.1f}" if c else f"{'-':>11}" for c in by_type.values()]
        lines.append(f"{name:<20}" + "".join(cells))
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("questions", type=Path)
    parser.add_argument("--store", required=True, help="the store URL docgraph eval filled for these questions")
    parser.add_argument("--out", type=Path, help="write each question's outcomes here (JSON)")
    args = parser.parse_args()
    settings = load_settings()
    store = open_store(settings, args.store)
    corpus = Corpus(store)
    vectors = QueryVectors(configured_encoder(settings))
    hybrid = HybridRetriever(store, corpus, vectors, gnn=GnnRetriever(store, corpus, vectors, prop=GNN_PROPERTY))
    plain = HybridRetriever(store, corpus, vectors, gnn=None)
    rows = [{"id": q.id, "type": q.type, **outcomes(hybrid, plain, q)} for q in load_questions(args.questions)]
    print(table(rows))
    if args.out:
        args.out.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

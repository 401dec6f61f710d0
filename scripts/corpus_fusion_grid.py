"""Whole-store fusion settings of the hybrid, tried on one gathering per question.

Each question is asked of the whole store (``docgraph eval --scope corpus``): its hybrid candidates
are gathered once, then fused again under each setting of the document term (``HybridWeights.document``
and ``document_regions``) and, for comparison, with each document's lexical signals on its own scale
(``one_scale`` off) and with section-title weights (``--sections``), both gathered separately. A hit
needs the right document and page. Fill the store with ``docgraph eval ... --scope corpus --store URL``
first.

    .venv/bin/python scripts/corpus_fusion_grid.py QUESTIONS --store URL [--weights 0,0.25,0.5,1]
        [--regions 1,3,5,10] [--sections 0.25,0.5,1] [--out rows.json]

Prints page R@1/3/5 per setting. Choose settings on tuning questions only, never on a held-out set.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from pathlib import Path

from docgraph.app.config import load_settings
from docgraph.app.evaluation.metrics import CUTOFFS, QuestionOutcome
from docgraph.app.evaluation.questions import load_questions
from docgraph.app.pipeline.embedding import configured_encoder
from docgraph.app.retrieval.corpus import Corpus
from docgraph.app.retrieval.gnn import GnnRetriever
from docgraph.app.retrieval.hits import REGIONS_FOR_PAGES, QueryVectors
from docgraph.app.retrieval.hybrid import Candidate, HybridRetriever, HybridWeights
from docgraph.app.retrieval.pages import rank_pages
from docgraph.app.stores.factory import open_store
from docgraph.app.stores.schema import GNN_PROPERTY
from docgraph.ingest.structure.ids import doc_id_for


def ranked_pages(
    hybrid: HybridRetriever, candidates: list[Candidate], weights: HybridWeights, text: str, following: bool
) -> tuple[tuple[str, int], ...]:
    hits = hybrid.ranked(candidates, text, weights, following)[:REGIONS_FOR_PAGES]
    return tuple((page.doc_id, page.page) for page in rank_pages(hits, max(CUTOFFS), weights.page_bonus))


def numbers(text: str, kind: type) -> list:  # type: ignore[type-arg]
    return [kind(part) for part in text.split(",") if part.strip()]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("questions", type=Path)
    parser.add_argument("--store", required=True)
    parser.add_argument("--weights", default="0,0.25,0.5,0.75,1,1.5")
    parser.add_argument("--regions", default="1,3,5,10")
    parser.add_argument("--sections", default="", help="section-title weights to try too (gathered again)")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    settings = load_settings()
    store = open_store(settings, args.store)
    corpus = Corpus(store)
    vectors = QueryVectors(configured_encoder(settings))
    hybrid = HybridRetriever(store, corpus, vectors, gnn=GnnRetriever(store, corpus, vectors, prop=GNN_PROPERTY))
    settings_tried = [("per-document scale", 0.0, 0)] + [
        (f"document {w:g} x best {m}", w, m)
        for w in numbers(args.weights, float)
        for m in numbers(args.regions, int)
        if w or m == 1
    ]
    settings_tried += [(f"section {w:g}", w, -1) for w in numbers(args.sections, float)]
    hits: dict[str, list[QuestionOutcome]] = {name: [] for name, _, _ in settings_tried}
    for question in load_questions(args.questions):
        text, doc_id = question.question, doc_id_for(question.doc)
        following = hybrid.follows_references(text)
        base = replace(hybrid.weights, gnn=0.0) if following else hybrid.weights
        gathered = hybrid.gather(text, None, base)
        for name, weight, regions in settings_tried:
            if name == "per-document scale" or regions < 0:
                own = replace(base, one_scale=False) if regions == 0 else replace(base, section=weight)
                pages = ranked_pages(hybrid, hybrid.gather(text, None, own), own, text, following)
            else:
                tried = replace(base, document=weight, document_regions=max(1, regions))
                pages = ranked_pages(hybrid, gathered, tried, text, following)
            hits[name].append(QuestionOutcome(question.id, question.type, doc_id, question.pages, pages))
    rows = {
        name: {f"recall@{k}": round(sum(o.hit(k) for o in found) / len(found), 4) for k in CUTOFFS}
        | {"document@1": round(sum(o.right_document() for o in found) / len(found), 4)}
        for name, found in hits.items()
    }
    for name, row in rows.items():
        print(f"{name:<28} " + " ".join(f"{100 * value:6.1f}" for value in row.values()))
    if args.out:
        args.out.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

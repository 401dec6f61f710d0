"""Choose and check the abstention bar (``app.retrieval.relevance.AbstentionBar``).

Each question is asked of the whole store as ``docgraph ask`` asks it (the hybrid, 8 hits with
their context) and its evidence measured. ``--answerable`` files hold real questions (they should
clear the bar), ``--unanswerable`` files questions the store cannot answer (nonsense, out of domain).

    # choose: the bar abstaining on most unanswerable questions while at most --max-false of the
    # answerable ones fall below it
    .venv/bin/python scripts/abstention_bar.py --store URL --answerable TRAIN.jsonl \
        --unanswerable CALIBRATION.jsonl --choose [--max-false 0.01]
    # check a bar (the shipped one by default) on other questions
    .venv/bin/python scripts/abstention_bar.py --store URL --answerable DEV.jsonl \
        --unanswerable HELDOUT.jsonl [--bar SIMILARITY,COVERAGE,KNOWN]

Prints the rates overall and by question type; ``--out`` keeps every question's measures.
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from itertools import product
from pathlib import Path

from docgraph.app.config import load_settings
from docgraph.app.pipeline.embedding import configured_encoder
from docgraph.app.retrieval.registry import make_retriever
from docgraph.app.retrieval.relevance import AbstentionBar, Evidence, dense_part, measure
from docgraph.app.stores.factory import open_store

Row = dict[str, object]


def measured(path: Path, retriever: object, answerable: bool) -> list[Row]:
    dense = dense_part(retriever)
    assert dense is not None
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        question = json.loads(line)
        hits = retriever.retrieve(question["question"], 8)  # type: ignore[attr-defined]
        evidence = measure(question["question"], hits, dense)
        rows.append(
            {"id": question["id"], "type": question.get("type", "?"), "answerable": answerable} | evidence.to_json()
        )
    return rows


def abstains(row: Row, bar: AbstentionBar) -> bool:
    values = (float(row[name]) for name in ("similarity", "coverage", "known"))  # type: ignore[arg-type]
    return not bar.cleared_by(Evidence(*values))


def rates(rows: list[Row], bar: AbstentionBar) -> dict[str, dict[str, float]]:
    groups: dict[str, list[Row]] = defaultdict(list)
    for row in rows:
        side = "answerable" if row["answerable"] else "unanswerable"
        groups[side].append(row)
        groups[f"{side} {row['type']}"].append(row)
    return {
        name: {"questions": len(group), "abstained": round(100 * sum(abstains(r, bar) for r in group) / len(group), 1)}
        for name, group in sorted(groups.items())
    }


def choose(rows: list[Row], max_false: float) -> AbstentionBar:
    """The bar abstaining on most unanswerable questions with false abstention at most ``max_false``
    (ties: the lowest bar, which leaves the most room for answerable questions unlike these)."""
    answerable = [r for r in rows if r["answerable"]]
    unanswerable = [r for r in rows if not r["answerable"]]
    best: tuple[float, float, float, float, AbstentionBar] | None = None
    grid = product([x / 100 for x in range(20, 71)], [x / 20 for x in range(4, 21)], [x / 10 for x in range(11)])
    for similarity, coverage, share in grid:
        bar = AbstentionBar(similarity, coverage, share)
        false = sum(abstains(r, bar) for r in answerable) / len(answerable)
        if false > max_false:
            continue
        caught = sum(abstains(r, bar) for r in unanswerable) / len(unanswerable)
        key = (caught, -similarity, -coverage, -share, bar)
        if best is None or key[:4] > best[:4]:
            best = key
    assert best is not None, "no bar keeps false abstention that low"
    return best[4]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", required=True)
    parser.add_argument("--answerable", type=Path, action="append", default=[])
    parser.add_argument("--unanswerable", type=Path, action="append", default=[])
    parser.add_argument("--choose", action="store_true")
    parser.add_argument("--max-false", type=float, default=0.01)
    parser.add_argument("--bar", default="")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    settings = load_settings()
    store = open_store(settings, args.store)
    retriever = make_retriever("hybrid", store, configured_encoder(settings))
    rows = [row for path in args.answerable for row in measured(path, retriever, True)]
    rows += [row for path in args.unanswerable for row in measured(path, retriever, False)]
    if args.choose:
        bar = choose(rows, args.max_false)
    elif args.bar:
        similarity, coverage, share = (float(x) for x in args.bar.split(","))
        bar = AbstentionBar(similarity, coverage, share)
    else:
        bar = AbstentionBar()
    print(f"bar: coverage >= {bar.coverage}, or similarity >= {bar.similarity} with known >= {bar.known}")
    for name, row in rates(rows, bar).items():
        print(f"  {name:<34} {row['questions']:>4} questions, abstained on {row['abstained']:5.1f} %")
    if args.out:
        args.out.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

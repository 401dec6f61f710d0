"""Ask "What does <label> show?" of every figure and table label in the configured store.

For each label captioned once in its document, the hybrid is asked per document and across the
store; a hit is the caption or what it captions (a table with its parts over page breaks). Prints
how many came first in each scope and where the missed ones ranked.

    DOCGRAPH_HOME=H .venv/bin/python scripts/label_questions.py
"""

from __future__ import annotations

import json

import docgraph
from docgraph.app.retrieval.corpus import load_document


def main() -> None:
    with docgraph.open_store() as store:
        retriever = docgraph.retriever(store)
        documents = sorted(str(row["d"]) for row in store.read("MATCH (d:Document) RETURN d.doc_id AS d"))
        first = {"document": 0, "store": 0}
        asked, missed = 0, []
        for doc_id in documents:
            for (kind, number), places in load_document(store, doc_id, "").captions.by_label.items():
                if len(places) != 1:
                    continue
                label = f"{kind.title()} {number.upper() if number.isalpha() else number}"
                asked += 1
                for scope, within in (("document", doc_id), ("store", None)):
                    hits = retriever.retrieve(f"What does {label} show?", 10, within)
                    rank = next((i for i, hit in enumerate(hits) if hit.region_id in places[0]), None)
                    first[scope] += rank == 0
                    if rank != 0:
                        missed.append({"doc_id": doc_id, "label": label, "scope": scope, "rank": rank})
        print(json.dumps({"labels": asked, "first": first, "missed": missed}, indent=1))


if __name__ == "__main__":
    main()

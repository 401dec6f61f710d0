"""docgraph as a Python library: open a store, ingest, ask (the calls README.md shows)."""

from __future__ import annotations

from pathlib import Path

import docgraph
from tests.conftest import fresh_graph_name, local_settings

SAMPLE = Path(__file__).resolve().parent.parent / "samples" / "docgraph-sample.pdf"


def test_open_ingest_and_ask_through_the_public_api(local_home: Path) -> None:
    settings = local_settings(local_home, fresh_graph_name())
    with docgraph.open_store(settings=settings) as store:
        reports = docgraph.ingest_pdfs([SAMPLE], store, settings)
        assert [(r.doc_id, r.status) for r in reports] == [("docgraph-sample", "ingested")]
        answer = docgraph.ask("When are the penguins fed?", store, settings)
        assert "10:30" in answer.answer and answer.citations[0].doc_id == "docgraph-sample"
        reused = docgraph.retriever(store, settings=settings)
        for question in ("When are the penguins fed?", "How large is the seal pool?"):
            again = docgraph.ask(question, store, settings, using=reused)
            alone = docgraph.ask(question, store, settings)
            assert again.answer == alone.answer and again.citations == alone.citations

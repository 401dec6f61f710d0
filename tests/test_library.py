"""docgraph as a Python library: open a store, ingest, ask (the calls README.md shows)."""

from __future__ import annotations

from pathlib import Path

import pytest

import docgraph
from docgraph.app.retrieval.registry import RETRIEVER_NAMES
from docgraph.app.stores.base import GraphStore
from docgraph.errors import QuestionError, StoreError
from tests.conftest import fresh_graph_name, local_settings

SAMPLE = Path(__file__).resolve().parent.parent / "samples" / "docgraph-sample.pdf"


def test_open_ingest_and_ask_through_the_public_api(local_home: Path) -> None:
    settings = local_settings(local_home, fresh_graph_name())
    with docgraph.open_store(settings=settings) as store:
        reports = docgraph.ingest_pdfs([SAMPLE], store, settings)
        assert [(r.doc_id, r.status) for r in reports] == [("docgraph-sample", "ingested")]
        answer = docgraph.ask("When are the penguins fed?", store, settings)
        assert "10:30" in answer.answer and answer.citations[0].doc_id == "docgraph-sample"
        assert isinstance(answer.citations[0], docgraph.Citation)  # the type of what ask returns is public
        reused = docgraph.retriever(store, settings=settings)
        for question in ("When are the penguins fed?", "How large is the seal pool?"):
            again = docgraph.ask(question, store, settings, using=reused)
            alone = docgraph.ask(question, store, settings)
            assert again.answer == alone.answer and again.citations == alone.citations
        for name in RETRIEVER_NAMES:  # retrieve("", 3) gave 3 hits, and k=-1 nearly every candidate (19)
            chosen = docgraph.retriever(store, name, settings)
            for query, k in (("", 3), ("   ", 3), ("penguins", 0), ("penguins", -1)):
                with pytest.raises(QuestionError):
                    chosen.retrieve(query, k)
            with pytest.raises(QuestionError):
                chosen.rank_pages("penguins", -1)
    with pytest.raises(StoreError, match="is closed"):  # "closed on exit": it quietly connected again
        store.read("MATCH (d:Document) RETURN count(d) AS n")
    with pytest.raises(StoreError, match="is closed"):
        docgraph.ask("When are the penguins fed?", store, settings)
    store.close()  # closing again is no error


def one_page_pdf(path: Path, text: str) -> Path:
    import fitz

    path.parent.mkdir(parents=True, exist_ok=True)
    with fitz.open() as pdf:
        pdf.new_page().insert_text((72, 72), text)
        pdf.save(path)
    return path


def stored_source(store: GraphStore) -> str:
    (row,) = store.read("MATCH (d:Document) RETURN d.source_path AS source")
    return str(row["source"])


def test_ingest_pdfs_refuses_a_name_the_cli_refuses(local_home: Path, tmp_path: Path) -> None:
    """The library replaced a stored document with any other file of the same name, and of two
    such files in one call kept the second, where the CLI refuses both."""
    settings = local_settings(local_home, fresh_graph_name())
    first = one_page_pdf(tmp_path / "a" / "manual.pdf", "The first manual.")
    other = one_page_pdf(tmp_path / "b" / "manual.pdf", "Another manual altogether.")
    heard: list[tuple[str, str, int, int]] = []

    def progress(path: Path, stage: str, done: int, total: int) -> None:
        heard.append((path.name, stage, done, total))

    with docgraph.open_store(settings=settings) as store:
        # one path as a string: that file (it was read letter by letter, "." and "/" as folders)
        ingested = docgraph.ingest_pdfs(str(first), store, settings, embed=False, progress=progress)
        assert [(r.path, r.status) for r in ingested] == [(first, "ingested")]
        assert heard[0] == ("manual.pdf", "read", 0, 0) and heard[-1] == ("manual.pdf", "ingested", 1, 1)
        heard.clear()
        refused = docgraph.ingest_pdfs([other], store, settings, embed=False, progress=progress)
        assert refused[0].status == "failed" and "pass --replace" in refused[0].error
        assert heard == [("manual.pdf", "failed", 1, 1)]  # a refused file ends too (no event before)
        assert stored_source(store) == str(first)
        clashing = docgraph.ingest_pdfs([first, other], store, settings, embed=False)  # neither is written
        assert [r.status for r in clashing] == ["failed", "failed"] and "one replacing the other" in clashing[0].error
        assert stored_source(store) == str(first)
        replaced = docgraph.ingest_pdfs([other], store, settings, embed=False, replace=True)
        assert replaced[0].status == "replaced"
        assert stored_source(store) == str(other)

"""docgraph: layout-aware document-graph RAG on a graph database.

The package maps the repository's folders under one import root: ``docgraph.ingest`` (PDF ->
regions -> graph records), ``docgraph.models`` (encoders, GNN, layout detector), ``docgraph.app``
(stores, pipeline, retrieval, LLM, API, CLI) and ``docgraph.ui``. Below them all sit
``docgraph.errors`` (one error tree) and ``docgraph.records`` (the graph records every layer shares).

The public API is loaded on first use, so that ``import docgraph`` stays cheap::

    import docgraph

    with docgraph.open_store() as store:
        docgraph.ingest_pdfs(["manual.pdf"], store)
        print(docgraph.ask("How do I reset it?", store).answer)
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from docgraph.app.config import Settings, load_settings
    from docgraph.app.integrations.langchain import DocgraphCypherTool, DocgraphRetriever
    from docgraph.app.library import ask, ingest_pdfs, open_store, retriever
    from docgraph.app.llm.answer import AnswerResult
    from docgraph.app.llm.citations import Citation
    from docgraph.app.pipeline.reports import IngestReport
    from docgraph.errors import DocgraphError

# public name -> module that defines it
_EXPORTS = {
    "Settings": "docgraph.app.config",
    "load_settings": "docgraph.app.config",
    "open_store": "docgraph.app.library",
    "ingest_pdfs": "docgraph.app.library",
    "ask": "docgraph.app.library",
    "retriever": "docgraph.app.library",
    "AnswerResult": "docgraph.app.llm.answer",
    "Citation": "docgraph.app.llm.citations",  # the type of AnswerResult.citations
    "IngestReport": "docgraph.app.pipeline.reports",
    "DocgraphRetriever": "docgraph.app.integrations.langchain",  # needs the langchain extra
    "DocgraphCypherTool": "docgraph.app.integrations.langchain",
    "DocgraphError": "docgraph.errors",
}

__all__ = [
    "AnswerResult",
    "Citation",
    "DocgraphCypherTool",
    "DocgraphError",
    "DocgraphRetriever",
    "IngestReport",
    "Settings",
    "ask",
    "ingest_pdfs",
    "load_settings",
    "open_store",
    "retriever",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'docgraph' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])

"""docgraph inside LangChain: a retriever over the document graph and a read-only graph-query tool.

Install with ``pip install docgraph[langchain]`` (``langchain-core`` only)::

    from docgraph.app.integrations.langchain import DocgraphRetriever, DocgraphCypherTool

    retriever = DocgraphRetriever.from_settings(variant="hybrid", k=6)
    docs = retriever.invoke("When are the penguins fed?")
    fewer = retriever.invoke("When are the penguins fed?", k=2, doc_id="zoo-manual")  # this call only
    docs[0].metadata["section_path"], docs[0].metadata["bbox"]

Each ``Document`` holds one region: ``page_content`` is its section path, its text and its graph
context (caption, what it refers to, its continuation across a page break); ``metadata`` says where
it is (doc, page, bbox, kind, section path, region id) and how it scored.

``DocgraphCypherTool`` turns a question into a Cypher query and runs it only through the store's
read-only path (see :mod:`app.llm.text2cypher`); a query that would write is refused and the refusal
comes back as the tool's output, so an agent can rephrase.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from langchain_core.callbacks import (
    AsyncCallbackManagerForRetrieverRun,
    CallbackManagerForRetrieverRun,
    CallbackManagerForToolRun,
)
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables.config import run_in_executor
from langchain_core.tools import BaseTool, ToolException
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError

from docgraph.app.config import Settings, load_settings, setting_errors
from docgraph.app.integrations.regions import RegionResult, retrieve_regions
from docgraph.app.jobs.documents import find_document
from docgraph.app.llm.service import text2cypher
from docgraph.app.pipeline.embedding import configured_encoder
from docgraph.app.retrieval.base import Retriever
from docgraph.app.retrieval.registry import DEFAULT_RETRIEVER, make_retriever
from docgraph.app.stores.base import GraphStore
from docgraph.app.stores.factory import apply_schema_if_allowed, open_store
from docgraph.errors import ConfigError, DocgraphError
from docgraph.models.encoders import TextEncoder


def open_configured_store(settings: Settings) -> GraphStore:
    """The store ``settings`` name, schema applied (the retriever needs its indexes) where its
    account may."""
    return apply_schema_if_allowed(open_store(settings))


class DocgraphRetriever(BaseRetriever):
    """Regions of the stored documents for a query, as LangChain ``Document``\\ s, best first."""

    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")  # a misspelt field was ignored

    store: GraphStore
    encoder: TextEncoder
    variant: str = Field(default=DEFAULT_RETRIEVER, description="Retriever variant (see `docgraph ask --help`)")
    k: int = Field(default=8, gt=0, description="How many regions to return")
    doc_id: str | None = Field(default=None, description="Only this document's regions")
    with_context: bool = Field(default=True, description="Append each region's graph context to its text")
    with_section: bool = Field(default=True, description="Put the section path above each region's text")

    _retriever: Retriever | None = PrivateAttr(default=None)
    _built_for: str = PrivateAttr(default="")
    _settings: Settings | None = PrivateAttr(default=None)  # from_settings's: they name the reranker

    @classmethod
    def from_settings(cls, settings: Settings | None = None, **fields: Any) -> DocgraphRetriever:
        """A retriever over the configured store (``DOCGRAPH_*`` environment, ``docgraph.toml``).

        The store it opens stays open for the retriever's life; call :meth:`close` when done.
        """
        settings = settings or load_settings()
        store = open_configured_store(settings)
        with _closed_if_refused(store):
            made = cls(store=store, encoder=configured_encoder(settings), **fields)
        made._settings = settings
        return made

    def close(self) -> None:
        self.store.close()

    def regions(self, query: str, k: int | None = None, doc_id: str | None = None) -> list[RegionResult]:
        """The hits behind :meth:`invoke`, as docgraph objects; ``k`` and ``doc_id`` replace the
        fields for this call (``doc_id`` may be a file name; an unknown document is a
        ``DocumentNotFoundError``)."""
        wanted = doc_id if doc_id is not None else self.doc_id
        doc = str(find_document(self.store, wanted)["doc_id"]) if wanted else None
        return retrieve_regions(
            self.store,
            self._variant_retriever(),
            query,
            self.k if k is None else k,
            doc,
            with_context=self.with_context,
        )

    def _get_relevant_documents(
        self,
        query: str,
        *,
        run_manager: CallbackManagerForRetrieverRun,
        k: int | None = None,
        doc_id: str | None = None,
    ) -> list[Document]:
        """``invoke(query, k=3, doc_id="manual")`` narrows one call, as LangChain's own retrievers'
        search arguments do; a misspelt argument is a ``TypeError``."""
        found = self.regions(query, k, doc_id)
        return [region_document(result, self.variant, self.with_section) for result in found]

    async def _aget_relevant_documents(
        self,
        query: str,
        *,
        run_manager: AsyncCallbackManagerForRetrieverRun,
        k: int | None = None,
        doc_id: str | None = None,
    ) -> list[Document]:
        # LangChain's default runs the sync method without the call's arguments.
        sync = run_manager.get_sync()
        return await run_in_executor(None, self._get_relevant_documents, query, run_manager=sync, k=k, doc_id=doc_id)

    def _variant_retriever(self) -> Retriever:
        # Built once and kept: it caches the corpus view and query vectors between calls.
        if self._retriever is None or self._built_for != self.variant:
            self._retriever = make_retriever(self.variant, self.store, self.encoder, settings=self._settings)
            self._built_for = self.variant
        return self._retriever


def region_document(result: RegionResult, variant: str, with_section: bool = True) -> Document:
    hit = result.hit
    metadata: dict[str, Any] = {
        "source": hit.doc_id,
        "doc_id": hit.doc_id,
        "page": hit.page,
        "bbox": list(hit.bbox),
        "kind": hit.kind,
        "section_path": list(result.section_path),
        "region_id": hit.region_id,
        "score": hit.score,
        "scores": dict(hit.signals),
        "retriever": variant,
        "context": [
            {"region_id": c.region_id, "relation": c.relation, "page": c.page, "kind": c.kind} for c in hit.context
        ],
    }
    return Document(id=hit.region_id, page_content=result.page_content(with_section), metadata=metadata)


class CypherToolInput(BaseModel):
    question: str = Field(
        description="A question about the documents' structure or contents, in plain language "
        "(e.g. 'How many tables does each document have?')"
    )


class DocgraphCypherTool(BaseTool):
    """Answers structural questions about the stored documents with a generated, read-only Cypher query.

    Needs an LLM endpoint (``OPENAI_BASE_URL``, ``OPENAI_API_KEY``, ``DOCGRAPH_LLM_MODEL``). The
    output is JSON: the query as run, its rows, and whether the rows were cut off at the row limit.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True, extra="forbid")  # a misspelt field was ignored

    name: str = "docgraph_graph_query"
    description: str = (
        "Query the document graph (documents, pages, sections, regions such as tables, figures and "
        "captions, and the links between them) with a read-only Cypher query generated from a "
        "question. Use it for counting, listing and structural questions. Input: the question."
    )
    args_schema: type[BaseModel] = CypherToolInput
    handle_tool_error: bool = True  # a refusal or failure is the tool's answer, not a crash of the agent

    store: GraphStore
    settings: Settings

    @classmethod
    def from_settings(cls, settings: Settings | None = None, **fields: Any) -> DocgraphCypherTool:
        """A tool over the configured store, which stays open for the tool's life: call :meth:`close`."""
        settings = settings or load_settings()
        store = open_configured_store(settings)
        with _closed_if_refused(store):
            return cls(store=store, settings=settings, **fields)

    def close(self) -> None:
        self.store.close()

    def _run(self, question: str, run_manager: CallbackManagerForToolRun | None = None) -> str:
        try:
            result = text2cypher(question, self.store, self.settings, run=True)
        except DocgraphError as error:
            raise ToolException(str(error)) from error
        return json.dumps(
            {"cypher": result.cypher, "rows": result.rows, "truncated": result.truncated},
            default=str,
            ensure_ascii=False,
        )


@contextmanager
def _closed_if_refused(store: GraphStore) -> Iterator[None]:
    """Close ``store`` when the object meant to own it is refused (a bad field: a ``ConfigError``)."""
    try:
        yield
    except ValidationError as error:
        store.close()
        raise ConfigError(f"bad field: {setting_errors(error, unknown='no such field')}") from error
    except BaseException:
        store.close()
        raise

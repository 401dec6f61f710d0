"""``docgraph mcp``: retrieve, ask, read-only Cypher, the schema and the document list as MCP tools.

The tools take their arguments with the HTTP API's limits (k, text length, parameter names and values).

Over stdio for a local agent, or streamable HTTP for agents elsewhere; every tool only reads, so a
reader's key is enough. Over HTTP the API's checks apply (Host allow-list, Origin, Bearer keys);
over stdio, once any key exists, ``DOCGRAPH_API_KEY`` must hold a valid one.
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

import anyio
import anyio.to_thread
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.server.transport_security import TransportSecuritySettings
from mcp.types import CallToolResult, InputRequiredResult
from pydantic import ValidationError
from starlette.types import ASGIApp

from docgraph.app.api.access import AccessGuard, allowed_hosts
from docgraph.app.api.errors import BodyLimitMiddleware
from docgraph.app.api.models import DocIdField, KField, ParamName, ParamValue, QueryText, VariantField
from docgraph.app.auth.keys import KeyStore
from docgraph.app.config import Settings
from docgraph.app.integrations.regions import retrieve_regions
from docgraph.app.jobs.documents import find_document, list_documents
from docgraph.app.llm.service import ask as ask_store
from docgraph.app.llm.text2cypher import run_written_query
from docgraph.app.resources import docgraph_release
from docgraph.app.serving import ServingState
from docgraph.app.stores.schema import load_graph_schema
from docgraph.errors import ConfigError, DocgraphError, UnknownDocumentError

P = ParamSpec("P")
R = TypeVar("R")
KEY_VARIABLE = "DOCGRAPH_API_KEY"
INSTRUCTIONS = (
    "docgraph holds PDFs as a property graph of Document, Page, Section and Region nodes. Use "
    "`retrieve` for the passages about a question, `ask` for a cited answer, `schema` before writing "
    "Cypher, and `cypher` for structural questions (read-only). Cite document, page and region."
)


def build_server(settings: Settings, stopping: threading.Event | None = None) -> MCPServer[Any]:
    """The MCP server's tools over the store ``settings`` name; once ``stopping`` is set (the HTTP
    server stops), an answer under way ends at its model's next piece and new ones are refused."""
    state = ServingState(settings)
    if stopping is not None:
        state.stopping = stopping
    server = DocgraphMCPServer(name="docgraph", version=docgraph_release(), instructions=INSTRUCTIONS)

    @server.tool()
    @as_tool_errors
    def retrieve(
        query: QueryText, k: KField = 8, doc_id: DocIdField = None, variant: VariantField = "hybrid"
    ) -> dict[str, Any]:
        """The best regions of the stored documents for a query, each with its document, page, section
        path and graph context (caption, continuation, what it refers to)."""
        store = state.store()
        doc = str(find_document(store, doc_id)["doc_id"]) if doc_id else None
        regions = retrieve_regions(store, state.retriever(variant), query, k, doc)
        return {"query": query, "regions": [region.to_json() for region in regions]}

    @as_tool_errors
    def answer(question: str, k: int, doc_id: str | None, cancelled: threading.Event) -> dict[str, Any]:
        with state.until_stopped():
            store = state.store()
            doc = str(find_document(store, doc_id)["doc_id"]) if doc_id else None
            retriever = state.retriever("hybrid")

            def stopped() -> bool:
                return state.stopping.is_set() or cancelled.is_set()

            result = ask_store(question, store, settings, retriever, k, doc, stop_when=stopped)
        return result.to_json()

    @server.tool()
    async def ask(question: QueryText, k: KField = 8, doc_id: DocIdField = None) -> dict[str, Any]:
        """A cited answer from the stored documents (extractive when no LLM endpoint is configured)."""
        cancelled = threading.Event()  # the agent cancelled the call, or its session ended
        asked = functools.partial(answer, question, k, doc_id, cancelled)
        try:
            return await anyio.to_thread.run_sync(asked, abandon_on_cancel=True)
        except anyio.get_cancelled_exc_class():
            cancelled.set()  # the model is asked nothing more for it: its reply stops at the next piece
            raise

    @server.tool()
    @as_tool_errors
    def cypher(query: QueryText, params: dict[ParamName, ParamValue] | None = None) -> dict[str, Any]:
        """Run a read-only Cypher query (see `schema`); writes are refused by the database."""
        with state.user_query_slot():  # as the API's /cypher: a few at once, however many agents ask
            result = run_written_query(query, state.store(), settings, params)
        return {"cypher": result.cypher, "rows": result.rows, "truncated": result.truncated}

    @server.tool()
    @as_tool_errors
    def schema() -> str:
        """The graph's labels, properties and relationships, with what each means."""
        return load_graph_schema().to_text()

    @server.tool()
    @as_tool_errors
    def documents() -> list[dict[str, Any]]:
        """Every stored document with its page, section and region counts."""
        return list_documents(state.store())

    return server


class DocgraphMCPServer(MCPServer[Any]):
    """The SDK's server, with arguments a tool refuses named on one line, as the API names them."""

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Any = None
    ) -> CallToolResult | InputRequiredResult:
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as error:
            cause = error.__cause__
            if isinstance(error, UnexpectedToolError) or not isinstance(cause, ValidationError):
                raise
            raise ToolError(f"invalid arguments for {name}: {argument_errors(cause)}") from cause


def argument_errors(error: ValidationError) -> str:
    """Pydantic's multi-line report as one line: ``k: Input should be ...; query: ...``."""
    return "; ".join(f"{'.'.join(map(str, item['loc'])) or 'arguments'}: {item['msg']}" for item in error.errors()[:5])


def as_tool_errors(func: Callable[P, R]) -> Callable[P, R]:
    """docgraph's own errors reach the agent as the tool's one-line error (a refused write, an
    unknown document); anything else stays a crash whose text stays on the server."""

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return func(*args, **kwargs)
        except UnknownDocumentError as error:
            raise ToolError(f"{error} (the documents tool lists them)") from error
        except DocgraphError as error:
            raise ToolError(str(error)) from error

    return wrapper


def http_app(settings: Settings, host: str, stopping: threading.Event | None = None) -> ASGIApp:
    """The streamable-HTTP server at ``/mcp``, behind the API's Host, Origin and key checks;
    ``stopping`` as for :func:`build_server`."""
    # The guard checks Host and Origin against DOCGRAPH_ALLOWED_HOSTS; the SDK's own check, which
    # knows only loopback names, would refuse a proxy's name the guard allows.
    unchecked = TransportSecuritySettings(enable_dns_rebinding_protection=False)
    app = build_server(settings, stopping).streamable_http_app(host=host, transport_security=unchecked)
    hosts = allowed_hosts(settings.allowed_hosts, host)
    # MCP clients send each request with its length; a chunked one cut off at the limit made the
    # SDK log a traceback per request.
    return AccessGuard(BodyLimitMiddleware(app, length_required=True), KeyStore(settings.home), hosts)


def check_stdio_key(settings: Settings) -> None:
    """Over stdio, once any key exists, the process must be given one."""
    keys = KeyStore(settings.home)
    secret = os.environ.get(KEY_VARIABLE, "")
    if not keys.in_use() or keys.verify(secret) is not None:
        return
    if not secret:
        raise ConfigError(f"API keys are in use: set {KEY_VARIABLE} to a valid key for the MCP server")
    raise ConfigError(f"{KEY_VARIABLE}: {keys.refusal(secret)}")

"""The FastAPI application: ``create_app(settings)`` wires state, routes, limits and error handling.

Run it with ``docgraph serve`` (uvicorn), or mount ``create_app()`` in an ASGI server of your own.
The OpenAPI schema is at ``/openapi.json``, interactive docs at ``/docs`` and ``/redoc`` (offline).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from docgraph.app.api import routes_documents, routes_query
from docgraph.app.api.access import AccessGuard, allowed_hosts
from docgraph.app.api.docs_pages import install_docs
from docgraph.app.api.errors import BodyLimitMiddleware, SafeJSONResponse, install_error_handlers
from docgraph.app.api.state import ApiState
from docgraph.app.auth.keys import KeyStore
from docgraph.app.config import Settings, load_settings
from docgraph.app.resources import docgraph_release
from docgraph.app.stores.base import GraphStore

# Room for the multipart framing around an upload of exactly the size limit.
MULTIPART_SLACK_BYTES = 64 * 1024
UPLOAD_PATH = "/documents"


def create_app(settings: Settings | None = None, store: GraphStore | None = None, listen_host: str = "") -> FastAPI:
    """The API over the store ``settings`` name (or over ``store``, which the caller then closes),
    answering to loopback, ``listen_host`` and the configured host names."""
    state = ApiState(settings or load_settings(), store)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        yield
        state.close()

    app = FastAPI(
        title="docgraph",
        summary="Layout-aware document-graph RAG over HTTP",
        description="Upload PDFs, retrieve regions with their graph context, ask cited questions, "
        "and query the document graph read-only.",
        version=docgraph_release(),
        default_response_class=SafeJSONResponse,
        lifespan=lifespan,
        docs_url=None,  # served by install_docs, from installed assets instead of a CDN
        redoc_url=None,
    )
    app.state.docgraph = state
    app.include_router(routes_documents.router)
    app.include_router(routes_query.router)
    routes_query.schema_with_typed_events(app)
    install_docs(app)
    install_error_handlers(app, state.stopping)
    app.add_middleware(
        BodyLimitMiddleware,
        upload_path=UPLOAD_PATH,
        upload_limit_bytes=state.max_upload_bytes,
        slack_bytes=MULTIPART_SLACK_BYTES,
    )
    hosts = allowed_hosts(state.settings.allowed_hosts, listen_host)
    app.add_middleware(AccessGuard, keys=KeyStore(state.settings.home), hosts=hosts)  # outermost: runs first
    return app

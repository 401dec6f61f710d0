"""What every page shares: settings, the cached store/encoder/retriever, errors as messages, health."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import streamlit as st

from docgraph.app.config import Settings, load_settings
from docgraph.app.pipeline.build import encoder_build
from docgraph.app.pipeline.embedding import configured_encoder
from docgraph.app.pipeline.execution.factory import SharedWorkers
from docgraph.app.retrieval.base import Retriever
from docgraph.app.retrieval.registry import make_retriever
from docgraph.app.stores.base import GraphStore
from docgraph.app.stores.factory import open_store
from docgraph.app.stores.url import masked_url
from docgraph.app.ui_support.health import store_health, unavailable_health
from docgraph.app.ui_support.ingest_runs import IngestRuns
from docgraph.errors import DocgraphError


def settings() -> Settings:
    """Settings from the environment the app was started with (``docgraph ui`` passes them)."""
    return load_settings()


@st.cache_resource(show_spinner="Connecting to the store…")
def _open_store(store_url: str, graph: str) -> GraphStore:
    graph_store = open_store(load_settings(store=store_url, graph=graph))
    graph_store.apply_schema()
    return graph_store


@st.cache_resource(show_spinner=False)
def ingest_runs() -> IngestRuns:
    """The UI's background ingests, one registry for every session of this server."""
    return IngestRuns()


@st.cache_resource(show_spinner=False)
def ingest_workers() -> SharedWorkers:
    """The ingest workers (local processes or a Ray cluster, as configured) every session's ingests
    share, started when an ingest first has use for them."""
    return SharedWorkers(load_settings())


def store() -> GraphStore | None:
    """The store, opened once per store URL and graph; None (with an error shown) when it is down."""
    config = settings()
    try:
        return _open_store(config.store_url, config.graph)
    except Exception as exc:
        st.error(f"The store {masked_url(config.store_url)} cannot be opened: {message(exc)}")
        return None


@st.cache_resource(show_spinner="Loading the sentence encoder…")
def encoder(name: str, runtime: str, model_cache: str, build: str) -> Any:
    values = {"encoder_model": name, "encoder_runtime": runtime, "model_cache": model_cache}
    return configured_encoder(Settings.model_validate(values))


@st.cache_resource(show_spinner="Preparing retrieval…")
def _retriever(name: str, store_url: str, graph: str, encoder_key: tuple[str, str, str], build: str) -> Retriever:
    return make_retriever(name, _open_store(store_url, graph), encoder(*encoder_key, build))


def retriever(name: str) -> Retriever:
    config = settings()
    encoder_key = (config.encoder_model, config.encoder_runtime, str(config.model_cache))
    # the build names a model folder's files: retrained in place, it gets a retriever of its own
    return _retriever(name, config.store_url, config.graph, encoder_key, encoder_build(config))


def message(exc: BaseException) -> str:
    if isinstance(exc, DocgraphError):
        return str(exc)
    return f"{type(exc).__name__}: {exc}"


@contextmanager
def shown_errors(action: str) -> Iterator[None]:
    """Run a block; any error becomes one ``st.error`` line instead of a traceback.

    Streamlit's own control flow (rerun, stop) derives from BaseException and passes through.
    """
    try:
        yield
    except Exception as exc:
        st.error(f"{action} failed: {message(exc)}")


@st.cache_data(ttl=30, show_spinner=False)
def _health(store_url: str, graph: str) -> Any:
    config = load_settings(store=store_url, graph=graph)
    try:
        graph_store = _open_store(store_url, graph)
    except Exception as exc:
        return unavailable_health(config, exc)
    return store_health(graph_store, config)


def refresh_health() -> None:
    """Forget the cached counts: call after anything that changes the graph."""
    _health.clear()


def sidebar_health() -> None:
    """Store type and status, counts, and whether an LLM endpoint is configured."""
    config = settings()
    health = _health(config.store_url, config.graph)
    with st.sidebar:
        st.subheader("Health")
        icon = ":green[:material/check_circle:]" if health.ok else ":red[:material/error:]"
        st.markdown(f"{icon} **{health.store_kind}** store {health.status}")
        st.caption(f"{health.store_url} · graph `{config.graph}`")
        if health.ok:
            st.markdown("\n".join(f"- {line}" for line in health.count_lines()))
        else:
            st.error(health.error)
        if health.llm_configured:
            st.success(f"LLM: {health.llm}", icon=":material/smart_toy:")
        else:
            st.info("No LLM endpoint configured: answers are extractive.", icon=":material/info:")

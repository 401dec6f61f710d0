"""What the sidebar's health panel shows: the store, whether it answers, its counts, the LLM."""

from __future__ import annotations

from dataclasses import dataclass, field

from docgraph.app.config import Settings
from docgraph.app.jobs.documents import list_documents
from docgraph.app.llm.client import llm_configured, llm_status
from docgraph.app.stores import cypher
from docgraph.app.stores.base import GraphStore
from docgraph.app.stores.url import masked_url


@dataclass(frozen=True, slots=True)
class Health:
    store_kind: str  # falkordb | neo4j, or the URL scheme when the store could not be opened
    store_url: str  # credentials left out
    ok: bool
    error: str = ""
    documents: int = 0
    labels: dict[str, int] = field(default_factory=dict)
    relationships: dict[str, int] = field(default_factory=dict)
    llm_configured: bool = False
    llm: str = ""

    @property
    def status(self) -> str:
        return "connected" if self.ok else "unavailable"

    def count_lines(self) -> list[str]:
        """Main node counts, one line each: documents, pages, sections, regions, relationships."""
        lines = [f"documents: {self.documents}"]
        for label in ("Page", "Section", "Region"):
            lines.append(f"{label.lower()}s: {self.labels.get(label, 0)}")
        lines.append(f"relationships: {sum(self.relationships.values())}")
        return lines


def store_health(store: GraphStore, settings: Settings) -> Health:
    """Ask the store one trivial query and its counts; a failure becomes ``ok=False`` with the reason."""
    configured, line = llm_configured(settings), llm_status(settings)
    try:
        store.read(cypher.load("ui_store_ping", store.dialect))
        counts = store.counts()
        documents = len(list_documents(store))
    except Exception as exc:  # any driver failure is shown, never raised into the page
        return Health(store.dialect, store.url, ok=False, error=_reason(exc), llm_configured=configured, llm=line)
    return Health(
        store.dialect,
        store.url,
        ok=True,
        documents=documents,
        labels=dict(counts.labels),
        relationships=dict(counts.relationship_types),
        llm_configured=configured,
        llm=line,
    )


def unavailable_health(settings: Settings, error: Exception) -> Health:
    """Health when the store could not even be opened."""
    url = settings.store_url
    kind = url.split("://", 1)[0] if "://" in url else url
    return Health(
        kind,
        masked_url(url),
        ok=False,
        error=_reason(error),
        llm_configured=llm_configured(settings),
        llm=llm_status(settings),
    )


def _reason(error: Exception) -> str:
    text = str(error) or type(error).__name__
    return text if len(text) <= 300 else text[:299] + "…"

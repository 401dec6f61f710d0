"""What an ingest says of each file: its outcome, counts, stage timings and notes."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from docgraph.errors import DocgraphError
from docgraph.ingest.structure.ids import doc_id_for

OUTCOMES = frozenset(
    {"ingested", "replaced", "refreshed", "unchanged", "failed", "not_ingested"}
)  # IngestReport.status


@dataclass
class IngestReport:
    path: Path
    doc_id: str = ""
    pages: int = 0
    regions: int = 0
    sections: int = 0
    nodes: dict[str, int] = field(default_factory=dict)
    edges: dict[str, int] = field(default_factory=dict)
    stats: dict[str, Any] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)
    seconds: float = 0.0
    status: str = "ingested"  # ingested | replaced | refreshed | unchanged | failed | not_ingested
    error: str = ""
    notes: list[str] = field(default_factory=list)  # what the pipeline ran without (OCR, the GNN, …)

    @classmethod
    def failed(cls, path: Path, error: str, timings: dict[str, float] | None = None) -> IngestReport:
        """A failed file's report, naming the document it would have been stored as (none when its
        name gives no id), so that a script can tell which stored document a failure left as it was."""
        try:
            doc_id = doc_id_for(path.name)
        except DocgraphError:
            doc_id = ""
        return cls(path=path, doc_id=doc_id, status="failed", error=error, timings=timings or {})

    def to_json(self) -> dict[str, Any]:
        return {
            "file": str(self.path),
            "doc_id": self.doc_id,
            "status": self.status,
            "error": self.error,
            "pages": self.pages,
            "regions": self.regions,
            "sections": self.sections,
            "nodes": self.nodes,
            "edges": self.edges,
            "stats": self.stats,
            "stages": {name: round(seconds, 3) for name, seconds in self.timings.items()},
            "seconds": round(self.seconds, 3),
            "notes": list(self.notes),
        }


def not_ingested_report(path: Path) -> IngestReport:
    """The report of a file an interrupted ingest did not end (not started, or stopped while it was
    read; a write is whole or absent, and may have landed just before the interrupt)."""
    report = IngestReport.failed(
        path, "interrupted: run the command again for it (a file stored already is found unchanged)"
    )
    report.status = "not_ingested"
    return report

"""What an ingest says of each file: its outcome, counts, stage timings and notes."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

OUTCOMES = frozenset({"ingested", "replaced", "refreshed", "unchanged", "failed"})  # IngestReport.status


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
    status: str = "ingested"  # ingested | replaced | refreshed | unchanged | failed
    error: str = ""
    notes: list[str] = field(default_factory=list)  # what the pipeline ran without (OCR, the GNN, …)

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

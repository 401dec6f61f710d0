"""The graph each PDF is read into, as text to compare before and after a change to reading.

    python scripts/reading_snapshot.py write OUT.json PDF...   # native reader + build_graph
    python scripts/reading_snapshot.py diff BEFORE.json AFTER.json

``write`` keeps, per PDF, every node (label, key, kind, page, text) and every edge but the
IS_SIMILAR ones (they need embeddings); ids are stable across runs for one file and build.
``diff`` prints, per document, the nodes and edges added, lost or changed, and exits 1 when any
differ: a reading change's review reads every line of it.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from docgraph.app.config import Settings
from docgraph.app.pipeline.readers import make_reader
from docgraph.app.pipeline.source_files import read_pdf
from docgraph.ingest.graph import build_graph

Snapshot = dict[str, dict[str, list[str]]]  # file name -> {"nodes": [...], "edges": [...]}
KEPT_PROPS = ("kind", "page", "page_number", "text", "title", "level")


def document_lines(pdf: Path) -> dict[str, list[str]]:
    layout = read_pdf(make_reader("native", Settings()), pdf)
    batch = build_graph(layout, ingested_at="2000-01-01T00:00:00+00:00", ingest_id="snapshot")
    nodes = sorted(_node_line(node.label, node.key, node.props) for node in batch.nodes)
    edges = sorted(f"{edge.type} {edge.src_key} -> {edge.dst_key}" for edge in batch.edges if edge.type != "IS_SIMILAR")
    return {"nodes": nodes, "edges": edges}


def _node_line(label: str, key: str, props: dict[str, Any]) -> str:
    kept = {name: props[name] for name in KEPT_PROPS if props.get(name) is not None}
    return f"{label} {key} {json.dumps(kept, ensure_ascii=False, sort_keys=True)}"


def write(out: Path, pdfs: list[Path]) -> int:
    snapshot: Snapshot = {}
    for number, pdf in enumerate(pdfs, 1):
        print(f"[{number}/{len(pdfs)}] {pdf.name}", file=sys.stderr, flush=True)
        snapshot[pdf.name] = document_lines(pdf)
    out.write_text(json.dumps(snapshot, ensure_ascii=False, indent=0))
    return 0


def diff(before_path: Path, after_path: Path) -> int:
    before: Snapshot = json.loads(before_path.read_text())
    after: Snapshot = json.loads(after_path.read_text())
    changed = False
    for name in sorted(set(before) | set(after)):
        old, new = before.get(name, {"nodes": [], "edges": []}), after.get(name, {"nodes": [], "edges": []})
        lines = []
        for part in ("nodes", "edges"):
            lost, added = sorted(set(old[part]) - set(new[part])), sorted(set(new[part]) - set(old[part]))
            lines += [f"  - {line}" for line in lost] + [f"  + {line}" for line in added]
        counts = f"nodes {len(old['nodes'])} -> {len(new['nodes'])}, edges {len(old['edges'])} -> {len(new['edges'])}"
        print(f"{name}: {'IDENTICAL' if not lines else counts}")
        for line in lines:
            print(line)
        changed = changed or bool(lines)
    return 1 if changed else 0


def main(argv: list[str]) -> int:
    if len(argv) >= 3 and argv[0] == "write":
        return write(Path(argv[1]), [Path(arg) for arg in argv[2:]])
    if len(argv) == 3 and argv[0] == "diff":
        return diff(Path(argv[1]), Path(argv[2]))
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

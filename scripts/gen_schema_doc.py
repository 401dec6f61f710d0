"""Writes the schema tables of docs/schema.md from schema/graph.yaml, the single source of the schema.

Run after editing schema/graph.yaml: ``.venv/bin/python scripts/gen_schema_doc.py``.
``--check`` exits 1 when docs/schema.md is out of date (the test suite runs it).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from docgraph.app.stores.schema import load_graph_schema

SCHEMA_DOC = Path(__file__).resolve().parent.parent / "docs" / "schema.md"
BLOCK = re.compile(r"(<!-- schema:begin[^>]*-->\n).*?(<!-- schema:end -->)", re.DOTALL)


def rendered(doc: str) -> str:
    tables = load_graph_schema().to_markdown().strip()
    return BLOCK.sub(lambda m: f"{m.group(1)}{tables}\n{m.group(2)}", doc)


def main(argv: list[str]) -> int:
    current = SCHEMA_DOC.read_text(encoding="utf-8")
    wanted = rendered(current)
    if "--check" in argv:
        if wanted != current:
            print("docs/schema.md is out of date: run scripts/gen_schema_doc.py", file=sys.stderr)
            return 1
        return 0
    SCHEMA_DOC.write_text(wanted, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

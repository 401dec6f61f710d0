"""Writes the schema tables of README.md from schema/graph.yaml, the single source of the schema.

Run after editing schema/graph.yaml: ``.venv/bin/python scripts/gen_readme_schema.py``.
``--check`` exits 1 when the README is out of date (the test suite runs it).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from docgraph.app.stores.schema import load_graph_schema

README = Path(__file__).resolve().parent.parent / "README.md"
BLOCK = re.compile(r"(<!-- schema:begin[^>]*-->\n).*?(<!-- schema:end -->)", re.DOTALL)


def rendered(readme: str) -> str:
    tables = load_graph_schema().to_markdown().strip()
    return BLOCK.sub(lambda m: f"{m.group(1)}{tables}\n{m.group(2)}", readme)


def main(argv: list[str]) -> int:
    current = README.read_text(encoding="utf-8")
    wanted = rendered(current)
    if "--check" in argv:
        if wanted != current:
            print("README.md schema tables are out of date: run scripts/gen_readme_schema.py", file=sys.stderr)
            return 1
        return 0
    README.write_text(wanted, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

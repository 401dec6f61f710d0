"""README.md stays true to the project: schema tables from graph.yaml, the two set-up commands."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_schema_tables_are_generated_from_graph_yaml() -> None:
    done = subprocess.run(
        [sys.executable, "scripts/gen_readme_schema.py", "--check"], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr


def test_readme_names_exactly_the_two_setup_commands() -> None:
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Set-up on a fresh machine", 1)[1].split("\n## ", 1)[0]
    commands = re.findall(r"^make (\w+)", section, flags=re.MULTILINE)
    assert commands == ["demo", "test"]
    ci = (ROOT / ".ci" / "run").read_text()
    assert "make test" in ci

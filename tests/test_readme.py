"""README.md and docs/ stay true to the project: schema tables from graph.yaml, the two set-up
commands, links that lead somewhere, a front door of about 200 lines."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_schema_tables_are_generated_from_graph_yaml() -> None:
    done = subprocess.run(
        [sys.executable, "scripts/gen_schema_doc.py", "--check"], cwd=ROOT, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr


def test_readme_names_exactly_the_two_setup_commands() -> None:
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Set-up on a fresh machine", 1)[1].split("\n## ", 1)[0]
    commands = re.findall(r"^make (\w+)", section, flags=re.MULTILINE)
    assert commands == ["demo", "test"]
    ci = (ROOT / ".ci" / "run").read_text()
    assert "make test" in ci


def test_readme_is_a_front_door() -> None:
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 200
    for heading in (
        "## Set-up on a fresh machine",
        "## With an LLM server",
        "## Neo4j with Docker compose",
        "## The graph",
        "## Configuration",
        "## Map of the code",
    ):
        assert heading in readme


def test_links_in_readme_and_docs_lead_to_files() -> None:
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    broken = [
        f"{page.relative_to(ROOT)} -> {target}"
        for page in pages
        for target in re.findall(r"\]\(([^)#:]+?)(?:#[^)]*)?\)", page.read_text())
        if not (page.parent / target).exists()
    ]
    assert broken == []

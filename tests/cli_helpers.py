"""What the command-line tests share: the repository's paths and Typer's runner."""

from __future__ import annotations

import sys
from pathlib import Path

from typer.testing import CliRunner

from docgraph.app.cli.main import app

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "samples" / "docgraph-sample.pdf"
PDFS = ROOT / "tests" / "data" / "pdfs"
DOCGRAPH = Path(sys.executable).with_name("docgraph")


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr

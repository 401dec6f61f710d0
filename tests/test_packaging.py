"""The wheel a user installs docgraph from: what its code needs at run time, and the marker that
tells type checkers the package is typed."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_wheel_holds_the_typed_marker_and_the_files_the_code_reads(tmp_path: Path) -> None:
    """Without docgraph/py.typed a user's mypy skipped the package as untyped ("missing library
    stubs or py.typed marker") and every docgraph type was Any."""
    command = [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(tmp_path)]
    subprocess.run([*command, str(ROOT)], check=True, capture_output=True, timeout=300, cwd=tmp_path)
    (wheel,) = tmp_path.glob("docgraph-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "docgraph/py.typed" in names
    expected = ["docgraph/app/library.py", "docgraph/cypher/write_nodes.cypher", "docgraph/samples/docgraph-sample.pdf"]
    expected += ["docgraph/models/checkpoints/rgcn-minilm.pt", "docgraph/models/checkpoints/rerank-minilm.pt"]
    expected += ["docgraph/ingest/pdf/common_words.txt.gz", "docgraph/ingest/pdf/common_words.NOTICE"]
    assert not [name for name in expected if name not in names]
    assert any(name.startswith("docgraph/app/llm/prompts/") and name.endswith(".md") for name in names)

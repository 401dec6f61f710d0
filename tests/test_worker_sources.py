"""A cluster worker's copies of the PDFs it received as bytes: its own folder, gone when it exits,
and swept by the next worker when it was killed (run in real subprocesses, under a TMPDIR of the
test's own)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

COPY = (
    "import os, sys; from pathlib import Path; "
    "from docgraph.app.pipeline.execution.base import SourceFile; "
    "from docgraph.app.pipeline.execution.sources import local_path; "
    "copy = local_path(SourceFile(Path('in/report.pdf'), b'%PDF-1.4 ' + sys.argv[1].encode())); "
    "assert local_path(SourceFile(Path('in/report.pdf'), b'%PDF-1.4 ' + sys.argv[1].encode())) == copy; "
    "print(copy, flush=True); "
    "os._exit(0) if sys.argv[2] == 'killed' else None"
)


def worker(tmp: Path, content: str, ending: str) -> Path:
    env = {**os.environ, "TMPDIR": str(tmp)}
    done = subprocess.run([sys.executable, "-c", COPY, content, ending], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return Path(done.stdout.strip())


def test_a_workers_copies_go_when_it_exits_or_with_the_next_worker(tmp_path: Path) -> None:
    copy = worker(tmp_path, "one", "exits")
    assert copy.name == "report.pdf" and copy.is_relative_to(tmp_path)
    assert list(tmp_path.iterdir()) == []  # removed as the process exited

    killed = worker(tmp_path, "two", "killed")  # no exit handlers run, as for a killed Ray worker
    assert killed.read_bytes() == b"%PDF-1.4 two"
    worker(tmp_path, "three", "exits")  # its first copy sweeps the dead worker's folder
    assert not killed.exists() and list(tmp_path.iterdir()) == []

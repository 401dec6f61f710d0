"""Temp folders that hold documents' content (OCR page images, a worker's PDF copies) do not
outlive a process killed before it could remove them: the next reader removes them."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from docgraph.ingest.readers.detector import OCR_FOLDER_PREFIX, DetectorReader
from docgraph.process_folders import process_temp_folder
from scripts.make_scanned import make_scanned

SAMPLE_PDF = Path(__file__).parent.parent / "samples" / "docgraph-sample.pdf"


def _dead_pid() -> int:
    child = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    return int(child.stdout)


def _planted(prefix: str, pid: int) -> Path:
    folder = Path(tempfile.mkdtemp(prefix=f"{prefix}{pid}-"))
    (folder / "p1.png").write_bytes(b"a page image")
    return folder


def test_an_ocr_folder_a_killed_reader_left_is_removed_by_the_next(tmp_path: Path) -> None:
    """An ingest killed while OCR read a scan left its page images in /tmp for good."""
    orphan = _planted(OCR_FOLDER_PREFIX, _dead_pid())
    running = _planted(OCR_FOLDER_PREFIX, os.getpid())  # a live process's: left alone
    try:
        scan = make_scanned(SAMPLE_PDF, tmp_path / "scan.pdf", dpi=100)
        layout = DetectorReader().read(scan)
        assert layout.pages and any(region.ocr for page in layout.pages for region in page.regions)
        assert not orphan.exists()
        assert running.exists()
        ours = list(Path(tempfile.gettempdir()).glob(f"{OCR_FOLDER_PREFIX}{os.getpid()}-*"))
        assert ours == [running]  # the reader's own folder went when it was done
    finally:
        for folder in (orphan, running):
            if folder.exists():
                (folder / "p1.png").unlink()
                folder.rmdir()


def test_a_process_temp_folder_is_named_with_its_pid_and_removed_on_leaving() -> None:
    with process_temp_folder("docgraph-test-") as folder:
        assert folder.name.startswith(f"docgraph-test-{os.getpid()}-") and folder.is_dir()
    assert not folder.exists()

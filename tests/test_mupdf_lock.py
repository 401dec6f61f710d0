"""MuPDF is used by one thread at a time: a render, page count or page scan started while another
thread holds MUPDF_LOCK waits for it, then completes (the UI's sessions and an ingest's documents
are threads of one process, and MuPDF's state is per process)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from docgraph.app.jobs.render import render_page
from docgraph.app.resources import SAMPLES_DIR
from docgraph.ingest.pdf.api import MUPDF_LOCK
from docgraph.ingest.readers.native import NativeReader
from docgraph.ingest.readers.paged import PageWindow, page_count

SAMPLE = SAMPLES_DIR / "docgraph-sample.pdf"
T = TypeVar("T")


def waits_for_the_lock(work: Callable[[], T]) -> T:
    """Run ``work`` on another thread while this one holds the lock: it must not finish until the
    lock is let go, and must finish after."""
    done = threading.Event()
    results: list[T] = []

    def run() -> None:
        results.append(work())
        done.set()

    worker = threading.Thread(target=run, daemon=True)
    with MUPDF_LOCK:
        worker.start()
        assert not done.wait(1.0), "MuPDF was used while another thread held its lock"
    worker.join(120)
    assert done.is_set()
    return results[0]


def test_a_render_waits_for_the_lock(tmp_path: Path) -> None:
    out = waits_for_the_lock(lambda: render_page(SAMPLE, 1, [], tmp_path / "page.png"))
    assert out.read_bytes().startswith(b"\x89PNG")


def test_a_page_count_waits_for_the_lock() -> None:
    assert waits_for_the_lock(lambda: page_count(SAMPLE, 100)) == page_count(SAMPLE, 100) > 1


def test_a_page_scan_waits_for_the_lock() -> None:
    scans = waits_for_the_lock(lambda: NativeReader().scan_window(SAMPLE, PageWindow(0, 2)))
    assert [scan.number for scan in scans] == [1, 2] and any(scan.lines for scan in scans)

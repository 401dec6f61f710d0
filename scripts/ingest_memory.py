"""Peak memory of ``docgraph ingest`` per PDF: each file into a fresh data home, default settings.

    python scripts/ingest_memory.py refman-100.pdf refman-300.pdf refman.pdf [--json]

The resident memory of the ingest process and of every process it starts (worker processes, OCR)
is sampled every 0.25 s (the local FalkorDB server, the store's own process, is not counted).
Prints per file: pages, seconds, the ingest process's peak, the peak of all its processes
together, and the peak per page. Linux only (reads /proc).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DOCGRAPH = Path(sys.executable).parent / "docgraph"
PAGE = os.sysconf("SC_PAGE_SIZE")


def rss_mb(pid: int) -> float:
    try:
        return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE / 2**20
    except (OSError, IndexError, ValueError):
        return 0.0


def children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(child) for child in (task / "children").read_text().split()]
        except OSError:
            continue
    return found + [grand for child in found for grand in children(child)]


def measure(pdf: Path) -> dict[str, object]:
    home = Path(tempfile.mkdtemp(prefix="docgraph-memory-"))
    env = {**os.environ, "DOCGRAPH_HOME": str(home)}
    started = time.perf_counter()
    process = subprocess.Popen([str(DOCGRAPH), "ingest", str(pdf), "--json"], env=env, stdout=subprocess.PIPE)
    peak_main = peak_all = 0.0
    while process.poll() is None:
        main = rss_mb(process.pid)
        together = main + sum(rss_mb(child) for child in children(process.pid))
        peak_main, peak_all = max(peak_main, main), max(peak_all, together)
        time.sleep(0.25)
    output = process.communicate()[0]
    seconds = time.perf_counter() - started
    subprocess.run([str(DOCGRAPH), "store", "stop"], env=env, capture_output=True, check=False)
    shutil.rmtree(home, ignore_errors=True)
    reports = json.loads(output or b"[]")
    pages = int(reports[0]["pages"]) if reports else 0
    return {
        "file": pdf.name,
        "status": reports[0]["status"] if reports else f"exit {process.returncode}",
        "pages": pages,
        "seconds": round(seconds, 1),
        "peak_mb": round(peak_main),
        "peak_all_processes_mb": round(peak_all),
        "peak_mb_per_page": round(peak_main / pages, 3) if pages else None,
    }


def main() -> None:
    pdfs = [Path(arg) for arg in sys.argv[1:] if arg != "--json"]
    rows = [measure(pdf) for pdf in pdfs]
    if "--json" in sys.argv:
        print(json.dumps(rows, indent=1))
        return
    print("file                pages  seconds  peak MB  all processes MB  MB per page")
    for row in rows:
        print(
            f"{row['file']:<18} {row['pages']:>6} {row['seconds']:>8} {row['peak_mb']:>8} "
            f"{row['peak_all_processes_mb']:>17} {row['peak_mb_per_page']!s:>12}  {row['status']}"
        )


if __name__ == "__main__":
    main()

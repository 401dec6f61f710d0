"""``docgraph bench --workers 1,2,…``: ingest throughput per worker count, in one run.

Each count ingests the same PDFs into a fresh temporary store with an empty embedding cache; the
time counts from the pipeline's start (worker start-up and model loading included) to the last
write. Each count runs in a fresh process of its own, so that one run's models and caches are not
in the next one's memory. Memory is the peak resident set of that process (sampled) and of each
worker (its own peak, reported with every task). The writes run in that process, one document at a
time: their share of the time bounds the speed-up, whatever the number of workers.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from docgraph.app.config import Settings
from docgraph.app.pipeline.build import build_ingest_pipeline
from docgraph.app.pipeline.embedding import clear_memory_cache
from docgraph.app.pipeline.execution.base import machine_cores, threads_per_worker
from docgraph.app.pipeline.execution.factory import ingest_executor
from docgraph.app.pipeline.reports import IngestReport
from docgraph.app.stores.temporary import temporary_local_store

SAMPLE_S = 0.1


@dataclass(slots=True)
class ScalingRun:
    workers: int
    threads_per_worker: int
    documents: int
    pages: int
    seconds: float
    failed: list[str]
    coordinator_peak_mb: float
    worker_peaks_mb: list[float]
    write_seconds: float  # the stages run here, one document at a time (corpus links, write)
    embed_seconds: float  # the embed stage, summed over documents (waits for workers included)
    largest_document: str = ""
    largest_document_peak_mb: float | None = None  # with one worker: the process while it read the largest file

    @property
    def pages_per_second(self) -> float:
        return self.pages / self.seconds if self.seconds > 0 else 0.0

    def to_json(self, base: ScalingRun) -> dict[str, Any]:
        speedup = self.pages_per_second / base.pages_per_second if base.pages_per_second else 0.0
        return {
            "workers": self.workers,
            "threads_per_worker": self.threads_per_worker,
            "documents": self.documents,
            "pages": self.pages,
            "seconds": round(self.seconds, 2),
            "pages_per_second": round(self.pages_per_second, 3),
            "speedup": round(speedup, 3),
            "efficiency": round(speedup * base.workers / self.workers, 3),
            "failed": self.failed,
            "coordinator_peak_mb": round(self.coordinator_peak_mb),
            "worker_peaks_mb": [round(mb) for mb in self.worker_peaks_mb],
            "write_seconds": round(self.write_seconds, 2),
            "write_share": round(self.write_seconds / self.seconds, 3) if self.seconds else 0.0,
            "embed_seconds": round(self.embed_seconds, 2),
            "largest_document": self.largest_document,
            "largest_document_peak_mb": _rounded(self.largest_document_peak_mb),
        }


@dataclass(slots=True)
class ScalingReport:
    cores: int
    runs: list[ScalingRun] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        base = self.runs[0]
        return {"cores": self.cores, "runs": [run.to_json(base) for run in self.runs]}


def run_scaling(
    files: Sequence[Path], settings: Settings, counts: Sequence[int], note: Callable[[str], None] | None = None
) -> ScalingReport:
    report = ScalingReport(cores=machine_cores())
    for count in counts:
        if note:
            note(f"ingesting {len(files)} files with {count} worker(s)")
        report.runs.append(_run_alone(files, settings, count))
    return report


def _run_alone(files: Sequence[Path], settings: Settings, count: int) -> ScalingRun:
    """One count in a fresh process: in this one, the first run's encoder and caches stayed loaded
    and were counted again in every later run's peak (903 MB against 391 MB alone)."""
    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as process:
        return process.submit(_run, list(files), settings, count).result()


def _rounded(value: float | None) -> int | None:
    return None if value is None else round(value)


def _run(files: Sequence[Path], settings: Settings, count: int) -> ScalingRun:
    clear_memory_cache()
    with temporary_local_store(settings) as store, _RssSampler() as sampler:
        started = time.perf_counter()
        tasks = ingest_executor(settings, settings.reader, count, ray_address="")
        try:
            pipeline = build_ingest_pipeline(store, settings, tasks=tasks)
            per_document: dict[Path, float] = {}
            reports = pipeline.ingest_many(list(files), _peak_per_document(sampler, per_document))
            seconds = time.perf_counter() - started
            stats = pipeline.tasks.stats()
        finally:
            if tasks is not None:
                tasks.close()
    largest = max(reports, key=lambda r: r.pages)
    return ScalingRun(
        workers=count,
        threads_per_worker=threads_per_worker(count),
        documents=len(reports),
        pages=sum(r.pages for r in reports),
        seconds=seconds,
        failed=[r.error for r in reports if r.status == "failed"],
        coordinator_peak_mb=sampler.peak_mb,
        worker_peaks_mb=[s.peak_rss_mb for s in stats] if count > 1 else [],
        write_seconds=sum(_stage(r, "graph_write") + _stage(r, "corpus_similarity") for r in reports),
        embed_seconds=sum(_stage(r, "embed") for r in reports),
        largest_document=largest.path.name,
        largest_document_peak_mb=per_document.get(largest.path) if count == 1 else None,
    )


def _stage(report: IngestReport, name: str) -> float:
    return report.timings.get(name, 0.0)


def _peak_per_document(
    sampler: _RssSampler, peaks: dict[Path, float]
) -> Callable[[Path], Callable[[str, int, int], None]]:
    """Progress callbacks that note this process's peak memory while each document is in flight."""

    def for_document(path: Path) -> Callable[[str, int, int], None]:
        sampler.reset_window()

        def update(stage: str, done: int, total: int) -> None:
            peaks[path] = max(peaks.get(path, 0.0), sampler.window_peak_mb)

        return update

    return for_document


class _RssSampler:
    """This process's resident memory, sampled every SAMPLE_S seconds: its peak, and the peak since
    the last :meth:`reset_window`."""

    def __init__(self) -> None:
        self.peak_mb = 0.0
        self.window_peak_mb = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, name="docgraph-rss", daemon=True)

    def __enter__(self) -> _RssSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def reset_window(self) -> None:
        self.window_peak_mb = current_rss_mb()

    def _sample(self) -> None:
        while not self._stop.wait(SAMPLE_S):
            rss = current_rss_mb()
            self.peak_mb = max(self.peak_mb, rss)
            self.window_peak_mb = max(self.window_peak_mb, rss)


def current_rss_mb() -> float:
    """This process's resident memory now (Linux; 0 elsewhere)."""
    try:
        fields = Path("/proc/self/statm").read_text().split()
    except OSError:
        return 0.0
    return int(fields[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def format_scaling(report: dict[str, Any]) -> str:
    """The runs as a table, then what bounds the speed-up."""
    lines = [
        f"ingest with 1..n workers on {report['cores']} cores (time from start to last write, start-up included)",
        "workers  threads  pages   seconds  pages/s  speed-up  efficiency  peak MB here  peak MB per worker",
    ]
    for run in report["runs"]:
        peaks = ", ".join(str(mb) for mb in run["worker_peaks_mb"]) or "-"
        lines.append(
            f"{run['workers']:>7}  {run['threads_per_worker']:>7}  {run['pages']:>5}  {run['seconds']:>8.1f}  "
            f"{run['pages_per_second']:>7.2f}  {run['speedup']:>7.2f}x  {run['efficiency']:>10.2f}  "
            f"{run['coordinator_peak_mb']:>12}  {peaks}"
        )
    for run in report["runs"]:
        if run["failed"]:
            lines.append(f"{run['workers']} workers: {len(run['failed'])} failed: {run['failed'][0]}")
    first, last = report["runs"][0], report["runs"][-1]
    if first["largest_document_peak_mb"]:
        lines.append(
            f"largest document: {first['largest_document']}, peak {first['largest_document_peak_mb']} MB in one process"
        )
    bound = first["seconds"] / last["write_seconds"] if last["write_seconds"] else 0.0
    lines.append(
        f"single writer: {last['write_seconds']:.1f} s of {last['seconds']:.1f} s with {last['workers']} workers "
        f"({100 * last['write_share']:.0f}%): at most {bound:.1f}x however many workers"
    )
    lines.append(
        f"encoder: the embed stage took {first['embed_seconds']:.1f} s of {first['seconds']:.1f} s with "
        f"{first['workers']} worker(s) of {first['threads_per_worker']} thread(s)"
    )
    return "\n".join(lines)

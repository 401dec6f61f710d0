"""The read stage: a PDF's pages scanned window by window on the pipeline's workers."""

from __future__ import annotations

from collections.abc import Iterable
from concurrent.futures import as_completed
from dataclasses import dataclass

from docgraph.app.pipeline.source_files import check_exists
from docgraph.app.pipeline.stages import IngestContext
from docgraph.ingest.page.scan import PageScan
from docgraph.ingest.readers.paged import DEFAULT_WINDOW_PAGES, PagedReader, PageWindow, page_count, page_windows
from docgraph.ingest.types import Reader


@dataclass
class ReadStage:
    """Page windows read on the executor's workers (all at once when it has several); readers that
    are not paged (a remote service) read the whole file in one task."""

    reader: Reader
    window_pages: int = DEFAULT_WINDOW_PAGES
    name: str = "read"

    def run(self, ctx: IngestContext) -> None:
        check_exists(ctx.path)
        if not isinstance(self.reader, PagedReader):
            ctx.layout = ctx.run("read", ctx.source).result()
            return
        total = page_count(ctx.path, self.reader.max_pages)
        windows = page_windows(total, self.window_pages)
        scans: list[PageScan] = []
        for part in _windows_read(ctx, windows):
            scans += part
            if ctx.progress:
                ctx.progress("read", len(scans), total)
        ctx.scans = sorted(scans, key=lambda scan: scan.number)


def _windows_read(ctx: IngestContext, windows: list[PageWindow]) -> Iterable[list[PageScan]]:
    """Each window's scans, as they finish; the first failure cancels the windows not started."""
    assert ctx.tasks is not None
    if ctx.tasks.workers <= 1:  # one at a time, so that progress moves as they finish
        for window in windows:
            yield ctx.run("scan_window", ctx.source, window).result()
        return
    futures = [ctx.run("scan_window", ctx.source, window) for window in windows]
    try:
        for future in as_completed(futures):
            yield future.result()
    finally:
        for future in futures:
            future.cancel()

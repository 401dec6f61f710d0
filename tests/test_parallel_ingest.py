"""Ingest with worker processes: the same graph as one process, page windows, a worker that dies."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch

from docgraph.app.pipeline import ingest_pipeline as ingest_pipeline_module
from docgraph.app.pipeline.build import build_ingest_pipeline
from docgraph.app.pipeline.execution.base import InlineExecutor
from docgraph.app.pipeline.execution.processes import ProcessPool
from docgraph.app.pipeline.ingest_pipeline import IngestPipeline
from docgraph.app.pipeline.reading import ReadStage
from docgraph.app.pipeline.reports import IngestReport
from docgraph.app.pipeline.worker import WorkerSpec
from docgraph.app.resources import SAMPLES_DIR
from docgraph.app.stores.base import GraphStore
from docgraph.app.stores.factory import open_store
from docgraph.app.stores.falkordb_store import FalkorDBStore
from docgraph.errors import IngestError, IngestInterrupted
from docgraph.ingest.readers.native import NativeReader
from docgraph.ingest.readers.paged import read_in_windows
from docgraph.models import gnn as gnn_module
from docgraph.models.gnn import load_checkpoint
from docgraph.models.graph_tensors import NUM_RELATIONS, GraphTensors
from docgraph.models.spill import SpillFolder
from tests.conftest import fresh_graph_name, local_settings

PDFS = Path(__file__).parent / "data" / "pdfs"
FILES = [PDFS / "water-report.pdf", PDFS / "apssamp.pdf", PDFS / "glpk-toc.pdf", SAMPLES_DIR / "docgraph-sample.pdf"]
VECTORS = ("embedding", "gnn_embedding", "passage_embeddings")
VARYING = ("ingested_at", "ingest_id")  # the time of the write, and a fresh id for each
KEY = "coalesce(n.region_id, n.page_id, n.section_id, n.doc_id)"


@pytest.fixture
def second_store(local_home: Path) -> Iterator[FalkorDBStore]:
    graph_store = open_store(local_settings(local_home, fresh_graph_name()))
    assert isinstance(graph_store, FalkorDBStore)
    graph_store.apply_schema()
    yield graph_store
    graph_store.delete_graph()
    graph_store.close()


@pytest.fixture
def pool(local_home: Path) -> Iterator[ProcessPool]:
    settings = local_settings(local_home, "unused")
    workers = ProcessPool(WorkerSpec(settings, settings.reader), workers=2)
    yield workers
    workers.close()


def windowed(pipeline: IngestPipeline, pages: int) -> IngestPipeline:
    """The pipeline reading ``pages`` pages per task, so that short test files span several windows."""
    for stage in pipeline.stages:
        if isinstance(stage, ReadStage):
            stage.window_pages = pages
    return pipeline


def stored_graph(store: GraphStore) -> tuple[dict[str, dict[str, Any]], dict[tuple[str, str, str], dict[str, Any]]]:
    """Every node by id (its labels and properties) and every relationship by (type, source, target)."""
    nodes = {}
    for row in store.read(f"MATCH (n) RETURN {KEY} AS key, labels(n) AS labels, n AS node"):
        props = {k: v for k, v in row["node"]["properties"].items() if k not in VARYING}
        nodes[str(row["key"])] = {"labels": sorted(row["labels"]), **props}
    edges = {}
    query = (
        f"MATCH (n)-[r]->(m) RETURN type(r) AS type, {KEY} AS src, "
        "coalesce(m.region_id, m.page_id, m.section_id, m.doc_id) AS dst, r AS rel"
    )
    for row in store.read(query):
        edges[(str(row["type"]), str(row["src"]), str(row["dst"]))] = dict(row["rel"]["properties"])
    return nodes, edges


def assert_same_graph(one: GraphStore, other: GraphStore) -> None:
    nodes, edges = stored_graph(one)
    other_nodes, other_edges = stored_graph(other)
    assert nodes.keys() == other_nodes.keys()
    for key, node in nodes.items():
        twin = other_nodes[key]
        assert {k: v for k, v in node.items() if k not in VECTORS} == {
            k: v for k, v in twin.items() if k not in VECTORS
        }, key
        for name in VECTORS:  # encoded in other batches, on other threads: equal to float32 noise
            assert (node.get(name) is None) == (twin.get(name) is None), (key, name)
            if node.get(name) is not None:
                np.testing.assert_allclose(node[name], twin[name], atol=1e-5)
    assert edges.keys() == other_edges.keys()
    for key, props in edges.items():
        assert props.keys() == other_edges[key].keys()
        for name, value in props.items():
            assert value == pytest.approx(other_edges[key][name], abs=1e-4), (key, name)


def test_workers_build_the_same_graph_as_one_process(
    falkordb_store: FalkorDBStore,
    second_store: FalkorDBStore,
    pool: ProcessPool,
    local_home: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    settings = local_settings(local_home, "unused")
    serial = build_ingest_pipeline(falkordb_store, settings).ingest_many(FILES)
    parallel = windowed(build_ingest_pipeline(second_store, settings, tasks=pool), pages=2).ingest_many(FILES)

    assert [r.status for r in serial] == ["ingested"] * len(FILES)
    assert [r.status for r in parallel] == ["ingested"] * len(FILES)
    assert [r.path for r in parallel] == FILES  # reports in the order asked, whatever finished first
    assert [(r.doc_id, r.nodes, r.edges) for r in parallel] == [(r.doc_id, r.nodes, r.edges) for r in serial]
    assert_same_graph(falkordb_store, second_store)
    assert sum(stats.tasks for stats in pool.stats()) > len(FILES)  # windows and chunks, not whole files
    assert all(stats.tasks > 0 for stats in pool.stats())  # both workers took some

    # Rebuilt (each write replaces a stored version), the documents' threads are in the caller's
    # deferred block: the full-text indexes are rebuilt once at its end, not once per document.
    rebuilds: list[int] = []  # a rebuild starts by listing the indexes
    list_indexes = second_store.list_indexes
    monkeypatch.setattr(second_store, "list_indexes", lambda: rebuilds.append(1) or list_indexes())
    forced = build_ingest_pipeline(second_store, settings, force=True, tasks=pool)
    with second_store.fulltext_refresh_deferred():
        again = forced.ingest_many(FILES[:2])
        assert [r.status for r in again] == ["replaced"] * 2 and rebuilds == []
    assert rebuilds == [1]


def test_copies_of_one_file_given_together_are_read_once(
    falkordb_store: FalkorDBStore, pool: ProcessPool, local_home: Path, tmp_path: Path
) -> None:
    """With workers both copies were read and embedded at once, the second found "unchanged" only at
    its write; a later copy now waits for its first and is found stored by its hash."""
    copies = [tmp_path / folder / "water-report.pdf" for folder in ("a", "b", "c")]
    for copy in copies:
        copy.parent.mkdir()
        copy.write_bytes(FILES[0].read_bytes())
    settings = local_settings(local_home, "unused")
    reports = build_ingest_pipeline(falkordb_store, settings, tasks=pool).ingest_many([*copies, FILES[2]])
    assert [r.status for r in reports] == ["ingested", "unchanged", "unchanged", "ingested"]
    assert [bool(r.stats) for r in reports] == [True, False, False, True]  # a file read has stats; a skip, none
    assert reports[0].path == copies[0] and reports[1].edges == {}


def test_a_killed_worker_fails_only_its_document_and_the_store_stays_whole(
    falkordb_store: FalkorDBStore, pool: ProcessPool, local_home: Path
) -> None:
    settings = local_settings(local_home, "unused")
    pipeline = windowed(build_ingest_pipeline(falkordb_store, settings, tasks=pool), pages=1)
    killed: list[int] = []

    def kill_a_busy_worker() -> None:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not killed:
            busy = pool.pids(busy=True)
            if busy and sum(stats.tasks for stats in pool.stats()) >= 2:  # models loaded, documents under way
                os.kill(busy[0], signal.SIGKILL)
                killed.append(busy[0])
            time.sleep(0.02)

    killer = threading.Thread(target=kill_a_busy_worker)
    killer.start()
    reports = pipeline.ingest_many(FILES)
    killer.join()

    assert killed
    failed = [r for r in reports if r.status == "failed"]
    landed = [r for r in reports if r.status == "ingested"]
    assert failed, "the document whose task ran on the killed worker fails"
    assert all("worker process died (killed by signal 9)" in r.error for r in failed)
    assert all(r.error.startswith(r.path.name) for r in failed)
    assert landed, "the other documents still land"
    stored = {row["doc_id"] for row in falkordb_store.read("MATCH (d:Document) RETURN d.doc_id AS doc_id")}
    assert stored == {r.doc_id for r in landed}
    # every node in the store belongs to a landed document, and each landed document is whole
    rows = falkordb_store.read("MATCH (n) RETURN n.doc_id AS doc_id, count(n) AS nodes")
    assert {row["doc_id"]: row["nodes"] for row in rows} == {r.doc_id: sum(r.nodes.values()) for r in landed}
    assert killed[0] not in pool.pids()
    again = pipeline.ingest_many([r.path for r in failed])  # a fresh worker took the dead one's place
    assert [r.status for r in again] == ["ingested"] * len(failed)


def test_page_windows_read_the_same_document_as_one_window() -> None:
    reader = NativeReader()
    whole = read_in_windows(reader, PDFS / "water-report.pdf", size=10_000)
    windows = read_in_windows(reader, PDFS / "water-report.pdf", size=2)
    assert whole.page_count == 9
    assert windows == whole


def test_the_gnn_over_node_windows_gives_the_whole_graph_s_vectors(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    model = load_checkpoint(Path(gnn_module.__file__).parent / "checkpoints" / "rgcn-minilm.pt").model
    generator = torch.Generator().manual_seed(3)
    n, e = 300, 2000
    graph = GraphTensors(
        x=torch.nn.functional.normalize(torch.randn(n, model.config.dim, generator=generator), dim=1),
        edge_index=torch.randint(0, n, (2, e), generator=generator),
        edge_type=torch.randint(0, NUM_RELATIONS, (e,), generator=generator),
        node_kind=torch.randint(0, 3, (n,), generator=generator),
        doc_index=torch.zeros(n, dtype=torch.int64),
        nodes=[],
        index={},
    )
    whole = model.embed(graph)
    monkeypatch.setattr(gnn_module, "WINDOW_NODES", 64)
    assert torch.equal(model.embed(graph), whole)
    assert torch.equal(model.embed(graph, SpillFolder(tmp_path)), whole)


def test_an_interrupted_ingest_of_many_files_starts_no_more_documents(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ctrl-C while documents are under way: those started finish, none of the queued ones starts."""
    paths = [tmp_path / f"manual-{i}.pdf" for i in range(8)]
    for path in paths:
        path.write_bytes(b"%PDF-1.4 same size")  # equal sizes: taken in the order given
    started: list[Path] = []
    busy_until_interrupted = threading.Event()

    class ReleasedOnceCancelled(ThreadPoolExecutor):
        """The documents under way finish only once the queued ones are cancelled (a timer raced
        with the cancelling on a busy machine, and more documents started)."""

        def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
            super().shutdown(wait=False, cancel_futures=cancel_futures)
            busy_until_interrupted.set()
            super().shutdown(wait=wait)

    def progress(path: Path) -> None:
        started.append(path)
        if path == paths[0]:
            raise KeyboardInterrupt
        busy_until_interrupted.wait(60)

    monkeypatch.setattr(ingest_pipeline_module, "ThreadPoolExecutor", ReleasedOnceCancelled)
    monkeypatch.setattr(IngestPipeline, "_run", lambda self, path, *_: IngestReport(path=path))
    pipeline = IngestPipeline([], tasks=InlineExecutor(worker=None, workers=2))  # three documents at once
    with pytest.raises(IngestInterrupted) as interrupted:
        pipeline.ingest_many(paths, progress)
    # The first three; the interrupted one's thread may take the fourth before the interrupt is seen.
    assert sorted(started) in (paths[:3], paths[:4])
    ended = [report.path for report in interrupted.value.reports]  # type: ignore[attr-defined]
    assert ended == sorted(started)[1:]  # the ones that ran on to their end, reported
    assert interrupted.value.not_started == [path for path in paths if path not in ended]


def test_a_second_ctrl_c_stops_the_wait_and_keeps_the_reports_of_what_ended(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A second Ctrl-C, while the documents under way finished, escaped the wait as a bare
    interrupt: the reports of the documents that had ended were lost, and the wait went on anyway."""
    paths = [tmp_path / f"manual-{i}.pdf" for i in range(4)]
    for path in paths:
        path.write_bytes(b"%PDF-1.4 same size")
    second_done, never = threading.Event(), threading.Event()

    class SecondCtrlC(ThreadPoolExecutor):
        def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
            super().shutdown(wait=False, cancel_futures=cancel_futures)
            if wait:
                raise KeyboardInterrupt  # the second Ctrl-C, in the wait

    def progress(path: Path) -> None:
        if path == paths[0]:
            second_done.wait(60)
            time.sleep(0.5)  # its report made (the stages are stubbed out)
            raise KeyboardInterrupt
        if path == paths[1]:
            second_done.set()
            return
        never.wait(60)  # still under way when the second Ctrl-C comes

    monkeypatch.setattr(ingest_pipeline_module, "ThreadPoolExecutor", SecondCtrlC)
    monkeypatch.setattr(IngestPipeline, "_run", lambda self, path, *_: IngestReport(path=path))
    pipeline = IngestPipeline([], tasks=InlineExecutor(worker=None, workers=2))
    try:
        with pytest.raises(IngestInterrupted) as interrupted:
            pipeline.ingest_many(paths, progress)
    finally:
        never.set()
    assert interrupted.value.abandoned  # type: ignore[attr-defined]
    assert [report.path for report in interrupted.value.reports] == [paths[1]]  # type: ignore[attr-defined]
    assert interrupted.value.not_started == [paths[0], paths[2], paths[3]]


def test_an_answer_lost_on_its_way_back_fails_its_task_and_a_fresh_worker_follows(
    pool: ProcessPool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Taking in a worker's answer can fail here (no memory for a long document's batch): the task
    fails at once instead of waiting for ever, and the next task gets a fresh worker process."""

    def out_of_memory(self: Connection) -> Any:
        raise MemoryError("no room for the answer")

    with monkeypatch.context() as patched:
        patched.setattr(Connection, "recv", out_of_memory)
        lost = pool.submit("encoder_info")
        with pytest.raises(IngestError, match="the worker's answer was lost: MemoryError"):
            lost.result(timeout=120)
    name, dim = pool.submit("encoder_info").result(timeout=300)
    assert name and dim == 384


BUSY_WORKER = """
import multiprocessing, os, time
from docgraph.app.pipeline.execution.processes import exit_with_parent

def busy(parent: int) -> None:  # a worker in the middle of a long task: it reads no message meanwhile
    exit_with_parent(parent, every_s=0.1)
    time.sleep(300)

if __name__ == "__main__":
    worker = multiprocessing.get_context("spawn").Process(target=busy, args=(os.getpid(),))
    worker.start()
    print(worker.pid, flush=True)
    time.sleep(300)
"""


def test_a_busy_worker_ends_soon_after_its_parent_is_killed(tmp_path: Path) -> None:
    """Stopped by SIGTERM (a `timeout`), docgraph left its workers running their tasks for a minute."""
    script = tmp_path / "parent.py"
    script.write_text(BUSY_WORKER)
    parent = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    assert parent.stdout is not None
    worker = int(parent.stdout.readline())
    parent.kill()
    parent.wait(timeout=30)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and _alive(worker):
        time.sleep(0.1)
    assert not _alive(worker)


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(") ")[-1][0]
    except OSError:
        return False
    return state != "Z"  # an orphan is reaped by init; a zombie is gone in all but name

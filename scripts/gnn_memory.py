"""Peak memory the GNN adds for a long document, its arrays in memory or in files (``models.spill``).

    python scripts/gnn_memory.py 25000 50000 100000 [--json]

Per node count, a random graph like a long document's (ten similarity edges a node and a reading
chain) is embedded by the shipped checkpoint twice, each in a fresh process: arrays in memory, then
in files. Prints the peak resident memory above the graph, with the input embeddings counted in both
(in memory they are part of the graph, in files they are not), the seconds, and whether the vectors
are the same. Linux only (reads /proc).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

PAGE = os.sysconf("SC_PAGE_SIZE")


def resident_mb() -> float:
    return int(Path("/proc/self/statm").read_text().split()[1]) * PAGE / 2**20


def embed_once(nodes: int, spill: bool) -> dict[str, float]:
    """One run, in this process: the peak above the graph (MB), seconds, and a checksum of the vectors."""
    import numpy as np
    import torch

    from docgraph.app.pipeline.gnn import load_gnn
    from docgraph.app.pipeline.memory import release_free_memory
    from docgraph.models.graph_tensors import GraphTensors
    from docgraph.models.spill import SpillFolder

    model = load_gnn().model
    rng = np.random.default_rng(0)
    x = torch.nn.functional.normalize(torch.from_numpy(rng.standard_normal((nodes, 384), dtype=np.float32)), dim=1)
    src = np.concatenate([np.repeat(np.arange(nodes), 10), np.arange(nodes - 1)])
    dst = np.concatenate([rng.integers(0, nodes, nodes * 10), np.arange(1, nodes)])
    kind = np.concatenate([np.full(nodes * 10, 8), np.full(nodes - 1, 0)])  # similar, next
    edges = torch.from_numpy(np.stack([np.concatenate([src, dst]), np.concatenate([dst, src])]))
    zeros = torch.zeros(nodes, dtype=torch.int64)
    graph = GraphTensors(x, edges, torch.from_numpy(np.concatenate([kind, kind + 1])), zeros, zeros)
    folder = SpillFolder(Path(tempfile.mkdtemp(prefix="docgraph-gnn-memory-"))) if spill else None
    input_mb = x.numel() * 4 / 2**20
    if folder is not None:
        graph.x = folder.like(x)
        del x
        folder.release()
    release_free_memory()
    base, peak, done = resident_mb(), [0.0], threading.Event()

    def sample() -> None:
        while not done.is_set():
            peak[0] = max(peak[0], resident_mb())
            time.sleep(0.002)

    threading.Thread(target=sample, daemon=True).start()
    started = time.perf_counter()
    vectors = model.embed(graph, folder)
    seconds = time.perf_counter() - started
    done.set()
    above = max(peak[0], resident_mb()) - base + (0.0 if folder is not None else input_mb)
    return {"peak_mb": round(above), "seconds": round(seconds, 1), "checksum": float(vectors.double().sum())}


def main(argv: list[str]) -> int:
    if argv[:1] == ["--once"]:  # a child: one run, its result as JSON
        print(json.dumps(embed_once(int(argv[1]), argv[2] == "files")))
        return 0
    as_json = "--json" in argv
    rows = []
    for nodes in [int(arg) for arg in argv if arg != "--json"]:
        runs = {}
        for where in ("memory", "files"):
            child = [sys.executable, __file__, "--once", str(nodes), where]
            runs[where] = json.loads(subprocess.run(child, check=True, capture_output=True, text=True).stdout)
        same = runs["memory"]["checksum"] == runs["files"]["checksum"]
        rows.append({"nodes": nodes, "memory": runs["memory"], "files": runs["files"], "same_vectors": same})
        if not as_json:
            memory, files = runs["memory"], runs["files"]
            print(
                f"{nodes:>9,} nodes: in memory {memory['peak_mb']:>6,} MB {memory['seconds']:>6} s | "
                f"in files {files['peak_mb']:>6,} MB {files['seconds']:>6} s | same vectors: {same}"
            )
    if as_json:
        print(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Soak the local FalkorDB store with replacing writes, to catch graph corruption.

Ingests the PDFs of the given folders, then re-ingests every one of them ROUNDS times under a new
build (so each write replaces the stored document), asking the server for a background save after
each write. After every write it reads each Document's doc_id (a corrupted graph answers "Attempted
to access undefined attribute", or the server crashes on ``RETURN d``) and looks for ghost nodes
under every label (``docgraph store check``). Before docgraph resized FalkorDB's label matrices
ahead of each delete (FalkorDB#2103), this found ghosts in round 1.

    .venv/bin/python scripts/soak_falkordb.py --home /tmp/soak --rounds 4 ../shared/bench/dev ../shared/bench/train

With ``--crash`` the server is killed (SIGKILL) after each round and started again, so that the
graph is checked after replaying the append-only file too.

Exit status 0: no corruption; 3: corruption found. Takes minutes (the first round embeds the PDFs).
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

from docgraph.app.config import load_settings
from docgraph.app.pipeline.build import build_ingest_pipeline
from docgraph.app.pipeline.ingest_pipeline import IngestPipeline
from docgraph.app.pipeline.source_files import expand_paths
from docgraph.app.stores import falkordb_server
from docgraph.app.stores.factory import open_store


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="+", type=Path)
    parser.add_argument("--home", type=Path, required=True, help="data home of a scratch store")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--crash", action="store_true", help="kill -9 the server after each round, then restart it")
    args = parser.parse_args()
    settings = load_settings(home=args.home, store="")
    store = open_store(settings)
    store.apply_schema()
    base = build_ingest_pipeline(store, settings)
    paths = expand_paths(args.folders)
    for round_number in range(args.rounds):
        pipeline = IngestPipeline(base.stages, build=f"{base.build}; soak {round_number}", tasks=base.tasks)
        for path in paths:
            report = pipeline.ingest(path)
            store._db.execute_command("BGSAVE", "SCHEDULE")  # type: ignore[attr-defined]  # a save child to race
            try:
                stored = store.read("MATCH (d:Document) RETURN d.doc_id AS doc_id")
                ghosts = store.ghost_nodes()  # type: ignore[attr-defined]
            except Exception as exc:  # the corruption shows as a query error, or a lost server
                print(f"CORRUPT after round {round_number}, {path.name}: {exc}", flush=True)
                return 3
            if ghosts:
                print(f"CORRUPT after round {round_number}, {path.name}: ghost nodes {ghosts}", flush=True)
                return 3
            print(f"round {round_number} {path.name}: {report.status}, {len(stored)} documents", flush=True)
        if args.crash and not restarted_clean(store, args.home):
            print(f"CORRUPT after round {round_number}'s crash and restart", flush=True)
            return 3
    print("no corruption")
    return 0


def restarted_clean(store: Any, home: Path) -> bool:
    """SIGKILL the local server (the append-only file is all that is kept), start it again (it replays
    the file), and look for ghosts."""
    pid = falkordb_server.status(home).pid
    if pid is not None:
        os.kill(pid, signal.SIGKILL)
        while falkordb_server.status(home).pid == pid:
            time.sleep(0.1)
    falkordb_server.ensure_running(home)
    ghosts = store.ghost_nodes()
    print(f"restarted after kill -9: ghost nodes {ghosts or 'none'}", flush=True)
    return not ghosts


if __name__ == "__main__":
    sys.exit(main())

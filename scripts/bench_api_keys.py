"""What API keys cost per request: latency of one cheap route with no key configured and with one.

Starts `docgraph serve` on a free port of 127.0.0.1 in a temporary data home, times N requests of
GET /jobs/none (a 404 that touches neither the store nor a model) without keys, creates a reader
key, times N more with `Authorization: Bearer KEY`, and prints p50/p95 of each.

    .venv/bin/python scripts/bench_api_keys.py [N]
"""

from __future__ import annotations

import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from docgraph.app.auth.keys import KeyStore


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def timed(client: httpx.Client, url: str, headers: dict[str, str], n: int) -> list[float]:
    took = []
    for _ in range(n):
        started = time.perf_counter()
        status = client.get(url, headers=headers).status_code
        took.append((time.perf_counter() - started) * 1000)
        assert status == 404, status
    return took


def summary(name: str, took: list[float]) -> str:
    p95 = statistics.quantiles(took, n=20)[18]
    return f"{name}: n={len(took)} p50={statistics.median(took):.2f} ms p95={p95:.2f} ms"


def main(n: int) -> None:
    home = Path(tempfile.mkdtemp(prefix="docgraph-keys-"))
    port = free_port()
    env = {**os.environ, "DOCGRAPH_HOME": str(home), "DOCGRAPH_STORE": ""}
    server = subprocess.Popen(
        [sys.executable, "-m", "docgraph.app.cli.main", "serve", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}/jobs/none"
    try:
        with httpx.Client(timeout=10) as client:
            for _ in range(300):
                try:
                    client.get(url)
                    break
                except httpx.TransportError:
                    time.sleep(0.1)
            timed(client, url, {}, 50)  # warm up
            without = timed(client, url, {}, n)
            _, secret = KeyStore(home).create("reader", "bench")
            keyed = {"Authorization": f"Bearer {secret}"}
            timed(client, url, keyed, 50)
            with_key = timed(client, url, keyed, n)
    finally:
        server.terminate()
        server.wait(timeout=30)
    print(summary("no keys", without))
    print(summary("with a key", with_key))
    print(f"added per request (p50): {statistics.median(with_key) - statistics.median(without):.3f} ms")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1000)

"""How often orientation detection stands a turned scan upright (docs/experiments/reading-turned-scans.md).

Usage: python scripts/measure_scan_turns.py PDF_FOLDER [--pages-per-file 4] [--seed 7]

Pages drawn at random from each PDF are rendered at 200 dpi, stored as JPEG scans turned 0, 90,
180 and 270 degrees counter-clockwise, and each is asked once which way up it stands.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import pymupdf
from make_scanned import TURNS, turned_jpeg  # run as a script: its folder is on sys.path

from docgraph.ingest.pdf.orientation import upright_turn


def turned_scan(page: pymupdf.Page, turn: int) -> pymupdf.Document:
    """A one-page PDF: ``page`` scanned at 200 dpi, fed in turned ``turn`` degrees counter-clockwise."""
    pixmap = page.get_pixmap(dpi=200, colorspace=pymupdf.csGRAY)
    width, height = (page.rect.width, page.rect.height)[:: 1 if turn % 180 == 0 else -1]
    doc = pymupdf.open()
    target = doc.new_page(width=width, height=height)
    target.insert_image(target.rect, stream=turned_jpeg(pixmap, turn))
    return doc


def main(argv: Sequence[str] | None = None) -> int:
    """Ask about each page of each turn once; print each answer and the counts."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("folder", type=Path)
    parser.add_argument("--pages-per-file", type=int, default=4)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    draw = random.Random(args.seed)
    counts = {"right": 0, "left as it lay": 0, "turned wrongly": 0}
    started, asked = time.perf_counter(), 0
    with tempfile.TemporaryDirectory() as workdir:
        for pdf in sorted(args.folder.glob("*.pdf")):
            with pymupdf.open(pdf) as source:
                for index in draw.sample(range(source.page_count), min(args.pages_per_file, source.page_count)):
                    for turn in TURNS:
                        with turned_scan(source[index], turn) as scan:
                            found = upright_turn(scan[0], Path(workdir))
                        asked += 1
                        kind = "right" if found == turn else "left as it lay" if found == 0 else "turned wrongly"
                        counts[kind] += 1
                        print(f"{pdf.name} p{index + 1} turned {turn}: found {found}", flush=True)
    print(f"{asked} pages, {(time.perf_counter() - started) / max(asked, 1):.2f} s each: {counts}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

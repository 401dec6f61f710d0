"""How often orientation detection stands a turned scan upright (docs/experiments/reading-turned-scans.md).

Usage: python scripts/measure_scan_turns.py PDF_FOLDER [--pages-per-file 4] [--seed 7]

Pages drawn at random from each PDF are rendered at 200 dpi, stored as JPEG scans turned 0, 90,
180 and 270 degrees counter-clockwise, and each is asked once which way up it stands.
"""

from __future__ import annotations

import argparse
import io
import random
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import pymupdf
from PIL import Image

from docgraph.ingest.pdf.orientation import upright_turn

TURNS = (0, 90, 180, 270)


def turned_scan(page: pymupdf.Page, turn: int) -> pymupdf.Document:
    pixmap = page.get_pixmap(dpi=200, colorspace=pymupdf.csGRAY)
    image = Image.frombytes("L", (pixmap.width, pixmap.height), pixmap.samples).rotate(turn, expand=True)
    jpeg = io.BytesIO()
    image.save(jpeg, "JPEG", quality=85)
    width, height = (page.rect.width, page.rect.height)[:: 1 if turn % 180 == 0 else -1]
    doc = pymupdf.open()
    target = doc.new_page(width=width, height=height)
    target.insert_image(target.rect, stream=jpeg.getvalue())
    return doc


def main(argv: Sequence[str] | None = None) -> int:
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

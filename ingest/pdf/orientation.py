"""Which way up a scanned page stands.

A scanner's feeder takes pages upside down or sideways; the page image is then stored as it came,
and the layout model and OCR read it as noise. Tesseract's orientation detection (``--psm 0``,
the ``osd`` model of Debian's ``tesseract-ocr-osd``, which ``tesseract-ocr`` depends on) says how
far to turn it. The reader turns the page in memory (``api.turn_page``, as ``settle_rotation``
does for ``/Rotate``), so reading, OCR and drawn boxes share the upright frame; the graph keeps
the turn on the ``Page`` node for renders of the page.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path
from typing import Any

import pymupdf
from PIL import Image

from docgraph.ingest.pdf.ocr import TESSERACT, capped_dpi, render

OSD_DPI = 150  # less gave wrong answers (docs/experiments/reading-turned-scans.md)
MIN_CONFIDENCE = 6.0  # tesseract's orientation confidence below which a page is read as it lies
OSD_TIMEOUT_S = 120.0
OSD_PACKAGE = "tesseract-ocr-osd"  # Debian's
TURNS = (0, 90, 180, 270)
_ROTATE = re.compile(r"^Rotate:\s*(\d+)", re.MULTILINE)
_CONFIDENCE = re.compile(r"^Orientation confidence:\s*([\d.]+)", re.MULTILINE)


def upright_turn(page: pymupdf.Page, workdir: Path) -> int:
    """Degrees clockwise (0, 90, 180 or 270) that stand the page's text upright: 0 when tesseract
    is unsure, finds too little text, lacks its ``osd`` model or fails."""
    rect: Any = page.rect
    image = workdir / f"osd-{page.number}.png"
    dpi = capped_dpi(rect.width, rect.height, OSD_DPI)
    Image.fromarray(render(page, dpi)).save(image)
    command = [TESSERACT, str(image), "-", "--psm", "0", "--dpi", str(dpi)]
    env = {**os.environ, "OMP_THREAD_LIMIT": "1"}
    try:
        done = subprocess.run(command, capture_output=True, env=env, timeout=OSD_TIMEOUT_S, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return 0
    finally:
        image.unlink(missing_ok=True)
    return parse_osd(done.stdout.decode("utf-8", "replace")) if done.returncode == 0 else 0


def orientation_model_installed() -> bool:
    """Whether tesseract lists its ``osd`` model (``--list-langs``; ``TESSDATA_PREFIX`` counts)."""
    try:
        done = subprocess.run([TESSERACT, "--list-langs"], capture_output=True, timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return "osd" in done.stdout.decode("utf-8", "replace").split()


def parse_osd(report: str) -> int:
    """The turn in tesseract's OSD report, when it is sure enough of it."""
    turn, confidence = _ROTATE.search(report), _CONFIDENCE.search(report)
    if turn is None or confidence is None or float(confidence.group(1)) < MIN_CONFIDENCE:
        return 0
    degrees = int(turn.group(1)) % 360
    return degrees if degrees in TURNS else 0

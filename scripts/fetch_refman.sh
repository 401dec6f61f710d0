#!/bin/sh
# Fetches R's reference manual (refman.pdf, 2,415 pages) from Debian 12's r-doc-pdf package into DIR,
# checks it byte for byte, and cuts its first 100, 300, 600 and 1200 pages into refman-N.pdf for the
# memory curve of docs/experiments/ingest-scaling.md:
#
#   scripts/fetch_refman.sh DIR
#   python scripts/ingest_memory.py DIR/refman-100.pdf DIR/refman-300.pdf ... DIR/refman.pdf
set -eu
out=${1:?usage: scripts/fetch_refman.sh DIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
apt-get download r-doc-pdf=4.2.2.20221110-2
dpkg-deb -x ./r-doc-pdf_*.deb x
cp x/usr/share/R/doc/manual/refman.pdf "$out/refman.pdf"
cd "$out"
sha256sum -c <<'SUMS'
9ed9a074639c58686620757dc7475c683a41ae0412a91f3b58e92e936dc92284  refman.pdf
SUMS
python3 - "$out" <<'PY'
import sys
from pathlib import Path

import pymupdf

folder = Path(sys.argv[1])
whole = pymupdf.open(folder / "refman.pdf")
for pages in (100, 300, 600, 1200):
    part = pymupdf.open()
    part.insert_pdf(whole, from_page=0, to_page=pages - 1)
    part.save(folder / f"refman-{pages}.pdf", garbage=3, deflate=True)
PY

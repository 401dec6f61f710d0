#!/bin/sh
# Fetches the three PDFs that tests/data/heldout10_questions.jsonl asks about, from Debian 12's packages
# (no other network access needed), into DIR, and checks them byte for byte:
#
#   scripts/fetch_heldout10.sh DIR
#   docgraph eval tests/data/heldout10_questions.jsonl --docs DIR --baseline no-gnn
#
# The questions are a blind, held-out set: they were written from the PDFs' text alone, without
# running docgraph or looking at its retrieval output, and none of these documents was used to
# train the GNN or to choose a retrieval weight.
#
#   avrdude.pdf        avrdude-doc 7.1+dfsg-3   AVRDUDE: A program for download/uploading AVR
#                                               microcontroller flash and eeprom, for AVRDUDE
#                                               version 7.1 (user manual, 61 pages)
#   metafor.pdf        r-cran-metafor 3.8-1-1   Conducting Meta-Analyses in R with the metafor
#                                               Package (JSS 2010, metafor vignette, 48 pages)
#   speex-manual.pdf   speex-doc 1.2.1-2        The Speex Codec Manual, version 1.2 Beta 3, with the
#                                               draft RTP payload format for Speex (65 pages)
set -eu
out=${1:?usage: scripts/fetch_heldout10.sh DIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
apt-get download avrdude-doc=7.1+dfsg-3 r-cran-metafor=3.8-1-1 speex-doc=1.2.1-2
for deb in ./*.deb; do dpkg-deb -x "$deb" x; done
gunzip -c x/usr/share/doc/avrdude/avrdude.pdf.gz > "$out/avrdude.pdf"
cp x/usr/lib/R/site-library/metafor/doc/metafor.pdf "$out/metafor.pdf"
gunzip -c x/usr/share/doc/speex/manual.pdf.gz > "$out/speex-manual.pdf"
cd "$out"
sha256sum -c <<'SUMS'
da2b3288f8310ecd4b53c14308f25a2acac96e6adf7e24e5769819de221118f3  avrdude.pdf
6d962b039ee9b4b9e14e29ca3120a43cf65267f7461ba4323dd03b790e21a559  metafor.pdf
7b3c242882ff7da7c71e24ffcc0356a8eb2262d9090867d51959e109f2f819e9  speex-manual.pdf
SUMS

#!/bin/sh
# Fetches the four PDFs that tests/data/heldout7_questions.jsonl asks about, from Debian 12's packages
# (no other network access needed), into DIR, and checks them byte for byte:
#
#   scripts/fetch_heldout7.sh DIR
#   docgraph eval tests/data/heldout7_questions.jsonl --docs DIR --baseline no-gnn
#
# The questions are a blind, held-out set: they were written from the PDFs' text alone, without
# running docgraph or looking at its retrieval output, and none of these documents was used to
# train the GNN or to choose a retrieval weight.
#
#   nauty-guide.pdf     nauty-doc 2.8.6+ds-2         nauty and Traces User's Guide, version 2.8.6 (109 pages)
#   survival.pdf        r-cran-survival 3.5-3-1      A package for survival analysis in R (survival vignette, 98 pages)
#   icccm.pdf           xorg-docs 1:1.7.1-1.2        Inter-Client Communication Conventions Manual, X11R7.7 (75 pages)
#   expeyes-junior.pdf  expeyes-doc-en 4.3-3         expEYES Junior User's Manual (65 pages)
set -eu
out=${1:?usage: scripts/fetch_heldout7.sh DIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
apt-get download nauty-doc=2.8.6+ds-2 r-cran-survival=3.5-3-1 xorg-docs=1:1.7.1-1.2 \
    expeyes-doc-en=4.3-3
for deb in ./*.deb; do dpkg-deb -x "$deb" x; done
cp x/usr/share/doc/nauty/nug28.pdf "$out/nauty-guide.pdf"
cp x/usr/lib/R/library/survival/doc/survival.pdf "$out/survival.pdf"
gunzip -c x/usr/share/doc/xorg-docs/icccm/icccm.pdf.gz > "$out/icccm.pdf"
cp x/usr/share/expeyes/doc/en-eyesj.pdf "$out/expeyes-junior.pdf"
cd "$out"
sha256sum -c <<'SUMS'
3ba8c8723a163283db7cd4ca583d33573b4194b07c9b6fa71c92ed95cd4a70e5  nauty-guide.pdf
d8e4cac102d76e25b9e0e224eb262e7db542c351e0f81b9c1c3f3fcf0a81436c  survival.pdf
c78df78fcf6ecd1f8da7aff3976ac23eaf0a6479bf8527836a3ac9eacaabd377  icccm.pdf
166ade592cd14a3c527a7d1bf63e0ce092c79a085e95ea103ac7ecb05ea4277d  expeyes-junior.pdf
SUMS

#!/bin/sh
# Fetches the four PDFs that tests/data/heldout8_questions.jsonl asks about, from Debian 12's packages
# (no other network access needed), into DIR, and checks them byte for byte:
#
#   scripts/fetch_heldout8.sh DIR
#   docgraph eval tests/data/heldout8_questions.jsonl --docs DIR --baseline no-gnn
#
# The questions are a blind, held-out set: they were written from the PDFs' text alone, without
# running docgraph or looking at its retrieval output, and none of these documents was used to
# train the GNN or to choose a retrieval weight.
#
#   sdccman.pdf         sdcc-doc 4.2.0+dfsg-1         SDCC Compiler User Guide, SDCC 4.2.0 (134 pages)
#   fhs-3.0.pdf         debian-policy 4.6.2.0         Filesystem Hierarchy Standard, version 3.0 (50 pages)
#   sandwich-CL.pdf     r-cran-sandwich 3.0-2-1       Various Versatile Variances: clustered covariances
#                                                     in R (sandwich vignette, 36 pages)
#   lcms2-tutorial.pdf  liblcms2-dev 2.14-2+deb12u1   Little CMS 2.14 tutorial: how to use the engine
#                                                     in your applications (59 pages)
set -eu
out=${1:?usage: scripts/fetch_heldout8.sh DIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
apt-get download sdcc-doc=4.2.0+dfsg-1 debian-policy=4.6.2.0 r-cran-sandwich=3.0-2-1 \
    liblcms2-dev=2.14-2+deb12u1
for deb in ./*.deb; do dpkg-deb -x "$deb" x; done
gunzip -c x/usr/share/doc/sdcc-doc/sdccman.pdf.gz > "$out/sdccman.pdf"
gunzip -c x/usr/share/doc/debian-policy/fhs/fhs-3.0.pdf.gz > "$out/fhs-3.0.pdf"
cp x/usr/lib/R/site-library/sandwich/doc/sandwich-CL.pdf "$out/sandwich-CL.pdf"
gunzip -c "x/usr/share/doc/liblcms2-dev/LittleCMS2.14 tutorial.pdf.gz" > "$out/lcms2-tutorial.pdf"
cd "$out"
sha256sum -c <<'SUMS'
8887f9fd940ee8aabe9429c28b53f264669f5c2c406688baf4b3d6c49438b2fb  sdccman.pdf
53d239e569a2d7b31a74fa09d585368c0f5a164e4624723fa2894660dd10fd23  fhs-3.0.pdf
f3a765482a629c8c9369020d13632ec5c37520df17e22266eb9e2928270e94bb  sandwich-CL.pdf
50e8ad5292ee7712341de81a51e8628cfde17ca02e91df18ee17eaf37e42caf6  lcms2-tutorial.pdf
SUMS

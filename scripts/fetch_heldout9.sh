#!/bin/sh
# Fetches the three PDFs that tests/data/heldout9_questions.jsonl asks about, from Debian 12's packages
# (no other network access needed), into DIR, and checks them byte for byte:
#
#   scripts/fetch_heldout9.sh DIR
#   docgraph eval tests/data/heldout9_questions.jsonl --docs DIR --baseline no-gnn
#
# The questions are a blind, held-out set: they were written from the PDFs' text alone, without
# running docgraph or looking at its retrieval output, and none of these documents was used to
# train the GNN or to choose a retrieval weight.
#
#   ddd-themes.pdf     ddd-doc 1:3.3.12-5.4                Writing DDD Themes: User's Guide and Reference
#                                                          Manual, for DDD 3.3.12 (58 pages)
#   clm_article.pdf    r-cran-ordinal 2022.11-16-1         Cumulative Link Models for Ordinal Regression with
#                                                          the R Package ordinal (ordinal vignette, 46 pages)
#   KLU_UserGuide.pdf  libsuitesparse-doc 1:5.12.0+dfsg-2  User Guide for KLU and BTF, version 1.3.9
#                                                          (SuiteSparse, 41 pages)
set -eu
out=${1:?usage: scripts/fetch_heldout9.sh DIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
apt-get download ddd-doc=1:3.3.12-5.4 r-cran-ordinal=2022.11-16-1 libsuitesparse-doc=1:5.12.0+dfsg-2
for deb in ./*.deb; do dpkg-deb -x "$deb" x; done
gunzip -c x/usr/share/doc/ddd/ddd-themes.pdf.gz > "$out/ddd-themes.pdf"
cp x/usr/lib/R/site-library/ordinal/doc/clm_article.pdf "$out/clm_article.pdf"
cp x/usr/share/doc/libsuitesparse-dev/KLU_UserGuide.pdf "$out/KLU_UserGuide.pdf"
cd "$out"
sha256sum -c <<'SUMS'
d4f842a8509848d1038a34eab4949ef64d13e6657864f86afaa69141cf0bb0ee  ddd-themes.pdf
5675a6c1d47186dbff605dd8d5e5b5834dc6288a1e00d8d39a253b234e9a3a50  clm_article.pdf
34103e8b5ed1e7957187a698cad35af78fbf271b7ca209226d65833baecd563a  KLU_UserGuide.pdf
SUMS

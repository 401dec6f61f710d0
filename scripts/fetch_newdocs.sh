#!/bin/sh
# Fetches the four PDFs that tests/data/newdocs_questions.jsonl asks about, from Debian 12's
# packages (no other network access needed), into DIR, and checks them byte for byte:
#
#   scripts/fetch_newdocs.sh DIR
#   docgraph eval tests/data/newdocs_questions.jsonl --docs DIR --baseline no-gnn
#
# None of them was used to train the GNN or to choose a retrieval weight (models/checkpoints/README.md,
# "Questions about four new documents").
set -eu
out=${1:?usage: scripts/fetch_newdocs.sh DIR}
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
apt-get download libmpfr-doc=4.2.0-1 dblatex-doc=0.3.12py3-2 r-cran-lme4=1.1-31-1 r-cran-pscl=1.5.5-1+b1
for deb in ./*.deb; do dpkg-deb -x "$deb" x; done
gunzip -c x/usr/share/doc/libmpfr-doc/mpfr.pdf.gz > "$out/mpfr.pdf"
gunzip -c x/usr/share/doc/dblatex/manual.pdf.gz > "$out/dblatex-manual.pdf"
cp x/usr/lib/R/site-library/lme4/doc/lmer.pdf "$out/lmer.pdf"
cp x/usr/lib/R/site-library/pscl/doc/countreg.pdf "$out/countreg.pdf"
cd "$out"
sha256sum -c <<'EOF'
8ff9cb8331837ff2d21c4a840efbe4e5bdc10a1008edc0c39b8ba47d145cea04  countreg.pdf
df5135701ca7b58397c26f405272b937a8fc9c605e33565f7cb0abac73495bc9  dblatex-manual.pdf
d13d6caf549b44c3543d01a7445c327ac472d266a8aee24f68a8d31d45d02ec9  lmer.pdf
5dc8bca3083e0c02478aab4196af0737aaece9401fd290127b40ef104cdc63af  mpfr.pdf
EOF

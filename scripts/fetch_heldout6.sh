#!/bin/sh
# Fetches the four PDFs that tests/data/heldout6_questions.jsonl asks about, from Debian 12's packages
# (no other network access needed), into DIR, and checks them byte for byte:
#
#   scripts/fetch_heldout6.sh DIR
#   docgraph eval tests/data/heldout6_questions.jsonl --docs DIR --baseline no-gnn
#
# The questions are a blind, held-out set: they were written from the PDFs' text alone, without
# running docgraph or looking at its retrieval output, and none of these documents was used to
# train the GNN or to choose a retrieval weight.
#
#   gutenprint-manual.pdf  gutenprint-doc 5.3.4.20220624T01008808d602-1  Gutenprint 5.2 User's Manual (73 pages)
#   gcrypt.pdf             libgcrypt20-doc 1.10.1-3+deb12u1              The Libgcrypt Reference Manual (148 pages)
#   vcd-strucplot.pdf      r-cran-vcd 1:1.4-11-1                          The Strucplot Framework (vcd vignette, 48 pages)
#   fasta-guide.pdf        fasta3-doc 36.3.8i.14-Nov-2020-1               The FASTA program package guide (37 pages)
set -eu
out=${1:?usage: scripts/fetch_heldout6.sh DIR}
mkdir -p "$out"
out=$(cd "$out" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
apt-get download gutenprint-doc=5.3.4.20220624T01008808d602-1 libgcrypt20-doc=1.10.1-3+deb12u1 \
    r-cran-vcd=1:1.4-11-1 fasta3-doc=36.3.8i.14-Nov-2020-1
for deb in ./*.deb; do dpkg-deb -x "$deb" x; done
cp x/usr/share/doc/gutenprint-doc/gutenprint-users-manual.pdf "$out/gutenprint-manual.pdf"
gunzip -c x/usr/share/doc/libgcrypt20-doc/gcrypt.pdf.gz > "$out/gcrypt.pdf"
cp x/usr/lib/R/site-library/vcd/doc/strucplot.pdf "$out/vcd-strucplot.pdf"
cp x/usr/share/doc/fasta3/fasta_guide.pdf "$out/fasta-guide.pdf"
cd "$out"
sha256sum -c <<'SUMS'
e9f4a85ecce576c1dcbb9236e710d0e1256c0f5642bb06ad91251b15410194d8  gutenprint-manual.pdf
d8d1ddcab7a757a50861750d5e4cf74ce41df92747736052929f95b68e64cecb  gcrypt.pdf
45dd7f7b8d6f3f5ca1816a585bb0e8410c4fe02c50876cd5174069b70a724b8c  vcd-strucplot.pdf
e0cbb13bf2f0cfe3c85e846634ed41c5a3011c50ef6333ef229f9d7978ffaf82  fasta-guide.pdf
SUMS

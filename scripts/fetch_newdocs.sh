#!/bin/sh
# Fetches the sixteen PDFs that tests/data/newdocs_questions.jsonl (set1),
# tests/data/newdocs2_questions.jsonl (set2), tests/data/newdocs3_questions.jsonl (set3) and
# tests/data/newdocs4_questions.jsonl (set4) ask about, from Debian 12's packages (no other network
# access needed), into DIR/set1 to DIR/set4, and checks them byte for byte:
#
#   scripts/fetch_newdocs.sh DIR
#   docgraph eval tests/data/newdocs_questions.jsonl --docs DIR/set1 --baseline no-gnn
#   docgraph eval tests/data/newdocs2_questions.jsonl --docs DIR/set2 --baseline no-gnn
#   docgraph eval tests/data/newdocs3_questions.jsonl --docs DIR/set3 --baseline no-gnn
#   docgraph eval tests/data/newdocs4_questions.jsonl --docs DIR/set4 --baseline no-gnn
#
# None of them was used to train the GNN or to choose a retrieval weight (models/checkpoints/README.md,
# "Questions about eight new documents").
set -eu
out=${1:?usage: scripts/fetch_newdocs.sh DIR}
mkdir -p "$out/set1" "$out/set2" "$out/set3" "$out/set4"
out=$(cd "$out" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
apt-get download libmpfr-doc=4.2.0-1 dblatex-doc=0.3.12py3-2 r-cran-lme4=1.1-31-1 r-cran-pscl=1.5.5-1+b1 \
    maxima-doc=5.46.0-11 gnutls-doc=3.7.9-2+deb12u7 r-cran-rcpp=1.0.10-1 r-cran-forecast=8.20-1 \
    flex-doc=2.6.4-8.2 nut-doc=2.8.0-7 r-cran-party=1.3-11-1 r-cran-glmnet=4.1-6-1 \
    pspp=1.6.2-2 glpk-doc=5.0-1 r-cran-partykit=1.2-16-1 r-cran-multcomp=1.4-22-1
for deb in ./*.deb; do dpkg-deb -x "$deb" x; done
gunzip -c x/usr/share/doc/libmpfr-doc/mpfr.pdf.gz > "$out/set1/mpfr.pdf"
gunzip -c x/usr/share/doc/dblatex/manual.pdf.gz > "$out/set1/dblatex-manual.pdf"
cp x/usr/lib/R/site-library/lme4/doc/lmer.pdf "$out/set1/lmer.pdf"
cp x/usr/lib/R/site-library/pscl/doc/countreg.pdf "$out/set1/countreg.pdf"
gunzip -c x/usr/share/doc/maxima-doc/maximabook-19-Sept-2004.pdf.gz > "$out/set2/maximabook.pdf"
cp x/usr/share/doc/gnutls-doc/gnutls.pdf "$out/set2/gnutls.pdf"
cp x/usr/lib/R/site-library/Rcpp/doc/Rcpp-jss-2011.pdf "$out/set2/Rcpp-jss-2011.pdf"
cp x/usr/lib/R/site-library/forecast/doc/JSS2008.pdf "$out/set2/forecast-jss2008.pdf"
gunzip -c x/usr/share/doc/flex-doc/flex.pdf.gz > "$out/set3/flex.pdf"
cp x/usr/share/doc/nut-doc/pdf/user-manual.pdf "$out/set3/nut-user-manual.pdf"
cp x/usr/lib/R/site-library/party/doc/MOB.pdf "$out/set3/party-mob.pdf"
cp x/usr/lib/R/site-library/glmnet/doc/glmnet.pdf "$out/set3/glmnet.pdf"
cp x/usr/share/doc/pspp/pspp.pdf "$out/set4/pspp.pdf"
cp x/usr/share/doc/glpk-doc/gmpl.pdf "$out/set4/gmpl.pdf"
cp x/usr/lib/R/site-library/partykit/doc/ctree.pdf "$out/set4/ctree.pdf"
cp x/usr/lib/R/site-library/multcomp/doc/generalsiminf.pdf "$out/set4/generalsiminf.pdf"
cd "$out"
sha256sum -c <<'EOF'
8ff9cb8331837ff2d21c4a840efbe4e5bdc10a1008edc0c39b8ba47d145cea04  set1/countreg.pdf
df5135701ca7b58397c26f405272b937a8fc9c605e33565f7cb0abac73495bc9  set1/dblatex-manual.pdf
d13d6caf549b44c3543d01a7445c327ac472d266a8aee24f68a8d31d45d02ec9  set1/lmer.pdf
5dc8bca3083e0c02478aab4196af0737aaece9401fd290127b40ef104cdc63af  set1/mpfr.pdf
022b4e349977d8ac6493259215092644384b76209aa79f7c7ca70902eda9b6c2  set2/maximabook.pdf
d195eaf9663c9e76b580c32624209491455afaf670817e42298ac29c26716f82  set2/gnutls.pdf
6f7a1aafb95e463bc4a28770dd9ca8309000889d60d4aa1d4a5e6f8ff687be67  set2/Rcpp-jss-2011.pdf
396a0fc6ab2b5ef5fe602c963a5b1b4969d42cede7038010bbfe36cb91fd3a2f  set2/forecast-jss2008.pdf
d4c4021c02bf7cae2f2756876ff906302caa93ca309f295e0554c23ce050e177  set3/flex.pdf
f604fa3ab839872da646c8aa2ff4870b88e9e001611f711d8852d937f02c512f  set3/nut-user-manual.pdf
e513d3a843555becac92adb7ee39d49cc24f0fdc8cc1a0a1b5ebef5f6dc7c6de  set3/party-mob.pdf
03df049b9318a5a09baaacc3b7378f68c0367a3bd0079a2312ccfd0fe26efe67  set3/glmnet.pdf
49237f17f60e91124127e89dc8f3cb3beaa3d31181cafddee7e814ce8cf2ce15  set4/pspp.pdf
df54ba811d1fe3c041447b575997298d63b0a6366e39454ef2efc382f08203c2  set4/gmpl.pdf
5763d9a1d4653a4cef64c04a8cf6bf1dc9d47c1709b1bef122317be83b3129d0  set4/ctree.pdf
261ba9e67d6b237891ccd8338f8b3e28b31f51b78b4fbe1fa5b392f998bef5e2  set4/generalsiminf.pdf
EOF

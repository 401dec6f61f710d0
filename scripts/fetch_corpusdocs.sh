#!/bin/sh
# Fetches the PDFs for corpus-scope evaluation (issue 50): tests/data/corpus_questions.jsonl asks
# about DIR/questions; DIR/distractors are related manuals ingested beside them; no weight,
# threshold or rule was chosen on this set. All of them come from Debian 12's packages (no other
# network access needed) and are checked byte for byte:
#
#   scripts/fetch_corpusdocs.sh DIR
#
# DIR/questions holds four documents: three LilyPond manuals (Learning, Usage, Extending) and the
# PARI/GP tutorial. DIR/distractors holds six other LilyPond manuals (Notation Reference, Snippets,
# Internals Reference, General Information, Contributor's Guide, Music Glossary) whose topics overlap
# the three LilyPond question documents, so a question can land in the wrong manual. A question is
# a hit only with the right document and the right page, with all ten files in one store.
set -eu
out=${1:?usage: scripts/fetch_corpusdocs.sh DIR}
mkdir -p "$out/questions" "$out/distractors"
out=$(cd "$out" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
apt-get download lilypond-doc-pdf=2.24.1-2 pari-doc=2.15.2-1
for deb in ./*.deb; do dpkg-deb -x "$deb" x; done
ly=x/usr/share/doc/lilypond/html/Documentation
cp "$ly/learning.pdf" "$out/questions/lilypond-learning.pdf"
cp "$ly/usage.pdf" "$out/questions/lilypond-usage.pdf"
cp "$ly/extending.pdf" "$out/questions/lilypond-extending.pdf"
cp x/usr/share/pari/doc/tutorial.pdf "$out/questions/pari-tutorial.pdf"
cp "$ly/notation.pdf" "$out/distractors/lilypond-notation.pdf"
cp "$ly/snippets.pdf" "$out/distractors/lilypond-snippets.pdf"
cp "$ly/internals.pdf" "$out/distractors/lilypond-internals.pdf"
cp "$ly/web.pdf" "$out/distractors/lilypond-web.pdf"
cp "$ly/contributor.pdf" "$out/distractors/lilypond-contributor.pdf"
cp "$ly/music-glossary.pdf" "$out/distractors/lilypond-music-glossary.pdf"
cd "$out"
sha256sum -c <<'EOF'
4789fa6c4a57c97153baea611619648331db08a051fb078fa9f43167ec6fc728  questions/lilypond-learning.pdf
0ac4da9cfd9a09d801a5cf22b8923ebee45a3e0b86ef538d4f2f13713a2fb060  questions/lilypond-usage.pdf
c2f0177a4dc0e9d8726f5b1588e2683454de4c92381cc3a4282b9b5a7b8d4bd7  questions/lilypond-extending.pdf
39adef47fe7c5c5b2137dd2a6f0d29900e740889db7bcedfb70ffe4481cb4a1b  questions/pari-tutorial.pdf
262d092c9e53a4ce4c6288e49092c64a4861e874f6541f4acec14ada3d3d0d78  distractors/lilypond-notation.pdf
12803c5693451698d7a325dfa23853bc58d4dcd1e083346b6da45c0c93595449  distractors/lilypond-snippets.pdf
62594d90f97c6e343abe929e6eb97508f34c8e7aba042e552a1970987cddf124  distractors/lilypond-internals.pdf
f80c2418ee45a8b9302bb0911f86e9d2c7d9975a1aeeb11b9ac20cec11a812a0  distractors/lilypond-web.pdf
efae1c341db37d27b7520422aec62d7fb526ef7d2eb0d3a3e9206477317b7f64  distractors/lilypond-contributor.pdf
3075e986a6aec8c1394fbb93bd8a2896ee6c8f69be8bb1c02a56a0c560e3edcd  distractors/lilypond-music-glossary.pdf
EOF

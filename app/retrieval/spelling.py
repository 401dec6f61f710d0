"""British to American spelling, so that lexical retrieval matches "colour" with ``color``.

Software manuals mostly spell the American way (``set colorbox``, ``colormap``, "initialize"),
while the people asking often do not ("What colour do values outside the range get?"). Page and
region BM25 compare exact tokens, so such a question lost its most specific word. Query and text go
through the same mapping, so a British manual asked in American spelling matches as well.

Only well-known families are mapped, each checked against words it must leave alone:

- ``-our`` words by root, inflections and compounds included ("colours", "coloured", "colourmap",
  "neighbourhood"), never a bare "-our" rule ("hour", "four", "contour", "detour" stay);
- ``-ise``/``-isation`` verbs by stem ("initialise", "customising", "normalisation"), never a bare
  "-ise" rule ("otherwise", "precise", "noise", "promise" stay);
- single words: "centre", "grey", "catalogue", "licence", "modelling", "labelled", "analyse"...
"""

from __future__ import annotations

import re

_OUR_ROOTS = (
    "armour",
    "behaviour",
    "candour",
    "clamour",
    "colour",
    "endeavour",
    "favour",
    "flavour",
    "harbour",
    "honour",
    "humour",
    "labour",
    "neighbour",
    "odour",
    "parlour",
    "rigour",
    "rumour",
    "savour",
    "splendour",
    "tumour",
    "valour",
    "vapour",
    "vigour",
)

_ISE_STEMS = (
    "author",
    "capital",
    "categor",
    "central",
    "character",
    "critic",
    "custom",
    "digit",
    "emphas",
    "familiar",
    "final",
    "general",
    "global",
    "initial",
    "internal",
    "local",
    "maxim",
    "memor",
    "minim",
    "modern",
    "normal",
    "optim",
    "organ",
    "parallel",
    "parameter",
    "priorit",
    "random",
    "real",
    "recogn",
    "serial",
    "special",
    "stabil",
    "standard",
    "summar",
    "symbol",
    "synchron",
    "token",
    "util",
    "vector",
    "virtual",
    "visual",
)

_WORDS = {
    "centre": "center",
    "centres": "centers",
    "centred": "centered",
    "centring": "centering",
    "metre": "meter",
    "metres": "meters",
    "litre": "liter",
    "litres": "liters",
    "fibre": "fiber",
    "fibres": "fibers",
    "grey": "gray",
    "greys": "grays",
    "catalogue": "catalog",
    "catalogues": "catalogs",
    "dialogue": "dialog",
    "dialogues": "dialogs",
    "analogue": "analog",
    "licence": "license",
    "licences": "licenses",
    "defence": "defense",
    "offence": "offense",
    "programme": "program",
    "programmes": "programs",
    "judgement": "judgment",
    "acknowledgement": "acknowledgment",
    "analyse": "analyze",
    "analysed": "analyzed",
    "analysing": "analyzing",
    "analyser": "analyzer",
    "paralyse": "paralyze",
    "catalyse": "catalyze",
}
for _stem in ("model", "label", "cancel", "travel", "signal", "level", "total", "channel", "tunnel", "marshal", "fuel"):
    _WORDS.update({f"{_stem}led": f"{_stem}ed", f"{_stem}ling": f"{_stem}ing"})

_OUR = re.compile("^(" + "|".join(_OUR_ROOTS) + ")")
_ISE = re.compile("^(" + "|".join(_ISE_STEMS) + ")is(e|es|ed|ing|er|ers|ation|ations)$")


def american(word: str) -> str:
    """``word`` (lowercase) in American spelling; unchanged when no mapping applies."""
    mapped = _WORDS.get(word)
    if mapped is not None:
        return mapped
    root = _OUR.match(word)
    if root:
        return root.group(1)[:-2] + "r" + word[root.end() :]  # colour -> color, -ed/-s/-map kept
    ise = _ISE.match(word)
    if ise:
        return f"{ise.group(1)}iz{ise.group(2)}"
    return word

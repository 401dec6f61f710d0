"""What a caption looks like: "Figure 3", "Table II.", "Fig. 2.1" opening a line (or "Abbildung 3",
"Tableau 2", "图 1": ``docgraph.ingest.labels``).

``CAPTION_RE`` matches a caption label; ``CAPTION_DELIMITER_RE`` one followed by its delimiter and
text ("Table 2: Results"), which alone is enough to call a line a caption; ``PROSE_AFTER_LABEL_RE``
one followed by a verb ("Table 2 lists ..."), which is prose.
"""

from __future__ import annotations

import re

from docgraph.ingest.labels import (
    CJK_FIGURE,
    CJK_TABLE,
    FIGURE_CAPTION_WORDS,
    NUMBER_END,
    TABLE_CAPTION_WORDS,
    caption_word_pattern,
)

_ENGLISH = (
    r"(?:(?:Figure|FIGURE|Table|TABLE|Listing|LISTING|Algorithm|ALGORITHM|Chart|Exhibit|Plate|Scheme)\s+"
    r"|(?:Fig|FIG|Tab|TAB)\.\s*)"
    r"(?:(?:[A-Z]\.?)?\d+(?:[.\-–]\d+)*|[IVXL]{1,6}\b)"  # "TABLE II." (REVTeX, IEEE)
)
# Other languages' words may begin an English line ("Tableau 10.5 - ...", "Quadro 4000: ..."): their
# number has at most three digits a part, and a delimiter that is no hyphen and no decimal point.
_OTHER = (
    rf"(?:{caption_word_pattern(FIGURE_CAPTION_WORDS + TABLE_CAPTION_WORDS)}|(?:{CJK_FIGURE}|{CJK_TABLE})\s*)"
    rf"(?:(?:[A-Z]\.?)?\d{{1,3}}(?:[.\-–]\d{{1,3}})*[a-z]?{NUMBER_END}|[IVXL]{{1,6}}\b)"  # "Tabelle A.1", "3a"
)
CAPTION_RE = re.compile(rf"^\s*(?:{_ENGLISH}|{_OTHER})")
# "Table 3.2 lists every key ...": a sentence about the table, its verb after the label, however near
# ("Figure 3 a) intake", "Fig. 2 pH dependence", "Table 1 mRNA primers" are captions)
_VERBS = (
    r"shows?|lists?|gives?|presents?|illustrates?|summari[sz]es|contains?|compares?|depicts?|displays?"
    r"|describes?|provides?|plots?|reports?|demonstrates?|indicates?|outlines?|is|are|was|were|has|also"
)
PROSE_AFTER_LABEL_RE = re.compile(rf"^\s*(?:{_ENGLISH}|{_OTHER})\s+(?:{_VERBS})\b")
# (a point or dash before a digit goes on with the number: "Table 3.2 lists" is no "Table 3." caption)
CAPTION_DELIMITER_RE = re.compile(rf"^\s*(?:{_ENGLISH}\s*(?:[:—]|[.\-–](?!\d))|{_OTHER}\s*(?:[:–—：]|\.(?!\d)))\s*\S")

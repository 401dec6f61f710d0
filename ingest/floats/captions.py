"""What a caption looks like: "Figure 3", "Table II.", "Fig. 2.1" opening a line (or "Abbildung 3",
"Tableau 2", "图 1": ``docgraph.ingest.labels``).

``CAPTION_RE`` matches a caption label; ``CAPTION_DELIMITER_RE`` one followed by its delimiter and
text ("Table 2: Results"), which alone is enough to call a line a caption.
"""

from __future__ import annotations

import re

from docgraph.ingest.labels import (
    CJK_FIGURE,
    CJK_TABLE,
    FIGURE_CAPTION_WORDS,
    TABLE_CAPTION_WORDS,
    caption_word_pattern,
)

_OTHER_LANGUAGES = caption_word_pattern(FIGURE_CAPTION_WORDS + TABLE_CAPTION_WORDS)
CAPTION_RE = re.compile(
    r"^\s*(?:(?:Figure|FIGURE|Table|TABLE|Listing|LISTING|Algorithm|ALGORITHM|Chart|Exhibit|Plate|Scheme)\s+"
    rf"|(?:Fig|FIG|Tab|TAB)\.\s*|{_OTHER_LANGUAGES}|(?:{CJK_FIGURE}|{CJK_TABLE})\s*)"
    r"(?:(?:[A-Z]\.?)?\d+(?:[.\-–]\d+)*|[IVXL]{1,6}\b)"  # "TABLE II." (REVTeX, IEEE)
)
CAPTION_DELIMITER_RE = re.compile(CAPTION_RE.pattern + r"\s*[:.\-–—：]\s*\S")

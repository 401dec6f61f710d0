"""What a caption looks like: "Figure 3", "Table II.", "Fig. 2.1" opening a line.

``CAPTION_RE`` matches a caption label; ``CAPTION_DELIMITER_RE`` one followed by its delimiter and
text ("Table 2: Results"), which alone is enough to call a line a caption.
"""

from __future__ import annotations

import re

CAPTION_RE = re.compile(
    r"^\s*(?:(?:Figure|FIGURE|Table|TABLE|Listing|LISTING|Algorithm|ALGORITHM|Chart|Exhibit|Plate|Scheme)\s+"
    r"|(?:Fig|FIG|Tab|TAB)\.\s*)(?:(?:[A-Z]\.?)?\d+(?:[.\-–]\d+)*|[IVXL]{1,6}\b)"  # "TABLE II." (REVTeX, IEEE)
)
CAPTION_DELIMITER_RE = re.compile(CAPTION_RE.pattern + r"\s*[:.\-–—]\s*\S")

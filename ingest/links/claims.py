"""A patent's claims, the targets of "claim 3": numbered paragraphs (or a list of them) after the
line or heading that opens them ("What is claimed is:", "Claims", "Patentansprüche").

A dependent claim names the claims it narrows ("The device of claim 3, wherein ...", "according to
any one of claims 1 to 3"), and users ask for claims by number. The claims are numbered in a series
of their own: "1." in the description is a list's first step, not claim 1, so only numbered text
after an opening counts, up to the next heading that opens something else. A European patent prints
its claims in three languages ("Claims", "Patentansprüche", "Revendications"): a claim refers to
the claim of its own set ("Verfahren nach Anspruch 1" to the German claim 1), the description and
a question to the first set's.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from docgraph.ingest.labels import CLAIMS_OPENING

# A claim opens with its number: "3. The device of claim 1, wherein ..."; a list holds one a line.
_CLAIM_NUMBER = re.compile(r"^(\d{1,3})\s?\.\s+(?=\S)", re.MULTILINE)
_CLAIM_KINDS = frozenset({"paragraph", "list"})
_ENDING_KINDS = frozenset({"section_header", "title"})  # a heading that does not open claims ends them


@dataclass(slots=True)
class Claims:
    """Claim number -> (rank, set, key) of each region that opens with it or, a list, holds an item
    that does; and the set (1, 2, ...) of each region inside the claims."""

    targets: dict[str, list[tuple[int, int, str]]] = field(default_factory=dict)
    set_of: dict[str, int] = field(default_factory=dict)


def claim_targets(regions: Iterable[tuple[str, str, str]]) -> Claims:
    """The claims among ``regions`` (key, kind, text), in document order."""
    claims = Claims()
    sets, inside = 0, False
    for key, kind, text in regions:
        if CLAIMS_OPENING.match(text):
            sets, inside = sets + 1, True
        elif kind in _ENDING_KINDS:
            inside = False
        elif inside and kind in _CLAIM_KINDS:
            claims.set_of[key] = sets
            found = _CLAIM_NUMBER.finditer(text) if kind == "list" else [_CLAIM_NUMBER.match(text)]
            for match in found:
                if match:
                    claims.targets.setdefault(match.group(1), []).append((0, sets, key))
    return claims

"""Following references at query time, for questions about what a passage refers to.

A reference question ("The binary files chapter points to the Connections chapter. Which function
opens a gzip-compressed file?") describes the region that makes a reference and asks about what
the reference points at. Its words match the referring region best, so that region's page ranks
first and the page it points at second or third. BookRAG classifies queries before retrieving;
here a rule does it (:func:`asks_about_reference`), and for such a question the pages the best few
hits refer to (their REF edges: "see page 26", "Section 2.1", a figure, a cited bibliography
entry) gain a share of the referring hit's score.

A referenced section lends the gain to every page it covers. Such questions are scored without page
lead-ins (``HybridRetriever.follows_references``). How the rule, the weight and the number of hits
followed were chosen: docs/experiments/retrieval-weights.md.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from docgraph.app.retrieval.base import ScoredRegion

# Phrases by which a question says that what it asks about is somewhere a passage points to. "see"
# counts only as a cross-reference ("see Section 4", "see also"), not as the verb. The last five
# alternatives name the target itself ("specified in Section 4.12", "read Chapter 3", "according to that
# table").
_TARGET = r"(?:section|chapter|appendix|table|figure|page|part)"
_REFERRAL = re.compile(
    r"\b(?:refers?|referr(?:ed|ing)|points?\s+(?:readers\s+)?to|pointed\s+to|cites?|cited|citing"
    r"|sends?\s+readers|defers?|deferred|see\s+(?:the\s+)?(?:also|section|chapter|page|figure|table|appendix)"
    r"|mentioned\s+in|as\s+previously\s+discussed"
    r"|(?:covered|discussed|described|explained|documented)\s+(?:in|under|later|elsewhere|further)"
    r"|further\s+on|later\s+(?:section|chapter)|another\s+page|elsewhere"
    rf"|pointing\s+(?:readers\s+)?to|(?:specified|given|listed|defined|detailed|shown)\s+in\s+{_TARGET}"
    rf"|read\s+{_TARGET}|(?:according\s+to|in)\s+th(?:at|is|ose)\s+{_TARGET})\b",
    re.IGNORECASE,
)

# A cross-reference label the question names: "Section 7", "Subsection 6.1", "Appendix C",
# "equation (7)", "step 3". A question that names such a label asks about what a passage labels
# that way, whatever verb it uses. Tables and figures are left out: "In
# Table 2, ..." names where a table question's answer is, and the kind bonus handles that.
_LABEL = re.compile(
    r"\b(?i:(?:sub)?sections?|chapters?|appendix|appendices|equations?|steps?)\s+(?:\d+(?:\.\d+)*\b|\(\d+\)|[A-Z]\b)"
    r"|\b(?i:equation)\(\d+\)"  # the spaced "equation (7)" is the first alternative's
)

ReferencesOf = Callable[[str], frozenset[int]]  # region id -> the pages it refers to


def describes_referral(question: str) -> bool:
    """Whether the question says that a passage refers somewhere ("Section 2.2 defers ... to a later
    section"): a part it names may then be where the reference is made, not where the answer is."""
    return _REFERRAL.search(question) is not None


def asks_about_reference(question: str) -> bool:
    """Whether the question asks about something a passage refers to: it says that a passage
    refers somewhere, or it names a section, appendix, equation or step by its label."""
    return describes_referral(question) or _LABEL.search(question) is not None


def follow_references(
    hits: list[ScoredRegion], references: ReferencesOf, weight: float, hops: int
) -> list[ScoredRegion]:
    """``hits`` (best first) re-ranked: every hit on a page that one of the best ``hops`` hits refers
    to gains ``weight`` x that hit's score (the largest such gain, once), recorded as the
    ``reference`` signal. The referring hits keep their own scores."""
    gains: dict[tuple[str, int], float] = {}
    for hit in hits[:hops]:
        for page in references(hit.region_id):
            if page != hit.page:
                key = (hit.doc_id, page)
                gains[key] = max(gains.get(key, 0.0), weight * hit.score)
    if not gains:
        return hits
    for hit in hits:
        gain = gains.get((hit.doc_id, hit.page), 0.0)
        if gain:
            hit.score += gain
            hit.signals["reference"] = gain
    return sorted(hits, key=lambda h: -h.score)

"""The numbered items of a part that a reference names: a schedule's paragraphs "1.", "2.", "3."
(read as one list, the schedule's only region) named "paragraph 3 of Schedule 2", and a planning
report's conditions under "Appendix B – Recommended conditions" named "condition 9". The item is
no section of its own: its target is the region that holds it, not the whole part.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from docgraph.ingest.links.notes import entry_numbers
from docgraph.ingest.structure.ids import PlacedRegion
from docgraph.ingest.structure.sections import SectionTree
from docgraph.records import EdgeRecord

ITEM_KINDS = frozenset({"paragraph", "list"})
# "condition 9", "conditions 3 and 14" as a decision's text names its conditions; not "condition
# 9.2" nor "9,000". Only where a heading says conditions: elsewhere "condition 2" is a word.
_CONDITION = re.compile(r"\b[Cc]onditions?\s+(\d{1,3})(?![\w.,]\d|\w)((?:(?:,\s*|\s+(?:and|or)\s+)\d{1,3}\b)*)")
CONDITIONS_TITLE = re.compile(r"\bconditions\b", re.IGNORECASE)

Items = dict[str, dict[str, str]]  # section key -> item number -> key of the region that holds it


def section_items(placed: Iterable[PlacedRegion], tree: SectionTree, key_of: Callable[[int], str]) -> Items:
    """Each section's numbered items: the paragraphs and lists right under it whose lines open with
    a whole number ("3. The Tenant shall pay ..."), the first region holding each number."""
    items: Items = {}
    for pr in placed:
        owner = tree.owner.get(pr.key)
        if owner is None or pr.region.kind not in ITEM_KINDS:
            continue
        numbered = items.setdefault(key_of(owner), {})
        for number in entry_numbers(pr.region.text):
            numbered.setdefault(str(number), pr.key)
    return items


def condition_edges(
    placed: Iterable[PlacedRegion], tree: SectionTree, items: Items, key_of: Callable[[int], str]
) -> list[EdgeRecord]:
    """REF edges from each region that names a condition by number ("subject to condition 9") to
    the region holding that entry (of the sections' ``items``) under a heading of conditions, where
    the document has one."""
    conditions: dict[str, str] = {}
    for section in (s for s in tree.sections if CONDITIONS_TITLE.search(s.title)):
        for number, region in items.get(key_of(section.index), {}).items():
            conditions.setdefault(number, region)
    edges: list[EdgeRecord] = []
    for pr in placed if conditions else ():
        targets: set[str] = set()
        for number in _named_conditions(pr.region.text) if pr.region.kind in ITEM_KINDS else ():
            target = conditions.get(number)
            if target is not None and target != pr.key and target not in targets:
                targets.add(target)
                props = {"label": f"Condition {number}", "kind": "condition"}
                edges.append(EdgeRecord("REF", "Region", pr.key, "Region", target, props))
    return edges


def _named_conditions(text: str) -> list[str]:
    """The condition numbers ``text`` names, in order: "conditions 3 and 14" names both."""
    found: list[str] = []
    for match in _CONDITION.finditer(text):
        found += [match.group(1), *re.findall(r"\d{1,3}", match.group(2))]
    return found

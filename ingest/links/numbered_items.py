"""The numbered items of a part that a reference names: a schedule's paragraphs "1.", "2.", "3."
(read as one list, the schedule's only region) named "paragraph 3 of Schedule 2". The item is no
section of its own: its target is the region that holds it, not the whole part.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from docgraph.ingest.links.notes import entry_numbers
from docgraph.ingest.structure.ids import PlacedRegion
from docgraph.ingest.structure.sections import SectionTree

ITEM_KINDS = frozenset({"paragraph", "list"})
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

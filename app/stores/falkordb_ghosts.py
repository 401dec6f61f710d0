"""Ghost nodes in a FalkorDB 4.16 graph: finding them, and clearing them.

A ghost is a deleted node that a label scan still lists: FalkorDB 4.16 skipped the label matrices
it had not resized since the graph grew (FalkorDB#2103; docgraph's writes now resize them first,
see cypher/falkordb/resize_label_matrix.cypher). Reading a ghost's attributes fails, returning it
crashes the server.

A ghost's id may since have gone to a new node, which then shows up under the ghost's labels too.
The repair clears each stale entry, with every label matrix resized first (in the same queries):

* an id a live node holds: give the node the label, then remove it again;
* a free id: FalkorDB hands new nodes the ids of deleted ones, so placeholder nodes carrying the
  ghost labels are created until they hold every such id, then deleted.
"""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING

from docgraph.app.stores.cypher import load, render
from docgraph.app.stores.falkordb_write import plain_labels, with_resized_labels
from docgraph.app.stores.records import render_nodes
from docgraph.errors import StoreError

if TYPE_CHECKING:
    from docgraph.app.stores.falkordb_store import FalkorDBStore

DIALECT = "falkordb"
FILLER_CHUNK = 5_000
# Replaying the repair from the append-only file need not hand the placeholders the same ids, so
# the repaired graph is saved as a snapshot straight away.
SNAPSHOT_TIMEOUT_S = 600.0


def ghost_ids(store: FalkorDBStore) -> dict[str, set[int]]:
    """Per label, the ids its label scan lists that are not nodes carrying that label."""
    ghosts: dict[str, set[int]] = {}
    for label in _labels(store):
        rows = store.read(render("label_ghost_ids", DIALECT, label=label), {"label": label})
        if rows:
            ghosts[label] = {int(row["id"]) for row in rows}
    return ghosts


def repair_ghosts(store: FalkorDBStore) -> dict[str, int]:
    """Clear every ghost; returns how many there were per label. Run it with nothing else writing."""
    ghosts = ghost_ids(store)
    if not ghosts:
        return {}
    labels = tuple(_labels(store))
    held = _live_ids(store, set().union(*ghosts.values()))
    for label, ids in ghosts.items():
        if ids & held:
            for step in ("add_label_by_id", "remove_label_by_id"):
                query = with_resized_labels(render(step, DIALECT, label=label), labels)
                store.write(query, {"ids": sorted(ids & held)})
    free = {label: ids - held for label, ids in ghosts.items() if ids - held}
    if free:
        _clear_free_ids(store, free, labels)
    left = ghost_ids(store)
    if left:
        counts = ", ".join(f"{label} {len(ids)}" for label, ids in left.items())
        raise StoreError(f"ghost nodes remain after the repair ({counts}); re-ingest into a new graph")
    if not store.snapshot(SNAPSHOT_TIMEOUT_S):
        raise StoreError("the ghost nodes are cleared, but the server could not save its data; save it yourself")
    return {label: len(ids) for label, ids in ghosts.items()}


def _clear_free_ids(store: FalkorDBStore, free: dict[str, set[int]], all_labels: tuple[str, ...]) -> None:
    marker = uuid.uuid4().hex
    labels = sorted(free)
    try:
        _take_over_ids(store, set().union(*free.values()), labels, marker)
    finally:
        # every placeholder carries every ghost label, so one label finds them all
        query = with_resized_labels(render("delete_repair_fillers", DIALECT, label=labels[0]), all_labels)
        store.write(query, {"marker": marker})


def _live_ids(store: FalkorDBStore, ids: set[int]) -> set[int]:
    return {int(row["id"]) for row in store.read(load("live_node_ids", DIALECT), {"ids": sorted(ids)})}


def _take_over_ids(store: FalkorDBStore, targets: set[int], labels: list[str], marker: str) -> None:
    """Create placeholders until they hold every id in ``targets``. The gaps below the highest node
    id are deleted ids waiting to be handed out again, so each round creates as many placeholders
    as there are gaps (FalkorDB hands out deleted ids first); none left means failure."""
    query = render_nodes("create_repair_fillers", DIALECT, tuple(labels))
    covered: set[int] = set()
    while not targets <= covered:
        span = store.read(load("node_id_range", DIALECT))[0]
        gaps = (int(span["highest"]) + 1 - int(span["nodes"])) if span["highest"] is not None else 0
        if gaps <= 0:
            raise StoreError(f"{len(targets - covered)} ghost ids could not be taken over; re-ingest into a new graph")
        rows = store.write(query, {"count": min(gaps, FILLER_CHUNK), "marker": marker})
        covered.update(targets.intersection(int(row["id"]) for row in rows))


def _labels(store: FalkorDBStore) -> list[str]:
    """The graph's labels that are plain identifiers (docgraph writes no others)."""
    return plain_labels(str(row["label"]) for row in store.read(load("list_labels", DIALECT)))

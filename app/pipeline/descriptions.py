"""Vision-model descriptions kept across a rebuild of their document.

``docgraph describe`` (a paid or slow model call per figure) writes a description, and an embedding
that includes it, onto stored regions. A rebuild of the same file (``--force``, another reader or
release) writes new nodes: each region that is the same as a described one (page, kind, box to
0.1 pt, text) takes its description and that embedding along, and the document its count of
described regions. Another file (a new edition may put a new chart in the old one's box) or another
encoder (the embedding would be another model's) takes none: ``docgraph describe`` does them anew.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from docgraph.app.stores.base import GraphStore
from docgraph.app.stores.cypher import load
from docgraph.records import BUILD_SEPARATOR, ENCODER_BUILD_PREFIX, GraphBatch

RegionKey = tuple[int, str, tuple[float, ...], str]


def carry_descriptions(store: GraphStore, batch: GraphBatch) -> int:
    """Set the stored descriptions on the batch's matching regions; how many were carried."""
    rows = store.read(load("stored_region_descriptions", store.dialect), {"doc_id": batch.doc_id})
    if not rows or rows[0]["sha256"] != batch.sha256 or _encoder(str(rows[0]["build"])) != _encoder(batch.build):
        return 0
    stored = {_key(row): row for row in rows}
    carried = 0
    for node in batch.nodes:
        row = stored.get(_key(node.props)) if node.label == "Region" else None
        if row is None:
            continue
        node.props["description"] = str(row["description"])
        if row.get("embedding") is not None:
            node.props["embedding"] = np.asarray(row["embedding"], dtype=np.float32)
        carried += 1
    for node in batch.nodes:
        if node.label == "Document" and carried:
            node.props["described"] = carried
    return carried


def _encoder(build: str) -> list[str]:
    return [part for part in build.split(BUILD_SEPARATOR) if part.startswith(ENCODER_BUILD_PREFIX)]


def _key(props: Any) -> RegionKey:
    bbox = props.get("bbox") or []
    return (
        int(props.get("page") or 0),
        str(props.get("kind") or ""),
        tuple(round(float(value), 1) for value in bbox),
        str(props.get("text") or ""),
    )

"""The other graphs of a FalkorDB server that hold documents: where a user whose graph holds none
(a mistyped graph name reads a new, empty graph) may have meant to look."""

from __future__ import annotations

from difflib import SequenceMatcher

import redis
from falkordb import FalkorDB

from docgraph.app.stores.cypher import load

GRAPHS_LOOKED_AT = 50  # a query each


def graphs_with_documents(db: FalkorDB, graph_name: str, limit: int = GRAPHS_LOOKED_AT) -> list[str]:
    """The server's graphs other than ``graph_name`` that hold documents, likeliest names first; the
    first ``limit`` names are looked at."""
    try:
        names = [str(name) for name in db.list_graphs() if str(name) != graph_name]
    except redis.RedisError:
        return []
    names.sort(key=lambda name: (-SequenceMatcher(None, name, graph_name).ratio(), name))
    found = []
    for name in names[:limit]:
        try:
            if db.select_graph(name).ro_query(load("any_document", "falkordb"), timeout=1000).result_set:
                found.append(name)
        except redis.RedisError:  # another user's graph this account may not read
            continue
    return found

